"""The Makefile's choice of PyTorch index, decided without downloading anything, and every
pip recipe of the docs installing CPU-only PyTorch before an extra that brings it."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "torch_index.py"
_spec = importlib.util.spec_from_file_location("torch_index", SCRIPT)
torch_index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(torch_index)


@pytest.mark.parametrize("choice, reachable, expected", [
    ("auto", True, ["--index-url", torch_index.CPU_INDEX]),
    ("auto", False, []),
    ("cpu", False, ["--index-url", torch_index.CPU_INDEX]),
    ("default", True, []),
    ("https://download.pytorch.org/whl/cu126", False,
     ["--index-url", "https://download.pytorch.org/whl/cu126"]),
])
def test_index_choice(choice, reachable, expected):
    probed = []

    def probe(url):
        probed.append(url)
        return reachable

    assert torch_index.pip_arguments(choice, probe) == expected
    assert probed == ([torch_index.CPU_INDEX] if choice == "auto" else [])


def test_unknown_choice_is_refused():
    with pytest.raises(ValueError, match="auto, cpu, default or an index URL"):
        torch_index.pip_arguments("gpu")
    result = subprocess.run([sys.executable, str(SCRIPT)], env={"TORCH_INDEX": "gpu"},
                            capture_output=True, text=True)
    assert result.returncode == 2 and "TORCH_INDEX='gpu'" in result.stderr


def test_an_unreachable_index_falls_back_quickly():
    assert not torch_index.answers("http://127.0.0.1:9", timeout=2.0)
    assert torch_index.PROBE_SECONDS <= 5


def test_the_makefile_installs_torch_through_the_choice():
    makefile = (ROOT / "Makefile").read_text()
    assert 'TORCH_ARGS="$$($(PYTHON) tools/torch_index.py)"' in makefile
    assert "pip install $$TORCH_ARGS torch==" in makefile



MAKE = shutil.which("make")


def _make_dry_run(folder: Path, target: str, made: tuple[str, ...] = ()) -> list[str]:
    """What ``make -n TARGET`` does in ``folder``, a copy of the Makefile and pyproject.toml
    whose stamps ``made`` exist: ``venv`` (creates it), ``torch``, ``extras a,b`` (installs
    the package with those extras), in order."""
    folder.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, folder / name)
    os.utime(folder / "pyproject.toml", (1_000_000_000, 1_000_000_000))  # older than stamps
    (folder / ".venv").mkdir()
    for stamp in made:
        (folder / ".venv" / stamp).touch()
    result = subprocess.run([MAKE, "-n", target], cwd=folder, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    steps = []
    for line in result.stdout.splitlines():
        extras = re.search(r'pip install -e "\.\[([a-z,]+)\]"', line)
        if " -m venv " in line:
            steps.append("venv")
        elif " torch==" in line:
            steps.append("torch")
        elif extras:
            steps.append(f"extras {extras.group(1)}")
    return steps


@pytest.mark.skipif(MAKE is None, reason="needs make")
def test_make_demo_installs_the_jax_extra_and_make_test_everything(tmp_path):
    fresh_test = _make_dry_run(tmp_path / "test", "test")
    assert fresh_test[:2] == ["venv", "torch"] and len(fresh_test) == 3
    everything = fresh_test[2]
    assert {"train", "dev", "render", "jax"} <= set(everything.split()[1].split(","))
    # a fresh clone's make demo: the venv and the jax extra, no PyTorch
    assert _make_dry_run(tmp_path / "demo", "demo") == ["venv", "extras jax"]
    # make demo, then make test: PyTorch and everything, into the same venv
    assert _make_dry_run(tmp_path / "demo_test", "test", (".created", ".installed-demo")) == [
        "torch", everything]
    # make test, then make demo: the jax extra (already there: pip only checks it)
    assert _make_dry_run(tmp_path / "test_demo", "demo",
                         (".created", ".torch", ".installed")) == ["extras jax"]
    # both done: nothing to install
    assert _make_dry_run(tmp_path / "done", "test", (".created", ".torch", ".installed")) == []


CPU_STEP = "--index-url https://download.pytorch.org/whl/cpu"
INSTALL = re.compile(r"pip install [^\n`|]*?\[([\w,]+)\]")
RECIPE_PAGES = [ROOT / "README.md", ROOT / "PYPI.md", *sorted((ROOT / "docs").glob("*.md")),
                *sorted((ROOT / "docs" / "games").glob("*.md"))]


def torch_extras() -> set[str]:
    """The extras of pyproject.toml that bring PyTorch, themselves or through another."""
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {extra: {re.match(r"[\w.\-]+(\[[\w,]+\])?", req).group(0).lower()
                     for req in reqs} for extra, reqs in extras.items()}
    bring = {extra for extra, reqs in names.items() if "torch" in reqs}
    while True:
        more = {extra for extra, reqs in names.items()
                if any(req.startswith("tris_envs[") and set(req[10:-1].split(",")) & bring
                       for req in reqs)} - bring
        if not more:
            return bring
        bring |= more


def recipe_units(text: str) -> list[str]:
    """The places one recipe is read in: each fenced code block, each table row, each
    paragraph."""
    units, paragraph, fence = [], [], None
    for line in text.splitlines():
        if fence is not None:
            fence.append(line)
            if line.startswith("```"):
                units.append("\n".join(fence))
                fence = None
        elif line.startswith("```"):
            units.append("\n".join(paragraph))
            paragraph, fence = [], [line]
        elif line.lstrip().startswith("|"):
            units.append(line)
        elif line.strip():
            paragraph.append(line)
        else:
            units.append("\n".join(paragraph))
            paragraph = []
    return [unit for unit in [*units, "\n".join(paragraph)] if unit]


def torch_first_problems(text: str, bring: set[str]) -> list[str]:
    """Each ``pip install ...[extra]`` of an extra in ``bring`` with no CPU-only PyTorch step
    before it in its code block, table row or paragraph."""
    problems = []
    for unit in recipe_units(text):
        for found in INSTALL.finditer(unit):
            if set(found.group(1).split(",")) & bring:
                before = unit[:found.start()]
                if CPU_STEP not in before and "CPU-only PyTorch" not in before:
                    problems.append(found.group(0))
    return problems


def test_the_extras_that_bring_torch_are_known():
    assert torch_extras() == {"train", "rllib", "tianshou", "torchrl"}


@pytest.mark.parametrize("page", RECIPE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pip_recipe_installs_cpu_only_torch_before_an_extra_that_brings_it(page):
    problems = torch_first_problems(page.read_text(encoding="utf-8"), torch_extras())
    assert not problems, f"{page.relative_to(ROOT)}: put `pip install torch {CPU_STEP}` first: " \
        f"{problems}"


@pytest.mark.parametrize(("text", "problems"), [
    ("```sh\npip install 'dist/x.whl[train]'\n```", ["pip install 'dist/x.whl[train]"]),
    (f"```sh\npip install torch {CPU_STEP}\npip install '.[train]'\n```", []),
    (f"pip install torch {CPU_STEP}\n\n```sh\npip install '.[train]'\n```",
     ["pip install '.[train]"]),
    ("| x | `pip install \"tris_envs[rllib]\"` |", ['pip install "tris_envs[rllib]']),
    ("| x | CPU-only PyTorch, then `pip install \"tris_envs[rllib]\"` |", []),
    ("`pip install 'tris_envs[dev,render]'` and `pip install \"tris_envs[jax]\"`", []),
], ids=["wheel alone", "torch first", "another block", "table row", "row with the step",
        "no torch"])
def test_the_recipe_check_finds_what_is_planted(text, problems):
    assert torch_first_problems(text, {"train", "rllib"}) == problems

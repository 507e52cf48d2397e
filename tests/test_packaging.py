"""Packaging: ``python -m tris_envs``, the version in one place, the sdist and the wheel.

The sdist is built with setuptools' own PEP 517 hooks (no ``build`` package needed) from a
copy of the project in a temporary folder, and the wheel from that sdist unpacked, as
``python -m build`` does: the checkout is left alone, and the wheel shows that the sdist is
enough to build it. Both take a few seconds.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from email.parser import Parser
from importlib.metadata import version
from pathlib import Path

import pytest

import tris_envs

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
# what the sdist's tests import besides the test modules, and the files it must ship
SDIST_FILES = ["LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "tests/conftest.py",
               "tests/checks.py", "tests/conformance/cases.py",
               "tests/conformance/test_rules.py", "tests/test_packaging.py",
               "tris_envs/__main__.py", "tris_envs/py.typed"]
# local state, never part of a build
_LOCAL = shutil.ignore_patterns(".git", ".venv", "runs", "build", "dist", "*.egg-info",
                                "__pycache__", ".*_cache", ".hypothesis", "_build")


def test_python_m_runs_the_command_line():
    result = subprocess.run([sys.executable, "-m", "tris_envs", "--help"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: tris-envs ")
    for command in ("play", "eval", "tournament", "replay", "bench", "watch"):
        assert command in result.stdout
    result = subprocess.run([sys.executable, "-m", "tris_envs"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "usage: tris-envs " in result.stderr


def test_version_is_the_installed_metadata():
    assert tris_envs.__version__ == version("tris_envs")
    assert "__version__" in tris_envs.__all__
    written = re.search(r'^version = "([^"]+)"$', PYPROJECT.read_text(), re.MULTILINE)
    assert written, "pyproject.toml writes no version"
    assert tris_envs.__version__ == written.group(1), (
        "the installed metadata is older than pyproject.toml: reinstall (pip install -e .)")


def test_importing_the_package_does_not_read_the_metadata(tmp_path):
    code = ("import sys, tris_envs; before = 'importlib.metadata' in sys.modules; "
            "v = tris_envs.__version__; print(before, v == tris_envs.__version__)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]


def _working_folders(module: Path) -> list[tuple[str, str]]:
    """``("name:line", text)`` of each folder a test module starts a command in (``cwd=``)
    or moves to (``chdir``), as written."""
    found = []
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        folders = [keyword.value for keyword in node.keywords if keyword.arg == "cwd"]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "chdir" and node.args:
            folders.append(node.args[0])
        found += [(f"{module.name}:{node.lineno}", ast.unparse(folder)) for folder in folders]
    return found


def test_no_test_runs_a_command_in_the_folder_above_the_checkout():
    """The folder above the checkout is the user's: with a clone named ``tris_envs`` in it,
    ``import tris_envs`` there finds the clone as a namespace package (no ``__version__``).
    A test runs its commands in the checkout, its tests folder or a temporary folder."""
    tests_folder = re.compile(r"Path\(__file__\)(\.resolve\(\))?\.parent")
    climbing = [f"{where}: {text}" for module in sorted((ROOT / "tests").rglob("test_*.py"))
                for where, text in _working_folders(module)
                if ".parent" in text and not tests_folder.fullmatch(text)]
    assert not climbing, climbing


@pytest.mark.slow
def test_the_tests_pass_in_a_clone_named_like_the_package(tmp_path):
    """What ``git clone`` gives a user: a checkout in a folder named ``tris_envs``, whose
    parent then holds a ``tris_envs`` folder that is no package."""
    if not (shutil.which("git") and (ROOT / ".git").exists()):
        pytest.skip("needs a git checkout")
    clone = tmp_path / "tris_envs"
    subprocess.run(["git", "clone", "--quiet", "--local", str(ROOT), str(clone)], check=True,
                   timeout=300)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p",
                             "no:cacheprovider", "tests/test_packaging.py"], cwd=clone,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:]


def _hook(hook: str, source: Path, out: Path) -> Path:
    """Runs setuptools' PEP 517 ``hook`` in ``source``, writing into ``out``; the file."""
    out.mkdir(parents=True, exist_ok=True)
    code = textwrap.dedent(f"""
        import sys
        from setuptools import build_meta
        print(build_meta.{hook}(sys.argv[1]))
    """)
    result = subprocess.run([sys.executable, "-c", code, str(out)], cwd=source,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{hook} failed:\n{result.stdout}\n{result.stderr}"
    return out / result.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sdist's and the wheel's file lists, and the wheel's METADATA."""
    pytest.importorskip("setuptools")
    base = tmp_path_factory.mktemp("packaging")
    project = base / "project"
    shutil.copytree(ROOT, project, ignore=_LOCAL)
    sdist = _hook("build_sdist", project, base / "dist")
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(base / "unpacked", **safe)
    top = sdist.name.removesuffix(".tar.gz")
    sdist_files = sorted(name.removeprefix(f"{top}/") for name in members)
    wheel = _hook("build_wheel", base / "unpacked" / top, base / "wheel")
    with zipfile.ZipFile(wheel) as archive:
        wheel_files = sorted(archive.namelist())
        metadata = archive.read(next(n for n in wheel_files
                                     if n.endswith(".dist-info/METADATA"))).decode()
    return sdist_files, wheel_files, metadata


def test_the_sdist_carries_the_license_and_what_its_tests_need(built):
    sdist_files, _, _ = built
    missing = [name for name in SDIST_FILES if name not in sdist_files]
    assert not missing, f"the sdist lacks {missing}"
    tests = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*.py")
             if "__pycache__" not in p.parts}
    assert tests <= set(sdist_files), f"the sdist lacks {sorted(tests - set(sdist_files))}"
    assert not [n for n in sdist_files if "__pycache__" in n or n.endswith(".pyc")]


def test_the_wheel_carries_the_license_and_the_package_data(built):
    _, wheel_files, metadata = built
    assert any(re.fullmatch(r"tris_envs-[^/]+\.dist-info/licenses/LICENSE", n)
               for n in wheel_files), "the wheel lacks LICENSE"
    for name in ("tris_envs/__main__.py", "tris_envs/py.typed",
                 "tris_envs/checkpoints/tant_fant.pt", "tris_envs/checkpoints/az_tris1.npz"):
        assert name in wheel_files
    # tris-envs train ppo --game <game>, train az --config <name> and --recipe <name> find
    # their configs and recipes inside the installed package
    configs = {p.relative_to(ROOT).as_posix()
               for folder in ("ppo/configs", "alphazero/configs", "alphazero/recipes")
               for p in (ROOT / "tris_envs" / folder).glob("*.toml")}
    assert {"tris_envs/alphazero/configs/demo.toml",
            "tris_envs/alphazero/recipes/az_tritoc.toml"} <= configs
    assert configs and configs <= set(wheel_files), sorted(configs - set(wheel_files))
    assert not [n for n in wheel_files if n.startswith("tests/")]
    assert "License-Expression: MIT" in metadata
    assert "License-File: LICENSE" in metadata
    assert f"Version: {tris_envs.__version__}" in metadata
    assert "Author: the tris_envs developers" in metadata
    for classifier in ("Programming Language :: Python :: 3.10",
                       "Programming Language :: Python :: 3.13",
                       "Topic :: Games/Entertainment :: Board Games"):
        assert f"Classifier: {classifier}" in metadata


LONG_DESCRIPTION = ROOT / "PYPI.md"
# the folders and files outside the package and tests/ that the tests read
READ_BY_TESTS = ["docs", "examples", "benchmarks", "tools", "training", "Makefile",
                 "README.md", "CHANGELOG.md"]


def _tracked(path: str) -> list[str]:
    """The files of ``path`` in the checkout that git tracks (all of them without git)."""
    if shutil.which("git") and (ROOT / ".git").exists():
        listed = subprocess.run(["git", "ls-files", "--", path], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.split()
        return [name for name in listed if (ROOT / name).exists()]
    target = ROOT / path
    files = [target] if target.is_file() else [p for p in target.rglob("*") if p.is_file()]
    return [p.relative_to(ROOT).as_posix() for p in files
            if "__pycache__" not in p.parts and "_build" not in p.parts]


def test_the_sdist_carries_what_its_tests_read(built):
    names = built[0]
    for path in READ_BY_TESTS:
        files = _tracked(path)
        assert files, f"{path} is missing from the checkout"
        missing = sorted(set(files) - set(names))
        assert not missing, f"the sdist lacks {missing[:5]} ({len(missing)} files of {path})"
    assert not [n for n in names if n.startswith("docs/_build/") or n.endswith(".pyc")]


def test_the_long_description_is_pypi_md(built):
    assert re.search(r'^readme = "PYPI\.md"', (ROOT / "pyproject.toml").read_text(),
                     re.MULTILINE)
    message = Parser().parsestr(built[2])
    assert message["Description-Content-Type"] == "text/markdown"
    assert message.get_payload().strip() == LONG_DESCRIPTION.read_text().strip()


def test_the_long_description_starts_with_pip_install_and_needs_no_repository():
    text = LONG_DESCRIPTION.read_text()
    first_code = re.search(r"```\w*\n(.*?)\n", text)
    assert first_code and first_code.group(1).startswith("pip install tris_envs"), (
        "PYPI.md's first code block must install the package")
    assert "make " not in text.split("\n## ")[0], "make is for a checkout, not for pip users"
    targets = re.findall(r"\]\(([^)]*)\)", text) + re.findall(r"<img[^>]*src=\"([^\"]*)", text)
    relative = [t for t in targets if not t.startswith(("https://", "http://"))]
    assert not relative, f"PYPI.md has links or pictures relative to the repository: {relative}"
    assert "<img" not in text and "![" not in text, "no pictures until they have an address"
    for name in re.findall(r"`(docs/[\w/.]+)`", text):
        assert (ROOT / name).exists(), name

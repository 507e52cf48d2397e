"""The sdist a tester unpacks (its tests need the files they read) and the long description
a package index shows (PYPI.md: pip install first, no links or pictures that need the
repository)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
from email.parser import Parser

import pytest
from test_packaging import _LOCAL, ROOT, _hook

LONG_DESCRIPTION = ROOT / "PYPI.md"
# the folders and files outside the package and tests/ that the tests read
READ_BY_TESTS = ["docs", "examples", "benchmarks", "tools", "training", "Makefile",
                 "README.md", "CHANGELOG.md"]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> tuple[list[str], str]:
    """The sdist's file names (without its top folder) and its PKG-INFO."""
    pytest.importorskip("setuptools")
    base = tmp_path_factory.mktemp("sdist")
    project = base / "project"
    shutil.copytree(ROOT, project, ignore=_LOCAL)
    built = _hook("build_sdist", project, base / "dist")
    with tarfile.open(built) as archive:
        top = built.name.removesuffix(".tar.gz")
        names = [n.removeprefix(f"{top}/") for n in archive.getnames()]
        info = archive.extractfile(f"{top}/PKG-INFO")
        assert info is not None
        return names, info.read().decode()


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


def test_the_sdist_carries_what_its_tests_read(sdist):
    names, _ = sdist
    for path in READ_BY_TESTS:
        files = _tracked(path)
        assert files, f"{path} is missing from the checkout"
        missing = sorted(set(files) - set(names))
        assert not missing, f"the sdist lacks {missing[:5]} ({len(missing)} files of {path})"
    assert not [n for n in names if n.startswith("docs/_build/") or n.endswith(".pyc")]


def test_the_long_description_is_pypi_md(sdist):
    _, pkg_info = sdist
    assert re.search(r'^readme = "PYPI\.md"', (ROOT / "pyproject.toml").read_text(),
                     re.MULTILINE)
    message = Parser().parsestr(pkg_info)
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

"""Sphinx configuration of the tris_envs documentation (MyST Markdown, furo theme).

Build: ``make docs`` (``sphinx-build -W --keep-going docs docs/_build/html``). The game
pictures are drawn by the package's own renderer at every build (``make_pictures.py``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # the package, also without an installed copy

import make_pictures  # noqa: E402

project = "tris_envs"
author = "tris_envs contributors"
copyright = "tris_envs contributors"  # noqa: A001

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    # the round-robin tables next to their heat maps are included by results.md, not pages
    "results/*.md",
    # the table of tris-envs baselines, included by baselines.md
    "results/baselines/*.md",
]

# MyST: anchors for "#section" links, ::: fences, $...$ never used
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# autodoc + napoleon (Google-style docstrings)
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
# the PPO agent imports these lazily; mocking keeps the build light where they are absent
autodoc_mock_imports = ["torch", "stable_baselines3", "sb3_contrib"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# The state classes (NamedTuples, dataclasses) list their fields in an "Attributes:" section
# and autodoc documents the same fields again; as :ivar: fields the section is not a second
# description of each attribute (otherwise: "duplicate object description" warnings).
napoleon_use_ivar = True

html_theme = "furo"
html_title = "tris_envs"
html_static_path: list[str] = []
html_show_sourcelink = False
# no web fonts, no analytics: the site works offline
html_theme_options = {"navigation_with_keys": True}


def _pictures(app: object) -> None:
    """Draw the game pictures and the layers of the architecture page (from the table the
    layer check reads, ``tools/import_graph.py``) before the pages that show them are read."""
    make_pictures.main(HERE / "pictures")
    package = importlib.util.find_spec("tris_envs")
    path = Path(package.origin if package and package.origin else HERE.parent / "tris_envs"
                ).resolve().parents[1] / "tools" / "import_graph.py"
    spec = importlib.util.spec_from_file_location("import_graph", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"the layer table is missing: no {path}")
    graph = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = graph          # its dataclass looks its module up there
    spec.loader.exec_module(graph)
    (HERE / "pictures" / "layers.svg").write_text(graph.layers_svg())


NAVIGATION = re.compile(r"^<!-- navigation:.*?\n\n(.*?)\n-->$", re.DOTALL | re.MULTILINE)
"""The HTML comment in which ``index.md`` keeps its toctrees: hidden where the repository
shows the file, read by Sphinx through :func:`_navigation`."""


def _navigation(app: object, docname: str, source: list[str]) -> None:
    """Unwrap the toctrees of ``index.md`` from their HTML comment before MyST reads it."""
    if docname == "index":
        source[0], found = NAVIGATION.subn(r"\1", source[0])
        if not found:
            raise RuntimeError("docs/index.md lost its <!-- navigation: ... --> comment")


def setup(app):  # noqa: ANN001, ANN201 - Sphinx's extension hook
    app.connect("builder-inited", _pictures)
    app.connect("source-read", _navigation)
    return {"parallel_read_safe": True}

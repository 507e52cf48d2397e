"""The import edges of a package: its circles and its upward imports.

Usage::

    python tools/import_graph.py              # tris_envs: edges, circles, upward imports
    python tools/import_graph.py --top-level  # only imports run when a module is imported
    python tools/import_graph.py --dot > imports.dot   # a drawing (Graphviz)
    python tools/import_graph.py --check      # only the problems (make lint)
    python tools/import_graph.py --lazy       # only the lazy imports that defer nothing
    python tools/import_graph.py --svg > layers.svg    # the layers as a picture

An *edge* ``a -> b`` is an ``import`` or ``from ... import`` in module ``a`` whose target is
module ``b`` of the package (``from p import name`` is an edge to ``p.name`` when that is a
module, else to ``p``). Imports inside functions (lazy ones) are edges too, marked ``lazy``
(``--top-level`` leaves them out); imports under ``if TYPE_CHECKING:`` are not (they never
run). A package's ``__init__`` is the module of the package's own name.

A *circle* is a set of modules that import each other, directly or through others (a
strongly connected component of more than one module, or a module importing itself).

**Layers**, lowest first (:data:`LAYERS`, each with its role; ``--svg`` draws them, the
documentation's architecture page shows that drawing): a module may import its own layer
and the ones below it; an *upward* import reaches a higher layer.

The package ``tris_envs`` itself (its ``__init__``) and modules no layer names are in the top
layer.

A *private import* is an import of a dependency's private path (a module or name of
another package with a part that starts with one underscore: ``mctx._src.search``,
``from pgx._src import games``), in any Python file of :data:`CHECKED`: a release may
rename it without notice. Every report lists them.

A *lazy import* (one inside a function) is kept only where it keeps a package out of its
module's import: an optional extra, a third-party package of ``pyproject.toml``'s
``[project.optional-dependencies]`` (read from there, the one list; :data:`IMPORT_NAMES`
where a distribution's import name is not its own), or one of the few other modules of
:data:`DEFERRED`, each with its reason; or a module of the package whose top-level imports
reach one of these that the importing module's own do not. Any other lazy import is
*flagged*: it belongs at the module's top. ``--lazy`` lists the flagged ones.

``--check`` prints only the problems and the summary lines, the flagged lazy imports
included (``make lint`` runs it). Exits with 1 when it finds a circle, an upward import, a
private import or (``--check``, ``--lazy``) a flagged lazy import, else 0.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "tris_envs"

CHECKED = ("tris_envs", "tests", "examples", "benchmarks", "training", "tools", "docs")
"""The folders of the checkout whose Python files may import no dependency's private path."""

LAYERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("core", "settings", "machine", "progress", "durable"),
     "the rules core, the solver, options, errors; typed settings; the machine a run is on; "
     "progress lines; files a kill cannot tear"),
    (("games",), "the five games and their registry"),
    (("agents",), "the agents that play the rules core: scripted, searches, solver, ppo, az"),
    (("jax", "envs", "registration", "tris1_v0", "tris2_v0", "tant_fant_v0", "tritoc_v0",
      "doppia_scelta_v0"),
     "the JAX games; the PettingZoo and Gymnasium adapters and their registration"),
    (("evaluation", "distributed"),
     "matches, tournaments, records, ratings, metrics; Ray sessions"),
    (("ppo", "alphazero", "integrations"),
     "the learners (PPO, AlphaZero); RLlib, OpenSpiel"),
)
"""``(subpackages and modules of PACKAGE, role)`` by layer, lowest first; everything else
is in the top layer, :data:`TOP`."""
TOP = "the applications: cli, bench, web, play, watch, replay and the rest"

IMPORT_NAMES: dict[str, tuple[str, ...]] = {
    "open-spiel": ("open_spiel", "pyspiel"),       # one distribution, two top-level modules
    "pytest-xdist": ("xdist",),
}
"""The top-level modules of an optional extra's distribution (by its normalized name) where
they are not its name with ``_`` for ``-`` (``stable-baselines3``: ``stable_baselines3``)."""

LIGHT = ("a dependency that neither ``import tris_envs`` nor ``tris-envs --help`` imports "
         "(tests/test_gym_registration.py, tests/test_ansi_colors_and_import_cost.py)")
DEFERRED: dict[str, str] = {
    "gymnasium": LIGHT,
    "pettingzoo": LIGHT,
    "importlib.metadata": "about 25 ms, read on the first use of tris_envs.__version__, not "
                          "by ``import tris_envs``",
    "fcntl": "POSIX only: durable.exclusive takes no lock where it is missing (Windows)",
    "readline": "not on Windows; importing it gives input() line editing, wanted only where "
                "a person types the moves",
}
"""The modules besides the optional extras that a lazy import may keep out of its module's
import, each with the reason."""


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``line``; ``lazy``: inside a function."""

    source: str
    target: str
    line: int
    lazy: bool


def modules(package_dir: Path) -> dict[str, Path]:
    """Every module of the package by dotted name (``pkg.sub`` for ``pkg/sub/__init__.py``)."""
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def edges(package_dir: Path, package: str = PACKAGE, top_level: bool = False) -> list[Edge]:
    """The import edges between the package's modules, in module and line order."""
    known = modules(package_dir)
    found: set[Edge] = set()
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), str(path))
        for node, lazy in _imports(tree.body, lazy=False):
            if lazy and top_level:
                continue
            for target in _targets(node, name, is_package, known):
                if target != name or isinstance(node, ast.Import):
                    found.add(Edge(name, target, node.lineno, lazy))
    return sorted(found, key=lambda e: (e.source, e.line, e.target))


def _imports(body: Iterable[ast.AST],
             lazy: bool) -> Iterable[tuple[ast.Import | ast.ImportFrom, bool]]:
    """The import statements of ``body`` and its nested blocks; ``lazy`` inside a function.
    Blocks under ``if TYPE_CHECKING:`` are skipped."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, lazy
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _imports(node.orelse, lazy)
            continue
        inner = lazy or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                yield from _imports((n for n in block if isinstance(n, ast.AST)), inner)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
             known: dict[str, Path]) -> list[str]:
    """The package's modules one import statement names."""
    if isinstance(node, ast.Import):
        return [t for alias in node.names if (t := _known_prefix(alias.name, known))]
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        anchor = parts if is_package else parts[:-1]
        anchor = anchor[:len(anchor) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
    targets = []
    for alias in node.names:
        full = f"{base}.{alias.name}"
        target = full if full in known else _known_prefix(base, known)
        if target:
            targets.append(target)
    return targets


def _known_prefix(dotted: str, known: dict[str, Path]) -> str | None:
    """``dotted`` or its longest prefix that is a module of the package."""
    parts = dotted.split(".")
    while parts:
        name = ".".join(parts)
        if name in known:
            return name
        parts.pop()
    return None


def private_imports(root: Path, folders: Sequence[str] = CHECKED,
                    package: str = PACKAGE) -> list[tuple[Path, int, str]]:
    """``(file, line, dotted name)`` of every import of another package's private path in
    the Python files under ``root``'s ``folders`` (relative imports are the file's own
    package's)."""
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node, _ in _imports(tree.body, lazy=False):
                if isinstance(node, ast.ImportFrom) and (node.level or not node.module):
                    continue
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [f"{node.module}.{alias.name}" for alias in node.names])
                for name in names:
                    parts = name.split(".")
                    if parts[0] != package and any(
                            part.startswith("_") and not part.startswith("__")
                            for part in parts):
                        found.append((path, node.lineno, name))
    return found


def optional_extras(pyproject: Path) -> set[str]:
    """The top-level modules of the third-party packages of ``pyproject``'s
    ``[project.optional-dependencies]`` (none when the file is missing)."""
    if not pyproject.is_file():
        return set()
    try:
        import tomllib
    except ModuleNotFoundError:           # Python 3.10
        import tomli as tomllib
    project = tomllib.loads(pyproject.read_text())["project"]
    own = _normalized(project["name"])
    found = set()
    for requirements in project.get("optional-dependencies", {}).values():
        for requirement in requirements:
            name = _normalized(re.split(r"[\s\[<>=!~;(@]", requirement.strip(), maxsplit=1)[0])
            if name != own:
                found.update(IMPORT_NAMES.get(name, (name.replace("-", "_"),)))
    return found


def _normalized(distribution: str) -> str:
    """A distribution's name as the package index compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


@dataclass(frozen=True)
class LazyImport:
    """An import inside a function, at ``path:line``, of ``name`` (the package's modules it
    imports, else the module ``import`` or ``from`` names); ``defers``: the optional extras
    and :data:`DEFERRED` modules it keeps out of its module's import (none: flagged)."""

    path: Path
    line: int
    name: str
    defers: tuple[str, ...]


def lazy_imports(package_dir: Path, package: str = PACKAGE,
                 deferred: Collection[str] | None = None) -> list[LazyImport]:
    """Every lazy import of the package, in module and line order, with what it defers.

    ``deferred``: the modules a lazy import may keep out (default: the optional extras of
    the ``pyproject.toml`` beside ``package_dir``, and :data:`DEFERRED`). A package module
    reaches what its top-level imports reach, its parent packages' included (importing
    ``a.b`` runs ``a`` first)."""
    if deferred is None:
        deferred = optional_extras(package_dir.parent / "pyproject.toml") | set(DEFERRED)
    known = modules(package_dir)
    inner: dict[str, set[str]] = {name: set() for name in known}   # top-level edges, parents
    direct: dict[str, set[str]] = {name: set() for name in known}  # deferred ones, top level
    found: list[tuple[str, Path, int, str, set[str], list[str]]] = []
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        parent = name.rpartition(".")[0]
        if parent in known:
            inner[name].add(parent)
        tree = ast.parse(path.read_text(), str(path))
        for node, lazy in _imports(tree.body, lazy=False):
            targets = _targets(node, name, is_package, known)
            outside = {d for n in _external_names(node, package) for d in deferred
                       if n == d or n.startswith(d + ".")}
            if lazy:
                found.append((name, path, node.lineno,
                              ", ".join(dict.fromkeys(targets)) or _imported(node),
                              outside, targets))
            else:
                inner[name].update(t for t in targets if t != name)
                direct[name] |= outside
    reach: dict[str, set[str]] = {}
    for name in known:
        seen, todo = {name}, [name]
        while todo:
            for nxt in inner[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        reach[name] = set().union(*(direct[m] for m in seen))
    result = []
    for name, path, line, imported, outside, targets in found:
        wanted = outside.union(*(reach[t] for t in targets))
        result.append(LazyImport(path, line, imported, tuple(sorted(wanted - reach[name]))))
    return result


def _external_names(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The dotted names of other packages one import statement may import (``from a
    import b``: ``a`` and ``a.b``, ``b`` may be a module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.level or not node.module:
        return []
    else:
        names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return [n for n in names if n.split(".")[0] != package]


def _imported(node: ast.Import | ast.ImportFrom) -> str:
    """The other packages' modules an import statement names."""
    if isinstance(node, ast.Import):
        return ", ".join(alias.name for alias in node.names)
    return node.module or ""


def lazy_report(found: Sequence[LazyImport], root: Path) -> tuple[str, bool]:
    """The flagged lazy imports and a summary line, and whether any is flagged."""
    flagged = [f for f in found if not f.defers]
    lines = [f"lazy: {f.path.relative_to(root)}:{f.line} imports {f.name}, which defers no "
             "optional extra: import it at the module's top" for f in flagged]
    lines.append(f"{len(found)} lazy imports; {len(found) - len(flagged)} defer an optional "
                 f"extra; {len(flagged)} flagged")
    return "\n".join(lines), bool(flagged)


def layer(module: str, package: str = PACKAGE) -> int:
    """The layer index of ``module`` (:data:`LAYERS`; the top layer ``len(LAYERS)``)."""
    parts = module.split(".")
    first = parts[1] if len(parts) > 1 and parts[0] == package else None
    for index, (names, _) in enumerate(LAYERS):
        if first in names:
            return index
    return len(LAYERS)


def upward(found: Sequence[Edge], package: str = PACKAGE) -> list[Edge]:
    """The edges that import a higher layer."""
    return [e for e in found if layer(e.target, package) > layer(e.source, package)]


def circles(found: Sequence[Edge]) -> list[list[str]]:
    """The import circles: strongly connected components of more than one module (or a
    module importing itself), each sorted, in order (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = {}
    for e in found:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(start: str) -> None:   # iterative depth-first search
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def report(found: Sequence[Edge], package: str = PACKAGE) -> tuple[str, bool]:
    """The edges, circles and upward imports as text, and whether there is a problem."""
    lines = [f"{e.source} -> {e.target}" + (" (lazy)" if e.lazy else "") for e in found]
    loops = circles(found)
    up = upward(found, package)
    lines.append("")
    lines.append(f"{len(found)} import edges; {len(loops)} circles; {len(up)} upward imports")
    for loop in loops:
        lines.append("circle: " + " <-> ".join(loop))
    for e in up:
        lines.append(f"upward: {e.source} (layer {layer(e.source, package)}) imports "
                     f"{e.target} (layer {layer(e.target, package)}) at line {e.line}"
                     + (" (lazy)" if e.lazy else ""))
    return "\n".join(lines), bool(loops or up)


def dot(found: Sequence[Edge]) -> str:
    """The edges as a Graphviz digraph (lazy imports dashed)."""
    lines = ["digraph imports {", "  rankdir=BT;"]
    pairs = {(e.source, e.target): e.lazy for e in sorted(found, key=lambda e: e.lazy,
                                                            reverse=True)}
    for (source, target), lazy in sorted(pairs.items()):
        lines.append(f'  "{source}" -> "{target}"' + (" [style=dashed]" if lazy else "") + ";")
    lines.append("}")
    return "\n".join(lines)


def layers_svg(package: str = PACKAGE) -> str:
    """:data:`LAYERS` and :data:`TOP` drawn as a stack of boxes, lowest at the bottom, each
    with its modules and its role (an SVG document)."""
    rows = [(", ".join(names), role) for names, role in LAYERS] + [("apps", TOP)]
    width, height, gap = 760, 46, 8
    total = len(rows) * (height + gap) + gap
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" '
             f'viewBox="0 0 {width} {total}" font-family="sans-serif" font-size="13">',
             f"<title>{escape(package)}: its layers, lowest at the bottom</title>"]
    for index, (names, role) in enumerate(rows):
        y = total - (index + 1) * (height + gap)
        shade = 235 - 12 * index
        parts += [f'<rect x="4" y="{y}" width="{width - 8}" height="{height}" rx="6" '
                  f'fill="rgb({shade},{shade},255)" stroke="#446"/>',
                  f'<text x="16" y="{y + 19}" font-weight="bold">{index}  '
                  f'{escape(names)}</text>',
                  f'<text x="16" y="{y + 37}">{escape(role)}</text>']
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the report (or ``--dot``); 1 when there is a circle or an upward import."""
    parser = argparse.ArgumentParser(prog="import_graph.py", description=__doc__.split("\n")[0])
    parser.add_argument("package_dir", nargs="?", type=Path, default=ROOT / PACKAGE,
                        help=f"the package's folder (default {PACKAGE}/ of this checkout)")
    parser.add_argument("--top-level", action="store_true",
                        help="leave out the imports inside functions")
    parser.add_argument("--dot", action="store_true", help="print a Graphviz drawing instead")
    parser.add_argument("--svg", action="store_true", help="print the layers as an SVG picture")
    parser.add_argument("--check", action="store_true",
                        help="print only circles, upward and private imports, and a summary")
    parser.add_argument("--lazy", action="store_true",
                        help="print only the lazy imports that defer no optional extra")
    args = parser.parse_args(argv)
    package_dir = args.package_dir.resolve()
    package = package_dir.name
    found = edges(package_dir, package, args.top_level)
    if args.svg:
        print(layers_svg(package), end="")
        return 0
    if args.dot:
        print(dot(found))
        return 1 if report(found, package)[1] else 0
    if args.lazy:
        text, flagged = lazy_report(lazy_imports(package_dir, package), package_dir.parent)
        print(text)
        return 1 if flagged else 0
    text, problem = report(found, package)
    private = private_imports(package_dir.parent, [f for f in CHECKED
                                                   if (package_dir.parent / f).is_dir()],
                              package)
    lines = text.splitlines()
    if args.check:
        lines = [line for line in lines if line.startswith(("circle:", "upward:"))
                 or " import edges; " in line]
    for path, line, name in private:
        lines.append(f"private: {path.relative_to(package_dir.parent)}:{line} imports {name}")
    lines.append(f"{len(private)} private imports")
    flagged = False
    if args.check:
        lazy, flagged = lazy_report(lazy_imports(package_dir, package), package_dir.parent)
        lines += lazy.splitlines()
    print("\n".join(lines))
    return 1 if problem or private or flagged else 0


if __name__ == "__main__":
    sys.exit(main())

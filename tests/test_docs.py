"""The user docs' limits (table cells, commit ids, no dated runs), the README as a landing
page, and the documentation site: built, served, opened in Chromium.

The site is built from a copy of ``docs/`` into a temporary folder (so ``make test`` works on a
fresh clone and leaves ``docs/`` alone), with warnings as errors like ``make docs``. It is
served on 127.0.0.1 and a small page of ours loads the index and every game page in iframes
(same origin) and writes, for each, its title, its stylesheets and the load state of each
image into the DOM, which headless Chromium dumps (``--dump-dom``). Without Sphinx (the
``docs`` extra) or Chromium the site tests are skipped, unless ``CI`` is set: then they fail.
"""

import functools
import html
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
GAMES = ["tris2", "tris1", "tant_fant", "doppia_scelta", "tritoc"]
CHROMIUM = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium")
HAS_SPHINX = all(importlib.util.find_spec(m) for m in ("sphinx", "myst_parser", "furo"))
# page -> the fewest images it must show (all of them must load)
PAGES = {"index.html": 5, **{f"games/{g}.html": 1 for g in GAMES}, "games/index.html": 0,
         "results.html": 10, "environments.html": 0, "agents.html": 0, "training.html": 0,
         "benchmark.html": 0, "registry.html": 0, "api.html": 0, "installation.html": 0}


def require(available: bool, what: str) -> None:
    """Skip without ``what``, except under CI (``CI`` set), where its absence is a failure."""
    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing, and CI must run the documentation tests")
    pytest.skip(f"{what} is not installed (CI installs it; see .ci/run)")


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


# ----- fast checks: the user docs' tables and commit ids, the README, the picture script ---------
USER_DOCS = sorted(DOCS.glob("*.md")) + sorted((DOCS / "games").glob("*.md")) + [README]
WORD_LIMIT = 40                  # words in one table cell
HEX = re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{7,40}(?![0-9A-Za-z_])")


def table_cells(line: str) -> list[str]:
    """The cells of a Markdown table row (a ``|`` inside backticks or escaped is text)."""
    cells, cell, code, escaped = [], "", False, False
    for char in line.strip().strip("|"):
        if char == "|" and not code and not escaped:
            cells.append(cell)
            cell = ""
            continue
        code = not code if char == "`" else code
        escaped = char == "\\"
        cell += char
    return cells + [cell]


@functools.cache
def git_commits() -> set[str] | None:
    """The repository's commit ids, full, or None outside a git checkout (an unpacked sdist)."""
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "rev-list", "--all"],
                                capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return set(listed.stdout.split()) if listed.returncode == 0 else None


def is_commit_id(token: str) -> bool:
    """A hex token of 7-40 characters with a digit and a letter that names a commit (outside a
    checkout, any such token counts)."""
    if not (re.search(r"[0-9]", token) and re.search(r"[a-f]", token)):
        return False
    commits = git_commits()
    return commits is None or any(c.startswith(token) for c in commits)


def doc_problems(text: str) -> list[str]:
    """What the user docs may not hold: a table cell over WORD_LIMIT words, a commit id."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("|"):
            for cell in table_cells(line):
                if len(cell.split()) > WORD_LIMIT:
                    problems.append(f"line {number}: a table cell of {len(cell.split())} words "
                                    f"({cell.split()[:6]}...)")
        problems += [f"line {number}: commit id {token}" for token in HEX.findall(line)
                     if is_commit_id(token)]
    return problems


@pytest.mark.parametrize("path", USER_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_user_docs_have_short_table_cells_and_no_commit_ids(path):
    problems = doc_problems(path.read_text(encoding="utf-8"))
    assert not problems, f"{path.relative_to(ROOT)} (past experiments go to docs/notes/):\n" + \
        "\n".join(problems)


# the pages that grow with every run: their length is a limit, past experiments go to docs/notes/
PAGE_LINES = {"results.md": 400, "training.md": 250}


@pytest.mark.parametrize(("page", "most"), PAGE_LINES.items())
def test_the_guide_pages_stay_short(page, most):
    lines = len((DOCS / page).read_text(encoding="utf-8").splitlines())
    assert lines <= most, f"docs/{page} has {lines} lines (at most {most}): what did not ship " \
        "goes to docs/notes/, provenance to the files in docs/results/"


def a_commit_id() -> str:
    """A short id of one of the repository's commits (a made-up one outside a checkout)."""
    commits = git_commits() or {"93b9efd"}
    return next(c[:7] for c in sorted(commits) if is_commit_id(c[:7]))


@pytest.mark.parametrize(("planted", "found"), [
    ("| game | " + " ".join(["word"] * (WORD_LIMIT + 1)) + " |",
     [f"line 1: a table cell of {WORD_LIMIT + 1} words ({['word'] * 6}...)"]),
    ("| game | " + " ".join(["word"] * WORD_LIMIT) + " |", []),
    ("text\nas changed by COMMIT, since", ["line 2: commit id COMMIT"]),
    ("| `a | b` | " + " ".join(["word"] * (WORD_LIMIT - 2)) + " |", []),   # a pipe in code
    ("1000000 moves, 3.67x, the words defaced and facade", []),
], ids=["long cell", "cell at the limit", "commit id", "pipe in code", "numbers and words"])
def test_the_docs_check_finds_what_is_planted(planted, found):
    commit = a_commit_id()
    assert doc_problems(planted.replace("COMMIT", commit)) == [
        problem.replace("COMMIT", commit) for problem in found]


# the guide shows what ships: a date or "measured on" belongs to a run, and a run's date to
# docs/notes/ (dated there), the CHANGELOG, or the provenance line of the artifact under
# docs/results/ that its command writes (an {include} of it is not this page's text). Code
# is no exception: an example needs no real date, and a pasted run's output is a run.
GUIDE = sorted(path for path in DOCS.rglob("*.md")
               if path.relative_to(DOCS).parts[0] not in ("notes", "results", "_build")) + [
    README, ROOT / "PYPI.md"]
MONTH = ("(?:January|February|March|April|May|June|July|August|September|October|November|"
         "December)")
DATED = re.compile(
    r"(?<![\d-])(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?(?![\d-])"  # ISO
    rf"|\b{MONTH} (?:\d{{1,2}}(?:st|nd|rd|th)?,? )?(?:19|20)\d\d\b"     # November (25,) 2026
    rf"|\b{MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b"                           # November 25
    rf"|\b\d{{1,2}} {MONTH}\b"                                           # 25 November
    r"|\b(?i:measured on)\b")                                              # in any case


def dated_lines(text: str) -> list[str]:
    """The lines of a guide page that date a run: a date (``2026-11-25``, ``2026-11``,
    ``November 25, 2026``, ``25 November``, ``December 2``: month names capitalized, so
    that "may 3" is no date) or "measured on"."""
    return [f"line {number}: {', '.join(repr(found) for found in DATED.findall(line))}"
            for number, line in enumerate(text.splitlines(), 1) if DATED.search(line)]


@pytest.mark.parametrize("path", GUIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_guide_dates_no_run(path):
    found = dated_lines(path.read_text(encoding="utf-8"))
    assert not found, (f"{path.relative_to(ROOT)} dates a run: its figures come from an "
                       "artifact under docs/results/ that a command writes (provenance there), "
                       "the run itself goes to docs/notes/, dated there:\n" + "\n".join(found))


@pytest.mark.parametrize(("planted", "found"), [
    ("Measured on the 2-core machine on 2026-11-25, one run:",
     ["line 1: 'Measured on', '2026-11-25'"]),
    ("| 262 s | 91.2% | 2026-11 |", ["line 1: '2026-11'"]),
    ("the run of November 25, 2026 and of 3 December", ["line 1: 'November 25, 2026', "
                                                        "'3 December'"]),
    ("## The learner's speed (December 2, the 2-core machine)", ["line 1: 'December 2'"]),
    ("2,026 games, 0.5-1.0, 10-20 ms, 1,024-2,048 plies, seed 2026, Teytaud 2010, "
     "`nice -n 10`, may 3 games, 2026-11-250, 1-2026-11", []),
], ids=["measured on an ISO date", "year and month", "month names", "month and day",
        "numbers that are no dates"])
def test_the_date_check_finds_what_is_planted(planted, found):
    assert dated_lines(planted) == found


def test_hex_that_names_no_commit_passes_in_a_checkout():
    if git_commits() is None:
        pytest.skip("not a git checkout: every such token counts as a commit id")
    assert doc_problems("digest 0000000000abcdef0000") == []


def test_table_cells_keep_pipes_in_code_and_escaped_ones():
    assert table_cells("| `a | b` | c \\| d | e |") == [" `a | b` ", " c \\| d ", " e "]


GAME_NAMES = ["Tris 2", "Tris 1", "Tant Fant", "Doppia scelta", "Tritoc"]


def test_readme_is_a_landing_page():
    """What it is, the five games' pictures and the two commands on the first screen; then one
    table row per game with its strongest shipped agent; no timings (they live in docs/)."""
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; the details belong in docs/"
    first_screen = "\n".join(lines[:25])
    assert "make demo" in first_screen and "make test" in first_screen
    pictures = re.findall(r'<img [^>]*src="docs/pictures/(\w+)\.png"', first_screen)
    assert pictures == GAMES, f"the first screen shows {pictures}, not the five games"
    rows = [line for line in lines if re.match(r"\| \[[^]]+\]\(docs/games/(?!index)", line)]
    assert [re.match(r"\| \[([^]]+)\]", row).group(1) for row in rows] == [
        "Tris 1", "Tant Fant", "Doppia scelta", "Tris 2", "Tritoc"]
    assert all("%" in row and "`az" in row for row in rows), rows
    timings = re.findall(r"\b\d[\d,.]* ?(?:s|min|minutes|seconds|ms)\b(?! *[/(])", text)
    assert not timings, f"README.md quotes timings {timings}: they belong in docs/"


# the README's table: (record in docs/results/, the match's command ends with, its score)
README_FIGURES = [
    ("tant_fant_az.json", "eval tant_fant az solver --games 400 --metrics --processes 2",
     "50.0%"),
    ("doppia_scelta_az.json", "eval doppia_scelta az solver --games 200 --seed 0 --metrics "
     "--processes 2", "48.5%"),
    ("tris2_az.json", "eval tris2 az mcts:100:decisive --games 200 --seed 0 --metrics "
     "--processes 2", "50.0%"),
    ("tris2_max_side4_az.json", "az mcts:100:decisive --games 200 --seed 0 --metrics "
     "--processes 2 --option max_side=4", "64.8%"),
    ("tritoc_az.json", "eval tritoc az mcts:1000 --games 200 --seed 0 --processes 2", "60.0%"),
]


def test_the_index_starts_with_three_paths_and_shows_the_repository_no_directive():
    """Play, train, evaluate: each a command and a link, first; the toctrees sit in the HTML
    comment that docs/conf.py unwraps, so GitHub's page of the file shows no raw directive."""
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    shown = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    assert "```{" not in shown and ":::{" not in shown
    paths = re.findall(r"^- \*\*(\w+)\*\*(.*?)(?=^- |^\S|\Z)", shown, re.MULTILINE | re.DOTALL)
    assert [name for name, _ in paths[:3]] == ["Play", "Train", "Evaluate"]
    for (name, item), command, page in zip(paths, ("play", "train", "evaluate"),
                                           ("play.md", "training.md", "results.md")):
        assert f"`tris-envs {command} " in item and f"]({page})" in item, name
    assert re.search(r"<!-- navigation:.*```\{toctree\}.*-->", text, re.DOTALL)


def test_readme_figures_come_from_committed_records():
    text = README.read_text(encoding="utf-8")
    table = text.split("## The games")[1].split("## Next")[0]
    for record, command, score in README_FIGURES:
        assert f"`{record}`" in table, f"the README does not name {record}"
        matches = json.loads((DOCS / "results" / record).read_text())["matches"]
        found = [m for m in matches if m["command"].endswith(command)]
        assert len(found) == 1 and found[0]["score"] == score, (record, command, found)
        assert score in table
    assert "`tris1_round_robin.md`" in table
    tris1 = [table_cells(line) for line in
             (DOCS / "results" / "tris1_round_robin.md").read_text().splitlines()
             if line.startswith("| agent |") or line.startswith("| az |")]
    header, az = ([cell.strip() for cell in row] for row in tris1)
    assert az[header.index("solver")] == "50.0%"


def test_readme_links_and_pictures_exist():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text)
    targets += re.findall(r'<img [^>]*src="([^"]+)"', text)
    local = [t for t in targets if "://" not in t and not t.startswith("mailto:")]
    assert any(t.endswith(".png") for t in local), "the README shows no picture"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_make_pictures_draws_every_game(tmp_path):
    sys.path.insert(0, str(DOCS))
    try:
        import make_pictures
    finally:
        sys.path.remove(str(DOCS))
    paths = make_pictures.main(tmp_path)
    assert [p.name for p in paths] == [f"{g}.png" for g in GAMES]
    for path in paths:
        committed = DOCS / "pictures" / path.name
        assert committed.exists(), f"{committed} is missing: run python docs/make_pictures.py"
        width, height = png_size(path)
        assert width >= 300 and height >= 300
        assert png_size(committed) == (width, height), (
            f"{committed} is out of date: run python docs/make_pictures.py and commit it")


# ----- the site ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Build the documentation from a copy of docs/, warnings as errors; the HTML folder."""
    require(HAS_SPHINX, "Sphinx with myst-parser and furo (the docs extra: make docs)")
    base = tmp_path_factory.mktemp("docs")
    source, out = base / "src", base / "html"
    # without _build (a local make docs) and pictures (the build must draw them itself)
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("_build", "pictures",
                                                                "__pycache__"))
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(source), str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert build.returncode == 0, f"sphinx-build failed:\n{build.stdout}\n{build.stderr}"
    return out


def test_the_build_draws_the_pictures_and_writes_every_page(site):
    for game in GAMES:
        assert (site / "_images" / f"{game}.png").exists()
    for page in PAGES:
        assert (site / page).exists(), page
    api = (site / "api.html").read_text(encoding="utf-8")
    for name in ("tris_envs.games.make_game", "tris_envs.core.solve", "tris_envs.envs.GameEnv",
                 "tris_envs.agents.make_agent", "tris_envs.evaluation.play_match"):
        assert f'id="{name}"' in api, f"{name} is not in the API reference"


class _Handler(SimpleHTTPRequestHandler):
    """Serves the site quietly and remembers what it could not find."""

    missing: list[str] = []

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass

    def send_error(self, code, message=None, explain=None):
        if code == 404 and not self.path.startswith("/favicon.ico"):
            self.missing.append(self.path)
        super().send_error(code, message, explain)


CHECK_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>check</title></head><body>
<pre id="result">pending</pre>
%s
<script>
window.addEventListener("load", function () {
  var report = {};
  document.querySelectorAll("iframe").forEach(function (frame) {
    var doc = frame.contentDocument;
    var sheets = Array.prototype.filter.call(doc.styleSheets, function (s) {
      return s.href && s.href.indexOf("furo.css") >= 0;
    });
    report[frame.dataset.page] = {
      title: doc.title,
      h1: doc.querySelector("h1") ? doc.querySelector("h1").textContent : null,
      furo: sheets.length > 0 && sheets[0].cssRules.length > 0,
      images: Array.prototype.map.call(doc.images, function (img) {
        return {src: img.getAttribute("src"), ok: img.complete && img.naturalWidth > 0};
      })
    };
  });
  document.getElementById("result").textContent = JSON.stringify(report);
});
</script></body></html>
"""


def test_pages_and_their_images_load_in_chromium(site, tmp_path):
    require(CHROMIUM is not None, "Debian's chromium (/usr/bin/chromium)")
    frames = "\n".join(f'<iframe data-page="{page}" src="{page}" width="1000" height="800">'
                       f"</iframe>" for page in PAGES)
    (site / "_check.html").write_text(CHECK_PAGE % frames, encoding="utf-8")
    _Handler.missing = []
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_Handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/_check.html"
        run = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
             "--virtual-time-budget=20000", "--dump-dom", url],
            capture_output=True, text=True, timeout=180)
    finally:
        server.shutdown()
        server.server_close()
    found = re.search(r'<pre id="result">(.*?)</pre>', run.stdout, re.S)
    assert found, f"no DOM from chromium (exit {run.returncode}):\n{run.stderr[-2000:]}"
    assert found.group(1) != "pending", "the check page never finished loading"
    report = json.loads(html.unescape(found.group(1)))
    assert sorted(report) == sorted(PAGES)
    for page, fewest in PAGES.items():
        seen = report[page]
        assert seen["h1"] and "tris_envs" in seen["title"], (page, seen["title"])
        assert seen["furo"], f"{page}: the furo stylesheet did not load"
        broken = [img["src"] for img in seen["images"] if not img["ok"]]
        assert not broken, f"{page}: images that did not load: {broken}"
        assert len(seen["images"]) >= fewest, (page, seen["images"])
    for game in GAMES:
        pictures = [img["src"] for img in report[f"games/{game}.html"]["images"]]
        assert any(src.endswith(f"{game}.png") for src in pictures), (game, pictures)
    assert not _Handler.missing, f"requests the site could not answer: {_Handler.missing}"

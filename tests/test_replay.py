"""tris-envs replay: recorded games as one self-contained HTML page, checked in Chromium."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess

import pytest

from tris_envs.cli import main

CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replay")
    records = folder / "games.jsonl"
    assert main(["eval", "tant_fant", "greedy", "random", "--games", "3", "--seed", "1",
                 "--records", str(records)]) == 0
    html = folder / "games.html"
    assert main(["replay", str(records), "--html", str(html)]) == 0
    return records, html


def _data(html):
    text = html.read_text()
    return json.loads(re.search(r"const GAMES = (.*);\n", text).group(1).replace("<\\/", "</"))


def test_the_page_holds_every_position_as_a_picture_and_nothing_external(page):
    records, html = page
    games = _data(html)
    lines = [json.loads(line) for line in records.read_text().splitlines()[1:]]
    assert len(games) == len(lines) == 3
    for game, line in zip(games, (json.loads(entry["record"]) for entry in lines)):
        assert len(game["frames"]) == len(line["moves"]) + 1
        assert [f["position"] for f in game["frames"]] == [line["start"], *line["positions"]]
        png = base64.b64decode(game["frames"][0]["png"].split(",", 1)[1])
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
    text = html.read_text()
    assert "http://" not in text and "https://" not in text and "<script src" not in text


def test_records_without_moves_and_other_files_are_refused(tmp_path, capsys):
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"game": "tris1"}\n')
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(plain), "--html", str(tmp_path / "x.html")])
    assert exit_.value.code == 2 and "holds no game records" in capsys.readouterr().err


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                    reason="Debian's chromium is not installed (CI installs it)")
def test_the_page_steps_through_the_game_in_a_browser(page, tmp_path):
    _, html = page
    games = _data(html)
    last = len(games[1]["frames"]) - 1

    def dom(fragment):
        result = subprocess.run(
            [CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path}",
             "--dump-dom", f"file://{html}#{fragment}"],
            capture_output=True, text=True, timeout=120)
        return result.stdout

    opened = dom("game=1&ply=2")
    assert f"ply 2 / {last}" in opened
    assert games[1]["frames"][2]["move"] in opened.replace("&amp;", "&")
    assert 'id="board" alt="position" src="data:image/png;base64,' in opened
    clamped = dom("game=1&ply=999")
    assert f"ply {last} / {last}" in clamped and games[1]["result"] in clamped


def test_tris2_frames_name_each_roll_with_the_cell_the_position_string_shows():
    """One notation: a frame's move is the roll as typed (``0,2 E``) and the cell its die
    stands on now, which the frame's position string holds in its ``<last>`` field."""
    import numpy as np

    from tris_envs.agents import make_agent
    from tris_envs.evaluation.records import play_recorded
    from tris_envs.games import make_game
    from tris_envs.replay import frames

    rng = np.random.default_rng(3)
    agents = [make_agent("random", rng=rng) for _ in range(2)]
    record = play_recorded(make_game("tris2"), agents, rng, max_moves=30)
    moves = [(f["move"], f["position"]) for f in frames(record)[1:]]
    assert len(moves) == len(record.moves) > 0
    for move, position in moves:
        r, c, d = position.rsplit(" ", 1)[1].split(",")
        assert re.fullmatch(rf"random \(\d\): \d,\d {d} \(now {r},{c}\)", move), (move, position)

"""``tris-envs replay``: recorded games as one self-contained HTML page.

The page needs no server and no network: every position is drawn by the package's own
renderer (pygame, the ``render`` extra) and embedded as a PNG, and a few lines of inline
JavaScript step through the plies (buttons, a slider, the arrow keys, ``Home`` / ``End``)
and switch between games. The URL fragment ``#game=G&ply=P`` opens a given position.

Records are read from either file the package writes: a JSON list
(:func:`~tris_envs.evaluation.records.save_records`) or the JSON-lines journal of
``tris-envs eval|tournament --records FILE`` (games recorded with their moves, as
``play_match(..., keep_records=True)`` or ``--metrics`` keep them).
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tris_envs.core.errors import brief
from tris_envs.core.game import CHANCE
from tris_envs.durable import write_text
from tris_envs.evaluation.records import GameRecord, replay_steps
from tris_envs.games import make_game


def read_records(path: str | Path) -> list[GameRecord]:
    """The game records in ``path`` (a JSON list or a ``--records`` journal), each checked
    to be well formed (:meth:`~tris_envs.evaluation.records.GameRecord.from_data`).

    Raises:
        ValueError: the file holds no game records, or a malformed one (named by its place
            in the file).
    """
    try:
        text = Path(path).read_text()
    except UnicodeDecodeError as error:
        raise ValueError(f"{str(path)!r} is not a records file: {error}") from None
    try:
        if text.lstrip().startswith("["):
            items = json.loads(text)
            places = [f"item {index}" for index in range(len(items))]
        else:
            numbered = [(number, line) for number, line in enumerate(text.splitlines(), 1)
                        if line.strip()]
            items = [json.loads(line) for _, line in numbered]
            places = [f"line {number}" for number, _ in numbered]
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{str(path)!r} is not a records file: "
                         f"{brief(str(error), 200)}") from None
    records = []
    for place, item in zip(places, items):
        try:
            if isinstance(item, dict) and "record" in item:           # a journal entry
                record = item["record"]
                records.append(GameRecord.from_json(record) if isinstance(record, str)
                               else GameRecord.from_data(record))
            elif isinstance(item, dict) and "moves" in item:
                records.append(GameRecord.from_data(item))
        except ValueError as error:
            raise ValueError(f"{str(path)!r}, {place}: {error}") from None
    if not records:
        raise ValueError(f"{str(path)!r} holds no game records")
    return records


def frames(record: GameRecord) -> list[dict[str, Any]]:
    """Each position of ``record`` (the start first): its picture as a PNG data URL, the
    move that led there and the position string.

    Raises:
        ValueError: the record does not replay: another game's options, an actor not to
            move, an illegal move, or a position string that differs from the moves'
            (:func:`~tris_envs.evaluation.records.replay_steps`).
    """
    from tris_envs.envs.rendering import draw_picture

    game = make_game(record.game, **record.options)
    out = []
    before = None
    for state, actor, action in replay_steps(game, record):
        if before is None:
            move = "start"
        elif actor == CHANCE:
            move = f"chance: {game.action_to_string(before, action)}"
        else:
            move = f"{record.players[actor]} ({actor}): {game.played_name(before, action, state)}"
        out.append({"move": move, "position": game.to_notation(state),
                    "png": _png(draw_picture(game, state))})
        before = state
    return out


def write_html(records: Sequence[GameRecord], path: str | Path, title: str = "") -> Path:
    """Write the replay page of ``records`` to ``path``.

    Raises:
        ValueError: a record without moves (played without keeping them).
    """
    games = []
    for index, record in enumerate(records):
        if not record.moves:
            raise ValueError(f"game {index} has no moves recorded: play it with "
                             "keep_records=True (tris-envs eval --metrics)")
        try:
            pictures = frames(record)
        except ValueError as error:
            raise ValueError(f"game {index} does not replay: {error}") from None
        games.append({"players": record.players, "result": _result(record),
                      "frames": pictures})
    title = title or f"{records[0].game}: {len(records)} recorded game(s)"
    fills = {"__TITLE__": html.escape(title), "__DATA__": script_json(games)}
    page = re.sub("__TITLE__|__DATA__", lambda match: fills[match.group()], _PAGE)
    path = Path(path)
    write_text(path, page)
    return path


_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                  "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """``value`` as JSON to inline in a ``<script>``: ``<``, ``>``, ``&`` and the line
    separators U+2028 and U+2029 written as ``\\u`` escapes (JSON reads them back as the
    same characters), so no text in it (a player's name such as ``<!--<script>``) can end
    the script or change how the page parses it."""
    return re.sub("[<>&\u2028\u2029]", lambda match: _SCRIPT_UNSAFE[match.group()],
                  json.dumps(value))


def _result(record: GameRecord) -> str:
    if record.truncated:
        return "truncated (draw)"
    first, second = record.returns
    if first == second:
        return "draw"
    return f"{record.players[0 if first > second else 1]} wins"


def _png(picture: Any) -> str:
    import pygame

    surface = pygame.surfarray.make_surface(picture.transpose(1, 0, 2))
    buffer = io.BytesIO()
    pygame.image.save(surface, buffer, "frame.png")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
#controls button { font-size: 1.1em; min-width: 3em; }
#ply { width: 28em; vertical-align: middle; }
#board { display: block; margin: 1em 0; border: 1px solid #ccc; }
code { background: #f3f3f3; padding: 0.1em 0.3em; }
</style></head>
<body>
<h1>__TITLE__</h1>
<p><label>game <select id="game"></select></label> <span id="players"></span>
 &mdash; <b id="result"></b></p>
<div id="controls">
<button id="first" title="Home">|&#x25C0;</button>
<button id="prev" title="left arrow">&#x25C0;</button>
<button id="next" title="right arrow">&#x25B6;</button>
<button id="last" title="End">&#x25B6;|</button>
<input id="ply" type="range" min="0" value="0"> <span id="label"></span>
</div>
<img id="board" alt="position">
<p>move: <b id="move"></b><br>position: <code id="position"></code></p>
<script>
const GAMES = __DATA__;
let g = 0, p = 0;
const $ = (id) => document.getElementById(id);
function show() {
  const game = GAMES[g], frame = game.frames[p];
  $("board").src = frame.png;
  $("move").textContent = frame.move;
  $("position").textContent = frame.position;
  $("ply").max = game.frames.length - 1;
  $("ply").value = p;
  $("label").textContent = "ply " + p + " / " + (game.frames.length - 1);
  $("players").textContent = game.players.join(" vs ");
  $("result").textContent = game.result;
  $("game").value = g;
  history.replaceState(null, "", "#game=" + g + "&ply=" + p);
}
function go(ply) { p = Math.max(0, Math.min(GAMES[g].frames.length - 1, ply)); show(); }
GAMES.forEach((game, i) => {
  const option = document.createElement("option");
  option.value = i; option.textContent = (i + 1) + ": " + game.players.join(" vs ");
  $("game").appendChild(option);
});
$("game").onchange = () => { g = Number($("game").value); go(0); };
$("first").onclick = () => go(0);
$("prev").onclick = () => go(p - 1);
$("next").onclick = () => go(p + 1);
$("last").onclick = () => go(Infinity);
$("ply").oninput = () => go(Number($("ply").value));
document.onkeydown = (e) => {
  const keys = {ArrowLeft: p - 1, ArrowRight: p + 1, Home: 0, End: Infinity};
  if (e.key in keys) { go(keys[e.key]); e.preventDefault(); }
};
const hash = new URLSearchParams(location.hash.slice(1));
g = Math.max(0, Math.min(GAMES.length - 1, Number(hash.get("game")) || 0));
go(Number(hash.get("ply")) || 0);
</script>
</body></html>
"""

"""What the browser app's setup offers: the games with their declared options, and the
agents that can play a game with given options.

:func:`games` lists each game with its options (the rules' ``OPTION_TYPES``: the page
draws a select, a checkbox, a number or a text box from each) and a picture of it;
:func:`agents` lists, for one game and its options, every agent spec family of the factory
(:data:`~tris_envs.agents.spec.AGENT_SPECS`) that the server plays, with the budget a
family takes (its range capped by the server's :class:`~tris_envs.web.session.Limits`), and
the networks and policies shipped for that game and those options, and a language model
(``llm:<model>``, the page names the model) where the operator started the server with
``--llm-url``. Specs that name files and OpenSpiel's agents are not offered: the server
refuses them from a page.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import numpy as np

from tris_envs.agents.alphabeta import DEFAULT_PLIES
from tris_envs.agents.az import AZAgent, shipped_network
from tris_envs.agents.mcts import MCTSAgent
from tris_envs.agents.ppo import require_extra_for, shipped_checkpoint
from tris_envs.agents.spec import AGENT_SPECS, PLUGIN_FAMILIES, form_help
from tris_envs.core.game import Game, resolve_chance
from tris_envs.core.options import parse_options
from tris_envs.games import GAMES, make_game
from tris_envs.web.board import status_line
from tris_envs.web.session import HUMAN, Limits
from tris_envs.web.svg import board_svg

PICTURE_PLIES = {"tris2": 4, "tris1": 4, "tant_fant": 4, "doppia_scelta": 6, "tritoc": 40}
"""Random plies played (seeded) before each game's picture on the landing page."""
MAX_MOVES_HELP = ("The game stops, drawn, after this many plies (the moves of both players, "
                  "passes included).")
OPTION_HELP: dict[str, dict[str, str]] = {
    "tris2": {
        "setup": "random: the nine dice start in a 3×3 block, each turned at random, with no "
                 "line and no win on the first roll. placement: the players first place the "
                 "dice on the block, a cell and an orientation each, the first player first.",
        "max_side": "The rule of 4 (4): the dice may never spread over more rows or columns "
                    "than this. Empty: no limit.",
        "fair": "With the random setup, also redraw the rare blocks (0.6%) where every first "
                "roll lets the second player win at once, so that the first player is never "
                "lost from the start.",
        "max_moves": MAX_MOVES_HELP,
    },
    "tris1": {"max_moves": MAX_MOVES_HELP},
    "tant_fant": {
        "stalemate": "A player who cannot move: draw (the game is drawn) or loss (that player "
                     "loses).",
        "repetition_draw": "The third time the same position comes up with the same player to "
                           "move, the game is drawn.",
        "diagonal_only": "Only the two long diagonals win.",
        "max_moves": MAX_MOVES_HELP,
    },
    "doppia_scelta": {
        "scheme": "Where the robots enter and leave: crossing (each to the opposite corner), "
                  "shared_goal (both to the gate in the middle of the top row), swap (Black "
                  "enters where White leaves and leaves where White enters).",
        "gates": "Gates of your own instead of a scheme: White's start and goal, then "
                 "Black's, each as row,column,side (4,0,S). Empty: the scheme's.",
        "setup": "random: a random board on which neither robot walks from its start out "
                 "through its goal by the colours alone. coloring: the players first colour "
                 "the 25 cells, a cell and a colour each, White first.",
        "board": "A fixed board: 25 letters Y (yellow), G (gray), R (red) in reading order, or "
                 "five rows of five separated by /. Empty: a random board.",
        "fair": "With a random board, also redraw until the exact solver calls the board a "
                "draw under perfect play, so that neither robot has a forced win from the "
                "start.",
        "max_moves": MAX_MOVES_HELP,
    },
    "tritoc": {
        "layout": "The numbers on the holes: ordered (3 to 11 in reading order in every "
                  "field), magic (a magic square in every field), random (every field "
                  "shuffled at the start), or 81 numbers of your own.",
        "dice": "2d6: two ordinary dice. equal: the sums 3 to 11 equally likely, 2 and 12 "
                "each a third as likely (the original computer game's dice).",
        "max_rerolls": "A roll that allows no move is rolled again, up to this many more "
                       "times; then the player passes.",
        "reward": "What an agent learning the game is rewarded: win_loss (+1, 0 or -1 at the "
                  "end) or points (+1 for each field conquered, +5 for the win). The game "
                  "played is the same.",
        "max_moves": MAX_MOVES_HELP,
    },
}
"""Each game's options in a sentence or two, as the page's setup (a ``title`` on each
control) and its rules dialog explain them."""
PARAMETERS = {"<simulations>": ("simulations", 1), "<plies>": ("plies", 1),
              "<seconds>": ("seconds", 0.1)}
"""A spec form's placeholder -> the budget's name and its least value."""


def games() -> list[dict[str, Any]]:
    """Every game: name, title, whether the solver plays it, its options (name, default
    as ``tris-envs play --option`` text, declared type, ``help``: what it does, from
    :data:`OPTION_HELP`) and its picture (SVG)."""
    out = []
    for spec in GAMES.values():
        cls = spec.game_class
        options = [{"name": name, "default": _text(cls.OPTIONS[name]), **kind.to_data(),
                    "help": OPTION_HELP[spec.name][name]}
                   for name, kind in cls.OPTION_TYPES.items()]
        out.append({"name": spec.name, "title": spec.title, "solvable": spec.solvable,
                    "options": options, "picture": picture(spec.name)})
    return out


@cache
def picture(name: str) -> str:
    """The game's board after :data:`PICTURE_PLIES` seeded random plies, as SVG."""
    game = make_game(name)
    rng = np.random.default_rng(0)
    state = resolve_chance(game, game.initial_state(rng), rng)
    for _ in range(PICTURE_PLIES.get(name, 0)):
        legal = game.legal_actions(state)
        if not legal:
            break
        state = resolve_chance(game, game.apply(state, int(rng.choice(legal))), rng)
    return board_svg(game, state, status_line(game, state))


def agents(name: str, options: list[str], limits: Limits) -> list[dict[str, Any]]:
    """The players of game ``name`` with ``options`` (``name=value`` texts), in the
    factory's order: ``human`` first, then each spec family the server plays.

    Each entry: ``spec`` (the spec, ``{}`` where its budget goes), ``label``, ``help``
    (the factory's words for the family) and, for a family with a budget, ``budget``:
    ``{"name", "minimum", "maximum", "default", "step"}``; for ``llm`` (only where
    ``limits.llm`` names the operator's server), ``text``: ``{"name": "model"}``, the
    model's name the page asks for in place of ``{}``.

    Raises:
        ValueError: an unknown game, option or option value.
    """
    game = make_game(name, **parse_options(options))
    out: list[dict[str, Any]] = [{"spec": HUMAN, "label": "a person (you)", "help": ""}]
    for form in AGENT_SPECS:
        family = form.split(":", 1)[0]
        if "<path>" in form or "<setting>" in form or family in PLUGIN_FAMILIES:
            continue                     # files, search settings, OpenSpiel: refused from a page
        if family == "llm":
            if limits.llm is not None:
                out.append({"spec": form.replace("<model>", "{}"),
                            "label": f"{form} (a language model the operator serves)",
                            "help": form_help(form), "text": {"name": "model"}})
            continue
        entry = _entry(form, family, game, limits)
        if entry is not None:
            out.append(entry)
    return out


def _entry(form: str, family: str, game: Game, limits: Limits) -> dict[str, Any] | None:
    """One spec form as a choice, or ``None`` where it cannot play ``game``."""
    label, extra = form, ""
    if family == "solver":
        try:
            game.solver_root(resolve_chance(game, game.initial_state(np.random.default_rng(0)),
                                            np.random.default_rng(0)))
        except ValueError:
            return None
    if family == "ppo":
        try:
            path = shipped_checkpoint(game)
            require_extra_for(path)
            extra = f" ({path.name})"
        except (ImportError, FileNotFoundError):
            return None
    if family == "az":
        try:
            network = AZAgent().network_for(game)
        except (FileNotFoundError, ValueError):
            return None
        own = AZAgent().budget(network)
        extra = f" ({shipped_network(game).name}, {own} simulations)" if form == "az" else ""
    match = re.search(r"<(simulations|plies|seconds)>", form)
    entry: dict[str, Any] = {"spec": form, "label": label + extra, "help": form_help(form)}
    if match is None:
        return entry
    key = match.group(0)
    parameter, least = PARAMETERS[key]
    most: float = {"simulations": limits.simulations, "plies": limits.depth,
                   "seconds": limits.seconds}[parameter]
    default: float = {"simulations": MCTSAgent().simulations or 1, "plies": DEFAULT_PLIES,
                      "seconds": 1.0}[parameter]
    if family == "az" and parameter == "simulations":
        least, default = 0, AZAgent().budget(AZAgent().network_for(game))
    entry["spec"] = form.replace(key, "{}")
    entry["budget"] = {"name": parameter, "minimum": least, "maximum": most,
                       "default": min(default, most), "step": 0.1 if parameter == "seconds"
                       else 1}
    return entry


def _text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)

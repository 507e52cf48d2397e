"""Checks run on every game: PettingZoo's test suite, fuzzing, invariants, pickling.

``tests/conformance/`` runs them over every game and option set of the registry
(:data:`tris_envs.games.GAMES`); the per-game test files use them for their own cases.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import pickle
import random
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from tris_envs.core.game import CHANCE, TERMINAL, Game
from tris_envs.games import tactics_of


def benchmark_script(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` (a script, not a package module) loaded as a module."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


TRIS2_BEFORE_WIN = "XO/......|...O/XX/O|XO//XO/XO|OX/.../OX|/OX...... 1 0,0,N"
"""Tris 2: player 1 to move wins at once by rolling a die into a line."""
TRIS2_TRAP = "O/XO/XX/O...|OX/...O/X/OX|/XO...OX//XO 1 0,0,S"
"""Tris 2 with ``max_side=4``: player 1 to move, 11 legal rolls, one of them a trap."""
TRIS2_TRAP_MOVES = ["0,1 S"]
"""The trap of :data:`TRIS2_TRAP`: the roll after which every legal reply hands player 1 a
line."""

EXPECTED_PETTINGZOO_WARNINGS = frozenset({
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
    "Observation numpy array is all zeros.",
})
"""The soft checks of ``api_test`` that PettingZoo's own ``tictactoe_v3`` gets too: its
``Dict(observation, action_mask)`` space, and an empty start board that observes as all zeros
(Tris 1, Tris 2's placement setup). Any other warning is a regression."""


def run_pettingzoo_tests(module: Any, options: dict[str, Any], cycles: int = 300) -> None:
    """PettingZoo's ``api_test`` (wrapped and raw), ``seed_test`` and ``render_test``.

    Their warnings are recorded, and any but :data:`EXPECTED_PETTINGZOO_WARNINGS` fails.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(module.env(**options), num_cycles=cycles)
        api_test(module.raw_env(**options), num_cycles=cycles)
        seed_test(functools.partial(module.env, **options), num_cycles=cycles)
        render_test(functools.partial(module.env, **options))
    unexpected = {str(w.message) for w in caught} - EXPECTED_PETTINGZOO_WARNINGS
    assert not unexpected, f"PettingZoo's tests warned: {sorted(unexpected)}"


def check_state_invariants(game: Game, state: Any, notation_complete: bool = True) -> None:
    """Everything that must hold of any reachable state.

    ``notation_complete=False`` for games whose result can depend on history that position
    strings do not carry (Tant Fant's repetition draw).
    """
    player = game.current_player(state)
    mask = game.legal_mask(state)
    legal = list(game.legal_actions(state))
    assert mask.dtype == np.int8 and mask.shape == (game.info.num_actions,)
    assert list(np.flatnonzero(mask)) == legal
    if player == TERMINAL:
        assert not legal and not mask.any()
    elif player == CHANCE:
        outcomes = game.chance_outcomes(state)
        assert outcomes and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    else:
        assert player in (0, 1) and legal
    notation = game.to_notation(state)
    again = game.from_notation(notation)
    assert game.to_notation(again) == notation
    if notation_complete:
        assert game.current_player(again) == player
    for observer in (0, 1):
        obs = game.observation(state, observer)
        assert obs.dtype == np.int8 and obs.shape == game.info.observation_shape
        assert np.isin(obs, (0, 1)).all()
    assert isinstance(game.render_text(state), str)


def random_playouts(game: Game, n_games: int, seed: int,
                    check: Callable[[Game, Any], None] | None = None,
                    max_plies: int | None = None, notation_complete: bool = True) -> list[Any]:
    """Play random games on the rules core, checking invariants and immutability.

    Returns the final state of each game.
    """
    rng = np.random.default_rng(seed)
    limit = max_plies or game.info.max_moves
    finals = []
    for _ in range(n_games):
        state = game.initial_state(rng)
        for _ in range(limit):
            check_state_invariants(game, state, notation_complete)
            if check is not None:
                check(game, state)
            player = game.current_player(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcomes = game.chance_outcomes(state)
                action = outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0]
            else:
                action = int(rng.choice(game.legal_actions(state)))
            before = copy.deepcopy(state)
            child = game.apply(state, action)
            assert state == before and hash(state) == hash(before), "apply mutated its input"
            state = child
        finals.append(state)
    return finals


def chance_nodes(game: Game, n_games: int, seed: int) -> list[Any]:
    """The positions of ``n_games`` random games (:func:`random_playouts`) where chance is
    about to act (Tritoc's dice before each turn)."""
    seen: list[Any] = []
    random_playouts(game, n_games, seed, check=lambda _, state: seen.append(state)
                    if game.current_player(state) == CHANCE else None)
    return seen


def fuzz_env(module: Any, options: dict[str, Any], n_games: int, seed: int) -> None:
    """Random games through ``env()`` with the AEC invariants checked at every step."""
    env = module.env(**options)
    rnd = random.Random(seed)
    env.reset(seed=seed)
    game = env.unwrapped.game
    for _ in range(n_games):
        plies = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            state = env.unwrapped.game_state
            if term or trunc:
                assert not obs["action_mask"].any()
                env.step(None)
                continue
            assert game.current_player(state) == env.possible_agents.index(agent)
            assert (obs["action_mask"] == game.legal_mask(state)).all()
            other = env.possible_agents[1 - env.possible_agents.index(agent)]
            assert not env.observe(other)["action_mask"].any()
            env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            plies += 1
        assert plies <= game.info.max_moves
        env.reset()


def check_pickle_midgame(module: Any, options: dict[str, Any], plies: int, seed: int) -> None:
    """Pickled and deep-copied envs continue exactly like the original."""
    env = module.env(**options)
    env.reset(seed=seed)
    rnd = random.Random(seed)

    def play(e: Any, n: int, r: random.Random) -> list[str]:
        seen = []
        for _ in range(n):
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                break
            e.step(r.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            seen.append(e.unwrapped.position)
        return seen

    play(env, plies, rnd)
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    state = rnd.getstate()
    expected = play(env, 50, rnd)
    for clone in clones:
        r = random.Random()
        r.setstate(state)
        assert play(clone, 50, r) == expected


def action_paths(max_len: int = 40) -> st.SearchStrategy[list[int]]:
    """Hypothesis strategy: choices used modulo the number of legal actions."""
    return st.lists(st.integers(0, 10_000), max_size=max_len)


def follow_path(game: Game, path: list[int], seed: int = 0) -> list[Any]:
    """States visited by taking ``legal[i % len(legal)]`` for each ``i`` in ``path``."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    states = [state]
    for choice in path:
        player = game.current_player(state)
        if player == TERMINAL:
            break
        options = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
                   else list(game.legal_actions(state)))
        state = game.apply(state, options[choice % len(options)])
        states.append(state)
    return states


def assert_never_blunders(game: Game, agent: Any, seed: int, games: int, plies: int) -> int:
    """``agent`` makes no blunder in the positions of ``games`` greedy games of up to
    ``plies`` plies (long games through varied positions); returns the moves judged."""
    from tris_envs.agents import GreedyAgent
    from tris_envs.evaluation.metrics import is_blunder

    rng = np.random.default_rng(seed)
    continuation = GreedyAgent(rng)
    judged = 0
    for _ in range(games):
        state = game.initial_state(rng)
        for _ in range(plies):
            if game.current_player(state) == TERMINAL:
                break
            action = agent.act(game, state)
            assert not is_blunder(game, state, action), (game.to_notation(state), action)
            judged += 1
            state = game.apply(state, continuation.act(game, state))
    return judged


def play_script(game: Game, start: str | None, moves: list[tuple[Any, ...]],
                check: Callable[[Any, int, Any], None] | None = None) -> Any:
    """Play a scripted game and return its final state: the one table-driven runner.

    Args:
        game: The rules core.
        start: The start position string (checked to read back unchanged), or ``None`` for
            ``game.initial_state()``.
        moves: ``(move, expected)`` or ``(move, expected, legal)`` per ply: ``move`` an
            action, a chance outcome or a move name (``game.parse_action``); ``expected``
            the position string after it (``None``: not checked); ``legal`` the legal
            actions expected before it.
        check: Called as ``check(before, action, after)`` after every move.
    """
    if start is None:
        state = game.initial_state(np.random.default_rng(0))
    else:
        state = game.from_notation(start)
        assert game.to_notation(state) == start
    for ply, (move, expected, *legal) in enumerate(moves, 1):
        player = game.current_player(state)
        assert player != TERMINAL, f"the game ended before ply {ply} ({move})"
        action = game.parse_action(state, move) if isinstance(move, str) else move
        allowed = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
                   else list(game.legal_actions(state)))
        if legal:
            assert allowed == list(legal[0]), f"legal actions before ply {ply}"
        assert action in allowed, f"ply {ply} ({move}) is not legal"
        after = game.apply(state, action)
        if expected is not None:
            assert game.to_notation(after) == expected, f"ply {ply} ({move})"
        if check is not None:
            check(state, action, after)
        state = after
    return state


def check_bridge(env: Any, game: Game, text: str) -> Any:
    """The JAX state of position ``text`` (``tris_envs.jax.from_position``), checked against
    the rules core's: it reads back as ``text``, ends when the core's does, and, while the
    game goes on, has the core's player to move, legal mask and both seats' observations."""
    from tris_envs.jax import from_position, to_position

    state, core = from_position(env, text), game.from_notation(text)
    assert to_position(env, state) == text
    player = game.current_player(core)
    assert bool(state.terminated) == (player == TERMINAL)
    if player != TERMINAL:
        assert int(state.current_player) == player
        assert (np.asarray(state.legal_action_mask) == game.legal_mask(core).astype(bool)).all()
        for seat in (0, 1):
            assert (np.asarray(env.observe_for(state, seat)) == game.observation(core, seat)).all()
    return state


def safe_positions(game: Any, games: int, seed: int) -> list[Any]:
    """Every position of ``games`` Tris 2 games in which both sides roll at random among
    the moves that hand over no line (while there is one) and take a win in one: under the
    rule of 4 they run into zugzwangs, where random games rarely get."""
    rng = np.random.default_rng(seed)
    seen: list[Any] = []
    for _ in range(games):
        state = game.initial_state(rng)
        while not game.is_terminal(state) and len(seen) < 400 * games:
            seen.append(state)
            wins, handovers = tactics_of(game).tactical_moves(state)
            legal = list(game.legal_actions(state))
            safe = [a for a in legal if not handovers[a]] or legal
            state = game.apply(state, int(rng.choice([a for a in safe if wins[a]] or safe)))
        seen.append(state)
    return seen


def trap_handovers_by_play(game: Any, state: Any) -> list[int]:
    """Tris 2's rolls after which the game goes on and the opponent has a trap (a roll that
    leaves every reply handing over a line), found by playing each roll: what
    ``trap_handovers`` of the rules core and of the JAX game should flag."""
    if game.is_terminal(state) or state.placing:
        return []
    return [a for a in game.legal_actions(state) if not game.is_terminal(game.apply(state, a))
            and tactics_of(game).trap_moves(game.apply(state, a)).any()]


def odd_file_names() -> st.SearchStrategy[str]:
    """A file's or folder's name that a spec's text cannot hold as it is: a ``:`` in it,
    and spaces, ``=``, digits or any other character a name may have."""
    part = st.text(st.sampled_from(list("= .0é網_-")) | st.characters(
        codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="/"), max_size=8)
    return st.tuples(part, part).map(":".join)

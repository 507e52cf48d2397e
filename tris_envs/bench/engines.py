"""Throughput and solver benchmark of the rules engines and their environments
(``tris-envs bench``).

Speeds are reported as ratios against PettingZoo's ``tictactoe_v3`` measured in the same
process, so they mean the same on a fast or a loaded machine. Every comparison times its
contenders in interleaved rounds (:func:`tris_envs.bench.fair.schedule`): the order
alternates from one round to the next and every timing plays from a seed of its own, so
that no contender replays positions another has just put in the games' memos; the best
round of each is kept, which filters out the moments when other processes take the CPU.
"""

from __future__ import annotations

import functools
import importlib
import random
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MethodType
from typing import Any

import numpy as np

from tris_envs.agents.az import BATCH_SIZE, AZAgent, NetworkEvaluator
from tris_envs.agents.az import EXPLORATION as AZ_EXPLORATION
from tris_envs.agents.az_network import NetConfig, Network
from tris_envs.agents.mcts import MCTSAgent
from tris_envs.bench.fair import provenance, schedule, turns
from tris_envs.core.game import CHANCE, TERMINAL, Game, resolve_chance
from tris_envs.core.solver import solve
from tris_envs.games import GAMES, game_spec, make_game
from tris_envs.games.doppia_scelta import SCHEMES, DoppiaScelta
from tris_envs.games.tant_fant import TantFant
from tris_envs.games.tris1 import Tris1

BASELINE = "tictactoe_v3"
OPENSPIEL, OPENSPIEL_CPP = "OpenSpiel MCTSBot", "OpenSpiel C++ MCTSBot"
"""The contenders' names of OpenSpiel's Python and C++ searches."""

EXPLORATION = 1.4
"""The UCT constant of every MCTS timed here: our ``mcts`` agents' and OpenSpiel's bots."""

OPENSPIEL_SIMULATIONS = 200
"""Simulations per search in the like-for-like comparison with OpenSpiel's Python
``MCTSBot`` on our games (it runs tens to hundreds of simulations per second there)."""

MCTS_TARGET = 2.0
"""Target: our MCTS at least this many times as many simulations per second as OpenSpiel's
Python ``MCTSBot`` on the same game and position."""


def env_module(name: str) -> Any:
    """The environment module of game ``name`` (``"tant_fant_v0"`` or ``"tant_fant"``)."""
    return importlib.import_module(game_spec(name).env_module)


def aec_steps_per_second(make_env: Callable[[], Any], steps: int, seed: int = 0) -> float:
    """Random play through the AEC loop, observation and mask read every step."""
    env = make_env()
    env.reset(seed=seed)
    rnd = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(rnd.choice(np.flatnonzero(obs["action_mask"])))
                done += 1
        env.reset()
    return done / (time.perf_counter() - start)


def core_steps_per_second(game: Game, steps: int, seed: int = 0) -> float:
    """Random playouts on the rules core alone (chance outcomes not counted as steps)."""
    rng = np.random.default_rng(seed)
    rnd = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        state = game.initial_state(rng)
        for _ in range(game.info.max_moves):
            player = game.current_player(state)
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcomes = game.chance_outcomes(state)
                state = game.apply(state, outcomes[rng.choice(len(outcomes),
                                                              p=[p for _, p in outcomes])][0])
                continue
            state = game.apply(state, rnd.choice(game.legal_actions(state)))
            done += 1
    return done / (time.perf_counter() - start)


def best_rates(timers: Mapping[str, Callable[[int], float | None]], rounds: int
               ) -> dict[str, float]:
    """The best rate of each contender over ``rounds`` rounds of
    :func:`~tris_envs.bench.fair.schedule`, each timing called with its own seed slot. A
    timing that gives ``None`` (a library not installed) is left out; a contender with no
    rate at all is missing from the result."""
    best: dict[str, float] = {}
    for _, name, slot in schedule(list(timers), rounds):
        rate = timers[name](slot)
        if rate is not None:
            best[name] = max(best.get(name, 0.0), rate)
    return best


def baseline_env() -> Any:
    """PettingZoo's ``tictactoe_v3.env()`` (its import warns about the old API).

    Raises:
        ImportError: pygame is missing (the module imports it): names the ``render`` extra.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from pettingzoo.classic import tictactoe_v3
        except ImportError as error:
            if error.name != "pygame":
                raise
            raise ImportError("the baseline, PettingZoo's tictactoe_v3, imports pygame: "
                              "pip install 'tris_envs[render]'") from error
    return tictactoe_v3.env()


def pettingzoo_chain(env: Any) -> Any:
    """``env`` in PettingZoo's classic three-wrapper chain (which ``env()`` replaces)."""
    from pettingzoo.utils import wrappers

    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


@dataclass
class Row:
    """One environment's figures."""

    name: str
    env_steps: float
    core_steps: float | None
    target: float | None = None

    def ratio(self, baseline: float) -> float:
        return self.env_steps / baseline


def run(steps: int = 20_000, rounds: int = 3, names: list[str] | None = None,
        mcts_simulations: int = 2000, mcts_only: bool = False,
        openspiel_simulations: int | None = None) -> str:
    """Measure every environment, the solvers and MCTS; return a Markdown report, its
    last line the provenance (:func:`~tris_envs.bench.fair.provenance`).

    ``mcts_simulations=0`` skips the MCTS section; ``mcts_only`` gives only that section
    (:func:`mcts_report`); ``openspiel_simulations`` is the budget of its comparison with
    OpenSpiel (default :data:`OPENSPIEL_SIMULATIONS`).
    """
    began = time.perf_counter()
    names = names or [spec.env_name for spec in GAMES.values()]
    openspiel_simulations = openspiel_simulations or OPENSPIEL_SIMULATIONS
    if mcts_only:
        return "\n".join([*mcts_report(names, mcts_simulations, rounds,
                                       openspiel_simulations)[1:], "", provenance(began, 0)])
    makers: dict[str, Callable[[], Any]] = {BASELINE: baseline_env}
    makers.update({name: env_module(name).env for name in names})
    wrapper_rows = {}
    if "tant_fant_v0" in names:
        raw = env_module("tant_fant_v0").raw_env
        wrapper_rows = {"tant_fant_v0 raw_env (no wrapper)": raw,
                        "tant_fant_v0 in PettingZoo's wrapper chain":
                            lambda: pettingzoo_chain(raw())}
        makers.update(wrapper_rows)
    timers: dict[str, Callable[[int], float | None]] = {
        label: functools.partial(aec_steps_per_second, make, steps)
        for label, make in makers.items()}
    timers.update({f"{name} core": functools.partial(core_steps_per_second,
                                                     env_module(name).raw_env().game, steps)
                   for name in names})
    best = best_rates(timers, rounds)
    rows = [Row(BASELINE, best[BASELINE], None)]
    rows += [Row(name, best[name], best[f"{name} core"], game_spec(name).bench_ratio)
             for name in names]

    lines = [
        f"Random play, {steps} steps x best of {rounds} interleaved rounds (the order "
        "alternating, a seed of its own for each timing), observation and mask every step",
        "",
        "| environment | env() steps/s | ratio to tictactoe_v3 | target | raw core steps/s |",
        "|---|---:|---:|---:|---:|",
    ]
    rows += [Row(label, best[label], None) for label in wrapper_rows]
    base = best[BASELINE]
    for row in rows:
        verdict = "" if row.target is None else (
            f"≥ {row.target:g}× {'met' if row.ratio(base) >= row.target else 'NOT met'}")
        core_text = "" if row.core_steps is None else f"{row.core_steps:,.0f}"
        lines.append(f"| {row.name} | {row.env_steps:,.0f} | {row.ratio(base):.2f}× | "
                     f"{verdict} | {core_text} |")
    lines += ["", "| exact solve | positions | value | seconds |", "|---|---:|---:|---:|"]
    for label, game in solver_cases():
        start = time.perf_counter()
        solution = solve(game, game.initial_state(np.random.default_rng(0)))
        seconds = time.perf_counter() - start
        value = {1: "first player wins", 0: "draw", -1: "second player wins"}[
            int(solution.values[0])]
        lines.append(f"| {label} | {len(solution):,} | {value} | {seconds:.3f} |")
    lines += ["", "| Doppia scelta, one random board | boards | mean positions | mean seconds "
              "| target |", "|---|---:|---:|---:|---:|"]
    for scheme, positions, seconds in doppia_scelta_solves(boards=20):
        verdict = "< 0.1 s " + ("met" if seconds < 0.1 else "NOT met")
        lines.append(f"| {scheme} | 20 | {positions:,.0f} | {seconds:.4f} | {verdict} |")
    if mcts_simulations:
        lines += mcts_report(names, mcts_simulations, rounds, openspiel_simulations)
    return "\n".join([*lines, "", provenance(began, 0)])


def mcts_simulations_per_second(game: Game, simulations: int, seed: int = 0,
                                search_seed: int | None = None) -> float:
    """Simulations per second of our MCTS from the game's start (root visits / seconds).

    ``seed`` draws the start; the search goes on with that generator, or with one seeded
    by ``search_seed`` when given.
    """
    rng = np.random.default_rng(seed)
    state = resolve_chance(game, game.initial_state(rng), rng)
    if search_seed is not None:
        rng = np.random.default_rng(search_seed)
    agent = MCTSAgent(simulations, rng=rng, exploration=EXPLORATION)
    start = time.perf_counter()
    root = agent.search(game, state)
    return root.visits / (time.perf_counter() - start)


def openspiel_simulations_per_second(simulations: int, seed: int = 0,
                                     cpp: bool = False) -> float | None:
    """OpenSpiel's ``MCTSBot`` (random rollouts, solver on) on its own ``tic_tac_toe``:
    the Python bot, or with ``cpp`` the C++ one (the upper anchor).

    ``None`` when OpenSpiel is not installed (``pip install 'tris_envs[bench]'``).
    """
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError:
        return None
    game = pyspiel.load_game("tic_tac_toe")
    if cpp:
        bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), EXPLORATION,
                              simulations, 1000, True, seed, False)
    else:
        bot = mcts.MCTSBot(game, uct_c=EXPLORATION, max_simulations=simulations,
                           evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                           solve=True, random_state=np.random.RandomState(seed))
    start = time.perf_counter()
    root = bot.mcts_search(game.new_initial_state())
    return root.explore_count / (time.perf_counter() - start)


def openspiel_game_simulations_per_second(game: Game, simulations: int, seed: int = 0,
                                          search_seed: int | None = None) -> float | None:
    """OpenSpiel's Python ``MCTSBot`` (random rollouts, solver on) on our ``game`` as
    registered in OpenSpiel (``tris_envs_<game>``), from the start that
    :func:`mcts_simulations_per_second` searches for the same ``seed``; the bot's
    generators are seeded by ``search_seed`` when given, by ``seed`` otherwise.

    ``None`` when OpenSpiel is not installed (``pip install 'tris_envs[bench]'``).
    """
    try:
        from open_spiel.python.algorithms import mcts

        from tris_envs.integrations.openspiel import openspiel_state
    except ImportError:
        return None
    rng = np.random.default_rng(seed)
    state = openspiel_state(game, resolve_chance(game, game.initial_state(rng), rng))
    search = seed if search_seed is None else search_seed
    bot = mcts.MCTSBot(state.get_game(), uct_c=EXPLORATION, max_simulations=simulations,
                       evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(search)),
                       solve=True, random_state=np.random.RandomState(search))
    start = time.perf_counter()
    root = bot.mcts_search(state)
    return root.explore_count / (time.perf_counter() - start)


PLAYOUT_CASES: tuple[tuple[str, dict[str, Any], float | None], ...] = (
    ("tris2", {}, 1.5),
    ("tris2", {"max_side": 4}, 1.5),
    ("tritoc", {}, None),
)
"""Games whose MCTS rollouts have a fast path: name, options, target speed-up."""


def generic_playouts(game: Game) -> Game:
    """A copy of ``game`` whose rollouts take the generic :meth:`Game.random_playout`
    (``legal_actions`` and ``apply`` every ply) instead of the game's own fast path.

    Both paths draw the same uniforms and reach the same results, so a seeded search builds
    the same tree on either (tests/test_mcts_search.py checks it).
    """
    plain = type(game)(**game.options())
    plain.random_playout = MethodType(Game.random_playout, plain)  # type: ignore[method-assign]
    return plain


def playout_speedups(simulations: int, rounds: int, names: list[str] | None = None
                     ) -> list[tuple[str, float, float, float | None]]:
    """MCTS simulations per second with the generic rollouts and with each game's fast
    ones, best of ``rounds``: ``(label, generic, fast, target)`` per :data:`PLAYOUT_CASES`
    entry whose environment is in ``names`` (all without).

    Round ``r`` searches the start drawn by seed ``r`` on both paths, in turn
    (:func:`~tris_envs.bench.fair.turns`: which goes first alternates), each with its own
    search seed: the same search twice would find the games' memos (legal rolls by
    occupancy, say) already filled by the first run.
    """
    cases = [(name, options, target) for name, options, target in PLAYOUT_CASES
             if names is None or game_spec(name).env_name in names]
    best = {i: [0.0, 0.0] for i in range(len(cases))}
    for seed in range(rounds):
        for i, (name, options, _) in enumerate(cases):
            fast = make_game(name, **options)
            games = (generic_playouts(fast), fast)
            for mode, search_seed in turns((0, 1), seed):
                speed = mcts_simulations_per_second(games[mode], simulations, seed,
                                                    search_seed=search_seed)
                best[i][mode] = max(best[i][mode], speed)
    return [(" ".join([name, *(f"{k}={v}" for k, v in options.items())]), best[i][0],
             best[i][1], target) for i, (name, options, target) in enumerate(cases)]


def playout_report(simulations: int, rounds: int, names: list[str] | None = None
                   ) -> list[str]:
    """Markdown lines: :func:`playout_speedups` as a table."""
    rows = playout_speedups(simulations, rounds, names)
    if not rows:
        return []
    lines = ["", f"MCTS rollouts: the generic path against the game's fast path, "
             f"{simulations} simulations from the start, best of {rounds}", "",
             "| game | generic simulations/s | fast simulations/s | speed-up | target |",
             "|---|---:|---:|---:|---:|"]
    for label, generic, fast, target in rows:
        ratio = fast / generic
        verdict = "" if target is None else (
            f"≥ {target:g}× {'met' if ratio >= target else 'NOT met'}")
        lines.append(f"| {label} | {generic:,.0f} | {fast:,.0f} | {ratio:.2f}× | {verdict} |")
    return lines


AZ_CASE = ("tris2", 32, 3, 100, 0.1)
"""The ``az`` search timed: game, network width and blocks (a random network of the default
size), simulations per move, target seconds per move."""


def self_play_seconds_per_move(game: Game, act: Callable[[Any], int], moves: int,
                               rng: np.random.Generator) -> tuple[float, float]:
    """Mean seconds per move (wall clock and this process's CPU time) of ``act`` (a state
    to its move) playing ``moves`` moves against itself from ``rng``'s start, a new game
    when one ends; chance resolved by ``rng``. Only the calls of ``act`` are timed."""
    seconds = cpu = 0.0
    state = resolve_chance(game, game.initial_state(rng), rng)
    for _ in range(moves):
        if game.current_player(state) == TERMINAL:
            state = resolve_chance(game, game.initial_state(rng), rng)
        start, start_cpu = time.perf_counter(), time.process_time()
        action = act(state)
        seconds += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        state = resolve_chance(game, game.apply(state, action), rng)
    return seconds / moves, cpu / moves


def az_seconds_per_move(simulations: int, batch_size: int, moves: int, seed: int = 0,
                        width: int = 32, blocks: int = 3, tactics: bool = False,
                        trap_planes: bool = False) -> tuple[float, float, float]:
    """Mean seconds per move (wall clock and this process's CPU time) and mean simulations
    per move of ``az:<simulations>`` with a random Tris 2 network (``width`` x ``blocks``,
    drawn from ``seed``; with ``tactics``, reading the tactics planes as the shipped network
    does, and with ``trap_planes`` the trap planes too, as the rule of 4's network does),
    leaves evaluated ``batch_size`` at a time.

    The agent plays ``moves`` moves against itself from seed ``seed``'s start (a new game
    when one ends); every move is timed, a proven root's early stop included. The CPU time
    is the wall time less the moments other processes held the CPU (the network runs on
    one thread).
    """
    game = make_game(AZ_CASE[0])
    rng = np.random.default_rng(seed)
    network = Network(game, NetConfig(game.info.name, {}, width, blocks, tactics=tactics,
                                      trap_planes=trap_planes), rng=rng)
    evaluator = NetworkEvaluator(network)
    searched = 0

    def act(state: Any) -> int:
        nonlocal searched
        search = MCTSAgent(simulations, rng=rng, exploration=AZ_EXPLORATION, evaluator=evaluator,
                           batch_size=batch_size)     # what AZAgent.act runs
        action = search.act(game, state)
        searched += search.last_simulations
        return action

    seconds, cpu = self_play_seconds_per_move(game, act, moves, rng)
    return seconds, cpu, searched / moves


def az_report(rounds: int, moves: int = 10) -> list[str]:
    """Markdown lines: :func:`az_seconds_per_move` of :data:`AZ_CASE`, leaves one at a time
    and in the ``az`` agents' default batches, then in those batches with the tactics planes
    in the input and with the trap planes after them, best of ``rounds`` (round ``r`` plays
    from seed ``r``)."""
    name, width, blocks, simulations, target = AZ_CASE
    lines = ["", f"az:{simulations} on {name}, a random network of width {width} and "
             f"{blocks} blocks, {moves} moves of self-play, best of {rounds}", "",
             "| leaves per network call | ms per move | CPU ms per move | simulations per move "
             "| target |", "|---|---:|---:|---:|---:|"]
    for batch_size, tactics, traps in ((1, False, False), (BATCH_SIZE, False, False),
                                       (BATCH_SIZE, True, False), (BATCH_SIZE, True, True)):
        wall, cpu, searched = min(az_seconds_per_move(simulations, batch_size, moves, seed,
                                                      width, blocks, tactics, traps)
                                  for seed in range(rounds))
        verdict = f"≤ {1000 * target:g} ms {'met' if wall <= target else 'NOT met'}"
        label = f"{batch_size}" + (" (default)" if batch_size == BATCH_SIZE else "") + (
            ", tactics and trap planes" if traps else ", tactics planes" if tactics else "")
        lines.append(f"| {label} | {1000 * wall:.1f} | {1000 * cpu:.1f} | {searched:.0f} | "
                     f"{verdict} |")
    return lines


SHIPPED_AZ_GAME = "tritoc"
"""The game whose shipped network :func:`shipped_az_report` times: Tritoc's, whose header
plays a deep search with the playout mix."""


def shipped_az_seconds_per_move(name: str, moves: int, seed: int = 0,
                                simulations: int | None = None, mix: float | None = None,
                                batch: int | None = None) -> tuple[float, float]:
    """Mean seconds per move (wall clock and this process's CPU time) of the ``az`` agent
    with the network shipped for game ``name``, ``AZAgent(simulations=..., mix=...,
    batch=...)`` (``None``: the network's header), ``moves`` moves of self-play from
    seed ``seed``'s start (a new game when one ends); every move is timed, forced ones
    included.
    """
    game = make_game(name)
    rng = np.random.default_rng(seed)
    agent = AZAgent(simulations=simulations, rng=rng, mix=mix, batch=batch)
    agent.network_for(game)          # load before timing
    return self_play_seconds_per_move(game, lambda state: agent.act(game, state), moves, rng)


def shipped_az_report(rounds: int, moves: int = 10) -> list[str]:
    """Markdown lines: :func:`shipped_az_seconds_per_move` of :data:`SHIPPED_AZ_GAME`'s
    network as shipped (its header's budget, playout mix and batch) and as ``az`` played it
    before those: 100 simulations, the network's values alone, in batches of
    :data:`~tris_envs.agents.az.BATCH_SIZE` (``AZAgent(simulations=100, mix=0,
    batch=BATCH_SIZE)``), best of ``rounds`` (round ``r`` plays from seed ``r``)."""
    name = SHIPPED_AZ_GAME
    agent = AZAgent()
    network = agent.network_for(make_game(name))
    lines = ["", f"az on {name} with its shipped network, {moves} moves of self-play, best of "
             f"{rounds}", "", "| search | ms per move | CPU ms per move |", "|---|---:|---:|"]
    shipped = network.search.batch
    for label, simulations, mix, batch in (
            (f"as shipped ({agent.budget(network)} simulations, playout mix "
             f"{network.search.mix:g}, {shipped} leaf per network call"
             f"{'s' if shipped > 1 else ''})", None, None, None),
            (f"100 simulations, the network's values alone, {BATCH_SIZE} leaves per call",
             100, 0.0, BATCH_SIZE)):
        wall, cpu = min(shipped_az_seconds_per_move(name, moves, seed, simulations, mix,
                                                    batch)
                        for seed in range(rounds))
        lines.append(f"| {label} | {1000 * wall:.1f} | {1000 * cpu:.1f} |")
    return lines


def mcts_report(names: list[str], simulations: int, rounds: int,
                openspiel_simulations: int = OPENSPIEL_SIMULATIONS) -> list[str]:
    """Markdown lines: our MCTS per game, OpenSpiel's on tic-tac-toe against Tris 1 (all
    timed in interleaved rounds, each search from a start and with a seed of its own), our
    MCTS and OpenSpiel's Python ``MCTSBot`` on the same games and positions, the fast
    rollouts against the generic ones, the ``az`` search on Tris 2 and Tritoc's shipped
    ``az``."""
    lines = ["", f"MCTS from the start position, {simulations} simulations, best of {rounds} "
             "interleaved rounds", "", "| game | simulations/s |", "|---|---:|"]
    timers: dict[str, Callable[[int], float | None]] = {
        name: functools.partial(mcts_simulations_per_second, env_module(name).raw_env().game,
                                simulations) for name in names}
    timers[OPENSPIEL] = functools.partial(openspiel_simulations_per_second, simulations)
    timers[OPENSPIEL_CPP] = functools.partial(openspiel_simulations_per_second, simulations,
                                              cpp=True)
    best = best_rates(timers, rounds)
    lines += [f"| {name} (tris_envs MCTSAgent) | {best[name]:,.0f} |" for name in names]
    if OPENSPIEL not in best:
        lines.append("| tic_tac_toe (OpenSpiel MCTSBot) | not installed: "
                     "pip install 'tris_envs[bench]' |")
    else:
        spiel = best[OPENSPIEL]
        lines.append(f"| tic_tac_toe (OpenSpiel MCTSBot) | {spiel:,.0f} |")
        lines.append(f"| tic_tac_toe (OpenSpiel C++ MCTSBot, upper anchor) | "
                     f"{best[OPENSPIEL_CPP]:,.0f} |")
        if "tris1_v0" in best:
            lines.append(f"| ratio tris1 / OpenSpiel tic_tac_toe (target ≥ 1×) | "
                         f"{best['tris1_v0'] / spiel:.2f}× |")
        lines += like_for_like_report(names, openspiel_simulations, rounds)
    lines += playout_report(simulations, rounds, names)
    if game_spec(AZ_CASE[0]).env_name in names:
        lines += az_report(rounds)
    if game_spec(SHIPPED_AZ_GAME).env_name in names:
        lines += shipped_az_report(rounds)
    return lines


def like_for_like_report(names: list[str], simulations: int, rounds: int) -> list[str]:
    """Markdown lines: our MCTS and OpenSpiel's Python ``MCTSBot`` on each game's start
    for seeds ``0 .. rounds-1`` (round ``r`` searches the start of seed ``r`` with both,
    like for like), ``simulations`` each, random rollouts, UCT constant
    :data:`EXPLORATION`; the two in turn (:func:`~tris_envs.bench.fair.turns`: which goes
    first alternates), each search with a seed of its own, best of ``rounds``."""
    lines = ["", f"MCTS like for like: the same start positions, {simulations} simulations, "
             f"random rollouts, UCT c = {EXPLORATION}, best of {rounds}", "",
             "| game | tris_envs mcts simulations/s | OpenSpiel Python MCTSBot simulations/s "
             "| ratio | target |", "|---|---:|---:|---:|---:|"]
    for name in names:
        game = env_module(name).raw_env().game
        searches = {"ours": mcts_simulations_per_second,
                    OPENSPIEL: openspiel_game_simulations_per_second}
        best = dict.fromkeys(searches, 0.0)
        for start, side, slot in schedule(list(searches), rounds):
            speed = searches[side](game, simulations, start, search_seed=slot)
            best[side] = max(best[side], speed or 0.0)
        ours, spiel = best["ours"], best[OPENSPIEL]
        ratio = ours / spiel
        verdict = f"≥ {MCTS_TARGET:g}× {'met' if ratio >= MCTS_TARGET else 'NOT met'}"
        lines.append(f"| {name} | {ours:,.0f} | {spiel:,.0f} | {ratio:.2f}× | {verdict} |")
    return lines


def doppia_scelta_solves(boards: int, seed: int = 0) -> list[tuple[str, float, float]]:
    """Mean reachable positions and solve seconds of random boards, per scheme."""
    rows = []
    for scheme in SCHEMES:
        game = DoppiaScelta(scheme=scheme)
        rng = np.random.default_rng(seed)
        openings = [game.initial_state(rng) for _ in range(boards)]
        start = time.perf_counter()
        sizes = [len(solve(game, opening)) for opening in openings]
        rows.append((scheme, sum(sizes) / boards, (time.perf_counter() - start) / boards))
    return rows


def solver_cases() -> list[tuple[str, Game]]:
    """The games the benchmark solves exactly."""
    cases: list[tuple[str, Game]] = [("tris1", Tris1())]
    for stalemate in ("draw", "loss"):
        for diagonal_only in (False, True):
            cases.append((f"tant_fant stalemate={stalemate} diagonal_only={diagonal_only}",
                          TantFant(stalemate=stalemate, diagonal_only=diagonal_only)))
    return cases

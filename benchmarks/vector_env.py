"""Steps per second of the masked vector env against Gymnasium's ``SyncVectorEnv``, in one run.

Both step ``--num-envs`` games of the single-agent view (the learner against
``--opponents``) with random legal learner actions drawn from the returned masks:
:class:`~tris_envs.envs.vector.SingleAgentVectorEnv` (one object, the games as
:class:`~tris_envs.envs.turns.Duel` states) and ``gymnasium.vector.SyncVectorEnv`` over
``num_envs`` :class:`~tris_envs.envs.SingleAgentEnv` (what ``gymnasium.make_vec(...,
vectorization_mode="sync")`` builds). The time is this process's CPU time
(``time.process_time``), so other work on shared cores does not count, and the wall-clock
rates are printed beside it.

Fairness. The contenders (``SyncVectorEnv``, ``SingleAgentVectorEnv`` and the rules core
alone, below) are timed in interleaved rounds (:func:`tris_envs.bench.fair.schedule`): the
order alternates from one round to the next, and every timing plays its own games, reset
with the seed ``--seed + slot * num_envs`` of its slot (game ``k`` of a run from seed
``s`` is seeded ``s + k``, so no two timings share a game). The best round of each is kept.
The games' memos are not cleared between contenders: Tris 2's rules core keeps the rolls of
the occupancies it has met in module-level dicts, and Tritoc its action sets, and both
environments run on that core, as a training run does with the memos filled. Timed from
the same seed and always second, one environment would replay the positions the other had
just put there; with seeds of their own and the order alternating, what earlier rounds
left in the memos serves both alike. Use an even number of rounds, so that each contender
goes first equally often.

The column "rules core alone" bounds what any such environment can reach: the calls the
vector env makes into the rules core in a round (``apply``, ``legal_mask``,
``observation``, their batched ``observations`` and ``legal_masks``, ... the outermost
ones, the opponent's own included) are recorded and replayed on their own, with no
environment around them; its "bound" is that rate over ``SyncVectorEnv``'s, the speed-up
of an environment whose machinery cost nothing. (The opponent's random draws are not
replayed, and the replay finds the memos filled by the run it records, so the bound is a
little high.) ``--profile`` prints instead the share of each environment's CPU time that
``cProfile`` finds in the rules core and the opponent's agent.

Prints a Markdown table, and its line of provenance (machine, date, wall time, seed and the
command); ``--out PATH`` writes both to ``PATH`` too (the table under ``docs/results/``)::

    python benchmarks/vector_env.py --games tant_fant,tris2 --opponents random,greedy \\
        --num-envs 64 --steps 300 --rounds 6 --out vector_env.md
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import pstats
import shlex
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium.vector import SyncVectorEnv

from tris_envs.bench.fair import provenance, schedule
from tris_envs.durable import write_text
from tris_envs.envs.single_agent import SingleAgentEnv
from tris_envs.envs.vector import SingleAgentVectorEnv
from tris_envs.games import make_game

TARGET = 3.0
"""The speed-up over ``SyncVectorEnv`` the vector env aims at with the random opponent."""

CORE_METHODS = ("initial_state", "current_player", "legal_actions", "legal_mask", "apply",
                "rewards", "chance_outcomes", "returns", "observation", "observations",
                "legal_masks")
"""The rules core's methods whose calls :func:`core_rate` records and replays."""


def steps_per_second(env: Any, steps: int, seed: int) -> tuple[float, float]:
    """Learner steps per second (CPU time, wall time) of ``steps`` batched steps after
    ``env.reset(seed=seed)``, random legal actions drawn from the infos' masks."""
    _, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(steps):
        masks = infos["action_mask"]
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        _, _, _, _, infos = env.step(actions)
    done = steps * env.num_envs
    return done / (time.process_time() - cpu), done / (time.perf_counter() - wall)


def make_envs(game: str, opponent: str, num_envs: int) -> dict[str, Any]:
    """Both environments of ``num_envs`` games against ``opponent``, by name."""
    return {"SyncVectorEnv": SyncVectorEnv([lambda: SingleAgentEnv(game, opponent=opponent)
                                            for _ in range(num_envs)]),
            "SingleAgentVectorEnv": SingleAgentVectorEnv(game, num_envs, opponent=opponent)}


def core_rate(game: str, opponent: str, num_envs: int, steps: int, seed: int) -> float:
    """Learner steps per CPU second of the rules-core calls alone: those a vector env makes
    in :func:`steps_per_second` (the outermost ones), replayed on a new game."""
    env = SingleAgentVectorEnv(game, num_envs, opponent=opponent)
    calls: list[tuple[str, tuple[Any, ...]]] = []
    depth = [0]

    def recording(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def record(*args: Any) -> Any:
            if depth[0] == 0:
                calls.append((name, args))
            depth[0] += 1
            try:
                return method(*args)
            finally:
                depth[0] -= 1
        return record

    for name in CORE_METHODS:
        setattr(env.game, name, recording(name, getattr(env.game, name)))
    steps_per_second(env, steps, seed)
    fresh = make_game(game)
    methods = {name: getattr(fresh, name) for name in CORE_METHODS}
    cpu = time.process_time()
    for name, args in calls:
        methods[name](*args)
    return steps * num_envs / (time.process_time() - cpu)


Timer = Callable[[int], tuple[float, float]]
"""A contender: its (CPU, wall) rate of one timing whose games are reset from a seed."""


def best_rates(timers: Mapping[str, Timer], rounds: int, num_envs: int, seed: int = 0
               ) -> dict[str, tuple[float, float]]:
    """The best (CPU, wall) rates of each contender over ``rounds`` interleaved rounds
    (:func:`~tris_envs.bench.fair.schedule`), the timing of slot ``s`` reset from the seed
    ``seed + s * num_envs``: its ``num_envs`` games are seeded apart from every other
    timing's."""
    best = {name: (0.0, 0.0) for name in timers}
    for _, name, slot in schedule(list(timers), rounds):
        cpu, wall = timers[name](seed + slot * num_envs)
        best[name] = (max(best[name][0], cpu), max(best[name][1], wall))
    return best


def compare(game: str, opponent: str, num_envs: int, steps: int, rounds: int, seed: int = 0
            ) -> dict[str, tuple[float, float]]:
    """Best (CPU, wall) rates of both environments over interleaved rounds, and the best
    CPU rate of the rules core alone (``"core"``), timed in those rounds too
    (:func:`best_rates`)."""
    timers: dict[str, Timer] = {name: functools.partial(steps_per_second, env, steps)
                                for name, env in make_envs(game, opponent, num_envs).items()}
    timers["core"] = lambda start: (core_rate(game, opponent, num_envs, steps, start), 0.0)
    return best_rates(timers, rounds, num_envs, seed)


def profile_shares(game: str, opponent: str, num_envs: int, steps: int) -> str:
    """The share of each environment's CPU time spent in the rules core and the opponent's
    agent (``tris_envs/core/``, ``games/``, ``agents/``: the outermost calls into them),
    from ``cProfile`` on the process's CPU clock over ``steps`` steps after as many
    unmeasured ones."""
    lines = []
    for name, env in make_envs(game, opponent, num_envs).items():
        steps_per_second(env, steps, 1)
        profile = cProfile.Profile(time.process_time)
        profile.runcall(steps_per_second, env, steps, 0)
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
        total = max(entry[3] for entry in stats.values())
        inside = sum(edge[3] for function, entry in stats.items() if _is_core(function[0])
                     for caller, edge in entry[4].items() if not _is_core(caller[0]))
        lines.append(f"{name}: {inside / total:.0%} of {total:.2f} CPU s in the rules core "
                     "and the opponent's agent")
    return f"{game} against {opponent}, {num_envs} games, {steps} steps: " + "; ".join(lines)


def _is_core(filename: str) -> bool:
    """Whether ``filename`` is a module of the rules core or of the agents."""
    path = filename.replace("\\", "/")
    return any(f"tris_envs/{part}/" in path for part in ("core", "games", "agents"))


def verdict(ratio: float) -> str:
    """The target column of a speed-up against the random opponent: met, or by how much it
    falls short."""
    if ratio >= TARGET:
        return f"≥ {TARGET:g}× met"
    return f"≥ {TARGET:g}× NOT met, {1 - ratio / TARGET:.0%} short"


def report(games: list[str], opponents: list[str], num_envs: int, steps: int,
           rounds: int, seed: int = 0) -> str:
    """The Markdown table of :func:`compare` for every game and opponent."""
    lines = [f"{num_envs} games, {steps} steps x best of {rounds} interleaved rounds (the order "
             "alternating, each timing with games of its own), random legal learner moves; "
             "steps/s of this process's CPU time (wall clock in brackets)", "",
             "| game | opponent | SyncVectorEnv steps/s | SingleAgentVectorEnv steps/s | "
             "speed-up | target | rules core alone steps/s | bound |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for game in games:
        for opponent in opponents:
            best = compare(game, opponent, num_envs, steps, rounds, seed)
            (sync_cpu, sync_wall), (ours_cpu, ours_wall) = (best["SyncVectorEnv"],
                                                            best["SingleAgentVectorEnv"])
            ratio = ours_cpu / sync_cpu
            target = verdict(ratio) if opponent == "random" else ""
            core = best["core"][0]
            lines.append(f"| {game} | {opponent} | {sync_cpu:,.0f} ({sync_wall:,.0f}) | "
                         f"{ours_cpu:,.0f} ({ours_wall:,.0f}) | {ratio:.2f}× | {target} | "
                         f"{core:,.0f} | {core / sync_cpu:.2f}× |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Print the table and its provenance, and write them to ``--out`` (or, with
    ``--profile``, print the shares of the rules core)."""
    began = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tant_fant,tris2")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6,
                        help="interleaved rounds, the best kept (even: each contender goes "
                             "first as often as the other)")
    parser.add_argument("--seed", type=int, default=0,
                        help="the first timing's seed; timing s plays from seed + s * num_envs")
    parser.add_argument("--out", help="also write the table and its provenance to this file")
    parser.add_argument("--profile", action="store_true",
                        help="instead of the table, the share of each environment's CPU time "
                             "in the rules core and the opponent's agent, for every game and "
                             "opponent")
    args = parser.parse_args(argv)
    games, opponents = args.games.split(","), args.opponents.split(",")
    if args.profile:
        for game in games:
            for opponent in opponents:
                print(profile_shares(game, opponent, args.num_envs, args.steps))
        return
    argv = sys.argv[1:] if argv is None else argv
    table = report(games, opponents, args.num_envs, args.steps, args.rounds, args.seed)
    text = f"{table}\n\n" + provenance(began, args.seed, "python benchmarks/vector_env.py "
                                                      + shlex.join(argv)) + "\n"
    print(text, end="")
    if args.out:
        write_text(args.out, text)


if __name__ == "__main__":
    main()

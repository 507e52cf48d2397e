"""Steps per second of the masked vector env against Gymnasium's ``SyncVectorEnv``, in one run.

Both step ``--num-envs`` games of the single-agent view (the learner against
``--opponents``) with random legal learner actions drawn from the returned masks:
:class:`~tris_envs.envs.vector.SingleAgentVectorEnv` (one object, the games as
:class:`~tris_envs.envs.turns.Duel` states) and ``gymnasium.vector.SyncVectorEnv`` over
``num_envs`` :class:`~tris_envs.envs.SingleAgentEnv` (what ``gymnasium.make_vec(...,
vectorization_mode="sync")`` builds). Both play the same episodes from the same seeds.
Rounds are interleaved, each with new seeds, and the best round of each is kept; the time
is this process's CPU time (``time.process_time``), so other work on shared cores does
not count, and the wall-clock rates are printed beside it.

The column "rules core alone" bounds what any such environment can reach: the calls the
vector env makes into the rules core in a round (``apply``, ``legal_mask``,
``observation``, their batched ``observations`` and ``legal_masks``, ... the outermost
ones, the opponent's own included) are recorded and replayed on their own, with no
environment around them; its "bound" is that rate over ``SyncVectorEnv``'s, the speed-up
of an environment whose machinery cost nothing. (The opponent's random draws are not
replayed, so the bound is a little high.) ``--profile`` prints instead the share of each
environment's CPU time that ``cProfile`` finds in the rules core and the opponent's agent.
Prints a Markdown table::

    python benchmarks/vector_env.py --games tant_fant,tris2 --opponents random,greedy \\
        --num-envs 64 --steps 300 --rounds 5
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.vector import SyncVectorEnv

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


def compare(game: str, opponent: str, num_envs: int, steps: int, rounds: int
            ) -> dict[str, tuple[float, float]]:
    """Best (CPU, wall) rates of both environments over interleaved rounds, and the best
    CPU rate of the rules core alone (``"core"``)."""
    envs = make_envs(game, opponent, num_envs)
    best = {name: (0.0, 0.0) for name in [*envs, "core"]}
    for seed in range(rounds):
        for name, env in envs.items():
            cpu, wall = steps_per_second(env, steps, 1000 * seed)
            best[name] = (max(best[name][0], cpu), max(best[name][1], wall))
        core = core_rate(game, opponent, num_envs, steps, 1000 * seed)
        best["core"] = (max(best["core"][0], core), 0.0)
    return best


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


def report(games: list[str], opponents: list[str], num_envs: int, steps: int,
           rounds: int) -> str:
    """The Markdown table of :func:`compare` for every game and opponent."""
    lines = [f"{num_envs} games, {steps} steps x best of {rounds} rounds, random legal learner "
             "moves; steps/s of this process's CPU time (wall clock in brackets)", "",
             "| game | opponent | SyncVectorEnv steps/s | SingleAgentVectorEnv steps/s | "
             "speed-up | target | rules core alone steps/s | bound |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for game in games:
        for opponent in opponents:
            best = compare(game, opponent, num_envs, steps, rounds)
            (sync_cpu, sync_wall), (ours_cpu, ours_wall) = (best["SyncVectorEnv"],
                                                            best["SingleAgentVectorEnv"])
            ratio = ours_cpu / sync_cpu
            verdict = (f"≥ {TARGET:g}× {'met' if ratio >= TARGET else 'NOT met'}"
                       if opponent == "random" else "")
            core = best["core"][0]
            lines.append(f"| {game} | {opponent} | {sync_cpu:,.0f} ({sync_wall:,.0f}) | "
                         f"{ours_cpu:,.0f} ({ours_wall:,.0f}) | {ratio:.2f}× | {verdict} | "
                         f"{core:,.0f} | {core / sync_cpu:.2f}× |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Print the table (or, with ``--profile``, the shares of the rules core)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tant_fant,tris2")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
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
    print(report(games, opponents, args.num_envs, args.steps, args.rounds))


if __name__ == "__main__":
    main()

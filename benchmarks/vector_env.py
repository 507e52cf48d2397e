"""Steps per second of the masked vector env against Gymnasium's ``SyncVectorEnv``, in one run.

Both step ``--num-envs`` games of the single-agent view (the learner against
``--opponents``) with random legal learner actions drawn from the returned masks:
:class:`~tris_envs.envs.vector.SingleAgentVectorEnv` (one object, the games as
:class:`~tris_envs.envs.turns.Duel` states) and ``gymnasium.vector.SyncVectorEnv`` over
``num_envs`` :class:`~tris_envs.envs.SingleAgentEnv` (what ``gymnasium.make_vec(...,
vectorization_mode="sync")`` builds). Both play the same episodes from the same seeds.
Rounds are interleaved, each with new seeds, and the best round of each is kept; the time
is this process's CPU time (``time.process_time``), so other work on shared cores does
not count, and the wall-clock rates are printed beside it. Prints a Markdown table::

    python benchmarks/vector_env.py --games tant_fant,tris2 --opponents random,greedy \\
        --num-envs 64 --steps 300 --rounds 5
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.vector import SyncVectorEnv

from tris_envs.envs.single_agent import SingleAgentEnv
from tris_envs.envs.vector import SingleAgentVectorEnv

TARGET = 3.0
"""The speed-up over ``SyncVectorEnv`` the vector env aims at with the random opponent."""


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


def compare(game: str, opponent: str, num_envs: int, steps: int, rounds: int
            ) -> dict[str, tuple[float, float]]:
    """Best (CPU, wall) rates of both environments over interleaved rounds."""
    makers: dict[str, Callable[[], Any]] = {
        "SyncVectorEnv": lambda: SyncVectorEnv(
            [lambda: SingleAgentEnv(game, opponent=opponent) for _ in range(num_envs)]),
        "SingleAgentVectorEnv": lambda: SingleAgentVectorEnv(game, num_envs,
                                                             opponent=opponent),
    }
    envs = {name: make() for name, make in makers.items()}
    best = {name: (0.0, 0.0) for name in envs}
    for seed in range(rounds):
        for name, env in envs.items():
            cpu, wall = steps_per_second(env, steps, 1000 * seed)
            best[name] = (max(best[name][0], cpu), max(best[name][1], wall))
    return best


def report(games: list[str], opponents: list[str], num_envs: int, steps: int,
           rounds: int) -> str:
    """The Markdown table of :func:`compare` for every game and opponent."""
    lines = [f"{num_envs} games, {steps} steps x best of {rounds} rounds, random legal learner "
             "moves; steps/s of this process's CPU time (wall clock in brackets)", "",
             "| game | opponent | SyncVectorEnv steps/s | SingleAgentVectorEnv steps/s | "
             "speed-up | target |", "|---|---|---:|---:|---:|---:|"]
    for game in games:
        for opponent in opponents:
            best = compare(game, opponent, num_envs, steps, rounds)
            (sync_cpu, sync_wall), (ours_cpu, ours_wall) = (best["SyncVectorEnv"],
                                                            best["SingleAgentVectorEnv"])
            ratio = ours_cpu / sync_cpu
            verdict = (f"≥ {TARGET:g}× {'met' if ratio >= TARGET else 'NOT met'}"
                       if opponent == "random" else "")
            lines.append(f"| {game} | {opponent} | {sync_cpu:,.0f} ({sync_wall:,.0f}) | "
                         f"{ours_cpu:,.0f} ({ours_wall:,.0f}) | {ratio:.2f}× | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tant_fant,tris2")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(report(args.games.split(","), args.opponents.split(","), args.num_envs, args.steps,
                 args.rounds))


if __name__ == "__main__":
    main()

"""Games per second of a round robin: in this process, in a process pool, on a local Ray.

Each Ray row starts a fresh local Ray with ``num_cpus`` CPUs, times the round robin alone
(the start-up is shown apart) and shuts Ray down; every run must give the table of the run
in this process, or the script fails. Prints a Markdown table::

    python benchmarks/ray_scaling.py --game tant_fant --agents random greedy mcts:100 \\
        --games 40 --cpus 1 2
"""

from __future__ import annotations

import argparse
import time

from tris_envs.distributed import import_ray
from tris_envs.evaluation import round_robin
from tris_envs.games import make_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tant_fant")
    parser.add_argument("--agents", nargs="+", default=["random", "greedy", "mcts:100"])
    parser.add_argument("--games", type=int, default=40, help="games per pair")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpus", type=int, nargs="+", default=[1, 2],
                        help="CPUs of the local Ray, one row each")
    args = parser.parse_args()
    ray = import_ray()
    game = make_game(args.game)
    pairs = len(args.agents) * (len(args.agents) - 1) // 2
    games = pairs * args.games

    start = time.perf_counter()
    local = round_robin(game, args.agents, args.games, args.seed)
    base = time.perf_counter() - start
    rows = [("this process (processes=1)", "—", base)]
    processes = max(args.cpus)
    if processes > 1:
        start = time.perf_counter()
        pooled = round_robin(game, args.agents, args.games, args.seed, processes=processes)
        rows.append((f"process pool, processes={processes}", "—", time.perf_counter() - start))
        if pooled.matches != local.matches:
            raise SystemExit("the process pool's run differs from the local run")
    for cpus in args.cpus:
        start = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        startup = time.perf_counter() - start
        try:
            start = time.perf_counter()
            table = round_robin(game, args.agents, args.games, args.seed, ray=True)
            seconds = time.perf_counter() - start
        finally:
            ray.shutdown()
        if table.matches != local.matches:
            raise SystemExit(f"the run on Ray with {cpus} CPU(s) differs from the local run")
        rows.append((f"Ray, {cpus} local CPU(s)", f"{startup:.1f}", seconds))

    print(f"{args.game}, {' '.join(args.agents)}: {games} games ({args.games} per pair), "
          f"seed {args.seed}; every table equals the one of this process\n")
    print("| run | Ray start-up (s) | games (s) | games/s | speed-up |")
    print("|---|---|---|---|---|")
    for name, startup, seconds in rows:
        print(f"| {name} | {startup} | {seconds:.1f} | {games / seconds:.1f} | "
              f"{base / seconds:.2f}x |")


if __name__ == "__main__":
    main()

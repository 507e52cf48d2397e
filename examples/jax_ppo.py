"""PPO in JAX over ``tris_envs.jax``: ``tris-envs train jax-ppo`` as a short script, scored
against the ladder.

The learner is :mod:`tris_envs.ppo.jax_ppo` (every game of a batch stepping inside one
jitted update, negamax GAE, the board network with no search), run with
:func:`tris_envs.alphazero.train.train` and ``algorithm = "ppo"``. In a share of the games
one seat plays uniformly random moves (``--random``; they train the value alone), so the
policy also meets positions self-play alone never reaches; in Tris 2 a share may have the
``greedy`` rung in one seat (``--greedy``). Afterwards the network plays
the rules core's games in the evaluation harness against the ladder, its most probable legal
move (``ppo:<path>``), checked against the game's training targets; with ``--search N`` it
plays them again inside the ``az`` agents' search of ``N`` simulations (``az:<path>:N``).

Run: ``python examples/jax_ppo.py --game tris1`` (needs ``pip install "tris_envs[jax]"``).

It takes the cell contract of ``tris-envs baselines`` (:mod:`tris_envs.evaluation.cell`):
``--budget`` is the learner's moves, rounded up to whole updates of ``--envs`` x ``--steps``
plies, and with ``--json PATH`` the matches (against ``--opponents``, default the ladder)
are written to ``PATH``.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tris_envs.agents import Agent, make_agent
from tris_envs.alphazero.train import load_config, train
from tris_envs.evaluation.cell import add_arguments, checked_opponents, ladder, write_cell
from tris_envs.evaluation.checkpoint import evaluate_agent, format_table
from tris_envs.evaluation.targets import check_targets
from tris_envs.games import make_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tris1")
    parser.add_argument("--updates", type=int, default=300, help="PPO updates")
    parser.add_argument("--envs", type=int, default=128, help="games stepped together")
    parser.add_argument("--steps", type=int, default=32, help="plies per game per update")
    parser.add_argument("--batch", type=int, default=0,
                        help="plies per minibatch (default: half an update's)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--width", type=int, default=32, help="the network's channels")
    parser.add_argument("--blocks", type=int, default=1, help="its residual blocks")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--random", type=float, default=0.25,
                        help="share of games in which one seat plays uniformly random moves")
    parser.add_argument("--greedy", type=float, default=0.0,
                        help="share of games in which one seat plays the greedy rung (Tris 2)")
    parser.add_argument("--discount", type=float, default=1.0, help="PPO's gamma")
    parser.add_argument("--games", type=int, default=400, help="evaluation games per opponent")
    parser.add_argument("--search", type=int, default=0, metavar="N",
                        help="also play the evaluation games inside the az agents' search of "
                             "N simulations (0: only the network's most probable move)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="the run directory (default: a temporary one)")
    add_arguments(parser)
    args = parser.parse_args()
    opponents = checked_opponents(parser, args, ladder(args.game))
    plies = args.envs * args.steps
    if args.budget is not None:      # the learner's moves: the random seat's are not its own
        args.updates = math.ceil(args.budget / (plies * (1 - (args.random + args.greedy) / 2)))
    config = load_config(None, {
        "game": args.game, "algorithm": "ppo", "iterations": args.updates, "envs": args.envs,
        "steps": args.steps, "batch": args.batch or plies // 2, "epochs": args.epochs,
        "width": args.width, "blocks": args.blocks, "learning_rate": args.lr,
        "final_learning_rate": args.lr / 10, "random": args.random, "greedy": args.greedy,
        "discount": args.discount, "seed": args.seed,
        "checkpoint_every": args.updates, "eval_games": 0})

    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "run"
        began = time.perf_counter()
        final = train(config, out, quiet=True)
        seconds = time.perf_counter() - began
        steps = round(args.updates * plies * (1 - (args.random + args.greedy) / 2))
        print(f"trained {args.updates * plies:,} plies in {seconds:.0f} s")
        game = make_game(args.game)
        agent = make_agent(f"ppo:{final}")
        if args.json is not None:
            results = write_cell(args.json, learner="jax_ppo", game=game, agent=agent,
                                 steps=steps, train_seconds=seconds, n_games=args.games,
                                 seed=args.seed, opponents=opponents, budget=args.budget,
                                 details={"plies": args.updates * plies,
                                          "updates": args.updates, "envs": args.envs})
            print(format_table(results))
            return
        players = [agent] + ([make_agent(f"az:{final}:{args.search}")] if args.search else [])
        report(args.game, players, args.games, args.seed, opponents)


def report(game: str, agents: Sequence[Agent], games: int, seed: int,
           opponents: Sequence[str] | None = None) -> None:
    """Play each agent against ``opponents`` (default: the ladder) in the rules core's
    harness, ``games`` games each, and print its table and the game's training targets."""
    for agent in agents:
        began = time.perf_counter()
        results = evaluate_agent(make_game(game), agent, list(opponents or ladder(game)),
                                 games, seed)
        print(f"\n{agent.name} ({time.perf_counter() - began:.0f} s):\n{format_table(results)}")
        for text, met in check_targets(game, results):
            print(f"target {'met' if met else 'missed' if met is False else 'not judged'}: "
                  f"{text}")


if __name__ == "__main__":
    main()

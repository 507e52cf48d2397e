"""AlphaZero-style self-play in JAX with the package's learner, then the ladder.

Trains a network with :mod:`tris_envs.alphazero.train` (mctx Gumbel MuZero searches over
the game's own JAX ``step``; the board-shaped residual network of the ``az`` agents), then
plays it in the evaluation harness against random, greedy, ``mcts:100`` and the solver
where there is one: on its own (``az:<net>:0``) and through the ``az`` agent's search of
``--search`` simulations. The full training command, with configs, checkpoints and
``--resume``, is ``training/alphazero.py``.

Run: ``python examples/jax_az.py --game tant_fant`` (needs ``pip install
"tris_envs[jax,train]"`` on Python 3.11 or newer, for mctx).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from jax_ppo import report

from tris_envs.agents import AgentSpec, make_agent
from tris_envs.alphazero.train import load_config, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tant_fant", choices=("tris1", "tant_fant"))
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--envs", type=int, default=256, help="games played at once")
    parser.add_argument("--steps", type=int, default=32, help="plies per game per iteration")
    parser.add_argument("--simulations", type=int, default=32, help="per self-play move")
    parser.add_argument("--batch", type=int, default=1024, help="plies per minibatch")
    parser.add_argument("--games", type=int, default=400, help="evaluation games per opponent")
    parser.add_argument("--search", type=int, default=100,
                        help="simulations of the evaluated az search")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = load_config(None, {"game": args.game, "iterations": args.iterations,
                                "envs": args.envs, "steps": args.steps, "batch": args.batch,
                                "simulations": args.simulations, "seed": args.seed,
                                "eval_games": 0, "checkpoint_every": args.iterations})
    with tempfile.TemporaryDirectory() as out:
        final = train(config, Path(out))
        agents = [make_agent(AgentSpec("az", simulations=n, path=str(final)))
                  for n in (0, args.search)]
        report(args.game, agents, args.games, args.seed)


if __name__ == "__main__":
    main()

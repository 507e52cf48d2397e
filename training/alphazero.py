"""AlphaZero self-play in JAX on one game: the settings as one dataclass, the loop in view.

    python training/alphazero.py --game tris1 --iterations 20 --out runs/t1

Each iteration plays ``envs`` games ``steps`` plies on (mctx's Gumbel search over the
game's JAX ``step``, ``simulations`` per move), then fits the network to the searches'
policies and the games' results (:func:`tris_envs.alphazero.learner.make_iteration`, built
by :class:`tris_envs.alphazero.train.Run`). The network is then saved and plays
``eval_games`` games against ``opponent``. ``tris-envs train az`` is the full command:
configs and the shipped networks' recipes, checkpoints and their evaluations, ``--resume``, a
time budget, logs.
Needs ``pip install "tris_envs[jax]"``.
"""

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from arguments import run

from tris_envs.agents import AgentSpec
from tris_envs.agents.az_network import save
from tris_envs.alphazero.train import Run, load_config
from tris_envs.evaluation import play_match


@dataclass
class Args:
    """AlphaZero self-play in JAX on one game."""

    game: str = field(default="tant_fant", metadata={"help": "the game"})
    iterations: int = field(default=20, metadata={"help": "self-play and update rounds"})
    envs: int = field(default=256, metadata={"help": "games played at once"})
    steps: int = field(default=32, metadata={"help": "plies per game per iteration"})
    simulations: int = field(default=32, metadata={"help": "search simulations per move"})
    batch: int = field(default=1024, metadata={"help": "plies per minibatch"})
    width: int = field(default=32, metadata={"help": "the network's channels"})
    blocks: int = field(default=2, metadata={"help": "the network's residual blocks"})
    seed: int = field(default=0, metadata={"help": "seed of the games and the network"})
    out: str = field(default="runs/alphazero", metadata={"help": "where final.npz goes"})
    eval_games: int = field(default=100, metadata={"help": "games against the opponent"})
    opponent: str = field(default="random", metadata={"help": "agent spec to play at the end"})


def main(args: Args) -> None:
    learner_keys = {f.name for f in dataclasses.fields(Args)} - {"out", "eval_games", "opponent"}
    config = load_config(None, {key: getattr(args, key) for key in learner_keys}
                         | {"eval_games": 0})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    learner = Run(config, out)
    for iteration in range(1, config.iterations + 1):
        *state, metrics = learner.step(*learner.state)
        learner.state = tuple(state)
        print(f"iteration {iteration}/{config.iterations}: {int(metrics.games)} games, "
              f"policy loss {float(metrics.policy_loss):.3f}, "
              f"value loss {float(metrics.value_loss):.3f}")
    final = save(learner.network(), out / "final.npz")
    print(play_match(learner.game, AgentSpec("az", path=str(final)), args.opponent,
                     n_games=args.eval_games, seed=args.seed))
    print(f"final network: {final} (play it with az:{final})")


if __name__ == "__main__":
    run(main, Args)

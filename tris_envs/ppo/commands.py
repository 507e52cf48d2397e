"""``tris-envs train ppo`` and ``tris-envs evaluate``: MaskablePPO training and its scores
(their arguments: :mod:`tris_envs.cli.train`, :mod:`tris_envs.cli.evaluate`).

Train with self-play against a pool of snapshots and baselines::

    tris-envs train ppo --game tant_fant
    tris-envs train ppo --game tris2 --timesteps 2000000 --seed 1 --out runs/tris2-s1
    tris-envs train ppo --game tris1 --config my.toml --set ppo.ent_coef=0.02

The learner is :class:`tris_envs.envs.SingleAgentEnv` with ``seat="random"``, so it plays both
seats and gets its win, draw and loss rewards even when the game ends on the opponent's move.
Its settings come from the config shipped in the package for ``--game`` (:data:`CONFIG_DIR`,
``<game>.toml``; ``tant_fant.toml`` shows every key) or from ``--config``; ``--timesteps``,
``--seed``, ``--n-envs`` and ``--set section.key=value`` (a TOML value) override them. Every
value is checked before training starts.

**Opponents.** Each episode the learner meets one member of a pool, drawn with the
configured weights (``[pool.weights]``): ``self`` (past snapshots of the learner, taken every
``pool.snapshot_every`` steps, the newest ``pool.max_snapshots`` kept, the weight split evenly
between them; the untrained policy is the first) and agent specs (``random``, ``greedy``,
``mcts:<N>``, ``solver`` where the game has an exact solver); see
:class:`tris_envs.ppo.pool.OpponentPool`. With ``train.vec_env = "batched"`` (the
shipped configs) the ``train.n_envs`` games run in one process and the snapshots choose their
moves for all their games in one forward pass
(:class:`tris_envs.ppo.batched.BatchedPoolEnv`); the run's last lines say what share of
the time went to evaluations and to each opponent's moves.

**Network.** ``[network] extractor = "cnn"``: :class:`tris_envs.agents.ppo.BoardCNN` (3x3
convolutions with padding 1 over the ``(H, W, C)`` planes, flattened into a dense layer) with
separate policy and value heads (``net_arch``); ``"mlp"``: the planes flattened into the heads.

**Outputs** in ``--out`` (default ``runs/<game>``): the checkpoints, ``final.pt`` and
``best.pt`` (weights-only policy files: :mod:`tris_envs.agents.ppo_file`), ``progress.csv``,
TensorBoard logs in ``tb/``, ``learning_curve.png`` (see :mod:`tris_envs.ppo.train`). A
directory that already holds a run is refused unless ``--force`` (which replaces it).
``eval.evaluations`` evaluations (10 in the shipped configs) are spread over the run, and
one runs before the first update. On a terminal a progress bar shows the steps, steps/s and
the time left (``--quiet``: neither it nor the evaluation lines); the last lines sum up the
run with its elapsed time.

Score a checkpoint against the baselines, both seats, and judge its moves::

    tris-envs evaluate runs/tant_fant/final.pt --game tant_fant
    tris-envs evaluate best.pt --game tris1 --games 400 \\
        --opponents random,greedy,mcts:100,solver --seed 7 --processes 2
    tris-envs evaluate runs/az/final.npz --game tant_fant --opponents solver
    tris-envs evaluate old/final.zip --game tris1 --trust-pickle   # runs code from the file

An AlphaZero network (``.npz``, ``tris-envs train az``) plays as the ``az`` agent does, with
``--simulations`` simulations per move (default: the network's budget, 100 unless its
header names another; 0: the network alone); it needs no PyTorch.

Every opponent plays ``--games`` games against the checkpoint with
:func:`tris_envs.evaluation.play_match` (seats alternating, the checkpoint first in even
games; the same seed gives the same games). The checkpoint plays its most probable legal
move unless ``--stochastic``. Where the game has an exact solver (``GameSpec.solvable``:
Tant Fant, Tris 1, Doppia scelta) the table also gives the share of the checkpoint's moves
that keep the solver's game value (``Solution.optimal_actions``) over the positions it
reached in these games (``--no-judge`` skips it), and the solver's own score against the
solver in the same games, the reference a perfect player would reach. ``--targets`` checks
the results against the game's training targets
(``GameSpec.targets``). Game options come from ``--config`` (a
training TOML or the ``config.json`` a run writes), else the game's defaults.

Both exit with 2 and a one-line message on a bad config, an unusable ``--out``, an unreadable
checkpoint or a missing extra (both need ``pip install 'tris_envs[train]'``), and with 130
(Ctrl-C) or 143 (SIGTERM) and one line saying what was kept: ``train ppo`` the policy so far,
in ``interrupted.pt`` (:func:`tris_envs.ppo.train.train`); ``evaluate`` nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tris_envs.games import make_game
from tris_envs.ppo.config import Config, apply_overrides, default_config, load_config

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
"""The shipped PPO configs: where ``--game <name>`` finds ``<name>.toml``."""

DEFAULT_OPPONENTS = ("random", "greedy", "mcts:100", "solver")
"""``tris-envs evaluate``'s opponents without ``--opponents`` (``solver`` where one exists)."""


def config_from(game: str, config: Path | None = None, overrides: Sequence[str] = (), *,
                timesteps: int | None = None, seed: int | None = None,
                n_envs: int | None = None) -> Config:
    """The config ``tris-envs train ppo`` asks for: the file (``config``, else the one
    shipped for ``game``), then ``overrides`` (``section.key=value``) and the three flags,
    checked.

    Raises:
        ValueError: a bad config, override, or a config for another game than ``game``.
        OSError: the config file cannot be read.
    """
    loaded = load_config(config or default_config(game, CONFIG_DIR))
    if make_game(loaded.game).info.name != make_game(game).info.name:
        raise ValueError(f"--game {game} but the config trains {loaded.game!r}")
    changes = list(overrides)
    for key, value in (("train.timesteps", timesteps), ("train.seed", seed),
                       ("train.n_envs", n_envs)):
        if value is not None:
            changes.append(f"{key}={value}")
    return apply_overrides(loaded, changes)

"""AlphaZero-style learner: search-guided self-play, one readable loop.

    python training/alphazero.py --game tant_fant --iterations 30 --out runs/az_tant_fant
    python training/alphazero.py --config training/configs/az_tris2.toml --out runs/az_tris2

Each iteration:

1. **self-play**: ``games`` games side by side (:func:`tris_envs.alphazero.selfplay.
   self_play`), every simulation round's new leaves evaluated in one network call; with
   ``--workers N`` the games are split over N processes, or over N Ray actors with
   ``--ray [ADDRESS]`` (docs/distributed.md): the same games either way;
2. **replay buffer**: the newest ``buffer`` samples (observation, legal mask, visit
   distribution, final result for the mover);
3. **training**: ``steps`` minibatches of the loss ``cross-entropy(visits, policy) +
   (result - value)^2`` with Adam and weight decay, on CUDA when present;
4. **evaluation** every ``eval_every`` iterations: ``play_match`` of the network with
   search (``az``) against each opponent, seats alternating, fixed seeds.

Outputs in ``--out``: ``net_<iteration>.npz`` and ``final.npz`` (play them with
``az:<path>``), ``progress.csv``, TensorBoard logs, ``learning_curve.png``.
Configs (``training/configs/az_<game>.toml``) hold the same keys as :class:`Config`;
command-line flags override them.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional

from tris_envs.agents import make_agent
from tris_envs.alphazero.agent import AZAgent
from tris_envs.alphazero.network import NetConfig, Network, save
from tris_envs.alphazero.selfplay import Sample, SelfPlayConfig, SelfPlayWorker, self_play
from tris_envs.alphazero.torch_net import TorchNetwork
from tris_envs.cli import parse_options
from tris_envs.core.game import Game
from tris_envs.distributed import RayAddress, ray_session
from tris_envs.evaluation import play_match
from tris_envs.games import GAMES, make_game
from tris_envs.training.config import (
    integer,
    number,
    one_of,
    read_toml,
    setting,
    settings_from,
    specs,
    table,
)


@dataclasses.dataclass
class Config:
    """Every setting of a run (the keys of a config file), each checked when read."""

    game: str = setting("tant_fant", one_of(*GAMES))
    options: dict[str, Any] = setting({}, table)
    seed: int = setting(0, integer(0))
    iterations: int = setting(20, integer(1))
    games: int = setting(64, integer(1))                # self-play games per iteration
    simulations: int = setting(32, integer(1))          # per move in self-play
    sampled_plies: int = setting(8, integer(0))         # plies sampled from the visit counts
    buffer: int = setting(50_000, integer(1))           # samples kept
    steps: int = setting(100, integer(1))               # minibatches per iteration
    batch: int = setting(256, integer(1))
    learning_rate: float = setting(1e-3, number(0, strict=True))
    weight_decay: float = setting(1e-4, number(0, 1))
    width: int = setting(32, integer(1))                # network channels
    blocks: int = setting(2, integer(0))                # residual blocks
    eval_every: int = setting(5, integer(1))
    eval_games: int = setting(40, integer(1))
    eval_simulations: int = setting(32, integer(0))
    opponents: list[str] = setting(["random", "greedy"], specs)
    workers: int = setting(1, integer(1))


def load_config(path: Path | None, overrides: dict[str, Any]) -> Config:
    """Defaults, then the TOML file at ``path``, then ``overrides`` (``None`` values
    skipped); every value checked, the game made with its options, the opponents parsed.

    Raises:
        ValueError: an unknown key, a bad value (named with its key), an unknown game or
            option, an unknown agent spec, or a file that is not TOML.
        OSError: the file cannot be read.
    """
    values = read_toml(path) if path is not None else {}
    values.update({k: v for k, v in overrides.items() if v is not None})
    config: Config = settings_from(Config, values, Config())
    make_game(config.game, **config.options)
    for spec in config.opponents:
        make_agent(spec)
    return config


def train(config: Config, out: Path, progress: bool = True, ray: RayAddress = False) -> Path:
    """Run the whole loop; return the path of the final network.

    With ``ray`` (``True`` or a cluster address; ``config.workers >= 2``) the self-play
    games are played by that many Ray actors instead of local processes, with the same
    results; the learner stays in this process (on CUDA when this machine has it).
    """
    if ray is not False and config.workers < 2:
        raise ValueError("ray: self-play on Ray needs workers=2 or more (with one worker the "
                         "games are played in the learner's process)")
    with contextlib.ExitStack() as stack:
        return _train(config, out, progress, ray, stack)


def _train(config: Config, out: Path, progress: bool, ray: RayAddress,
           stack: contextlib.ExitStack) -> Path:
    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(config.seed)
    torch.manual_seed(config.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    game = make_game(config.game, **config.options)
    net_config = NetConfig(config.game, config.options, config.width, config.blocks)
    model = TorchNetwork(game, net_config, rng=rng).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate,
                                 weight_decay=config.weight_decay)
    search = SelfPlayConfig(config.simulations, sampled_plies=config.sampled_plies)
    buffer: list[Sample] = []
    writer = _tensorboard(out)
    rows: list[dict[str, Any]] = []
    workers: ProcessPoolExecutor | _RayWorkers | None = None
    if config.workers > 1 and ray is not False:
        workers = _RayWorkers(stack.enter_context(ray_session(ray)), game, search,
                              config.workers)
        stack.callback(workers.stop)
    elif config.workers > 1:
        workers = stack.enter_context(ProcessPoolExecutor(config.workers))
    bar = _progress(config.iterations, progress)
    start = time.perf_counter()
    for iteration in range(1, config.iterations + 1):
        network = model.to("cpu").to_numpy()
        model.to(device)
        samples, results = _self_play(game, network, config, search, rng, workers)
        buffer = (buffer + samples)[-config.buffer:]
        loss, policy_loss, value_loss = _learn(model, optimizer, buffer, config, rng, device)
        row = {"iteration": iteration, "seconds": round(time.perf_counter() - start, 1),
               "samples": len(samples), "buffer": len(buffer),
               "first_player_score": round(float(np.mean([(r[0] + 1) / 2 for r in results])), 3),
               "loss": round(loss, 4), "policy_loss": round(policy_loss, 4),
               "value_loss": round(value_loss, 4)}
        if iteration % config.eval_every == 0 or iteration == config.iterations:
            trained = model.to("cpu").to_numpy()
            model.to(device)
            save(trained, out / f"net_{iteration}.npz")
            row |= _evaluate(game, trained, config, seed=iteration)
        rows.append(row)
        _log(out, rows, writer, row)
        shown = {"loss": row["loss"]} | {k: v for k, v in row.items() if k.startswith("vs ")}
        bar.update(1)
        bar.set_postfix(**shown)
        if progress and bar.disable:          # a log file: one whole line per iteration
            print(f"iteration {iteration}/{config.iterations}: "
                  + ", ".join(f"{k} {v:.3g}" for k, v in shown.items()), flush=True)
    bar.close()
    final = save(model.to("cpu").to_numpy(), out / "final.npz")
    _plot(out, rows)
    return final


class _RayWorkers:
    """Self-play on Ray: one :class:`SelfPlayWorker` actor per worker, each iteration's
    weights put in the object store once and read by every actor."""

    def __init__(self, ray: Any, game: Game, search: SelfPlayConfig, count: int) -> None:
        self.ray = ray
        actor = ray.remote(num_cpus=1)(SelfPlayWorker)
        self.actors = [actor.remote(game, search) for _ in range(count)]

    def play(self, network: Network, shares: list[tuple[int, int]]) -> list[Any]:
        """``(samples, results)`` of each ``(games, seed)`` share, in order."""
        weights = self.ray.put(network.weights)
        return self.ray.get([actor.play.remote(weights, network.config, games, seed)
                             for actor, (games, seed) in zip(self.actors, shares)])

    def stop(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)


def _self_play(game: Game, network: Network, config: Config, search: SelfPlayConfig,
               rng: np.random.Generator,
               workers: ProcessPoolExecutor | _RayWorkers | None
               ) -> tuple[list[Sample], list[Any]]:
    """The iteration's games, in this process or split over the workers (each share with
    its own seed drawn from ``rng``, so processes and Ray actors play the same games)."""
    if workers is None:
        return self_play(game, network, config.games, search, rng)
    sizes = np.array_split(np.arange(config.games), config.workers)
    seeds = rng.integers(2**63, size=len(sizes))
    shares = [(len(size), int(seed)) for size, seed in zip(sizes, seeds) if len(size)]
    if isinstance(workers, _RayWorkers):
        played = workers.play(network, shares)
    else:
        jobs = [workers.submit(self_play, game, network, games, search,
                               np.random.default_rng(seed)) for games, seed in shares]
        played = [job.result() for job in jobs]
    samples, results = [], []
    for s, r in played:
        samples += s
        results += r
    return samples, results


def _learn(model: TorchNetwork, optimizer: torch.optim.Optimizer, buffer: list[Sample],
           config: Config, rng: np.random.Generator, device: str) -> tuple[float, float, float]:
    """``config.steps`` minibatches; the mean total, policy and value losses."""
    observations = torch.from_numpy(np.stack([s.observation for s in buffer])).to(device)
    masks = torch.from_numpy(np.stack([s.mask for s in buffer])).to(device)
    policies = torch.from_numpy(np.stack([s.policy for s in buffer])).to(device)
    values = torch.tensor([s.value for s in buffer], dtype=torch.float32, device=device)
    totals = np.zeros(3)
    for _ in range(config.steps):
        batch = torch.from_numpy(rng.integers(len(buffer), size=config.batch)).to(device)
        logits, predicted = model(observations[batch])
        logits = logits.masked_fill(~masks[batch], -1e9)
        policy_loss = -(policies[batch] * functional.log_softmax(logits, dim=1)).sum(1).mean()
        value_loss = functional.mse_loss(predicted, values[batch])
        loss = policy_loss + value_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        totals += (loss.item(), policy_loss.item(), value_loss.item())
    total, policy, value = totals / config.steps
    return float(total), float(policy), float(value)


def _evaluate(game: Game, network: Network, config: Config, seed: int) -> dict[str, float]:
    """Score of the network with search against each opponent."""
    agent = AZAgent(network, config.eval_simulations, rng=np.random.default_rng(seed))
    return {f"vs {opponent}": round(play_match(game, agent, opponent, config.eval_games,
                                               seed=seed).score, 3)
            for opponent in config.opponents}


def _log(out: Path, rows: list[dict[str, Any]], writer: Any, row: dict[str, Any]) -> None:
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with (out / "progress.csv").open("w", newline="") as file:
        table = csv.DictWriter(file, fields)
        table.writeheader()
        table.writerows(rows)
    if writer is not None:
        for key, value in row.items():
            if key != "iteration":
                writer.add_scalar(key.replace(" ", "_"), value, row["iteration"])
        writer.flush()


def _tensorboard(out: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / "tensorboard"))


def _progress(total: int, enabled: bool) -> Any:
    """A tqdm bar in a terminal; disabled when not ``enabled`` or when stderr is not a
    terminal (a redrawn bar would leave carriage returns in a log file)."""
    from tqdm import tqdm

    return tqdm(total=total, desc="iterations", disable=not (enabled and sys.stderr.isatty()))


def _plot(out: Path, rows: list[dict[str, Any]]) -> None:
    """``learning_curve.png``: losses and evaluation scores per iteration."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (losses, scores) = pyplot.subplots(1, 2, figsize=(10, 4))
    iterations = [r["iteration"] for r in rows]
    for key in ("policy_loss", "value_loss"):
        losses.plot(iterations, [r[key] for r in rows], label=key)
    losses.set_xlabel("iteration")
    losses.legend()
    for key in sorted({k for r in rows for k in r if k.startswith("vs ")}):
        points = [(r["iteration"], r[key]) for r in rows if key in r]
        scores.plot(*zip(*points), marker="o", label=key)
    scores.set_ylim(0, 1)
    scores.set_xlabel("iteration")
    scores.set_ylabel("score")
    scores.legend()
    figure.tight_layout()
    figure.savefig(out / "learning_curve.png", dpi=100)
    pyplot.close(figure)


def main(argv: list[str] | None = None) -> int:
    """Command line; errors in settings or files end with a message and exit status 2."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="a TOML file with Config's keys")
    parser.add_argument("--game")
    parser.add_argument("--option", action="append", help="game option name=value")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    for name in ("iterations", "games", "simulations", "steps", "eval_every", "eval_games",
                 "workers", "seed"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, dest=name)
    parser.add_argument("--opponents", type=lambda text: text.split(","),
                        help="comma-separated agent specs for the evaluations")
    parser.add_argument("--ray", nargs="?", const=True, default=False, metavar="ADDRESS",
                        help="self-play workers as Ray actors on the cluster at ADDRESS "
                             "(without it: the one Ray finds, or a new local one); needs "
                             "--workers 2 or more and tris_envs[distributed]")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    overrides = {k: getattr(args, k) for k in ("game", "iterations", "games", "simulations",
                                               "steps", "eval_every", "eval_games",
                                               "workers", "seed", "opponents")}
    try:
        if args.option:
            overrides["options"] = parse_options(args.option)
        config = load_config(args.config, overrides)
        final = train(config, args.out, progress=not args.quiet, ray=args.ray)
    except (ValueError, TypeError, OSError, ImportError) as error:
        print(f"alphazero.py: error: {error}", file=sys.stderr)
        return 2
    print(f"final network: {final} (play it with az:{final})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

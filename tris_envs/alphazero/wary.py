"""Teach a network its wary planes: the policy it had, less the traps it hands over.

    tris-envs train wary --init runs/rule4/2_traps/final.npz --out runs/rule4_wary

The network (``init``, which reads the trap planes) gains the wary planes
(:attr:`~tris_envs.agents.az_network.NetConfig.wary_planes`: the moves after which the
opponent has a trap, the rules core's ``trap_handovers``), their stem weights starting at
zero. It then plays ``games`` games alone (``az:<network>:0``) against ``opponent``, seats
alternating, each game seeded from ``seed`` by its number; at each of its moves with a
choice, its policy target is the starting network's own policy less the moves the planes
flag (a win in one where it has one; else without the moves that hand over a win in one,
then without those that hand over a trap, each dropped only where another move is left:
the learner's :func:`~tris_envs.alphazero.learner.without_blunders`), and its value target
the starting network's value. ``epochs`` passes of Adam over those positions (the learning
rate falling from ``learning_rate`` to 0 on a cosine) teach the network to stop handing
over traps and leave the rest of what it knew as it was.

The JAX learner's ``wary`` does this to its search's targets, for the few moves its root
considers: there each move costs 46,656 positions, where the rules core flags every move of
a position on its bit masks, stopping at the first trap. The positions are the network's
own, so its mistakes are the ones corrected (DAgger's lesson). The run directory gets
``final.npz``, ``config.json``, ``machine.txt`` and ``progress.csv`` (the games' seconds,
then one row per epoch). Needs ``pip install "tris_envs[jax]"``.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np

from tris_envs.agents import AgentSpec, make_agent
from tris_envs.agents.az import AZAgent
from tris_envs.agents.az_network import (
    Network,
    load,
    masked_softmax,
    save,
    tactic_planes,
    with_inputs_of,
)
from tris_envs.core.game import Game
from tris_envs.durable import write_text
from tris_envs.evaluation.records import play_recorded
from tris_envs.games import GAMES, make_game, require, tactics_of
from tris_envs.machine import record
from tris_envs.settings import integer, number, one_of, setting, settings_from, table


def _path(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be a network file's path"


def _wary_game(value: Any) -> str | None:
    """A game whose rules core has the ``wary`` capability."""
    problem = one_of(*GAMES)(value)
    if problem is not None:
        return problem
    try:
        require(value, "wary", "training wary planes")
    except ValueError as error:
        return str(error)
    return None


def _options(value: Any) -> str | None:
    return None if value is None else table(value)


def _agent(value: Any) -> str | None:
    try:
        AgentSpec.parse(value)
    except ValueError as error:
        return str(error)
    return None


@dataclass(frozen=True)
class Settings:
    """A run of :func:`train`, each setting checked by :func:`checked` (a recipe's wary
    stage when the recipe is read, ``tris-envs train wary``'s flags, :func:`train`).

    Attributes:
        init: The starting network (``.npz``, with trap planes).
        game: The game's registry name.
        options: The game's options, which the network trains on and its header says;
            ``None``: those in the starting network's header.
        opponent: Agent spec of the opponent in the games that give the positions.
        games: Games played.
        seed: Seeds every game (with its number) and the updates' order.
        epochs: Passes over the positions.
        learning_rate: Adam's, at the start (falling to 0 on a cosine).
        batch: Positions per update.
        processes: Worker processes that play the games (the result does not depend on it).
    """

    init: str = field(metadata={"check": _path})
    game: str = setting("tris2", _wary_game)
    options: dict[str, Any] | None = setting(None, _options)
    opponent: str = setting("greedy", _agent)
    games: int = setting(2000, integer(1))
    seed: int = setting(11, integer(0))
    epochs: int = setting(4, integer(1))
    learning_rate: float = setting(1e-3, number(0, strict=True))
    batch: int = setting(256, integer(1))
    processes: int = setting(2, integer(1))


def checked(values: dict[str, Any]) -> Settings:
    """The :class:`Settings` of ``values`` (``init`` and any others), each checked, and the
    game made with the options given.

    Raises:
        ValueError: an unknown key or a bad value, in one line naming the key.
    """
    settings: Settings = settings_from(Settings, values, Settings(""))
    if settings.options is not None:
        try:
            make_game(settings.game, **settings.options)
        except ValueError as error:
            raise ValueError(f"options: {error}") from None
    return settings


class Positions(NamedTuple):
    """What the games gave, one row per position where the network had a choice: the
    mover's observation, the tactic flags (wins, handovers, traps and trap handovers: the
    game's ``tactic_flags``) and the legal moves; and the network's result in each game."""

    observations: np.ndarray
    flags: np.ndarray
    masks: np.ndarray
    results: np.ndarray


class _Recorder:
    """The network alone, keeping each position where it has a choice."""

    def __init__(self, agent: AZAgent) -> None:
        self.agent, self.name = agent, agent.name
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def act(self, game: Game, state: Any) -> int:
        if len(game.legal_actions(state)) > 1:
            flags = tactics_of(game).tactic_flags(state, True, True)
            self.rows.append((game.observation(state, game.current_player(state)), flags,
                              game.legal_mask(state).astype(bool)))
        return self.agent.act(game, state)


_Played = tuple[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]], float]


def _play(task: tuple[Network, AgentSpec, int, range]) -> list[_Played]:
    """Play the games numbered ``task[3]``: each one's number, positions and the network's
    result."""
    network, opponent, seed, numbers = task
    played = []
    for k in numbers:
        chance, mine, theirs = (np.random.default_rng(s) for s in
                                np.random.SeedSequence(seed, spawn_key=(k,)).spawn(3))
        me, seat = _Recorder(AZAgent(network, 0, rng=mine)), k % 2
        agents = (me, make_agent(opponent, theirs))
        game = play_recorded(network.game, agents if seat == 0 else agents[::-1], chance,
                             record=False)
        played.append((k, me.rows, game.returns[seat] if game.returns else 0.0))
    return played


def play(network: Network, settings: Settings) -> Positions:
    """The positions of ``settings.games`` games of ``network`` alone against the
    opponent, in the games' order (the same for any number of processes)."""
    count = min(settings.processes, settings.games)
    opponent = AgentSpec.parse(settings.opponent)
    tasks = [(network, opponent, settings.seed, range(i, settings.games, count))
             for i in range(count)]
    if count == 1:
        parts = [_play(tasks[0])]
    else:
        # concurrent.futures' pool raises BrokenProcessPool where a worker dies (killed, out
        # of memory); multiprocessing's would wait for its games forever
        with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn")) as pool:
            parts = list(pool.map(_play, tasks))
    games = sorted((game for part in parts for game in part), key=lambda game: game[0])
    rows = [row for game in games for row in game[1]]
    return Positions(np.stack([r[0] for r in rows]).astype(np.int8),
                     np.stack([r[1] for r in rows]), np.stack([r[2] for r in rows]),
                     np.array([game[2] for game in games]))


def network_inputs(network: Network, observations: Any, flags: Any, xp: Any = np) -> Any:
    """The network's input of rows of observations and tactic flags (``xp``: NumPy, or
    ``jax.numpy`` in the updates)."""
    slots = cast(tuple[np.ndarray, np.ndarray, int], network.tactic_slots)
    planes = tactic_planes(flags, slots, observations.shape[1:3], xp)
    return xp.concatenate([observations.astype(xp.float32), planes], axis=-1)


def targets(network: Network, positions: Positions, chunk: int = 4096) -> tuple[Any, Any]:
    """The policy and value targets of ``positions``: ``network``'s (the starting one's,
    reading the wary planes with zero weights) less the moves the flags mark (see the
    module)."""
    from tris_envs.alphazero.learner import without_blunders

    logits, values = zip(*(network(network_inputs(network, positions.observations[i:i + chunk],
                                                   positions.flags[i:i + chunk]))
                           for i in range(0, len(positions.masks), chunk)))
    masks = positions.masks
    policy = masked_softmax(np.concatenate(logits), masks)
    wins, handovers, _, traps = positions.flags.transpose(1, 0, 2)
    safe = masks & ~handovers
    policy = np.asarray(without_blunders(without_blunders(policy, safe), safe & ~traps))
    won = wins.any(-1, keepdims=True)
    policy = np.where(won, wins / np.maximum(wins.sum(-1, keepdims=True), 1), policy)
    return policy.astype(np.float32), np.concatenate(values)


def fit(network: Network, positions: Positions, policy: np.ndarray, values: np.ndarray,
        settings: Settings,
        epoch_done: Callable[[int, float, float], None] | None = None) -> Network:
    """``network`` after ``settings.epochs`` passes of Adam over the positions with their
    targets (:func:`targets`); ``epoch_done(epoch, policy_loss, value_loss)`` after each."""
    import jax
    import jax.numpy as jnp
    import optax

    from tris_envs.alphazero.jax_net import forward, network_of, params_of, policy_index

    index, blocks = jnp.asarray(policy_index(network.game)), network.config.blocks
    rows = len(policy)
    batch = min(settings.batch, rows)
    steps = rows // batch
    optimiser = optax.adam(optax.cosine_decay_schedule(settings.learning_rate,
                                                       settings.epochs * steps))

    def loss(params: Any, *rows: Any) -> tuple[Any, Any]:
        observations, flags, masks, target, value = rows
        logits, predicted = forward(params, network_inputs(network, observations, flags, jnp),
                                    index, blocks)
        policy_loss = optax.softmax_cross_entropy(jnp.where(masks, logits, -1e9),
                                                  target).mean()
        value_loss = ((predicted - value) ** 2).mean()
        return policy_loss + value_loss, jnp.stack([policy_loss, value_loss])

    @jax.jit
    def update(params: Any, state: Any, *rows: Any) -> tuple[Any, Any, Any]:
        grads, losses = jax.grad(loss, has_aux=True)(params, *rows)
        changes, state = optimiser.update(grads, state, params)
        return optax.apply_updates(params, changes), state, losses

    params = params_of(network)
    state = optimiser.init(params)
    data = (positions.observations, positions.flags, positions.masks, policy, values)
    rng = np.random.default_rng(settings.seed)
    for epoch in range(settings.epochs):
        order = rng.permutation(rows)[:steps * batch].reshape(steps, batch)
        losses = []
        for chosen in order:
            params, state, step_losses = update(params, state, *(x[chosen] for x in data))
            losses.append(step_losses)
        if epoch_done is not None:
            epoch_done(epoch + 1, *np.mean(np.asarray(losses), axis=0).tolist())
    return network_of(params, network.game, network.config, network.search)


def train(settings: Settings, out: Path, quiet: bool = False) -> Path:
    """Play, set the targets and fit (see the module); the path of ``out/final.npz``.

    The network trains on ``settings.options`` (``None``: its header's) and its header
    says them.

    Raises:
        ValueError: bad settings (:func:`checked`), a network without trap planes, or
            ``out`` that already holds a run.
    """
    settings = checked(asdict(settings))
    make_agent(settings.opponent)
    options = settings.options
    if options is None:
        options = load(settings.init, make_game(settings.game)).config.options
    settings = replace(settings, options=options)
    game = make_game(settings.game, **options)
    start = load(settings.init, game)
    start = Network(game, replace(start.config, options=options), start.weights,
                    search=start.search)
    network = with_inputs_of(start, replace(start.config, wary_planes=True))
    if (out / "config.json").exists():
        raise ValueError(f"{out} already holds a run (config.json); choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "config.json", json.dumps(asdict(settings), indent=2) + "\n")
    machine = record(out, "start")
    say = (lambda text: None) if quiet else (lambda text: print(text, flush=True))
    say(machine)
    began = time.perf_counter()
    positions = play(network, settings)
    played = time.perf_counter() - began
    score = (np.mean(positions.results) + 1) / 2
    say(f"{settings.games} games against {settings.opponent}: {score:.1%} for the network, "
        f"{len(positions.masks)} positions with a choice, {played:.0f} s")
    policy, values = targets(network, positions)
    with open(out / "progress.csv", "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["epoch", "policy_loss", "value_loss", "seconds"])
        writer.writerow([0, "", "", f"{played:.1f}"])

        def epoch_done(epoch: int, policy_loss: float, value_loss: float) -> None:
            seconds = time.perf_counter() - began
            writer.writerow([epoch, f"{policy_loss:.4f}", f"{value_loss:.5f}", f"{seconds:.1f}"])
            file.flush()
            say(f"epoch {epoch}: policy loss {policy_loss:.4f}, value loss {value_loss:.5f}, "
                f"{seconds:.0f} s")

        trained = fit(network, positions, policy, values, settings, epoch_done)
    return save(trained, out / "final.npz")

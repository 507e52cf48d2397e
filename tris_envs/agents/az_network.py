"""A small residual convolutional policy/value network, evaluated with NumPy.

Architecture (``width`` channels, ``blocks`` residual blocks, all convolutions 3x3 with
"same" padding over the observation's ``(H, W, C)`` planes)::

    stem      conv(C -> width), ReLU
    block     x + conv(ReLU(conv(x))), ReLU              (``blocks`` times)
    policy    1x1 conv(width -> cell_channels) on every cell, and
              linear(mean over cells -> global_logits); gathered into the game's actions
    value     linear(all cells' channels -> width), ReLU, linear(-> 1), tanh

The policy head is fully convolutional: the logit of an action sits on the board cell the
action is about, as each game's :class:`~tris_envs.games.PolicyLayout` says (Tris 2: one
map per roll direction and placement orientation; Tant Fant: from-point x to-point; Tritoc:
the hole map plus pass; Doppia scelta: the three turns plus the 75 colorings).

Weights are a flat ``dict`` of arrays (convolution kernels ``(3, 3, in, out)``), saved with
:func:`save` as one ``.npz`` that also records the game, its options and the sizes (its
header, :data:`HEADER`). :func:`load` reads no pickle, checks every header field and
refuses weights that are not finite numbers; a network whose outputs are not finite numbers
raises :class:`NonFiniteOutputs` rather than let a move be chosen from them.
"""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tris_envs.agents.search_settings import SearchSettings
from tris_envs.core.errors import brief
from tris_envs.core.game import Game
from tris_envs.durable import replaced
from tris_envs.games import game_spec, require, tactics_of
from tris_envs.settings import LIMITS, Check, flag, integer, number, table

FORMAT = 4
"""Version of the ``.npz`` layout. Format 4 adds where a network comes from: the
``"recipe"`` that makes it (:mod:`tris_envs.alphazero.recipes`) and the package
``"version"`` that wrote it, both optional. Format 3 keeps the play-time search settings in
their own header table, ``"search"`` (:class:`~tris_envs.agents.search_settings.SearchSettings`);
formats 1 and 2 had them among the architecture's fields (:data:`PLAY_FIELDS`). Format 1's
value head read the mean over the cells (``value.w1`` of shape ``(width, width)``);
:func:`load` turns it into the later formats', which reads every cell
(``(H * W * width, width)``), with the same outputs."""


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be a string"


HEADER: dict[str, tuple[Check, Any]] = {
    "format": (lambda v: None if v in (1, 2, 3, FORMAT) and not isinstance(v, bool)
               else f"must be 1 to {FORMAT} (the formats this version reads)", None),
    "game": (_text, None), "options": (table, None),
    "width": (integer(1, LIMITS["width"]), None),
    "blocks": (integer(0, LIMITS["layers"]), None),
    "tactics": (flag, False), "trap_planes": (flag, False), "wary_planes": (flag, False),
    "hide_roll": (flag, False), "search": (table, {}), "recipe": (_text, ""),
    "version": (_text, ""),
}
"""The fields of a network file's header: each one's check and its default (``None``: the
field is required; the sizes bounded by :data:`~tris_envs.settings.LIMITS`), in the order
of :class:`NetConfig`'s fields after ``format``, then the
search settings' table (checked by
:meth:`~tris_envs.agents.search_settings.SearchSettings.from_table`), then the
:attr:`Network.recipe` and :attr:`Network.version` (format 4; ``""``: not said)."""

PLAY_FIELDS: dict[str, tuple[Check, Any]] = {
    "decisive": (flag, False), "simulations": (integer(0), 0),
    "discount": (number(0, 1), 1.0), "traps": (number(0, 1), 0.0),
    "mix": (number(0, 1), 0.0), "batch": (integer(0, LIMITS["batch"]), 0),
}
"""The search settings of a format 1 or 2 header, among its other fields (no ``search``
table): each one's check and default; ``simulations`` and ``batch`` 0 meant the agents'
defaults."""


class NonFiniteOutputs(ValueError):
    """A network gave logits or values that are not finite numbers (NaN or infinite): no
    move can be chosen from them."""


@dataclass(frozen=True)
class NetConfig:
    """The architecture of a network for one game: what its weights were trained as (its
    play-time search settings are :attr:`Network.search`).

    Attributes:
        game: Registry name of the game.
        options: The game options it was trained with (informational; the agent checks
            only the encodings).
        width: Channels of the trunk.
        blocks: Residual blocks.
        tactics: The input has two more groups of planes laid out as the policy head's cell
            maps: the legal moves after which the player to move has won, and those after
            which the opponent can win at once (the game's ``tactical_moves``; Tris 2 only).
            The network sees its one-move tactics instead of having to learn them (as
            AlphaGo's input had ladder features). Saved in the header only when true.
        trap_planes: With :attr:`tactics`, a third group of planes: the legal moves after
            which every legal move of the opponent hands a win in one back (the game's
            ``trap_moves``; Tris 2 only), the two-move tactics of zugzwang that the rule of 4
            (``max_side=4``) turns on. Saved in the header only when true.
        wary_planes: With :attr:`trap_planes`, a fourth group of planes: the legal moves
            after which the opponent has a trap (the game's ``trap_handovers``; Tris 2
            only), a zugzwang handed over, three moves deep. The learner does not compute
            them at self-play speed; such a network learns from the moves of a teacher
            (:mod:`tris_envs.alphazero.wary`). Saved in the header only when true.
        hide_roll: The input's roll planes (the game's ``roll_planes``; Tritoc only) are
            zeros: the network does not see the dice roll to play, so its value is the
            position's worth before the roll, the expectation over the roll's law, which is
            what a search's leaf reached by a move needs (its one drawn roll is a sample).
            Its policy loses nothing: the moves each roll allows (the holes of one number,
            one's own stones on a 2, the opponent's on a 12, the pass) are disjoint, and
            the policy is masked by them. Saved in the header only when true.

    The learner's ``decisive`` and ``discount`` are training facts too, but what the search
    does with them is a play setting: the learner writes them into the header's search
    table (:class:`~tris_envs.agents.search_settings.SearchSettings`), where a player may
    change them.
    """

    game: str
    options: dict[str, Any]
    width: int = 32
    blocks: int = 3
    tactics: bool = False
    trap_planes: bool = False
    wary_planes: bool = False
    hide_roll: bool = False

    def input_planes(self, game: Game) -> int:
        """Channels of the network's input: the observation's, and the policy head's cell
        maps twice with :attr:`tactics` and once more with each of :attr:`trap_planes`
        and :attr:`wary_planes`."""
        planes = game.info.observation_shape[2]
        groups = 2 * self.tactics + self.trap_planes + self.wary_planes
        return planes + groups * game_spec(self.game).policy.cell_channels

    def shapes(self, game: Game) -> dict[str, tuple[int, ...]]:
        """Name -> shape of every parameter."""
        height, width, _ = game.info.observation_shape
        layout = game_spec(self.game).policy
        f = self.width
        shapes = {"stem.w": (3, 3, self.input_planes(game), f), "stem.b": (f,)}
        for i in range(self.blocks):
            shapes |= {f"block{i}.w1": (3, 3, f, f), f"block{i}.b1": (f,),
                       f"block{i}.w2": (3, 3, f, f), f"block{i}.b2": (f,)}
        shapes |= {"policy.w": (f, layout.cell_channels), "policy.b": (layout.cell_channels,),
                   "global.w": (f, layout.global_logits), "global.b": (layout.global_logits,),
                   "value.w1": (height * width * f, f), "value.b1": (f,),
                   "value.w2": (f, 1), "value.b2": (1,)}
        return shapes


class Network:
    """A policy/value network with NumPy weights for ``game``.

    Args:
        game: The rules core (its encodings fix the input and output sizes).
        config: The architecture.
        weights: Name -> array, shapes as :meth:`NetConfig.shapes`; ``None`` for a
            random initialisation from ``rng``.
        rng: Generator of the random initialisation.
        search: The search the ``az`` agents play it with unless told otherwise (its
            header's ``"search"`` table); ``None``: the defaults.

    Raises:
        ValueError: weights of the wrong names or shapes, or a config for another game.
    """

    def __init__(self, game: Game, config: NetConfig,
                 weights: dict[str, np.ndarray] | None = None,
                 rng: np.random.Generator | None = None,
                 search: SearchSettings | None = None) -> None:
        if config.game != game.info.name:
            raise ValueError(f"a network for {config.game!r} cannot play {game.info.name!r}")
        if config.tactics:
            require(game.info.name, "tactics", "a network with tactics planes")
        search = search or SearchSettings()
        if search.traps:
            require(game.info.name, "tactics", "a network with the trap rule")
        if config.trap_planes and not config.tactics:
            raise ValueError("a network with trap planes needs the tactics planes too "
                             "(tactics = true)")
        if config.wary_planes and not config.trap_planes:
            raise ValueError("a network with wary planes needs the trap planes too "
                             "(trap_planes = true)")
        self.game = game
        self.config = config
        self.search = search
        shapes = config.shapes(game)
        if weights is None:
            weights = initial_weights(shapes, rng or np.random.default_rng())
        misfit = weights_misfit({k: v.shape for k, v in weights.items()}, shapes)
        if misfit:
            raise ValueError(f"network weights do not fit {brief(config, 200)}: {misfit}")
        self.weights = {k: np.asarray(v, dtype=np.float32) for k, v in weights.items()}
        self.source = "the network"
        """What the network is called in errors (``network '<path>'`` once loaded)."""
        self.recipe = ""
        """The recipe that makes it (:mod:`tris_envs.alphazero.recipes`; ``""``: none said)."""
        self.version = ""
        """The package version that wrote it as a recipe's network (``""``: not said)."""
        height, width, _ = game.info.observation_shape
        self.index = np.array(game_spec(config.game).policy.index(game.info.num_actions,
                                                                  height, width))
        self.tactic_slots = tactic_slots(game) if config.tactics else None
        self.shown = shown_planes(game) if config.hide_roll else None
        """Per observation plane, 0 for those the network hides (:func:`shown_planes`)."""

    def __call__(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Policy logits ``(N, num_actions)`` and values ``(N,)`` in [-1, 1] for a batch of
        ``(N, H, W, C)`` observations (each from its player to move's view).

        Raises:
            NonFiniteOutputs: a logit or a value is not a finite number.
        """
        w = self.weights
        x = _relu(_conv3x3(np.asarray(observations, dtype=np.float32), w["stem.w"],
                           w["stem.b"]))
        for i in range(self.config.blocks):
            y = _relu(_conv3x3(x, w[f"block{i}.w1"], w[f"block{i}.b1"]))
            y = _conv3x3(y, w[f"block{i}.w2"], w[f"block{i}.b2"])
            y += x
            x = _relu(y)
        n, channels = x.shape[0], x.shape[-1]
        pooled = x.mean(axis=(1, 2))
        cells = _matmul(x.reshape(-1, channels), w["policy.w"])
        cells += w["policy.b"]
        flat = np.concatenate([cells.reshape(n, -1), pooled @ w["global.w"] + w["global.b"]],
                              axis=1)
        hidden = _matmul(x.reshape(n, -1), w["value.w1"])
        hidden += w["value.b1"]
        hidden = _relu(hidden)
        value = np.tanh(hidden @ w["value.w2"] + w["value.b2"])[:, 0]
        logits = flat[:, self.index]
        if not (np.isfinite(logits).all() and np.isfinite(value).all()):
            raise NonFiniteOutputs(
                f"{self.source} gives outputs that are not finite numbers (NaN or infinite) "
                "for this position: it cannot choose a move (its weights are damaged, or the "
                "training diverged)")
        return logits, value

    def inputs(self, states: Sequence[Any]) -> np.ndarray:
        """The ``(N, H, W, C)`` input of states where a player is to move: each one's
        observation from that player's view, with the tactics planes when the network has
        them (:attr:`NetConfig.tactics`)."""
        game = self.game
        observations = np.stack([game.observation(s, game.current_player(s)) for s in states])
        if self.shown is not None:
            observations = observations * self.shown
        if self.tactic_slots is None:
            return observations
        flags_of, config = tactics_of(game).tactic_flags, self.config
        flags = np.stack([flags_of(s, config.trap_planes, config.wary_planes) for s in states])
        planes = tactic_planes(flags, self.tactic_slots, observations.shape[1:3])
        return np.concatenate([observations, planes], axis=-1)

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Masked move probabilities ``(N, num_actions)`` and values ``(N,)`` of states
        where a player is to move, each from that player's view."""
        masks = np.stack([self.game.legal_mask(s) for s in states]).astype(bool)
        logits, values = self(self.inputs(states))
        return masked_softmax(logits, masks), values


def shown_planes(game: Game) -> np.ndarray:
    """Per plane of ``game``'s observation, 1 where a network with
    :attr:`NetConfig.hide_roll` reads it and 0 for the roll planes it hides, as ``int8``.

    Raises:
        ValueError: a game whose observation shows no roll.
    """
    hidden = game_spec(game.info.name).require_roll("hide_roll = true")
    shown = np.ones(game.info.observation_shape[2], dtype=np.int8)
    shown[list(hidden)] = 0
    return shown


def tactic_slots(game: Game) -> tuple[np.ndarray, np.ndarray, int]:
    """The actions of ``game`` whose policy logit sits on a cell, each one's position in the
    flat ``(H, W, cell_channels)`` maps, and ``cell_channels`` (:func:`tactic_planes`)."""
    height, width, _ = game.info.observation_shape
    layout = game_spec(game.info.name).policy
    index = np.array(layout.index(game.info.num_actions, height, width))
    on_cells = np.flatnonzero(index < height * width * layout.cell_channels)
    return on_cells, index[on_cells], layout.cell_channels


def tactic_planes(flags: Any, slots: tuple[np.ndarray, np.ndarray, int], board: Sequence[int],
                  xp: Any = np) -> Any:
    """The ``(N, H, W, G * cell_channels)`` tactics planes (:attr:`NetConfig.tactics`,
    :attr:`NetConfig.trap_planes`, :attr:`NetConfig.wary_planes`) of ``(N, G, num_actions)``
    flags, each state's wins and handovers (the game's ``tactical_moves``), with ``G >= 3``
    its traps (``trap_moves``) and with ``G = 4`` its moves that hand over a trap
    (``trap_handovers``): each group laid out as the policy head's cell maps, one group
    after the other.
    ``slots``: :func:`tactic_slots`; ``xp``: the array module (NumPy, or ``jax.numpy`` in
    the learner)."""
    actions, positions, channels = slots
    n, groups, (height, width) = flags.shape[0], flags.shape[1], board
    chosen = flags[:, :, actions].astype(xp.float32)
    if xp is np:
        maps = np.zeros((n, groups, height * width * channels), dtype=np.float32)
        maps[:, :, positions] = chosen
    else:
        maps = xp.zeros((n, groups, height * width * channels), dtype=xp.float32)
        maps = maps.at[:, :, positions].set(chosen)
    maps = maps.reshape(n, groups, height, width, channels).transpose(0, 2, 3, 1, 4)
    return maps.reshape(n, height, width, groups * channels)


def with_inputs_of(network: Network, config: NetConfig) -> Network:
    """``network`` reading the input of ``config`` (:attr:`NetConfig.tactics`,
    :attr:`NetConfig.trap_planes`, :attr:`NetConfig.wary_planes`): a network without those
    planes gets zero stem weights for them (they come last), so that it computes the same
    function until training changes them (a learner's ``init`` network)."""
    have, want = network.config, config
    groups = ("tactics", "trap_planes", "wary_planes")
    if all(getattr(have, g) == getattr(want, g) for g in groups):
        return network
    if any(getattr(have, g) > getattr(want, g) for g in groups):
        raise ValueError("a network that reads tactics, trap or wary planes cannot drop them")
    weights = dict(network.weights)
    stem = weights["stem.w"]
    extra = want.input_planes(network.game) - stem.shape[2]
    weights["stem.w"] = np.concatenate(
        [stem, np.zeros(stem.shape[:2] + (extra, stem.shape[3]), dtype=stem.dtype)], axis=2)
    return Network(network.game, replace(have, tactics=want.tactics, trap_planes=want.trap_planes,
                                         wary_planes=want.wary_planes), weights,
                   search=network.search)


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Softmax over the ``True`` entries of each row of ``masks``; zeros elsewhere."""
    shifted = np.where(masks, logits, -np.inf)
    shifted = shifted - shifted.max(axis=1, keepdims=True)
    exp = np.where(masks, np.exp(shifted), 0.0)
    return exp / exp.sum(axis=1, keepdims=True)


def initial_weights(shapes: dict[str, tuple[int, ...]],
                    rng: np.random.Generator) -> dict[str, np.ndarray]:
    """He-initialised kernels and zero biases; the residual branches' last layers start
    small so that a fresh trunk is close to its stem."""
    weights = {}
    for name, shape in shapes.items():
        if name.split(".")[-1].startswith("b"):
            weights[name] = np.zeros(shape, dtype=np.float32)
            continue
        fan_in = int(np.prod(shape[:-1]))
        scale = np.sqrt(2.0 / fan_in) * (0.1 if name.endswith("w2") else 1.0)
        weights[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return weights


def non_finite(weights: dict[str, np.ndarray]) -> list[str]:
    """The names of the arrays in ``weights`` that hold a NaN or an infinity."""
    return [name for name, array in weights.items() if not np.isfinite(array).all()]


def save(network: Network, path: str | Path) -> Path:
    """Write ``network`` to ``path`` (``.npz``: its config and search settings as JSON, and
    its weights), whole or not at all (:func:`~tris_envs.durable.replaced`).

    Raises:
        ValueError: weights that are not finite numbers (nothing is written).
        OSError: the file cannot be written (it is then as it was).
    """
    path = Path(path)
    bad = non_finite(network.weights)
    if bad:
        raise ValueError(f"network not saved to {str(path)!r}: its weights "
                         f"{', '.join(map(repr, bad[:3]))}{' ...' if len(bad) > 3 else ''} "
                         "hold values that are not finite numbers (NaN or infinite): the "
                         "training diverged")
    arrays: dict[str, Any] = {"__config__": np.array(header_text(network)), **network.weights}
    with replaced(path, binary=True) as file:
        np.savez_compressed(file, **arrays)
    return path


def header_text(network: Network) -> str:
    """The JSON header :func:`save` writes for ``network``: the architecture's fields
    (those off by default only when on) and the ``"search"`` table of the settings that
    differ from the defaults."""
    config = network.config
    header: dict[str, Any] = {"format": FORMAT, "game": config.game, "options": config.options,
                              "width": config.width, "blocks": config.blocks}
    for key in ("tactics", "trap_planes", "wary_planes", "hide_roll"):
        if getattr(config, key):
            header[key] = True
    search = network.search.changed()
    if search:
        header["search"] = search
    for key in ("recipe", "version"):
        if getattr(network, key):
            header[key] = getattr(network, key)
    return json.dumps(header, default=repr)


def load(path: str | Path, game: Game) -> Network:
    """The network saved at ``path``, to play ``game``.

    The arrays' own headers are read first: the JSON header is checked (every size within
    :data:`~tris_envs.settings.LIMITS`), and each array's shape and type compared to the
    network it describes, before the weights are read.

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: not a network file of this format (the header field or the weights
            named), one for another game, or weights that are not finite numbers.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"network {str(path)!r} not found (an .npz written by "
                                "tris_envs.agents.az_network.save or training/alphazero.py)")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"network {str(path)!r} is not a network file (an .npz written by "
                         "tris_envs.agents.az_network.save or training/alphazero.py)")
    name = f"network {str(path)!r}"
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{name} cannot be read: {_said(error)}") from None
    with archive:
        declared = _declared_arrays(archive, name)
        shape, dtype = declared.pop("__config__", ((0,), np.dtype(np.int8)))
        if shape or dtype.kind != "U" or dtype.itemsize > 4 * LIMITS["header"]:
            raise ValueError(f"{name} has no header (__config__, one JSON text of at most "
                             f"{LIMITS['header']} characters): it was not written by "
                             "tris_envs.agents.az_network.save")
        fields, expected = _checked_header(name, str(_read(archive, "__config__", name)), game)
        for key, (_, dtype) in declared.items():
            if dtype.kind not in "fiu":
                raise ValueError(f"{name}: weights {brief(key, 60)} are not numbers "
                                 f"({brief(str(dtype), 40)})")
        misfit = weights_misfit({key: shape for key, (shape, _) in declared.items()}, expected)
        if misfit:
            raise ValueError(f"{name}: its weights do not fit the network its header "
                             f"describes: {misfit}")
        weights = {key: _read(archive, key, name) for key in declared}
    bad = non_finite(weights)
    if bad:
        raise ValueError(f"{name}: weights {', '.join(map(repr, bad[:3]))} hold values that "
                         "are not finite numbers (NaN or infinite): the file is damaged or "
                         "its training diverged")
    search, recipe, version = (fields.pop(key) for key in ("search", "recipe", "version"))
    if fields.pop("format") == 1:
        cells = int(np.prod(game.info.observation_shape[:2]))
        weights["value.w1"] = np.tile(weights["value.w1"], (cells, 1)) / cells
    try:
        network = Network(game, NetConfig(**fields), weights, search=search)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    network.source, network.recipe, network.version = name, recipe, version
    return network


def _declared_arrays(archive: zipfile.ZipFile,
                     name: str) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """The shape and type of each array of an ``.npz`` archive (by key: its member's name
    without ``.npy``), read from the arrays' own headers, not their data.

    Raises:
        ValueError: a member that is not an ``.npy`` array (``name`` starts the message).
    """
    declared = {}
    for member in archive.namelist():
        if not member.endswith(".npy"):
            raise ValueError(f"{name} is not a network file (it holds {brief(member, 60)}, "
                             "not an array)")
        try:
            with archive.open(member) as file:
                version = np.lib.format.read_magic(file)
                read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                        else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read(file)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            raise ValueError(f"{name} cannot be read ({brief(member, 60)}: "
                             f"{_said(error)})") from None
        declared[member.removesuffix(".npy")] = (shape, dtype)
    return declared


def _read(archive: zipfile.ZipFile, key: str, name: str) -> np.ndarray:
    """The array ``key`` of an ``.npz`` archive, without pickles.

    Raises:
        ValueError: the member cannot be read (damaged), ``name`` starting the message.
    """
    try:
        with archive.open(f"{key}.npy") as file:
            return np.lib.format.read_array(file, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise ValueError(f"{name} cannot be read: {_said(error)}") from None


def _said(error: BaseException) -> str:
    """An error's message for one line of ours: its first line, at most 160 characters."""
    return (str(error).splitlines() or [type(error).__name__])[0][:160]


def _checked_header(name: str, text: str,
                    game: Game) -> tuple[dict[str, Any], dict[str, tuple[int, ...]]]:
    """The fields of the header ``text`` (:func:`_header_fields`) and the shapes of the
    weights of the network they describe for ``game``, as the file holds them (a format 1
    file's ``value.w1`` is ``(width, width)``).

    Raises:
        ValueError: a header that is not JSON or has a bad field, a network for another
            game, or one of more than ``LIMITS["parameters"]`` weights.
    """
    try:
        header = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{name}: its header is not JSON ({str(error)[:80]})") from None
    fields = _header_fields(name, header)
    if fields["game"] != game.info.name:
        raise ValueError(f"{name}: a network for {brief(fields['game'], 60)} cannot play "
                         f"{game.info.name!r}")
    config = NetConfig(**{k: v for k, v in fields.items()
                          if k not in ("format", "search", "recipe", "version")})
    shapes = config.shapes(game)
    if fields["format"] == 1:
        shapes["value.w1"] = (config.width, config.width)
    count = sum(math.prod(shape) for shape in shapes.values())
    if count > LIMITS["parameters"]:
        raise ValueError(f"{name}: header fields width={config.width} and "
                         f"blocks={config.blocks} make a network of {count:,} weights; at "
                         f"most {LIMITS['parameters']:,}")
    return fields, shapes


def weights_misfit(have: dict[str, tuple[int, ...]], want: dict[str, tuple[int, ...]]) -> str:
    """What keeps arrays of the shapes ``have`` (by name) from being weights of the shapes
    ``want``, in a few words (names and shapes cut short): the first missing, misshapen or
    extra array; ``""`` when they fit."""
    for key, shape in want.items():
        if key not in have:
            return f"no weights {key!r} (of shape {shape})"
        if tuple(have[key]) != shape:
            return f"weights {key!r} of shape {brief(tuple(have[key]), 60)}, not {shape}"
    extra = next((key for key in have if key not in want), None)
    return "" if extra is None else f"weights {brief(extra, 60)} of no layer of it"


def _header_fields(name: str, header: Any) -> dict[str, Any]:
    """The header's fields (:data:`HEADER`), each checked, defaults filled in, under
    :class:`NetConfig`'s names, and ``"search"``, its
    :class:`~tris_envs.agents.search_settings.SearchSettings` (in a format 1 or 2 header,
    from the :data:`PLAY_FIELDS` among the others); ``name`` starts every error.

    Raises:
        ValueError: a header that is not a JSON object, lacks a field, has an unknown one,
            or a bad value (the field named).
    """
    if not isinstance(header, dict):
        raise ValueError(f"{name}: its header is not a JSON object")
    flat = header.get("format") in (1, 2) and not isinstance(header.get("format"), bool)
    layout = ({k: v for k, v in HEADER.items() if k not in ("search", "recipe", "version")}
              | PLAY_FIELDS if flat else HEADER)
    unknown = sorted(set(header) - set(layout))
    if unknown:
        raise ValueError(f"{name}: header field {brief(unknown[0], 60)} is not one this "
                         f"version knows ({', '.join(layout)})")
    fields = {}
    for key, (check, default) in layout.items():
        if key not in header:
            if default is None:
                raise ValueError(f"{name}: its header lacks the field {key!r}")
            fields[key] = default
            continue
        problem = check(header[key])
        if problem:
            raise ValueError(f"{name}: header field {key}={brief(header[key], 60)} {problem}")
        fields[key] = header[key]
    if flat:
        fields |= {"recipe": "", "version": ""}
        play = {key: fields.pop(key) for key in PLAY_FIELDS}
        fields["search"] = SearchSettings.from_table(
            {k: v for k, v in play.items() if v != PLAY_FIELDS[k][1]}, f"{name}: header field ")
    else:
        fields["search"] = SearchSettings.from_table(fields["search"],
                                                     f"{name}: header field search.")
    return fields


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


_GEMM_SIZE = (1 << 19) - 1
"""Largest ``rows * inner * outer`` of one matrix product in :func:`_matmul`. OpenBLAS runs
a product of fewer than 2**19 multiply-adds on one thread, however many cores there are
(measured with NumPy's OpenBLAS 0.3.31). Larger products start BLAS threads, which on a
loaded 2-core machine made one pass of a small batch 10 to 20 times slower than on one
thread; a search evaluates small batches, so the products are kept below the bound."""


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for a 2-D ``a`` of many rows, in products of at most :data:`_GEMM_SIZE`
    (one stacked ``matmul`` call: its blocks of rows, then the rows left over)."""
    rows, inner = a.shape
    out = np.empty((rows, b.shape[1]), dtype=np.result_type(a, b))
    block = max(1, _GEMM_SIZE // (inner * b.shape[1]))
    whole = rows - rows % block
    if whole:
        np.matmul(a[:whole].reshape(-1, block, inner), b,
                  out=out[:whole].reshape(-1, block, b.shape[1]))
    if whole < rows:
        np.matmul(a[whole:], b, out=out[whole:])
    return out


def _conv3x3(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """"Same" 3x3 convolution of ``(N, H, W, Cin)`` with a ``(3, 3, Cin, Cout)`` kernel.

    im2col: the 3x3 neighbourhood of each cell of the zero-padded input as one row
    ``(3, 3, Cin)``, copied in one go from a strided view (the three cells of a window row
    are adjacent in memory), times the kernel as a ``(9 * Cin, Cout)`` matrix (one
    :func:`_matmul`).
    """
    n, h, w, c = x.shape
    padded = np.zeros((n, h + 2, w + 2, c), dtype=np.float32)
    padded[:, 1:-1, 1:-1] = x
    image, row, cell, channel = padded.strides
    windows = as_strided(padded, (n, h, w, 3, 3 * c), (image, row, cell, row, channel),
                         writeable=False)
    columns = np.empty((n, h, w, 3, 3 * c), dtype=np.float32)
    columns[...] = windows
    out = _matmul(columns.reshape(n * h * w, 9 * c), kernel.reshape(9 * c, -1))
    out += bias
    return out.reshape(n, h, w, -1)

"""Doppia scelta as pure JAX functions: every scheme, custom gates, random / fixed boards
and the coloring phase (not ``fair=True``); see :mod:`tris_envs.jax`.

CodyColor walks (the robots' plain CodyColor paths) are followed in *arrival poses*: a
robot arrived on pose ``cell*4 + facing`` and is about to run the cell's instruction. Ends
of walks are nodes: an arrival pose where the walk stops (an uncolored cell), or an exit
node ``100`` (through White's goal gate), ``101`` (Black's goal gate; ``100`` when the
goals are the same gate), ``102`` (through any other edge).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from tris_envs.games.doppia_scelta import (
    CELLS,
    COLORS,
    DRAW,
    EXITED,
    FORWARD,
    NOT_ENTERED,
    NUM_ACTIONS,
    ONGOING,
    UNCOLORED,
    parse_gate,
)
from tris_envs.games.doppia_scelta import DoppiaScelta as CoreDoppiaScelta
from tris_envs.games.doppia_scelta import DoppiaSceltaState as CoreState
from tris_envs.jax.base import Array, PRNGKey, TrisEnv, dataclass, random_words, seat_rewards

POSES = CELLS * 4
_BLANK = 3
"""The ``_colors`` value of an uncolored cell (0 yellow, 1 gray, 2 red as in the core)."""
_SPREAD = 2**32 // 3**13
_LIMIT = _SPREAD * 3**13
"""A uniform 32-bit word below ``_LIMIT``, divided by :data:`_SPREAD`, is 13 uniform colors
in base 3 (a board's two words, 26 colors, are redrawn when one is above)."""
_STRIDE = 6
"""Walks run on cells ``r*6 + c``: bits 0-28 of a 32-bit word, with the unused column 5
and everything outside 0-28 read as off the board."""
_PLACES = np.array([cell // 5 * _STRIDE + cell % 5 for cell in range(CELLS)])
_WALK_DELTAS = (-_STRIDE, 1, _STRIDE, -1)
"""How a walk cell changes one step ahead, per facing N E S W."""
_MOVES = sum((4 * delta + facing + 32) << 8 * facing
             for facing, delta in enumerate(_WALK_DELTAS))
"""Byte ``f``: 32 + how a walk pose ``place*4 + facing`` changes when it steps forward
facing ``f`` (turned to ``f``, then one cell on)."""
_STEPS = sum((4 * delta + 32) << 8 * facing for facing, delta in enumerate((-5, 1, 5, -1)))
"""Byte ``f``: 32 + how a pose changes when it steps forward facing ``f``."""
_FIRST_STEPS = 12
"""Walk steps every board of a batch takes at once (:meth:`DoppiaScelta._drawn_batch`)."""
_SPARE = 128
"""Boards of a batch (of any size) that may need more than the first walk steps and still
be redrawn apart; more, and the whole batch is redrawn one by one."""
_UNROLL = 4
"""Walk steps per turn of the drawing loop."""


def _turned(pose: int, instruction: int) -> int:
    """The pose after turning by ``instruction`` (0 left, 1 straight, 2 right) in place."""
    return pose & ~3 | (pose + instruction + 3) & 3


def _edges(poses: Array) -> Array:
    """The board edges along the cells of ``poses``, as bits ``1 << facing`` of the
    facings that look off the board."""
    cells = poses >> 2
    columns = cells % 5
    return (cells < 5) * 1 | (columns == 4) * 2 | (cells >= 20) * 4 | (columns == 0) * 8


def _walk_pose(pose: int) -> int:
    """The walk pose (:data:`_STRIDE` layout) of a board pose ``cell*4 + facing``."""
    return int(_PLACES[pose >> 2]) * 4 + (pose & 3)


def _board(words: Array) -> tuple[Array, tuple[Array, Array], Array]:
    """The board of two random 32-bit words: its colors (int8, 25), its walk planes (bit
    ``place`` of the low, bit ``place + 1`` of the high plane: the low and high bit of
    ``color + 1``; ``0`` off the board), and whether both words were below the limit (else
    it is redrawn)."""
    colors = []
    for word in (words[0], words[1]):
        rest = word // jnp.uint32(_SPREAD)
        for _ in range(13):
            colors.append(rest % 3)
            rest = rest // 3
    low = high = jnp.uint32(0)
    for place, color in zip(_PLACES.tolist(), colors):
        low = low | (color != 1).astype(jnp.uint32) << place
        high = high | (color != 0).astype(jnp.uint32) << place + 1
    valid = (words[0] < jnp.uint32(_LIMIT)) & (words[1] < jnp.uint32(_LIMIT))
    return jnp.stack(colors[:CELLS]).astype(jnp.int8), (low, high), valid


def _codes(planes: tuple[Array, Array], pose: Array) -> Array:
    """``color + 1`` of the cell walk ``pose`` stands on, ``0`` off the board."""
    place = (pose >> 2).astype(jnp.uint32)
    return (planes[0] >> place & 1 | planes[1] >> place & 2).astype(jnp.int32)


def _walked(planes: tuple[Array, Array], pose: Array, steps: int) -> Array:
    """Walk ``pose`` after ``steps`` CodyColor steps; a walk that left the board stays."""
    for _ in range(steps):
        code = _codes(planes, pose)
        facing = (pose + code + 2) & 3
        moved = (pose & ~3) + (_MOVES >> (facing << 3) & 255) - 32
        pose = jnp.where(code == 0, pose, moved)
    return pose


@dataclass
class State:
    """Pgx's fields; the colors (0 yellow, 1 gray, 2 red, 3 uncolored; cell ``r*5 + c``);
    the robots' poses (``-1`` before they enter, ``100`` after leaving through the goal);
    with ``setup="coloring"``, where a CodyColor walk arriving in each pose ends over the
    colored cells (a node per pose and per exit node, see the module docstring)."""

    current_player: Array = jnp.int32(0)                                    # []
    observation: Array = jnp.zeros((5, 5, 23), dtype=jnp.int8)             # [5, 5, 23]
    rewards: Array = jnp.zeros(2, dtype=jnp.float32)                        # [2]
    terminated: Array = jnp.bool_(False)                                    # []
    truncated: Array = jnp.bool_(False)                                     # []
    legal_action_mask: Array = jnp.zeros(NUM_ACTIONS, dtype=jnp.bool_)     # [NUM_ACTIONS]
    _step_count: Array = jnp.int32(0)                                       # []
    _colors: Array = jnp.full(CELLS, _BLANK, dtype=jnp.int8)                # [25]
    _robots: Array = jnp.full(2, NOT_ENTERED, dtype=jnp.int32)              # [2] poses
    _ends: Array = jnp.zeros(0, dtype=jnp.int8)                 # [103] nodes, or [0]

    @property
    def env_id(self) -> str:
        return "doppia_scelta"


class DoppiaScelta(TrisEnv):
    """Doppia scelta with the rules core's options (``scheme``, ``gates``, ``setup``,
    ``board``, ``max_moves``): static, checked by the core.

    Raises:
        ValueError: ``fair=True`` (it needs the exact solver for every board drawn).
    """

    def __init__(self, **options: Any) -> None:
        core = CoreDoppiaScelta(**options)
        if core.fair:
            raise ValueError("option fair=True is not available in the JAX version: it keeps "
                             "only boards the exact solver calls a draw; use the rules core "
                             "(tris_envs.games) for fair boards")
        super().__init__(core)
        self._core = core
        goals = [parse_gate(core.gates[1]), parse_gate(core.gates[3])]
        entries = [core.entry_pose(0), core.entry_pose(1)]
        self._entries = jnp.array(entries, dtype=jnp.int32)
        self._goals = jnp.array(goals, dtype=jnp.int32)
        exits = [100 if pose == goals[0] else 101 if pose == goals[1] else 102
                 for pose in range(POSES)]
        self._goal_nodes = jnp.array([100, exits[goals[1]]], dtype=jnp.int8)
        hops = [[FORWARD[t] if FORWARD[t] >= 0 else exits[t]
                 for t in (_turned(pose, k) for k in range(3))] for pose in range(POSES)]
        self._hops = jnp.array(hops, dtype=jnp.int8).reshape(-1)
        start = CoreState(UNCOLORED * CELLS, NOT_ENTERED, NOT_ENTERED, 0)
        self._goal_planes = jnp.array([core.observation(start, p).reshape(CELLS, 23) == 1
                                       for p in (0, 1)])
        self._walk_entries = (jnp.int32(_walk_pose(entries[0])),
                              jnp.int32(_walk_pose(entries[1])))
        self._walk_goals = tuple(_walk_pose(goal) + 4 * _WALK_DELTAS[goal & 3]
                                 for goal in goals)
        self._draw = jax.custom_batching.custom_vmap(self._drawn)
        self._draw.def_vmap(self._drawn_batch)
        self._coloring = core.setup == "coloring"
        self._recolor = jax.jit(self._recolored)
        self._start = None if core.setup == "random" and core.board is None else self._from_core(
            core.initial_state(np.random.default_rng(0)))

    # ----- start -----------------------------------------------------------------------
    def _init(self, key: PRNGKey) -> State:
        if self._start is not None:
            return self._start
        colors = self._draw(key)
        robots = self._entries
        return State(_colors=colors, _robots=robots,
                     legal_action_mask=self._mask(colors, robots, jnp.zeros(75, bool), 0))

    def _drawn(self, key: PRNGKey) -> Array:
        """Uniform random colors, redrawn until no robot has a CodyColor path."""
        def attempt(carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
            index, _, _ = carry
            colors, planes, valid = _board(random_words(key, index))
            white, black = jax.lax.while_loop(
                lambda poses: (_codes(planes, poses[0]) != 0) | (_codes(planes, poses[1]) != 0),
                lambda poses: (_walked(planes, poses[0], _UNROLL),
                               _walked(planes, poses[1], _UNROLL)),
                self._walk_entries)
            white_exit, black_exit = self._walk_goals
            return index + 1, colors, valid & (white != white_exit) & (black != black_exit)

        return jax.lax.while_loop(lambda carry: ~carry[2], attempt,
                                  (jnp.int32(0), jnp.zeros(CELLS, jnp.int8),
                                   jnp.bool_(False)))[1]

    def _first_try(self, key: PRNGKey) -> tuple[Array, Array]:
        """The colors of board 0 of :meth:`_drawn`, and whether :meth:`_drawn` keeps it
        after only :data:`_FIRST_STEPS` walk steps."""
        colors, planes, valid = _board(random_words(key, 0))
        kept = valid
        for entry, goal in zip(self._walk_entries, self._walk_goals):
            pose = _walked(planes, entry, _FIRST_STEPS)
            kept = kept & (_codes(planes, pose) == 0) & (pose != goal)
        return colors, kept

    def _drawn_batch(self, size: int, batched: list[bool], keys: PRNGKey) -> tuple[Array, bool]:
        """:meth:`_drawn` for a batch of ``keys`` (the same boards): every board 0 walks
        :data:`_FIRST_STEPS` steps at once, and only the keys whose board 0 is not kept
        then (at most :data:`_SPARE`) go through the loop, which under ``vmap`` runs as
        long as the longest walk among them."""
        if not batched[0]:
            return self._drawn(keys), False
        colors, kept = jax.vmap(self._first_try)(keys)
        index = jnp.nonzero(~kept, size=_SPARE, fill_value=size)[0]

        def spare(colors: Array) -> Array:
            redrawn = jax.vmap(self._drawn)(keys.at[index].get(mode="clip"))
            return colors.at[index].set(redrawn, mode="drop")

        return jax.lax.cond((~kept).sum() <= _SPARE, spare,
                            lambda colors: jax.vmap(self._drawn)(keys), colors), True

    # ----- rules -----------------------------------------------------------------------
    def _under(self, colors: Array, pose: Array) -> Array:
        """The color under a robot in ``pose`` (0 for a pose outside the board).

        A reduction: XLA computes it once instead of inside every array that uses it."""
        return jnp.where(jnp.arange(CELLS) == pose >> 2, colors, 0).sum()

    def _mask(self, colors: Array, robots: Array, colorings: Array,
              player: ArrayLike) -> Array:
        """The legal actions ``[NUM_ACTIONS]``: ``player``'s instructions once the robots
        (``[2]`` poses) entered, else the legal ``colorings`` ``[75]``.

        The instructions offered by the colors under the robots, without those that face
        the border (the own goal gate excepted) unless every offered one does."""
        white, black = robots[0], robots[1]
        own = jnp.where(player == 0, white, black)
        goal = jnp.where(player == 0, self._goals[0], self._goals[1])
        blocked = _edges(own) & ~jnp.where(own >> 2 == goal >> 2, 1 << (goal & 3), 0)
        facing_out = (blocked * 17) >> ((own + 3) & 3) & 7
        offered = 1 << self._under(colors, white) | 1 << self._under(colors, black)
        going = offered & ~facing_out
        legal = jnp.where(going != 0, going, offered)
        turns = (legal >> jnp.arange(3) & 1) == 1
        entered = white >= 0
        return jnp.concatenate([turns & entered, colorings & ~entered])

    def _play(self, state: State, action: Array, key: PRNGKey | None) -> State:
        if not self._coloring:
            return self._move(state, action)
        moved, colored = self._move(state, action), self._color(state, action)
        coloring = state._robots[0] < 0
        return jax.tree_util.tree_map(lambda new, old: jnp.where(coloring, new, old),
                                      colored, moved)

    def _move(self, state: State, action: Array) -> State:
        """The state after the mover runs instruction ``action``.

        Poses move by arithmetic (gathers are slow under ``vmap``). The new pose and the
        stalemate come out of reductions: XLA would otherwise recompute the move inside
        every state field that the benchmark's restart selects."""
        player, colors = state.current_player, state._colors
        white, black = state._robots[0], state._robots[1]
        own = jnp.where(player == 0, white, black)
        goal = jnp.where(player == 0, self._goals[0], self._goals[1])
        facings = (own + jnp.arange(3) + 3) & 3
        turned = own & ~3 | facings
        ahead = turned + (_STEPS >> (facings << 3) & 255) - 32
        afters = jnp.where(turned == goal, EXITED,
                           jnp.where(_edges(own) >> facings & 1 == 1, turned, ahead))
        after = jnp.where(jnp.arange(3) == action, afters, 0).sum()
        white = jnp.where(player == 0, after, white)
        black = jnp.where(player == 0, black, after)
        won = after == EXITED
        robots = jnp.stack([white, black])
        stuck = (_edges(robots) >> (robots & 3) & 1 == 1) & (robots != self._goals)
        gray = jnp.stack([self._under(colors, white), self._under(colors, black)]) == 1
        stalemate = ~won & (stuck & gray).all()
        following = 1 - player
        return state.replace(current_player=following, _robots=robots,
                             legal_action_mask=self._mask(colors, robots, jnp.zeros(75, bool),
                                                          following),
                             terminated=won | stalemate,
                             rewards=seat_rewards(jnp.where(won, player, -1)))

    def _color(self, state: State, action: Array) -> State:
        cell, color = (action - 3) // 3, (action - 3) % 3
        colors = jnp.where(jnp.arange(CELLS) == cell, color.astype(jnp.int8), state._colors)
        ends = self._recolored(state._ends, cell, color)
        full = (colors != _BLANK).all()
        robots = jnp.where(full, self._entries, state._robots)
        following = jnp.where(full, 0, 1 - state.current_player)
        colorings = self._colorings(colors, ends)
        return state.replace(current_player=following, _colors=colors, _robots=robots,
                             _ends=ends, terminated=~full & ~colorings.any(),
                             legal_action_mask=self._mask(colors, robots, colorings,
                                                          following),
                             rewards=jnp.zeros(2, jnp.float32))

    def _arrivals(self, ends: Array, cells: Array, colors: Array) -> Array:
        """Where walks arriving on ``cells`` (any shape) in each facing end once the cell is
        colored ``colors`` (same shape): nodes, shape ``cells.shape + (4,)``.

        A walk that enters a cell again does so in another facing, so four visits at most:
        the ends of one visit are composed three times."""
        arrivals = cells[..., None] * 4 + jnp.arange(4)
        first = ends[self._hops[arrivals * 3 + colors[..., None]].astype(jnp.int32)]
        reached = first
        for _ in range(3):
            back = (reached < POSES) & (reached >> 2 == cells[..., None])
            again = jnp.where(jnp.arange(4) == (reached & 3)[..., None], first[..., None, :],
                              0).sum(-1).astype(jnp.int8)
            reached = jnp.where(back, again, reached)
        return reached

    def _recolored(self, ends: Array, cell: Array, color: Array) -> Array:
        """``ends`` after coloring ``cell`` with ``color``."""
        reached = self._arrivals(ends, cell, color)
        stops = (ends < POSES) & (ends >> 2 == cell)
        resumed = jnp.where(jnp.arange(4) == (ends & 3)[:, None], reached, 0).sum(-1)
        return jnp.where(stops, resumed.astype(jnp.int8), ends)

    def _colorings(self, colors: Array, ends: Array) -> Array:
        """The legal coloring actions (75): an uncolored cell, and no CodyColor path for
        either robot after it. Only the cell where a robot's walk stops can open one."""
        stops = ends[self._entries].astype(jnp.int32)
        stopped = stops < POSES
        cells = jnp.where(stopped, stops >> 2, 0)
        reached = self._arrivals(ends, jnp.repeat(cells[:, None], 3, 1),
                                 jnp.broadcast_to(jnp.arange(3), (2, 3)))
        ended = jnp.where(jnp.arange(4) == (stops & 3)[:, None, None], reached, 0).sum(-1)
        opens = stopped[:, None] & (ended == self._goal_nodes[:, None])
        forbidden = ((jnp.arange(CELLS) == cells[:, None])[:, :, None]
                     & opens[:, None, :]).any(0)
        return ((colors == _BLANK)[:, None] & ~forbidden).reshape(75)

    # ----- views -----------------------------------------------------------------------
    def _observe(self, state: State, player_id: Array) -> Array:
        # int8 throughout (poses and plane targets stay below 128): wider vectors on CPU;
        # planes 21 and 22 are zero outside the coloring setup
        robots = jnp.where(state._robots < 0, self._entries, state._robots)
        mine = jnp.where(player_id == 0, robots[0], robots[1]).astype(jnp.int8)
        theirs = jnp.where(player_id == 0, robots[1], robots[0]).astype(jnp.int8)
        cells = jnp.arange(CELLS, dtype=jnp.int8)[:, None]
        planes = jnp.arange(23, dtype=jnp.int8)
        colors = state._colors[:, None]
        goals = jnp.where(player_id == 0, self._goal_planes[0], self._goal_planes[1])
        blanks = (planes == 21) & (colors == _BLANK) | (planes == 22) & (
            state._colors == _BLANK).any() if self._coloring else False
        seen = jnp.where(planes < 3, colors == planes, jnp.where(
            planes == 3, mine >> 2 == cells, jnp.where(
                planes < 8, mine == cells * 4 + planes - 4, jnp.where(
                    planes == 8, theirs >> 2 == cells, jnp.where(
                        planes < 13, theirs == cells * 4 + planes - 9,
                        jnp.where(planes < 21, goals, blanks))))))
        return seen.astype(jnp.int8).reshape(5, 5, 23)

    # ----- bridges ---------------------------------------------------------------------
    def _from_core(self, state: CoreState) -> State:
        colors = np.array([(COLORS + UNCOLORED).index(ch) for ch in state.colors], np.int8)
        robots = np.array([state.white, state.black], np.int32)
        ends = jnp.zeros(0, jnp.int8)
        if self._coloring:
            ends = jnp.concatenate([jnp.arange(POSES), jnp.arange(100, 103)]).astype(jnp.int8)
            for cell in np.flatnonzero(colors != _BLANK):
                ends = self._recolor(ends, jnp.int32(cell), jnp.int32(colors[cell]))
        over = state.result != ONGOING
        colorings = self._colorings(jnp.asarray(colors), ends) if self._coloring else (
            jnp.zeros(75, bool))
        mask = self._mask(jnp.asarray(colors), jnp.asarray(robots), colorings, state.to_move)
        return State(current_player=jnp.int32(state.to_move), _colors=jnp.asarray(colors),
                     _robots=jnp.asarray(robots), _ends=ends, terminated=jnp.bool_(over),
                     legal_action_mask=mask | over)

    def to_core(self, state: State) -> CoreState:
        colors = "".join((COLORS + UNCOLORED)[c] for c in np.asarray(state._colors))
        white, black = (int(pose) for pose in np.asarray(state._robots))
        result = (0 if white == EXITED else 1 if black == EXITED
                  else DRAW if bool(state.terminated) else ONGOING)
        return CoreState(colors, white, black, int(state.current_player), result)

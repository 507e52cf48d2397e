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
from pgx._src.struct import dataclass

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
    move_tables,
    parse_gate,
)
from tris_envs.games.doppia_scelta import DoppiaScelta as CoreDoppiaScelta
from tris_envs.games.doppia_scelta import DoppiaSceltaState as CoreState
from tris_envs.jax.base import TrisEnv, seat_rewards

POSES = CELLS * 4
_NODES = POSES + 3
_BLANK = 3
"""The ``_colors`` value of an uncolored cell (0 yellow, 1 gray, 2 red as in the core)."""
_ROW_WORDS = 17674762
"""``2**32 // 243``: a uniform 32-bit word below ``243 * _ROW_WORDS``, divided by it, is a
uniform row of five colors in base 3 (boards with a word above are redrawn)."""


_CANDIDATES = 2
_UNROLL = 2
_POWERS = jnp.array([1, 3, 9, 27, 81], dtype=jnp.uint32)
_SHIFTS = 2 * jnp.arange(16, dtype=jnp.uint32)


def _turned(pose: Any, instruction: Any) -> Any:
    """The pose after turning by ``instruction`` (0 left, 1 straight, 2 right) in place."""
    return pose & ~3 | (pose + instruction + 3) & 3


def _ahead(pose: Any) -> tuple[Any, Any]:
    """The pose one step ahead (as :data:`FORWARD`, in arithmetic: gathers are slow under
    ``vmap``), and whether the robot faces the border instead."""
    row, col, facing = (pose >> 2) // 5, (pose >> 2) % 5, pose & 3
    border = jnp.where(facing == 0, row == 0, jnp.where(facing == 1, col == 4, jnp.where(
        facing == 2, row == 4, col == 0)))
    step = jnp.where(facing == 0, -20, jnp.where(facing == 1, 4, jnp.where(facing == 2, 20, -4)))
    return pose + step, border


@dataclass
class State:
    """Pgx's fields; the colors (0 yellow, 1 gray, 2 red, 3 uncolored; cell ``r*5 + c``);
    the robots' poses (``-1`` before they enter, ``100`` after leaving through the goal);
    with ``setup="coloring"``, where a CodyColor walk arriving in each pose ends over the
    colored cells (a node per pose and per exit node, see the module docstring)."""

    current_player: Any = jnp.int32(0)
    observation: Any = jnp.zeros((5, 5, 23), dtype=jnp.int8)
    rewards: Any = jnp.zeros(2, dtype=jnp.float32)
    terminated: Any = jnp.bool_(False)
    truncated: Any = jnp.bool_(False)
    legal_action_mask: Any = jnp.zeros(NUM_ACTIONS, dtype=jnp.bool_)
    _step_count: Any = jnp.int32(0)
    _colors: Any = jnp.full(CELLS, _BLANK, dtype=jnp.int8)
    _robots: Any = jnp.full(2, NOT_ENTERED, dtype=jnp.int32)
    _ends: Any = jnp.zeros(0, dtype=jnp.int8)

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
        tables = [move_tables(goal) for goal in goals]
        self._entries = jnp.array(entries, dtype=jnp.int32)
        self._goals = jnp.array(goals, dtype=jnp.int32)
        self._after = jnp.array([table.after for table in tables], dtype=jnp.int32)
        self._stuck = jnp.array([table.stuck for table in tables])
        self._legal = jnp.array([[[i in legal for i in range(3)] for legal in table.legal]
                                 for table in tables]).reshape(2, POSES, 8, 3)
        exits = [100 if pose == goals[0] else 101 if pose == goals[1] else 102
                 for pose in range(POSES)]
        self._goal_nodes = jnp.array([100, exits[goals[1]]], dtype=jnp.int8)
        hops = [[FORWARD[t] if FORWARD[t] >= 0 else exits[t]
                 for t in (_turned(pose, k) for k in range(3))] for pose in range(POSES)]
        self._hops = jnp.array(hops, dtype=jnp.int8).reshape(-1)
        start = CoreState(UNCOLORED * CELLS, NOT_ENTERED, NOT_ENTERED, 0)
        self._goal_planes = jnp.array([core.observation(start, p).reshape(CELLS, 23) == 1
                                       for p in (0, 1)])
        self._coloring = core.setup == "coloring"
        self._recolor = jax.jit(self._recolored)
        self._start = None if core.setup == "random" and core.board is None else self.from_core(
            core.initial_state(np.random.default_rng(0)))

    # ----- start -----------------------------------------------------------------------
    def _init(self, key: Any) -> State:
        if self._start is not None:
            return self._start
        colors = self._random_colors(key)
        robots = self._entries
        return State(_colors=colors, _robots=robots,
                     legal_action_mask=self._mask(colors, robots, jnp.zeros(75, bool), 0))

    def _random_colors(self, key: Any) -> Any:
        """Uniform random colors, redrawn until no robot has a CodyColor path.

        Boards come :data:`_CANDIDATES` at a time, two bits a cell in two words (cells 0-15,
        16-24); one loop walks both robots on one board after the other."""
        def draw(carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
            key, _, _ = carry
            key, sub = jax.random.split(key)
            rows = jax.random.bits(sub, (_CANDIDATES, 5)) // jnp.uint32(_ROW_WORDS)
            colors = (rows[..., None] // _POWERS % 3).reshape(_CANDIDATES, CELLS)
            boards = jnp.stack([(colors[:, :16] << _SHIFTS).sum(-1),
                                (colors[:, 16:] << _SHIFTS[:9]).sum(-1)], -1)
            return key, *self._first_without_path(boards, (rows < 243).all(-1))

        _, board, _ = jax.lax.while_loop(
            lambda carry: ~carry[2], draw,
            (key, jnp.zeros(2, jnp.uint32), jnp.bool_(False)))
        cells = jnp.arange(CELLS)
        words = jnp.where(cells < 16, board[0], board[1])
        return (words >> _SHIFTS[cells & 15] & 3).astype(jnp.int8)

    def _first_without_path(self, boards: Any, valid: Any) -> tuple[Any, Any]:
        """The first of the ``valid`` packed ``boards`` on which no robot has a CodyColor
        path, and whether there is one."""
        def walk(poses: Any, out: Any, board: Any) -> tuple[Any, Any]:
            cells = poses >> 2
            words = jnp.where(cells < 16, board[0], board[1])
            shifts = (2 * (cells & 15)).astype(jnp.uint32)
            turned = _turned(poses, (words >> shifts & 3).astype(jnp.int32))
            ahead, leaving = _ahead(turned)
            return jnp.where(out, poses, jnp.where(leaving, turned, ahead)), out | leaving

        def body(carry: tuple[Any, ...]) -> tuple[Any, ...]:
            index, board, poses, out, _ = carry
            for _ in range(_UNROLL):
                poses, out = walk(poses, out, board)
            decided = out.all()
            current = jnp.arange(_CANDIDATES) == index
            rejected = decided & ((poses == self._goals).any() | ~(valid & current).any())
            index = index + rejected
            following = jnp.where((jnp.arange(_CANDIDATES) == index)[:, None], boards, 0)
            return (index, jnp.where(rejected, following.sum(0), board),
                    jnp.where(rejected, self._entries, poses), out & ~rejected,
                    decided & ~rejected)

        carry = (jnp.int32(0), boards[0], self._entries, jnp.zeros(2, bool), jnp.bool_(False))
        carry = jax.lax.while_loop(lambda carry: ~carry[4] & (carry[0] < _CANDIDATES), body,
                                   carry)
        return carry[1], carry[4]

    # ----- rules -----------------------------------------------------------------------
    def _mask(self, colors: Any, robots: Any, colorings: Any, player: Any) -> Any:
        """The legal actions: ``player``'s instructions once the robots entered, else the
        legal ``colorings``."""
        own = jnp.where(player == 0, robots[0], robots[1])
        other = jnp.where(player == 0, robots[1], robots[0])
        under = jnp.where(jnp.arange(CELLS) == (jnp.stack([own, other]) >> 2)[:, None],
                          colors, 0).sum(-1)
        offered = 1 << under[0] | 1 << under[1]
        turns = self._legal[player, jnp.clip(own, 0, POSES - 1), offered]
        entered = robots[0] >= 0
        return jnp.concatenate([turns & entered, colorings & ~entered])

    def _play(self, state: State, action: Any, key: Any) -> State:
        if not self._coloring:
            return self._move(state, action)
        moved, colored = self._move(state, action), self._color(state, action)
        coloring = state._robots[0] < 0
        return jax.tree_util.tree_map(lambda new, old: jnp.where(coloring, new, old),
                                      colored, moved)

    def _move(self, state: State, action: Any) -> State:
        player, robots, colors = state.current_player, state._robots, state._colors
        own = jnp.where(player == 0, robots[0], robots[1])
        after = self._after[player, jnp.clip(own, 0, POSES - 1) * 3 + jnp.clip(action, 0, 2)]
        robots = jnp.where(jnp.arange(2) == player, after, robots)
        won = after == EXITED
        gray = jnp.where(jnp.arange(CELLS) == (robots >> 2)[:, None], colors, 0).sum(-1) == 1
        stuck = self._stuck[jnp.arange(2), jnp.clip(robots, 0, POSES - 1)]
        stalemate = ~won & (gray & stuck).all()
        following = 1 - player
        return state.replace(current_player=following, _robots=robots,
                             legal_action_mask=self._mask(colors, robots, jnp.zeros(75, bool),
                                                          following),
                             terminated=won | stalemate,
                             rewards=seat_rewards(jnp.where(won, player, -1)))

    def _color(self, state: State, action: Any) -> State:
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

    def _arrivals(self, ends: Any, cells: Any, colors: Any) -> Any:
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

    def _recolored(self, ends: Any, cell: Any, color: Any) -> Any:
        """``ends`` after coloring ``cell`` with ``color``."""
        reached = self._arrivals(ends, cell, color)
        stops = (ends < POSES) & (ends >> 2 == cell)
        resumed = jnp.where(jnp.arange(4) == (ends & 3)[:, None], reached, 0).sum(-1)
        return jnp.where(stops, resumed.astype(jnp.int8), ends)

    def _colorings(self, colors: Any, ends: Any) -> Any:
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
    def _observe(self, state: State, player_id: Any) -> Any:
        robots = jnp.where(state._robots < 0, self._entries, state._robots)
        mine = jnp.where(player_id == 0, robots[0], robots[1])
        theirs = jnp.where(player_id == 0, robots[1], robots[0])
        cells, planes = jnp.arange(CELLS)[:, None], jnp.arange(23)
        colors = state._colors[:, None]
        goals = jnp.where(player_id == 0, self._goal_planes[0], self._goal_planes[1])
        seen = jnp.where(planes < 3, colors == planes, jnp.where(
            planes == 3, mine >> 2 == cells, jnp.where(
                planes < 8, mine == cells * 4 + planes - 4, jnp.where(
                    planes == 8, theirs >> 2 == cells, jnp.where(
                        planes < 13, theirs == cells * 4 + planes - 9, jnp.where(
                            planes < 21, goals, jnp.where(
                                planes == 21, colors == _BLANK,
                                (state._colors == _BLANK).any())))))))
        return seen.astype(jnp.int8).reshape(5, 5, 23)

    # ----- bridges ---------------------------------------------------------------------
    def from_core(self, state: CoreState) -> State:
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

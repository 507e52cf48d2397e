"""A checkpoint's matches against baselines, both seats, and the judging of its moves
(:func:`~tris_envs.evaluation.metrics.move_quality`'s value-keeping moves, forced ones
included). A checkpoint is a PPO policy file (``.pt``) or an AlphaZero network
(``.npz``, played by the ``az`` agent's search).

Importing this module imports neither PyTorch nor Stable-Baselines3 (a PPO checkpoint loads
at its first move).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tris_envs.agents import PPOAgent
from tris_envs.agents.az_network import load
from tris_envs.agents.ppo import load_policy
from tris_envs.agents.spec import AgentSpec
from tris_envs.core.game import Game
from tris_envs.evaluation.engine import AgentSource, parsed_sources
from tris_envs.evaluation.match import MatchResult, play_match
from tris_envs.evaluation.metrics import move_quality
from tris_envs.games import GAMES


@dataclass
class OpponentResult:
    """The checkpoint's results against one opponent.

    Attributes:
        opponent: The opponent's agent spec, as given.
        match: The match, the checkpoint as agent ``a``.
        optimal: The checkpoint's moves that keep the solver's game value
            (:attr:`~tris_envs.evaluation.metrics.MoveQuality.value_kept_all`).
        judged: The checkpoint's moves judged by the solver, forced moves included (0 where
            the game has none).
    """

    opponent: str
    match: MatchResult
    optimal: int = 0
    judged: int = 0

    @property
    def optimal_share(self) -> float | None:
        """``optimal / judged``, or ``None`` where no move was judged."""
        return self.optimal / self.judged if self.judged else None


def checkpoint_agent(checkpoint: str | Path, game: Game, deterministic: bool = True,
                     simulations: int | None = None,
                     trust_pickle: bool = False) -> AgentSource:
    """What plays ``checkpoint`` in a match: for an AlphaZero network (``.npz``) its
    :class:`~tris_envs.agents.AgentSpec` (``simulations`` ``None``: the network's own
    search budget), else a
    factory of :class:`~tris_envs.agents.PPOAgent` (``deterministic``: its most probable
    legal move; ``trust_pickle``: it may be a pickled Stable-Baselines3 file, which runs code
    from it). The file is read once here, so a missing or unreadable one fails before any
    match starts.

    Raises:
        FileNotFoundError: no checkpoint file.
        ValueError: the file is not a network for ``game`` or not a policy
            (:class:`~tris_envs.agents.ppo.CheckpointError`), or ``simulations`` for a PPO
            checkpoint.
    """
    if Path(checkpoint).suffix == ".npz":
        load(checkpoint, game)
        return AgentSpec("az", simulations=simulations, path=str(checkpoint))
    if simulations is not None:
        raise ValueError("simulations apply to AlphaZero networks (.npz) only")
    load_policy(checkpoint, trust_pickle)
    return functools.partial(PPOAgent, checkpoint, deterministic=deterministic,
                             trust_pickle=trust_pickle)


def evaluate_checkpoint(checkpoint: str | Path, game: Game,
                        opponents: Sequence[AgentSpec | str],
                        n_games: int, seed: int, processes: int = 1,
                        deterministic: bool = True, judge_moves: bool = True,
                        simulations: int | None = None,
                        progress: Callable[[int], None] | None = None,
                        trust_pickle: bool = False) -> list[OpponentResult]:
    """Play the checkpoint against each opponent; judge its moves where a solver exists.

    Args:
        checkpoint: A PPO policy file (``.pt``), or an AlphaZero ``.npz``
            network (see :func:`checkpoint_agent`).
        game: The rules core, options fixed (as in training).
        opponents: Agent specs, or their texts (``"random"``, ``"mcts:100"``, ``"solver"``,
            ``"ppo:<path>"``), parsed before any match starts.
        n_games: Games per opponent, seats alternating.
        seed: Match seed (the same for every opponent).
        processes: Worker processes of each match.
        deterministic: A PPO checkpoint plays its most probable legal move.
        judge_moves: Count the checkpoint's solver-optimal moves (solvable games only).
        simulations: Of an AlphaZero network's search (``None``: the ``az`` default).
        trust_pickle: The PPO checkpoint may be a pickled Stable-Baselines3 file (loading
            it runs code from it: ``--trust-pickle``).
        progress: Called with the number of games just finished (see
            :func:`~tris_envs.evaluation.play_match`).

    Raises:
        ValueError: a bad spec, count or seed, ``"solver"`` for a game without one, or a
            file that is not a checkpoint for ``game``.
        FileNotFoundError: no checkpoint file.
    """
    specs = parsed_sources(opponents)   # once; a bad spec fails before the checkpoint is read
    source = checkpoint_agent(checkpoint, game, deterministic, simulations, trust_pickle)
    return evaluate_agent(game, source, specs, n_games, seed, processes, judge_moves,
                          progress)


def evaluate_agent(game: Game, agent: AgentSource, opponents: Sequence[AgentSource],
                   n_games: int, seed: int, processes: int = 1, judge_moves: bool = True,
                   progress: Callable[[int], None] | None = None) -> list[OpponentResult]:
    """Play ``agent`` (any source of :func:`~tris_envs.evaluation.play_match`: a spec, a
    factory, an agent instance) against each opponent (sources too), ``n_games`` games each, seats
    alternating, with ``seed``; where the game has a solver and ``judge_moves``, count its
    value-keeping moves (forced ones included).

    Raises:
        ValueError: a bad spec, count or seed, or ``"solver"`` for a game without one.
    """
    specs = parsed_sources(opponents)
    judge = judge_moves and GAMES[game.info.name].solvable
    results = []
    for opponent, spec in zip(opponents, specs):
        match = play_match(game, agent, spec, n_games, seed, processes=processes,
                           keep_records=judge, progress=progress)
        result = OpponentResult(str(opponent), match)
        if judge:
            quality = move_quality(game, match.records, match.names[0], one_move=False)
            result.optimal, result.judged = quality.value_kept_all, quality.judged_all
            match.records = []
        results.append(result)
    return results


def solver_reference(game: Game, n_games: int, seed: int, processes: int = 1,
                     progress: Callable[[int], None] | None = None) -> float:
    """The solver's score against the solver in the games a match with ``seed`` plays (the
    same boards and dice as the checkpoint's games): what perfect play reaches."""
    return play_match(game, "solver", "solver", n_games, seed, processes=processes,
                      progress=progress).score


def format_table(results: Sequence[OpponentResult]) -> str:
    """The results as a Markdown table (score with its 95% interval, optimal-move share)."""
    judged = any(r.judged for r in results)
    header = "| opponent | games | wins | draws | losses | score | 95% interval |"
    header += " optimal moves |" if judged else ""
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in results:
        m = r.match
        low, high = m.score_interval
        line = (f"| {r.opponent} | {m.n_games} | {m.wins} | {m.draws} | {m.losses} | "
                f"{m.score:.1%} | [{low:.1%}, {high:.1%}] |")
        if judged:
            share = r.optimal_share
            line += f" {share:.2%} of {r.judged} |" if share is not None else " — |"
        lines.append(line)
    if judged:
        optimal = sum(r.optimal for r in results)
        total = sum(r.judged for r in results)
        lines.append("")
        lines.append(f"optimal moves over all games: {optimal}/{total} = {optimal / total:.2%} "
                     "(moves keeping the solver's game value)")
    return "\n".join(lines)

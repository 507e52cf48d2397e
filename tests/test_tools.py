"""Scripted agents, tris-envs watch, the benchmark and the command line (smoke, behaviour)."""

from __future__ import annotations

import numpy as np
import pytest

from tris_envs.agents import Agent, GreedyAgent, RandomAgent, make_agent
from tris_envs.cli import main
from tris_envs.core import TERMINAL
from tris_envs.evaluation import play_match, play_recorded
from tris_envs.games.tant_fant import TantFant
from tris_envs.games.tris1 import Tris1
from tris_envs.watch import main as watch


def test_greedy_wins_in_one():
    game = TantFant()
    state = game.from_notation("BB./BWW/W.. w")
    for seed in range(10):
        move = GreedyAgent(np.random.default_rng(seed)).act(game, state)
        assert game.action_to_string(state, move) == "c2-c3"


def test_greedy_blocks_the_only_threat():
    game = Tris1()
    state = game.from_notation("XX./O../...")      # O to move must block at cell 2
    for seed in range(10):
        assert GreedyAgent(np.random.default_rng(seed)).act(game, state) == 2


def test_greedy_beats_random_and_play_is_reproducible():
    game = TantFant()
    result = play_match(game, "greedy", "random", n_games=60, seed=0)
    assert result.score > 0.8
    assert result.by_seat[0][2] + result.by_seat[1][2] < 10
    a, b = (play_recorded(game, [RandomAgent(np.random.default_rng(5))] * 2,
                          np.random.default_rng(5)) for _ in range(2))
    assert a.moves == b.moves and a.positions == b.positions


def test_make_agent():
    assert isinstance(make_agent("greedy"), Agent)
    assert make_agent("random").name == "random"
    with pytest.raises(ValueError, match="alphazero"):
        make_agent("alphazero")


def test_watch_prints_a_game_and_a_match(capsys):
    watch(["--games", "6", "--seed", "1"])
    out = capsys.readouterr().out
    assert "Tant Fant: greedy (White) against random (Black)" in out
    assert " 1. White " in out
    assert "greedy vs random: +" in out and "in 6 games" in out


def test_benchmark_report(capsys):
    main(["bench", "--steps", "300", "--rounds", "1", "--env", "tris1_v0",
          "--mcts-simulations", "200"])
    out = capsys.readouterr().out
    assert "| tictactoe_v3 |" in out and "| tris1_v0 |" in out
    assert "| tant_fant stalemate=draw diagonal_only=False | 3,080 | draw |" in out
    assert "| tris1 | 5,478 | draw |" in out
    assert "| crossing | 20 |" in out
    assert "| tris1_v0 (tris_envs MCTSAgent) |" in out
    assert "| tic_tac_toe (OpenSpiel MCTSBot) |" in out


def test_cli_rejects_bad_arguments():
    with pytest.raises(SystemExit):
        main(["bench", "--steps", "0"])
    with pytest.raises(SystemExit):
        main(["bench", "--env", "chess_v6"])


def test_random_agent_plays_legal_moves():
    game = TantFant()
    agent = RandomAgent(np.random.default_rng(0))
    state = game.initial_state()
    for _ in range(200):
        if game.current_player(state) == TERMINAL:
            break
        move = agent.act(game, state)
        assert move in game.legal_actions(state)
        state = game.apply(state, move)

"""The three forms of a learner's opponent: an agent spec, an Agent, a policy (batched or
not); anything else is refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from tris_envs.agents import AgentSpec, GreedyAgent, MCTSAgent
from tris_envs.envs import SingleAgentEnv
from tris_envs.envs.turns import BatchedPolicy, OpponentPlayer
from tris_envs.games import make_game


def last_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def test_a_spec_is_parsed_once_and_rebuilt_on_reseed() -> None:
    for spec in ("mcts:7", AgentSpec("mcts", simulations=7)):
        player = OpponentPlayer(spec, np.random.default_rng(0))
        assert player.spec == AgentSpec("mcts", simulations=7)
        first = player.agent
        assert isinstance(first, MCTSAgent) and first.simulations == 7
        player.reseed(np.random.default_rng(1))
        assert player.agent is not first and player.agent.simulations == 7


def test_an_agent_and_a_policy_play_as_given() -> None:
    agent = GreedyAgent(rng=np.random.default_rng(0))
    assert OpponentPlayer(agent, np.random.default_rng(0)).agent is agent
    player = OpponentPlayer(last_legal, np.random.default_rng(0))
    assert player.policy is last_legal and player.batched is None
    game = make_game("tris1")
    state = game.initial_state(np.random.default_rng(0))
    assert player.act(game, state, 0) == game.legal_actions(state)[-1]


def test_a_policy_with_act_batch_is_played_in_batches() -> None:
    batched = BatchedPolicy(lambda observations, masks: masks.argmax(axis=1), label="first")
    player = OpponentPlayer(batched, np.random.default_rng(0))
    game = make_game("tris1")
    assert player.batched is batched and player.batch_key(game) is batched


@pytest.mark.parametrize("opponent", [3, None, [last_legal], {"agent": "random"}])
def test_other_opponents_are_refused_in_one_line(opponent: object) -> None:
    with pytest.raises(TypeError, match="none of an agent spec, an Agent") as error:
        OpponentPlayer(opponent, np.random.default_rng(0))  # type: ignore[arg-type]
    assert "\n" not in str(error.value)
    with pytest.raises(TypeError):
        SingleAgentEnv("tris1", opponent=opponent)  # type: ignore[arg-type]


def test_an_unknown_spec_is_refused_where_the_opponent_is_set() -> None:
    with pytest.raises(ValueError, match="unknown agent spec 'mtcs'"):
        SingleAgentEnv("tris1", opponent="mtcs")


def test_a_ppo_spec_plays_its_network_in_batches() -> None:
    pytest.importorskip("torch")
    from tris_envs.envs.turns import Duel, play_opponents

    game = make_game("tris1")
    duels = [Duel(game, np.random.default_rng(k), "ppo") for k in range(3)]
    for duel in duels:
        duel.deal(seat=1)
    assert all(duel.opponent.batch_key(game) is not None for duel in duels)
    play_opponents(duels)
    assert [duel.moves for duel in duels] == [1, 1, 1]

"""OpenSpiel's algorithms on our games, and our agents inside OpenSpiel (docs/openspiel.md).

    pip install "tris_envs[openspiel]"
    python examples/openspiel_bots.py [--games 10] [--simulations 200]

1. a game loaded by name with options, its random setup as chance nodes;
2. OpenSpiel's MCTSBot against our ``mcts`` in our match harness (agent specs);
3. our greedy agent against OpenSpiel's uniform random bot in OpenSpiel's ``evaluate_bots``;
4. OpenSpiel's exact solvers against ours: alpha-beta on Tris 1, value iteration on
   Tant Fant's position graph.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, get_all_states, minimax
from open_spiel.python.bots import uniform_random

import tris_envs.integrations.openspiel as tris_openspiel  # registers tris_envs_<game>
from tris_envs.agents import make_agent
from tris_envs.core.solver import solve
from tris_envs.evaluation import play_match
from tris_envs.games import make_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per match")
    parser.add_argument("--simulations", type=int, default=200, help="MCTS simulations")
    args = parser.parse_args()

    # 1. Tris 2 with the rule of 4: the start is a chance node (the random block).
    game = pyspiel.load_game("tris_envs_tris2(max_side=4)")
    state = game.new_initial_state()
    print(f"{game}: {game.get_type().chance_mode}, {game.num_distinct_actions()} actions, "
          f"observation {game.observation_tensor_shape()}")
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        action = int(rng.integers(len(outcomes)))
        print(f"  {state.action_to_string(pyspiel.PlayerId.CHANCE, action)} "
              f"(p = {outcomes[action][1]:.6f})")
        state.apply_action(action)
    print(state)
    print("legal moves:", ", ".join(state.action_to_string(0, a)
                                    for a in state.legal_actions()[:6]), "...")

    # 2. OpenSpiel's Python MCTSBot against ours, same simulations and UCT constant.
    budget = args.simulations
    for name in ("tris1", "tant_fant"):
        result = play_match(make_game(name), f"openspiel-mcts:{budget}", f"mcts:{budget}",
                            args.games, seed=0)
        print(f"{name}: {result}")

    # 3. Our greedy agent inside OpenSpiel's evaluate_bots, on Tritoc (dice as chance nodes).
    tritoc = pyspiel.load_game("tris_envs_tritoc")
    scores = np.zeros(2)
    for seed in range(args.games):
        greedy = tris_openspiel.AgentBot(make_agent("greedy", np.random.default_rng(seed)))
        bots = [greedy, uniform_random.UniformRandomBot(1, np.random.RandomState(seed))]
        scores += evaluate_bots.evaluate_bots(tritoc.new_initial_state(), bots,
                                              np.random.RandomState(seed))
    print(f"tritoc, evaluate_bots: greedy {scores[0]:+.0f}, OpenSpiel's random "
          f"{scores[1]:+.0f} in {args.games} games")

    # 4. OpenSpiel's exact solvers agree with ours.
    tris1 = tris_openspiel.load("tris1")
    value, _ = minimax.alpha_beta_search(tris1)
    core = tris1.core
    print(f"tris1 start: OpenSpiel alpha-beta {value:+.0f}, our solver "
          f"{solve(core, core.initial_state()).value(core.initial_state()):+d}")
    try:
        from open_spiel.python.algorithms import value_iteration
    except ImportError:
        print("tant_fant: OpenSpiel's value_iteration needs cvxpy (the openspiel extra)")
        return
    # the graph of positions: max_moves above their number, so no walk reaches truncation
    tant_fant = tris_openspiel.load("tant_fant", max_moves=10_000)
    sys.setrecursionlimit(20_000)            # OpenSpiel walks the graph depth first
    values = value_iteration.value_iteration(tant_fant, -1, 1e-6, cyclic_game=True)
    states = get_all_states.get_all_states(tant_fant, -1, True, False, to_string=str,
                                           stop_if_encountered=True)
    ours = solve(tant_fant.core, tant_fant.core.initial_state())
    agree = sum(values[key] == ours.value(s.game_state) for key, s in states.items())
    print(f"tant_fant: OpenSpiel value iteration and our solver agree on {agree:,} of "
          f"{len(states):,} positions; start {values[str(tant_fant.new_initial_state())]:+.0f}")


if __name__ == "__main__":
    main()

"""Self-play with RLlib: multi-agent PPO with action masking (new API stack).

Two RL modules share the board: ``main`` learns, ``frozen`` is a copy of ``main`` that is
refreshed every ``--refresh`` iterations and never trained. Each episode gives ``main`` a
random seat. At the end ``main`` plays our evaluation harness's ``play_match`` against
``random`` and ``greedy`` (seats alternating) and the table is printed.

Run: ``python examples/rllib_self_play.py [--game tris1] [--iterations 20] [--refresh 5]``.
Needs the rllib extra (``pip install 'tris_envs[rllib]'``); docs/rllib.md has the figures.

It takes the cell contract of ``tris-envs baselines`` (:mod:`tris_envs.evaluation.cell`):
``--budget STEPS`` trains until ``main`` has made ``STEPS`` moves (at the end of an
iteration; an iteration's batch is at most ``2 * STEPS`` environment steps) instead of
``--iterations``; with ``--json PATH`` the matches (against ``--opponents``, default the
ladder) are written to ``PATH``.
"""
import argparse
import time

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.utils.metrics import NUM_MODULE_STEPS_SAMPLED_LIFETIME

from tris_envs.evaluation import play_match
from tris_envs.evaluation.cell import add_arguments, checked_opponents, write_cell
from tris_envs.evaluation.checkpoint import format_table
from tris_envs.games import make_game
from tris_envs.integrations.rllib import RLlibAgent, masked_module_spec, register


def main_or_frozen(agent_id, episode, **kwargs):
    """``main`` plays seat 0 in half of the episodes, seat 1 in the other half."""
    return "main" if hash(episode.id_) % 2 == int(agent_id[-1]) else "frozen"


def refresh_frozen(algo):
    """Copy ``main``'s weights into ``frozen``, in the learner and in every env runner (the
    weight sync after each iteration covers the trained modules only)."""
    state = algo.get_module("main").get_state()
    algo.set_state({"learner_group": {"learner": {"rl_module": {"frozen": state}}}})
    algo.env_runner_group.foreach_env_runner(
        lambda runner: runner.module["frozen"].set_state(state))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="tris1")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--refresh", type=int, default=5, help="iterations between copies of "
                                                               "main into frozen")
    parser.add_argument("--batch", type=int, default=2000,
                        help="environment steps per iteration")
    parser.add_argument("--envs", type=int, default=8, help="games sampled at a time (one "
                                                            "batched forward pass per step "
                                                            "for all)")
    parser.add_argument("--games", type=int, default=200,
                        help="evaluation games per opponent")
    parser.add_argument("--seed", type=int, default=0)
    add_arguments(parser)
    args = parser.parse_args()
    opponents = checked_opponents(parser, args, ["random", "greedy"])
    batch = args.batch if args.budget is None else min(args.batch, 2 * args.budget)

    torch.set_num_threads(1)  # small networks: more threads only slow torch down on shared cores
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    config = (
        PPOConfig()
        # RLlib's env check steps an unmasked random action, illegal in most positions but
        # Tris 1's first; the env raises on illegal actions, so the check is left off
        .environment(register(), env_config={"game": args.game}, disable_env_checking=True)
        # sampling in this process, --envs games at a time (docs/rllib.md: 8 sample about
        # 4x faster than 1)
        .env_runners(num_env_runners=0, num_envs_per_env_runner=args.envs)
        .learners(num_learners=0)
        .multi_agent(policies={"main", "frozen"}, policy_mapping_fn=main_or_frozen,
                     policies_to_train=["main"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "main": masked_module_spec(), "frozen": masked_module_spec()}))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(250, batch),
                  num_epochs=5, lr=3e-4)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    began = time.perf_counter()
    iteration = main_steps = 0
    while iteration < args.iterations if args.budget is None else main_steps < args.budget:
        iteration += 1
        result = algo.train()
        if iteration % args.refresh == 0:       # the opponent becomes today's learner
            refresh_frozen(algo)
        runners = result["env_runners"]
        returns = runners.get("module_episode_returns_mean", {})
        steps = int(runners["num_env_steps_sampled_lifetime"])
        main_steps = int(runners[NUM_MODULE_STEPS_SAMPLED_LIFETIME]["main"])
        print(f"iteration {iteration}: {steps} steps, main's mean return "
              f"{returns.get('main', float('nan')):+.2f}, {time.perf_counter() - began:.0f} s",
              flush=True)
    seconds = time.perf_counter() - began

    game = make_game(args.game)
    learner = RLlibAgent(algo.get_module("main"), name="rllib-ppo")
    if args.json is not None:
        results = write_cell(args.json, learner="rllib_ppo", game=game, agent=learner,
                             steps=main_steps, train_seconds=seconds, n_games=args.games,
                             seed=args.seed, opponents=opponents, budget=args.budget,
                             details={"iterations": iteration, "batch": batch,
                                      "environment_steps": steps})
        print(format_table(results))
    else:
        for opponent in opponents:
            print(play_match(game, learner, opponent, n_games=args.games, seed=0))
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()

"""The text environment stepped by a stand-in for a language model (docs/llm.md).

Each observation is a prompt (the rules, then the position with its legal moves) and each
action is the reply's text. The stand-in reads the legal moves off the prompt and answers
the first one as the JSON object the prompt asks for; an RL trainer puts its model's
generation in its place. Every game, against the ladder's ``random``, with the solver's
dense reward where a solver exists::

    python examples/text_env.py --episodes 20 --opponent greedy
"""

from __future__ import annotations

import argparse
import json
import re

import gymnasium as gym

import tris_envs
from tris_envs.games import GAMES
from tris_envs.registration import text_gymnasium_id

LEGAL_MOVES = re.compile(r"^Legal moves[^:\n]*: (.*)$", re.MULTILINE)


def first_legal_move(prompt: str) -> str:
    """The stand-in policy: the first legal move the prompt lists, as JSON."""
    moves = LEGAL_MOVES.findall(prompt)[-1].split("; ")
    return json.dumps({"move": moves[0]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10, help="episodes per game")
    parser.add_argument("--opponent", default="random", help="an agent spec of the ladder")
    parser.add_argument("--dense", type=float, default=0.1,
                        help="the dense reward d where a solver exists (0: off)")
    args = parser.parse_args()
    gym.register_envs(tris_envs)
    for spec in GAMES.values():
        env = gym.make(text_gymnasium_id(spec), opponent=args.opponent,
                       dense_reward=args.dense if spec.solvable else 0.0)
        total, kept, judged = 0.0, 0, 0
        for episode in range(args.episodes):
            prompt, info = env.reset(seed=episode)       # seat and chance from the seed
            done = False
            while not done:
                prompt, reward, terminated, truncated, info = env.step(first_legal_move(prompt))
                total += float(reward)
                done = terminated or truncated
                if info.get("value_kept") is not None:
                    judged += 1
                    kept += info["value_kept"]
        grade = f", value kept in {kept}/{judged} moves" if judged else ""
        print(f"{text_gymnasium_id(spec)}: mean return {total / args.episodes:+.2f} against "
              f"{args.opponent}{grade}")
    env = gym.make("tris_envs/Tris1Text-v0", retries=1)
    prompt, info = env.reset(seed=0)
    prompt, reward, terminated, truncated, info = env.step("the middle square, please")
    print(f"refused (reward {reward:+g}, {info['tries_left']} tries left): "
          f"{info['reply_error']}")


if __name__ == "__main__":
    main()

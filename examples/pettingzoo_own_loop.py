"""The PettingZoo env with your own loop: no tabletop trainer, just the AEC API (docs/benchmark.md, "Bring your
own algorithm").

    python examples/pettingzoo_own_loop.py --env cromlet_v0 --games 20 --seed 0

What to know: `env.last()` gives the seat to move its own observation only (hands stay hidden: the vector is
that seat's private view, `observation_mode="omniscient"` gives everything, for a critic); `action_mask` marks
the legal actions exactly (an illegal action ends the game with -1 for its player and a warning, PettingZoo's
convention; `illegal_action="raise"` raises `IllegalActionError` instead); every random draw comes from `reset(seed=...)`, so the same seed and the
same actions give the same game.
"""

from __future__ import annotations

import argparse

import numpy as np

from tabletop import envs


def policy(observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
    """Your algorithm goes here: any function of the seat's observation that picks a legal action."""
    return int(rng.choice(np.flatnonzero(action_mask)))


def play(env_id: str, seed: int, rng: np.random.Generator) -> tuple[dict[str, float], list[int]]:
    """One game: every seat's total reward and the actions played."""
    env = envs.make(env_id)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    actions = []
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            action = None  # PettingZoo: a finished seat steps with None
        else:
            action = policy(observation["observation"], observation["action_mask"], rng)
            actions.append(action)
        env.step(action)
    return totals, actions


def count(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--env", default="cromlet_v0", choices=envs.ENV_IDS)
    parser.add_argument("--games", type=count, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    wins: dict[str, int] = {}
    for g in range(args.games):
        totals, actions = play(args.env, args.seed + g, np.random.default_rng(args.seed + g))
        for agent, total in totals.items():
            wins[agent] = wins.get(agent, 0) + (total > 0)
        again, replay = play(args.env, args.seed + g, np.random.default_rng(args.seed + g))
        assert (again, replay) == (totals, actions), "the same seeds must give the same game"
    print(f"{args.env}, {args.games} games of random play, wins by seat: {wins}")


if __name__ == "__main__":
    main()

"""CPU seconds a search player spends per decision, by game and budget.

Plays `--games` games of each search spec against a heuristic (seats alternating) and times every call of
the search player's `act` with `time.process_time` (its own process's CPU time, so other jobs on the machine
count little). A Kings Cribbage move in tiles mode is several decisions: the search runs at the first, the
rest follow its plan, and both are counted, per decision and per turn (`act` calls that searched).

    python scripts/measure_search_cost.py cromlet_v0 blocker search:sims=16 search:sims=64 --games 2

With `self` as the opponent the search plays every seat (a cooperative team, as KRZ GRTN's guided team):

    python scripts/measure_search_cost.py krz_grtn_v1 self search:policy=pretrained,sims=128,depth=1,value=margin \
        --games 20 --env-kwargs '{"num_players": 2}'
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from tabletop.agents import make_agent
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import play_game


class Timed:
    """Wraps an agent and records the CPU seconds of each `act`."""

    def __init__(self, agent):
        self.agent, self.seconds = agent, []
        self.name, self.needs_sample = agent.name, True
        self.needs_observation = getattr(agent, "needs_observation", False)
        self.observation_options = getattr(agent, "observation_options", None)

    def act(self, observation, action_mask, view, sample=None):
        start = time.process_time()
        action = self.agent.act(observation, action_mask, view, sample=sample)
        self.seconds.append(time.process_time() - start)
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("opponent", help="an agent spec, or self: the search in every seat")
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=900_000)
    parser.add_argument("--env-kwargs", type=json.loads, default={}, help="JSON, e.g. '{\"num_players\": 2}'")
    args = parser.parse_args()
    env = EnvSpec(args.env_id, args.env_kwargs)
    table = env.make_raw()
    seats = table.game.num_players
    for spec in args.specs:
        timed = Timed(make_agent(env, spec, seed=args.seed))
        if args.opponent == "self":
            tables = [[timed] * seats] * 2
        else:
            rival = make_agent(env, args.opponent, seed=args.seed + 1)
            tables = [[timed if seat == first else rival for seat in range(seats)] for first in (0, 1)]
        for g in range(args.games):
            play_game(table, tables[g % 2], args.seed + g)
        s = np.array(timed.seconds)
        searched = s[s > 0.002]  # plan-following sub-steps and single-candidate turns take well under 2 ms
        print(
            f"{args.env_id} {spec}: {len(s)} decisions, {s.mean():.3f} CPU-s per decision (p90 {np.percentile(s, 90):.3f}, "
            f"max {s.max():.3f}); {len(searched)} searched, {searched.mean():.3f} CPU-s each",
            flush=True,
        )


if __name__ == "__main__":
    main()

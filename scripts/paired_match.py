"""Two players on paired deals: every deal (env seed) is played twice, each player once in each seat, and each
player's CPU seconds per decision are timed (`time.process_time` around its `act`). Resumable: every deal's two
games are appended to `--log` (JSON lines) as they end, and a rerun with the same arguments skips the deals
already there.

    python scripts/paired_match.py cromlet_v0 search:policy=pretrained,sims=64 search:sims=64 \\
        --deals 100 --seed 70000000 --log runs/match.jsonl

The score is 1 a win, 1/2 a draw; the interval is the normal one over the deals' mean scores (each deal's two games
are one paired sample, which removes the deal's luck), beside Wilson's over the games.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from tabletop.agents import make_agent
from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec


def play(table, agents: list, seed: int, clock: dict[int, list[float]]) -> np.ndarray:
    """One game of `agents` (seat order) on deal `seed`; adds each seat's CPU seconds and decisions to `clock`."""
    table.reset(seed=seed)
    state = table.game_state
    while not state.is_terminal():
        seat = state.current_player
        start = time.process_time()
        action = act_for(agents[seat], table, state, seat)
        clock[id(agents[seat])][0] += time.process_time() - start
        clock[id(agents[seat])][1] += 1
        state.apply(action)
    return np.asarray(state.returns(), dtype=float)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--env-kwargs", default="{}", help='JSON, e.g. \'{"action_mode": "moves"}\'')
    parser.add_argument("--deals", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True, help="the first deal's env seed")
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    env = EnvSpec(args.env_id, {"num_players": 2, **json.loads(args.env_kwargs)})
    table = env.make_raw(illegal_action="raise")
    done = {}
    if args.log.exists():
        done = {row["deal"]: row for row in map(json.loads, args.log.read_text().splitlines())}
    args.log.parent.mkdir(parents=True, exist_ok=True)
    with args.log.open("a") as log:
        for deal in range(args.seed, args.seed + args.deals):
            if deal in done:
                continue
            first = make_agent(env, args.first, seed=deal)  # seeded by the deal: a resumed run plays the same moves
            second = make_agent(env, args.second, seed=deal + 1)
            clock = {id(first): [0.0, 0], id(second): [0.0, 0]}
            a = play(table, [first, second], deal, clock)
            b = play(table, [second, first], deal, clock)
            row = {
                "deal": deal,
                "first_returns": [a[0], b[1]],
                "first_cpu": clock[id(first)],
                "second_cpu": clock[id(second)],
            }
            log.write(json.dumps(row) + "\n")
            log.flush()
            done[deal] = row
    rows = [done[d] for d in range(args.seed, args.seed + args.deals)]
    scores = np.array([[(r + 1) / 2 for r in row["first_returns"]] for row in rows])
    per_deal = scores.mean(1)
    mean, half = per_deal.mean(), 1.96 * per_deal.std(ddof=1) / math.sqrt(len(per_deal)) if len(rows) > 1 else 0.0
    low, high = wilson(float(scores.sum()), scores.size)
    cpu = {k: sum(r[k][0] for r in rows) / max(1, sum(r[k][1] for r in rows)) for k in ("first_cpu", "second_cpu")}
    print(
        f"{args.first} vs {args.second} on {env}: {scores.size} games ({len(rows)} deals, seeds {args.seed}-"
        f"{args.seed + args.deals - 1}): {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] paired, "
        f"Wilson [{low:.3f}, {high:.3f}]; CPU s a decision {cpu['first_cpu']:.4f} vs {cpu['second_cpu']:.4f}"
    )


if __name__ == "__main__":
    main()

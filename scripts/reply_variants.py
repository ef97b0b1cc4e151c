"""`reply` with another shortlist, rack sample count or reply weight, against `reply` itself (Kings Cribbage, 2
players, moves mode). Which of `reply`'s settings hold its
edge back says what a per-move look-ahead feature would have to carry. Prints one JSON line: the variant's wins,
draws and losses, both mean scores and the CPU seconds.

    python scripts/reply_variants.py --top 64 --samples 8 --weight 0.5 --first 50000000 --games 100
"""

from __future__ import annotations

import argparse
import json
import time

from tabletop.agents.kings_cribbage import ReplyAgent
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import run_tournament


def variant(top: int, samples: int, weight: float) -> type[ReplyAgent]:
    """`reply` with these settings (its own: 8, 4, 0.5)."""
    return type("ReplyVariant", (ReplyAgent,), {"name": "variant", "TOP": top, "SAMPLES": samples, "WEIGHT": weight})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=ReplyAgent.TOP, help="moves looked ahead from (by leave's value)")
    parser.add_argument("--samples", type=int, default=ReplyAgent.SAMPLES, help="racks drawn for the next player")
    parser.add_argument("--weight", type=float, default=ReplyAgent.WEIGHT, help="the expected reply's weight")
    parser.add_argument("--first", type=int, required=True, help="the first game's seed")
    parser.add_argument("--games", type=int, required=True)
    args = parser.parse_args()
    if min(args.top, args.samples, args.games) < 1 or args.weight < 0:
        parser.error("--top, --samples and --games are at least 1, --weight at least 0")
    env = EnvSpec("kings_cribbage_v0", {"num_players": 2, "action_mode": "moves"})
    agent = variant(args.top, args.samples, args.weight)(seed=args.first * 7 + 1)
    began = time.process_time()
    result = run_tournament(env, ["variant", "reply"], args.games, seed=args.first, agents={"variant": agent})
    mine, theirs = result.records["variant"], result.records["reply"]
    row = {**vars(args), "wins": mine.wins, "draws": mine.draws, "losses": mine.losses}
    row |= {"score": mine.score_sum / args.games, "reply_score": theirs.score_sum / args.games}
    print(json.dumps(row | {"cpu_seconds": round(time.process_time() - began, 1)}))


if __name__ == "__main__":
    main()

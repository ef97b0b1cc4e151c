"""How many paired evaluation deals each task needs for a standard error of at most 0.03 normalised units
(docs/benchmark.md, "Evaluation protocol"), measured on random and on the task's named heuristic (the scale's 0
and 1: a learner's noise lies between theirs, or near the larger).

    python scripts/benchmark_noise.py configs/benchmark/suite.yaml --deals 40 --out /tmp/noise.json

For each task: both players' raw score and its standard error over `deals` paired deals, the span between them,
and the deals that bring the larger per-deal spread to 0.03 of the span: (sd / span / 0.03)^2.
"""

from __future__ import annotations

import argparse
import json
import math
import time

from tabletop.agents import make_agent
from tabletop.train.benchmark.scoring import play_panel
from tabletop.train.benchmark.suite import load_suite

TARGET = 0.03


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--tasks", help="comma-separated (default: all)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    suite = load_suite(args.suite)
    tasks = suite.select_tasks(args.tasks.split(",") if args.tasks else None)
    table = {}
    for task in tasks:
        began = time.process_time()
        measured = {}
        for spec in ("random", task.one):
            player = make_agent(task.env, spec, seed=task.eval_seed)
            measured[spec] = play_panel(player, task, args.deals)
        span = measured[task.one]["raw"] - measured["random"]["raw"]
        sd = max(m["se"] for m in measured.values()) * math.sqrt(args.deals)
        table[task.name] = {
            "deals": args.deals,
            "raw": {k: v["raw"] for k, v in measured.items()},
            "se": {k: v["se"] for k, v in measured.items()},
            "span": span,
            "deals_for_target": math.ceil((sd / span / TARGET) ** 2) if span > 0 else None,
            "cpu_seconds": time.process_time() - began,
        }
        print(task.name, json.dumps(table[task.name]), flush=True)
    with open(args.out, "w") as f:
        json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()

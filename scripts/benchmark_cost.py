"""The CPU cost of one benchmark run per task, measured small and scaled (docs/benchmark.md, "Cost").

    python scripts/benchmark_cost.py configs/benchmark/suite.yaml ppo --steps 4096 --games 5 --out /tmp/cost

Each task of the suite is run once with `steps` learner steps, evaluated at 0 and at the end on `games` paired
deals per panel member, through the benchmark runner itself. The table scales training by budget / steps and the
evaluations' CPU per deal to every deal a run plays at the suite's sizes: `eval_games` at each evaluation but the
last, `final_eval_games` at the last and `absolute_factor` x `eval_games` for the absolute metric. The reference
(measured on `games` deals) scales by final_eval_games / games, the deals it plays.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import yaml

from tabletop.train.benchmark.runner import plan, record_grid, run_grid
from tabletop.train.benchmark.suite import eval_steps, parse_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("algorithm")
    parser.add_argument("--steps", type=int, default=4096)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--tasks", help="comma-separated (default: all)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    data = yaml.safe_load(Path(args.suite).read_text())
    full = parse_suite(data, args.suite)
    for task in data["tasks"].values():
        task.update(budget=args.steps, eval_every=args.steps, eval_games=args.games, final_eval_games=args.games)
        task.update(absolute_factor=0)  # costed from the evaluations' CPU per deal below
    small = parse_suite(data, args.suite)
    tasks = args.tasks.split(",") if args.tasks else None
    out = Path(args.out)
    jobs = plan(small, tasks, [args.algorithm], 1, out)
    record_grid(out, small, jobs)
    run_grid(jobs, progress=False)
    print(
        f"{'task':<20} {'train CPU-s':>12} {'steps/CPU-s':>12} {'eval CPU-s':>11} {'reference':>10} "
        f"{'run at budget, CPU-min':>24}"
    )
    for task in small.select_tasks(tasks):
        big = full.tasks[task.name]
        run = json.loads((out / task.name / args.algorithm / "seed_0" / "timing.json").read_text())
        ref = json.loads((out / task.name / "timing.json").read_text())["reference_cpu_seconds"]
        per_deal = run["eval_cpu_seconds"] / (2 * args.games)
        deals = big.eval_games * (len(eval_steps(big)) - 1 + big.absolute_factor) + big.final_games
        train = run["train_cpu_seconds"] * big.budget / args.steps
        evaluate = per_deal * deals
        print(
            f"{task.name:<20} {run['train_cpu_seconds']:>12.1f} {args.steps / run['train_cpu_seconds']:>12.0f} "
            f"{run['eval_cpu_seconds']:>11.1f} {ref:>10.1f} "
            f"{(train + evaluate) / 60:>14.1f} (+{ref * big.final_games / args.games / 60:.1f} reference, once per task)"
        )


if __name__ == "__main__":
    main()

"""The benchmark's tuning protocol (docs/benchmark.md, "Hyperparameters"): a fixed list of configurations per
family, each trained once on one task, the best final score chosen, then frozen into the suite by hand.

    python scripts/tune_benchmark.py configs/benchmark/tuning/exact.yaml --out runs/tune-exact --workers 2

The tuning file names the suite, the task, the budget, the evaluation step, the seed (one the reference runs do
not use) and, per family, its candidates: overrides of the suite's hyperparameters, the first `{}` (the suite's
own values). Each candidate is a benchmark run under OUT/<family>/<k>/, so the same command resumes a killed
tuning. The table gives every candidate's final score: NashConv on an exact task (lower is better), else the raw
panel score (higher is better); `*` marks each family's choice.
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path
from typing import Any

import yaml

from tabletop.train.benchmark.runner import EVALS_FILE, Job, read_json, run_grid, task_dict
from tabletop.train.benchmark.suite import parse_suite


def candidates(tuning: dict[str, Any], out: Path) -> list[tuple[str, int, dict[str, Any], Job]]:
    """(family, index, overrides, job) for every candidate of the tuning file."""
    base = yaml.safe_load(Path(tuning["suite"]).read_text())
    name = tuning["task"]
    # the final score chooses; the absolute metric, a re-evaluation of the best checkpoint, is not needed here
    body = {**base["tasks"][name], "budget": tuning["budget"], "eval_every": tuning["eval_every"], "absolute_factor": 0}
    found = []
    for family, overrides_list in tuning["candidates"].items():
        for k, overrides in enumerate(overrides_list):
            data = copy.deepcopy(base)
            data["tasks"] = {name: body}
            data["algorithms"] = {family: {**(base["algorithms"].get(family) or {}), **overrides}}
            suite = parse_suite(data, f"{tuning['suite']} ({family} candidate {k})")
            task = suite.tasks[name]
            folder = out / family / str(k)
            found.append(
                (family, k, overrides, Job(task_dict(task), str(folder), family, suite.params(family), tuning["seed"]))
            )
    return found


def final_score(job: Job) -> tuple[float, bool] | None:
    """The last evaluation's score and whether lower is better; None while the run has not finished."""
    records = read_json(Path(job.folder) / EVALS_FILE, [])
    if not records or records[-1]["step"] != job.task["budget"]:
        return None
    last = records[-1]
    return (last["nash_conv"], True) if "nash_conv" in last else (last["raw"], False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tuning", help="a tuning file (configs/benchmark/tuning/)")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    found = candidates(yaml.safe_load(Path(args.tuning).read_text()), args.out)
    run_grid([job for *_, job in found], workers=args.workers)
    print(f"{'family':<8} {'#':>2} {'final':>8}  overrides")
    for family in dict.fromkeys(f for f, *_ in found):
        rows = [(k, overrides, final_score(job)) for f, k, overrides, job in found if f == family]
        done = [(score[0] if not score[1] else -score[0], k) for k, _, score in rows if score is not None]
        best = max(done)[1] if len(done) == len(rows) else None
        for k, overrides, score in rows:
            shown = "unfinished" if score is None else f"{score[0]:.4f}"
            print(f"{family:<8} {k:>2} {shown:>8}{' *' if k == best else '  '} {overrides or '(the suite)'}")


if __name__ == "__main__":
    main()

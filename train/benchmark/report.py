"""`tabletop benchmark report DIR`: the runs of a benchmark folder as scores, intervals, tables, JSON and plots.

    DIR/report/results.json     marl-eval's layout: env -> task -> algorithm -> run -> step -> metrics (each a
                                list of one number), with `absolute_metrics` (the final evaluation) per run
    DIR/report/summary.json     per task and over the tasks every algorithm played: IQM and mean of the
                                normalised score with 95% stratified-bootstrap intervals, the probability of
                                improvement between every two algorithms, the sample-efficiency curves
    DIR/report/report.md        the same as Markdown tables, with which algorithm could not play which task
    DIR/report/*.png            aggregate intervals, performance profiles, probability of improvement,
                                sample efficiency (IQM against learner steps)

Everything is computed from the recorded evaluations (evals.json, reference.json), with seeded bootstraps:
the same runs give the same files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.train.benchmark import stats
from tabletop.train.benchmark.runner import (
    EVALS_FILE,
    FINISHED,
    GRID_FILE,
    REFERENCE_FILE,
    RUN_FILE,
    UNSUPPORTED,
    read_json,
    write_json,
)
from tabletop.train.benchmark.scoring import normalised

REPORT = "report"
TAUS = np.linspace(0.0, 2.0, 81)  # performance-profile thresholds on the normalised score


@dataclass
class Collected:
    """The finished runs of a benchmark folder, read."""

    envs: dict[str, str] = field(default_factory=dict)  # task -> env id
    curves: dict[str, dict[str, dict[int, dict[int, dict[str, float]]]]] = field(default_factory=dict)
    """task -> algorithm -> seed -> scheduled step -> {"normalised_score", "raw_score", "learner_steps"}"""
    unsupported: dict[tuple[str, str], str] = field(default_factory=dict)
    unfinished: list[str] = field(default_factory=list)

    @property
    def algorithms(self) -> list[str]:
        return sorted({a for task in self.curves.values() for a in task})

    def final(self, task: str, algorithm: str) -> np.ndarray:
        """The normalised score of each run of `algorithm` on `task` at its last evaluation."""
        runs = self.curves[task][algorithm]
        return np.array([runs[seed][max(runs[seed])]["normalised_score"] for seed in sorted(runs)])

    def common_tasks(self) -> list[str]:
        """The tasks every algorithm of the folder finished runs of (the ones aggregates are taken over)."""
        return [t for t in sorted(self.curves) if all(a in self.curves[t] for a in self.algorithms)]


def collect(folder: Path) -> Collected:
    """Read every run listed in `folder/benchmark.json`; a run not finished is listed, not counted."""
    grid = read_json(folder / GRID_FILE)
    if grid is None:
        raise ValueError(
            f"{folder} holds no benchmark ({GRID_FILE} is missing): give the --out of `tabletop benchmark`"
        )
    found = Collected()
    references: dict[str, dict] = {}
    for run in grid["runs"]:
        path = folder / run["folder"]
        task, algorithm, seed = run["task"], run["algorithm"], run["seed"]
        unsupported = read_json(path / UNSUPPORTED)
        if unsupported is not None:
            found.unsupported[(task, algorithm)] = unsupported["reason"]
            continue
        if not (path / FINISHED).is_file():
            found.unfinished.append(run["folder"])
            continue
        if task not in references:
            ref = read_json(folder / task / REFERENCE_FILE)
            if ref is None:
                raise ValueError(f"{folder / task / REFERENCE_FILE} is missing: rerun the benchmark command to make it")
            references[task] = ref
        found.envs[task] = read_json(path / RUN_FILE)["task"]["env"]["env_id"]
        points = found.curves.setdefault(task, {}).setdefault(algorithm, {}).setdefault(seed, {})
        for record in read_json(path / EVALS_FILE):
            points[record["step"]] = {
                "normalised_score": normalised(record["raw"], references[task]),
                "raw_score": record["raw"],
                "learner_steps": record["learner_steps"],
            }
    if not found.curves:
        raise ValueError(f"{folder} holds no finished run yet: nothing to report")
    return found


def marl_eval(found: Collected) -> dict[str, Any]:
    """env -> task -> algorithm -> run_<seed> -> step_<i> -> {step_count, metric: [value]}, and per run
    `absolute_metrics` (the last evaluation), as marl-eval reads them."""
    out: dict[str, Any] = {}
    for task, algorithms in sorted(found.curves.items()):
        for algorithm, runs in sorted(algorithms.items()):
            for seed, points in sorted(runs.items()):
                steps = sorted(points)
                run = {
                    f"step_{i}": {
                        "step_count": step,
                        "normalised_score": [points[step]["normalised_score"]],
                        "raw_score": [points[step]["raw_score"]],
                    }
                    for i, step in enumerate(steps)
                }
                last = points[steps[-1]]
                run["absolute_metrics"] = {
                    "normalised_score": [last["normalised_score"]],
                    "raw_score": [last["raw_score"]],
                }
                out.setdefault(found.envs[task], {}).setdefault(task, {}).setdefault(algorithm, {})[f"run_{seed}"] = run
    return out


def _estimate(scores: stats.Scores, statistic, seed: int) -> dict[str, float]:
    low, high = stats.interval(scores, statistic, seed=seed)
    return {"value": float(statistic(scores)), "low": float(low), "high": float(high)}


def summarise(found: Collected) -> dict[str, Any]:
    """Per task and aggregated: IQM and mean with intervals; P(X > Y); IQM against learner steps."""
    algorithms, common = found.algorithms, found.common_tasks()
    per_task = {
        task: {
            a: {"runs": len(found.curves[task][a]), **{k: _estimate([found.final(task, a)], f, 0) for k, f in _STATS}}
            for a in sorted(found.curves[task])
        }
        for task in sorted(found.curves)
    }
    finals = {a: [found.final(t, a) for t in common] for a in algorithms}
    aggregate = {a: {k: _estimate(finals[a], f, 0) for k, f in _STATS} for a in algorithms} if common else {}
    improvement = [
        {"x": x, "y": y, "value": stats.probability_of_improvement(finals[x], finals[y])}
        | dict(zip(("low", "high"), stats.improvement_interval(finals[x], finals[y])))
        for x, y in combinations(algorithms, 2)
        if common
    ]
    return {
        "tasks": common,
        "excluded_tasks": sorted(set(found.curves) - set(common)),
        "per_task": per_task,
        "aggregate": aggregate,
        "probability_of_improvement": improvement,
        "sample_efficiency": {a: _curve(found, a, common) for a in algorithms},
        "performance_profile": {
            "taus": [float(t) for t in TAUS],
            **{a: [float(v) for v in stats.performance_profile(finals[a], TAUS)] for a in algorithms if common},
        },
        "unsupported": [{"task": t, "algorithm": a, "reason": r} for (t, a), r in sorted(found.unsupported.items())],
        "unfinished": sorted(found.unfinished),
    }


_STATS = (("iqm", stats.iqm), ("mean", stats.mean))


def _curve(found: Collected, algorithm: str, tasks: list[str]) -> list[dict[str, float]]:
    """IQM over every run and task at each scheduled step that every task's runs reached."""
    steps = sorted(set.intersection(*(_steps(found, t, algorithm) for t in tasks))) if tasks else []
    curve = []
    for step in steps:
        scores = [
            np.array(
                [found.curves[t][algorithm][s][step]["normalised_score"] for s in sorted(found.curves[t][algorithm])]
            )
            for t in tasks
        ]
        curve.append({"step": step, **_estimate(scores, stats.iqm, step)})
    return curve


def _steps(found: Collected, task: str, algorithm: str) -> set[int]:
    runs = found.curves[task][algorithm].values()
    return set.intersection(*(set(points) for points in runs))


def markdown(summary: dict[str, Any], plots: list[str] = ()) -> str:
    """The report as Markdown: the aggregate, every task, P(X > Y), what could not run."""

    def cell(e: dict[str, float]) -> str:
        return f"{e['value']:.3f} [{e['low']:.3f}, {e['high']:.3f}]"

    lines = ["# Benchmark report", ""]
    lines += [
        "Normalised score: 0 = random's result against the task's panel, 1 = the strongest heuristic's "
        "(docs/benchmark.md). Intervals: 95% stratified bootstrap over runs.",
        "",
    ]
    if summary["aggregate"]:
        lines += [f"## Over the tasks every algorithm played ({', '.join(summary['tasks'])})", ""]
        lines += ["| algorithm | IQM | mean |", "|---|---|---|"]
        lines += [f"| {a} | {cell(v['iqm'])} | {cell(v['mean'])} |" for a, v in summary["aggregate"].items()]
        lines.append("")
    if summary["excluded_tasks"]:
        lines += [
            f"Left out of the aggregate (not every algorithm played them): {', '.join(summary['excluded_tasks'])}.",
            "",
        ]
    lines += ["## Per task (final evaluation)", "", "| task | algorithm | runs | IQM | mean |", "|---|---|---|---|---|"]
    for task, algorithms in summary["per_task"].items():
        lines += [
            f"| {task} | {a} | {v['runs']} | {cell(v['iqm'])} | {cell(v['mean'])} |" for a, v in algorithms.items()
        ]
    lines.append("")
    if summary["probability_of_improvement"]:
        lines += ["## Probability of improvement", "", "| X | Y | P(X > Y) | 95% interval |", "|---|---|---|---|"]
        lines += [
            f"| {p['x']} | {p['y']} | {p['value']:.3f} | [{p['low']:.3f}, {p['high']:.3f}] |"
            for p in summary["probability_of_improvement"]
        ]
        lines.append("")
    if summary["unsupported"]:
        lines += ["## Could not play", ""]
        lines += [f"- {u['algorithm']} on {u['task']}: {u['reason']}" for u in summary["unsupported"]]
        lines.append("")
    if summary["unfinished"]:
        lines += ["## Not finished (not counted)", ""] + [f"- {r}" for r in summary["unfinished"]] + [""]
    if plots:
        lines += ["## Plots", ""] + [f"![{Path(name).stem}]({name})" for name in plots]
    return "\n".join(lines) + "\n"


def write_report(folder: Path, plots: bool = True) -> list[Path]:
    """Every file of the report into `folder/report/`; returns their paths."""
    found = collect(folder)
    summary = summarise(found)
    out = folder / REPORT
    out.mkdir(exist_ok=True)
    pictures = []
    if plots:
        from tabletop.train.benchmark.plots import draw_all

        pictures = draw_all(summary, out)
    written = [out / "results.json", out / "summary.json", out / "report.md"]
    write_json(written[0], marl_eval(found))
    write_json(written[1], summary)
    written[2].write_text(markdown(summary, [p.name for p in pictures]))
    return written + pictures


def results_table(summary: dict[str, Any]) -> str:
    """What the command prints: the aggregate (or the tasks) in plain text."""
    rows = summary["aggregate"] or {
        a: v for task in summary["per_task"].values() for a, v in task.items()
    }  # one task: its own table
    lines = [f"{'algorithm':<14} {'IQM [95% CI]':>26} {'mean [95% CI]':>26}"]
    for a, v in rows.items():
        lines.append(
            f"{a:<14} {v['iqm']['value']:>8.3f} [{v['iqm']['low']:.3f}, {v['iqm']['high']:.3f}] "
            f"{v['mean']['value']:>8.3f} [{v['mean']['low']:.3f}, {v['mean']['high']:.3f}]"
        )
    return "\n".join(lines)

"""`tabletop benchmark report DIR`: the runs of a benchmark folder as scores, intervals, tables, JSON and plots.

    DIR/report/results.json     marl-eval's layout: env -> task -> algorithm -> run -> step -> metrics (each a
                                list of one number), with `absolute_metrics` per run (absolute.json, else the
                                last evaluation)
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
from tabletop.train.benchmark.exact import CFR_FILE
from tabletop.train.benchmark.runner import (
    ABSOLUTE_FILE,
    EVALS_FILE,
    FINISHED,
    GRID_FILE,
    REFERENCE_FILE,
    RUN_FILE,
    TIMING_FILE,
    UNSUPPORTED,
    read_json,
    write_json,
)
from tabletop.train.benchmark.scoring import normalised

REPORT = "report"
PROFILE_POINTS = 81  # performance-profile thresholds, from the lowest observed final score to the highest
SE_TARGET = 0.03  # the standard error (normalised units) a final evaluation should stay within


@dataclass
class Collected:
    """The finished runs of a benchmark folder, read."""

    envs: dict[str, str] = field(default_factory=dict)  # task -> env id
    curves: dict[str, dict[str, dict[int, dict[int, dict[str, float]]]]] = field(default_factory=dict)
    """task -> algorithm -> seed -> scheduled step -> {"normalised_score", "raw_score", "learner_steps"}"""
    absolute: dict[str, dict[str, dict[int, dict[str, float]]]] = field(default_factory=dict)
    """task -> algorithm -> seed -> the best evaluation's policy on more deals (absolute.json), normalised"""
    references: dict[str, dict] = field(default_factory=dict)
    cooperative: set[str] = field(default_factory=set)
    exact: dict[str, dict] = field(default_factory=dict)
    """exact task -> its CFR+ reference line (cfr_plus.json)"""
    unsupported: dict[tuple[str, str], str] = field(default_factory=dict)
    unfinished: list[str] = field(default_factory=list)
    timing: dict[str, dict[str, list[dict[str, float]]]] = field(default_factory=dict)
    """task -> algorithm -> each finished run's CPU seconds (timing.json, where the folder has them)"""

    @property
    def algorithms(self) -> list[str]:
        return sorted({a for task in self.curves.values() for a in task})

    def final(self, task: str, algorithm: str) -> np.ndarray:
        """The normalised score of each run of `algorithm` on `task` at its last evaluation."""
        runs = self.curves[task][algorithm]
        return np.array([runs[seed][max(runs[seed])]["normalised_score"] for seed in sorted(runs)])

    def final_se(self, task: str, algorithm: str) -> float:
        """The mean over runs of the last evaluation's standard error, in normalised units."""
        runs = self.curves[task][algorithm]
        return float(np.mean([runs[seed][max(runs[seed])]["normalised_se"] for seed in sorted(runs)]))

    def common_tasks(self, cooperative: bool = False) -> list[str]:
        """The competitive (or cooperative) tasks every algorithm of the folder finished runs of: the ones an
        aggregate is taken over. The cooperative tasks, scored in levels, are aggregated on their own; the exact
        track's tasks, scored by NashConv, are not aggregated."""
        tasks = [t for t in sorted(self.curves) if (t in self.cooperative) == cooperative and t not in self.exact]
        return [t for t in tasks if all(a in self.curves[t] for a in self.algorithms)]


def collect(folder: Path) -> Collected:
    """Read every run listed in `folder/benchmark.json`; a run not finished is listed, not counted."""
    grid = read_json(folder / GRID_FILE)
    if grid is None:
        raise ValueError(
            f"{folder} holds no benchmark ({GRID_FILE} is missing): give the --out of `tabletop benchmark`"
        )
    found = Collected()
    references = found.references
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
        setting = read_json(path / RUN_FILE)["task"]
        found.envs[task] = setting["env"]["env_id"]
        if setting["learner_seats"] == "all":
            found.cooperative.add(task)
        if setting.get("exact"):
            found.exact[task] = read_json(folder / task / CFR_FILE, {"iterations": 0, "curve": []})
        points = found.curves.setdefault(task, {}).setdefault(algorithm, {}).setdefault(seed, {})
        span = references[task]["one"] - references[task]["zero"]
        for record in read_json(path / EVALS_FILE):
            points[record["step"]] = _point(record, references[task], span)
        timing = read_json(path / TIMING_FILE)
        if timing is not None:
            timing["learner_steps"] = max(p.get("learner_steps", 0) for p in points.values())
            found.timing.setdefault(task, {}).setdefault(algorithm, []).append(timing)
        absolute = read_json(path / ABSOLUTE_FILE)
        if absolute is not None:
            found.absolute.setdefault(task, {}).setdefault(algorithm, {})[seed] = _point(
                absolute, references[task], span
            )
    if not found.curves:
        raise ValueError(f"{folder} holds no finished run yet: nothing to report")
    return found


def _point(record: dict[str, Any], reference: dict[str, Any], span: float) -> dict[str, float]:
    """One evaluation as the report reads it. An exact task is scored by NashConv: where its panel's 1 does not
    beat random (a variant decided by the deal), its normalised score is NaN rather than an error."""
    exact = "nash_conv" in record and span <= 0
    point = {
        "normalised_score": float("nan") if exact else normalised(record["raw"], reference),
        "raw_score": record["raw"],
        "normalised_se": record.get("se", float("nan")) / span if span > 0 else float("nan"),
    }
    if "learner_steps" in record:
        point["learner_steps"] = record["learner_steps"]
    if "nash_conv" in record:
        point["nash_conv"] = record["nash_conv"]
    return point


def marl_eval(found: Collected) -> dict[str, Any]:
    """env -> task -> algorithm -> run_<seed> -> step_<i> -> {step_count, metric: [value]}, and per run
    `absolute_metrics` (the best evaluation's policy on more deals; the last evaluation when not measured), as
    marl-eval reads them."""
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
                last = found.absolute.get(task, {}).get(algorithm, {}).get(seed, points[steps[-1]])
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
    """Per task and aggregated (competitive tasks together, cooperative ones on their own): IQM and mean with
    intervals; P(X > Y); IQM against learner steps; performance profiles with bands; each task's scale."""
    algorithms, common = found.algorithms, found.common_tasks()
    per_task = {
        task: {
            a: {
                "runs": len(found.curves[task][a]),
                "final_se": found.final_se(task, a),
                **{k: _estimate([found.final(task, a)], f, 0) for k, f in _STATS},
            }
            for a in sorted(found.curves[task])
        }
        for task in sorted(found.curves)
    }
    finals = {a: [found.final(t, a) for t in common] for a in algorithms}
    aggregate = {a: {k: _estimate(finals[a], f, 0) for k, f in _STATS} for a in algorithms} if common else {}
    teams = found.common_tasks(cooperative=True)
    cooperative = {
        a: {k: _estimate([found.final(t, a) for t in teams], f, 0) for k, f in _STATS}
        for a in algorithms
        if teams and all(a in found.curves[t] for t in teams)
    }
    improvement = [
        {"x": x, "y": y, "value": stats.probability_of_improvement(finals[x], finals[y])}
        | dict(zip(("low", "high"), stats.improvement_interval(finals[x], finals[y])))
        for x, y in combinations(algorithms, 2)
        if common
    ]
    return {
        "tasks": common,
        "cooperative_tasks": teams,
        "excluded_tasks": sorted(set(found.curves) - set(common) - set(teams) - set(found.exact)),
        "scales": {task: _scale(found.references[task]) for task in sorted(found.curves)},
        "per_task": per_task,
        "aggregate": aggregate,
        "cooperative": cooperative,
        "probability_of_improvement": improvement,
        "sample_efficiency": {a: _curve(found, a, common) for a in algorithms},
        "performance_profile": _profiles(finals, algorithms) if common else {},
        "exploitability": {task: _exploitability(found, task) for task in sorted(found.exact)},
        "over_se_target": [
            {"task": t, "algorithm": a, "final_se": v["final_se"]}
            for t, row in per_task.items()
            if t not in found.exact  # read by NashConv; its few panel games are kept only beside it
            for a, v in row.items()
            if v["final_se"] > SE_TARGET
        ],
        "unsupported": [{"task": t, "algorithm": a, "reason": r} for (t, a), r in sorted(found.unsupported.items())],
        "unfinished": sorted(found.unfinished),
        "cpu": _cpu(found),
    }


def _cpu(found: Collected) -> dict[str, dict[str, dict[str, float]]]:
    """Per task and algorithm, over the finished runs that kept their timing: the mean CPU-minutes a run spent
    training and evaluating (the absolute metric included), and learner steps per CPU-second of training."""
    cpu: dict[str, dict[str, dict[str, float]]] = {}
    for task, algorithms in sorted(found.timing.items()):
        for algorithm, runs in sorted(algorithms.items()):
            train = sum(r.get("train_cpu_seconds", 0.0) for r in runs)
            evaluate = sum(r.get("eval_cpu_seconds", 0.0) + r.get("absolute_cpu_seconds", 0.0) for r in runs)
            cpu.setdefault(task, {})[algorithm] = {
                "runs": len(runs),
                "train_cpu_minutes": train / 60 / len(runs),
                "eval_cpu_minutes": evaluate / 60 / len(runs),
                "learner_steps_per_cpu_second": sum(r["learner_steps"] for r in runs) / train if train else 0.0,
            }
    return cpu


def _exploitability(found: Collected, task: str) -> dict[str, Any]:
    """An exact task's NashConv curves: per family, the IQM over seeds at each scheduled step with its 95%
    bootstrap interval over seeds; and CFR+'s curve, the reference line."""
    curves = {}
    for algorithm in sorted(found.curves[task]):
        runs = found.curves[task][algorithm]
        curve = []
        for step in sorted(_steps(found, task, algorithm)):
            values = np.array([runs[seed][step]["nash_conv"] for seed in sorted(runs)])
            curve.append({"step": step, **_estimate([values], stats.iqm, step)})
        curves[algorithm] = curve
    return {"cfr_plus": found.exact[task], "families": curves}


def _scale(reference: dict[str, Any]) -> dict[str, Any]:
    """A task's 0 and 1: the heuristic named as 1, and both ends' standard errors in normalised units."""
    span = reference["one"] - reference["zero"]
    scale = span if span > 0 else float("nan")
    return {
        "one_agent": reference["one_agent"],
        "span": span,
        "zero_se": reference.get("zero_se", float("nan")) / scale,
        "one_se": reference.get("one_se", float("nan")) / scale,
    }


def _profiles(finals: dict[str, stats.Scores], algorithms: list[str]) -> dict[str, Any]:
    """Performance profiles from the lowest observed final score to the highest, each with its bootstrap band."""
    every = np.concatenate([np.concatenate(finals[a]) for a in algorithms])
    taus = np.linspace(float(every.min()), float(every.max()), PROFILE_POINTS)
    profiles: dict[str, Any] = {"taus": [float(t) for t in taus]}
    for a in algorithms:
        low, high = stats.interval(finals[a], lambda s: stats.performance_profile(s, taus))
        profiles[a] = {
            "value": [float(v) for v in stats.performance_profile(finals[a], taus)],
            "low": [float(v) for v in low],
            "high": [float(v) for v in high],
        }
    return profiles


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
        "Normalised score: 0 = random's result against the task's panel, 1 = that of the heuristic each task names "
        "(docs/benchmark.md). Every evaluation plays paired deals (each deal from every seat). Intervals: 95% "
        "stratified bootstrap over runs.",
        "",
    ]
    if summary["aggregate"]:
        lines += [f"## Over the competitive tasks every algorithm played ({', '.join(summary['tasks'])})", ""]
        lines += ["| algorithm | IQM | mean |", "|---|---|---|"]
        lines += [f"| {a} | {cell(v['iqm'])} | {cell(v['mean'])} |" for a, v in summary["aggregate"].items()]
        lines.append("")
    if summary["cooperative"]:
        lines += [f"## Over the cooperative tasks ({', '.join(summary['cooperative_tasks'])}), on their own", ""]
        lines += ["| algorithm | IQM | mean |", "|---|---|---|"]
        lines += [f"| {a} | {cell(v['iqm'])} | {cell(v['mean'])} |" for a, v in summary["cooperative"].items()]
        lines.append("")
    exact = set(summary["exploitability"])
    if exact:
        lines += [
            f"Exact tasks ({', '.join(sorted(exact))}) are read by NashConv: their normalised scores, from a few "
            "panel games, stay out of the tables below (summary.json keeps them).",
            "",
        ]
    scales = {t: s for t, s in summary["scales"].items() if t not in exact}
    if scales:
        lines += ["## Each task's scale", "", "| task | the 1 | its SE | random's SE |", "|---|---|---|---|"]
        lines += [f"| {t} | {s['one_agent']} | {s['one_se']:.3f} | {s['zero_se']:.3f} |" for t, s in scales.items()]
        lines.append("")
    if summary["excluded_tasks"]:
        lines += [
            f"Left out of the aggregate (not every algorithm played them): {', '.join(summary['excluded_tasks'])}.",
            "",
        ]
    scored = {t: algorithms for t, algorithms in summary["per_task"].items() if t not in exact}
    if scored:
        lines += [
            "## Per task (final evaluation)",
            "",
            "| task | algorithm | runs | IQM | mean | SE of one run |",
            "|---|---|---|---|---|---|",
        ]
        for task, algorithms in scored.items():
            lines += [
                f"| {task} | {a} | {v['runs']} | {cell(v['iqm'])} | {cell(v['mean'])} | {v['final_se']:.3f} |"
                for a, v in algorithms.items()
            ]
        lines.append("")
    if summary["over_se_target"]:
        over = ", ".join(f"{o['task']}/{o['algorithm']} ({o['final_se']:.3f})" for o in summary["over_se_target"])
        lines += [f"Final evaluations above the standard error of {SE_TARGET}: {over}.", ""]
    for task, curves in summary["exploitability"].items():
        cfr = curves["cfr_plus"]["curve"]
        reference = (
            f"CFR+ after {cfr[-1]['iteration']} iterations: {cfr[-1]['nash_conv']:.3g}" if cfr else "no CFR+ line"
        )
        lines += [f"## Exact track: {task} (NashConv, IQM over seeds; {reference})", ""]
        lines += ["| algorithm | NashConv at the last evaluation | 95% interval |", "|---|---|---|"]
        lines += [
            f"| {a} | {c[-1]['value']:.3g} | [{c[-1]['low']:.3g}, {c[-1]['high']:.3g}] |"
            for a, c in curves["families"].items()
            if c
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
    if summary["cpu"]:
        lines += [
            "## CPU time per run (mean over the runs timed; the process's own CPU, not wall time)",
            "",
            "| task | algorithm | runs | training (CPU-min) | evaluation (CPU-min) | learner steps per CPU-s |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {t} | {a} | {c['runs']} | {c['train_cpu_minutes']:.1f} | {c['eval_cpu_minutes']:.1f} | "
            f"{c['learner_steps_per_cpu_second']:,.0f} |"
            for t, row in summary["cpu"].items()
            for a, c in row.items()
        ]
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

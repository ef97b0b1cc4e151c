"""The pictures of a benchmark report (matplotlib, Agg backend: no display needed), drawn from its summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def draw_all(summary: dict[str, Any], out: Path) -> list[Path]:
    """aggregate.png, performance_profile.png, probability_of_improvement.png, sample_efficiency.png (each when
    the summary has what it shows)."""
    written = []
    if summary["aggregate"]:
        written.append(_aggregate(summary["aggregate"], out / "aggregate.png"))
        written.append(_profiles(summary["performance_profile"], out / "performance_profile.png"))
    if summary["probability_of_improvement"]:
        written.append(_improvement(summary["probability_of_improvement"], out / "probability_of_improvement.png"))
    if any(summary["sample_efficiency"].values()):
        written.append(_sample_efficiency(summary["sample_efficiency"], out / "sample_efficiency.png"))
    for task, curves in summary.get("exploitability", {}).items():
        written.append(_exploitability(task, curves, out / f"exploitability_{task}.png"))
    return written


def _iqm_lines(ax, curves: dict[str, list[dict[str, float]]]) -> None:
    """One line per family (its IQM at each evaluation step) with its interval as a band of the same colour."""
    for name, points in curves.items():
        if not points:
            continue
        steps = [p["step"] for p in points]
        (line,) = ax.plot(steps, [p["value"] for p in points], marker="o", ms=3, label=name)
        ax.fill_between(
            steps, [p["low"] for p in points], [p["high"] for p in points], color=line.get_color(), alpha=0.2
        )


def _exploitability(task: str, curves: dict[str, Any], path: Path) -> Path:
    """NashConv against learner steps on a log scale, IQM over seeds with its band; CFR+ as the reference line."""
    fig, ax = plt.subplots(figsize=(7, 4))
    _iqm_lines(ax, curves["families"])
    cfr = curves["cfr_plus"]["curve"]
    if cfr:
        ax.axhline(
            cfr[-1]["nash_conv"], color="black", ls="--", lw=1, label=f"CFR+ ({cfr[-1]['iteration']} iterations)"
        )
    ax.set_yscale("log")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("NashConv (IQM over seeds, 95% CI)")
    ax.set_title(task)
    ax.legend()
    return _save(fig, path)


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})  # no version stamp: the same summary, the same bytes
    plt.close(fig)
    return path


def _aggregate(aggregate: dict[str, Any], path: Path) -> Path:
    names = list(aggregate)
    fig, axes = plt.subplots(1, 2, figsize=(9, 1.2 + 0.5 * len(names)), sharey=True)
    for ax, metric in zip(axes, ("iqm", "mean")):
        for i, name in enumerate(names):
            e = aggregate[name][metric]
            ax.plot([e["low"], e["high"]], [i, i], lw=6, alpha=0.5)
            ax.plot([e["value"]], [i], "k|", ms=14)
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel(f"{metric.upper()} of the normalised score (95% CI)")
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.axvline(1, color="grey", lw=0.8, ls=":")
    return _save(fig, path)


def _profiles(profiles: dict[str, Any], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6, 4))
    taus = profiles["taus"]
    for name, band in profiles.items():
        if name != "taus":
            (line,) = ax.plot(taus, band["value"], label=name)
            ax.fill_between(taus, band["low"], band["high"], color=line.get_color(), alpha=0.2)
    ax.set_xlabel("normalised score tau")
    ax.set_ylabel("fraction of runs with score > tau (95% CI)")
    ax.legend()
    return _save(fig, path)


def _improvement(pairs: list[dict[str, Any]], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6, 1.2 + 0.5 * len(pairs)))
    for i, p in enumerate(pairs):
        ax.plot([p["low"], p["high"]], [i, i], lw=6, alpha=0.5)
        ax.plot([p["value"]], [i], "k|", ms=14)
    ax.set_yticks(range(len(pairs)), [f"P({p['x']} > {p['y']})" for p in pairs])
    ax.axvline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability of improvement (95% CI)")
    return _save(fig, path)


def _sample_efficiency(curves: dict[str, list[dict[str, float]]], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(7, 4))
    _iqm_lines(ax, curves)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("IQM normalised score (95% CI)")
    ax.legend()
    return _save(fig, path)

"""The picture of a run: its learning curve (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from tabletop.train.selfplay.logs import STEP_COLUMN, read_csv  # noqa: E402


def learning_curve(eval_csv: Path, progress_csv: Path, out: Path, title: str) -> Path:
    """Win rate against each baseline over training (95% bands), above the mean episode reward."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True, height_ratios=[2, 1])
    rows = read_csv(eval_csv)
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opponent]
        step = np.array([float(r["step"]) for r in mine])
        rate, lo, hi = (np.array([float(r[k]) for r in mine]) for k in ("win_rate", "ci_low", "ci_high"))
        (line,) = top.plot(step, rate, marker="o", ms=3, label=f"vs {opponent}")
        top.fill_between(step, lo, hi, color=line.get_color(), alpha=0.15)
    top.axhline(0.5, color="grey", lw=0.8, ls="--")
    top.set_ylim(0, 1)
    top.set_ylabel("learner win rate (95% CI)")
    top.set_title(title)
    if rows:
        top.legend(loc="lower right", fontsize=8)
    progress = [r for r in read_csv(progress_csv) if r.get("rollout/ep_rew_mean")]
    if progress:
        bottom.plot(
            [float(r[STEP_COLUMN]) for r in progress], [float(r["rollout/ep_rew_mean"]) for r in progress], lw=1
        )
    bottom.set_ylabel("mean episode reward")
    bottom.set_xlabel("learner env steps")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out

"""The statistics of Agarwal et al. (2021, "Deep RL at the edge of the statistical precipice"), as `rliable`
computes them: IQM and mean over every run of every task, stratified-bootstrap percentile intervals, performance
profiles and the probability of improvement.

Written here in numpy rather than called from rliable: rliable 1.2.0 fails at import under pandas 3 and its
`arch` pin (<8) fails under pandas 3 too, while the `rllib` extra resolves pandas 3 (docs/benchmark.md,
"Reports"). tests/train/benchmark/test_stats.py checks these numbers against rliable's wherever rliable works.

Scores come as a list with one array per task, the runs of that task (tasks may hold different numbers of
runs). A stratified bootstrap redraws the runs of every task with replacement, each task on its own, so every
replicate keeps every task; the interval is the replicates' 2.5th and 97.5th percentiles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Scores = Sequence[np.ndarray]  # one array of run scores per task
REPS = 2000
CONFIDENCE = 0.95


def iqm(scores: Scores) -> float:
    """The interquartile mean of every run score: the mean of the middle half (scipy's trim_mean at 25%)."""
    flat = np.sort(np.concatenate([np.asarray(s, dtype=float) for s in scores]))
    cut = int(0.25 * len(flat))
    return float(flat[cut : len(flat) - cut].mean())


def mean(scores: Scores) -> float:
    """The mean over tasks of each task's mean run score (equal to the mean of every run when counts agree)."""
    return float(np.mean([np.mean(s) for s in scores]))


def stratified_bootstrap(
    scores: Scores, statistic: Callable[[Scores], float | np.ndarray], reps: int = REPS, seed: int = 0
) -> np.ndarray:
    """`statistic` over `reps` replicates, each redrawing every task's runs with replacement (within the task)."""
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(s, dtype=float) for s in scores]
    out = []
    for _ in range(reps):
        out.append(statistic([a[rng.integers(len(a), size=len(a))] for a in arrays]))
    return np.asarray(out)


def interval(
    scores: Scores, statistic: Callable[[Scores], float | np.ndarray], reps: int = REPS, seed: int = 0
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """The percentile interval (CONFIDENCE) of `statistic` under the stratified bootstrap."""
    replicates = stratified_bootstrap(scores, statistic, reps, seed)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail], axis=0)
    return low, high


def performance_profile(scores: Scores, taus: np.ndarray) -> np.ndarray:
    """For each threshold tau, the fraction of runs scoring above it, averaged over tasks."""
    return np.mean([(np.asarray(s, dtype=float)[:, None] > taus[None, :]).mean(axis=0) for s in scores], axis=0)


def probability_of_improvement(x: Scores, y: Scores) -> float:
    """P(X > Y): per task, the chance that a random run of X beats a random run of Y (ties count half),
    averaged over tasks (the Mann-Whitney U statistic over run pairs)."""
    per_task = []
    for xs, ys in zip(x, y):
        xs, ys = np.asarray(xs, dtype=float)[:, None], np.asarray(ys, dtype=float)[None, :]
        per_task.append(((xs > ys) + 0.5 * (xs == ys)).mean())
    return float(np.mean(per_task))


def improvement_interval(x: Scores, y: Scores, reps: int = REPS, seed: int = 0) -> tuple[float, float]:
    """The interval of P(X > Y) when X's and Y's runs are redrawn independently, task by task."""
    rng = np.random.default_rng(seed)
    xs = [np.asarray(s, dtype=float) for s in x]
    ys = [np.asarray(s, dtype=float) for s in y]
    values = []
    for _ in range(reps):
        values.append(
            probability_of_improvement(
                [a[rng.integers(len(a), size=len(a))] for a in xs], [b[rng.integers(len(b), size=len(b))] for b in ys]
            )
        )
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)

"""The report's statistics on constructed data, and against rliable's own numbers where rliable works."""

import numpy as np
import pytest

from tabletop.train.benchmark import stats


def test_iqm_is_the_mean_of_the_middle_half_of_every_run():
    assert stats.iqm([np.arange(1, 9)]) == 4.5  # 3, 4, 5, 6
    assert stats.iqm([np.array([0, 0, 100.0]), np.array([0, 1, 1, 1, 1])]) == 0.75  # 8 runs: 0, 1, 1, 1
    assert stats.mean([np.array([0.0, 1.0]), np.array([1.0])]) == 0.75  # each task weighs the same


def test_the_bootstrap_is_stratified_by_task_and_seeded():
    scores = [np.array([0.0, 0.0, 0.0]), np.array([10.0, 10.0])]
    low, high = stats.interval(scores, stats.mean)  # a pooled bootstrap would draw tasks unevenly
    assert low == high == 5.0
    varied = [np.array([0.1, 0.4, 0.9, 0.3]), np.array([1.2, 0.8, 0.5])]
    low, high = stats.interval(varied, stats.iqm, seed=3)
    assert low < stats.iqm(varied) < high
    assert stats.interval(varied, stats.iqm, seed=3) == (low, high)


def test_performance_profile_counts_runs_above_each_threshold_task_by_task():
    profile = stats.performance_profile([np.array([0.1, 0.5]), np.array([0.9, 2.0])], np.array([0.0, 0.5, 1.0]))
    assert profile.tolist() == [1.0, 0.5, 0.25]


def test_probability_of_improvement_counts_pairs_and_ties_half():
    x, y = [np.array([1.0, 2.0])], [np.array([0.0, 2.0])]
    assert stats.probability_of_improvement(x, y) == 0.625
    assert stats.probability_of_improvement(y, x) == 0.375
    low, high = stats.improvement_interval(x, y)
    assert 0 <= low <= 0.625 <= high <= 1


def usable_rliable():
    """rliable's library, or a skip when it is absent or fails under this pandas/arch (docs/benchmark.md)."""
    rly = pytest.importorskip("rliable.library")
    metrics = pytest.importorskip("rliable.metrics")
    try:
        rly.get_interval_estimates({"a": np.ones((3, 2))}, lambda s: np.array([metrics.aggregate_iqm(s)]), reps=10)
    except Exception as err:  # noqa: BLE001 - rliable 1.2.0 breaks in several ways under pandas 3 / arch 8
        pytest.skip(f"rliable does not work in this environment: {type(err).__name__}: {err}")
    return rly, metrics


def test_the_numbers_match_rliable():
    rly, metrics = usable_rliable()
    rng = np.random.default_rng(7)
    x, y = rng.normal(0.6, 0.3, (10, 4)), rng.normal(0.4, 0.3, (10, 4))
    tasks = [x[:, t] for t in range(x.shape[1])]
    assert stats.iqm(tasks) == pytest.approx(metrics.aggregate_iqm(x))
    assert stats.mean(tasks) == pytest.approx(metrics.aggregate_mean(x))
    point, intervals = rly.get_interval_estimates(
        {"x": x}, lambda s: np.array([metrics.aggregate_iqm(s), metrics.aggregate_mean(s)]), reps=4000
    )
    for k, statistic in enumerate((stats.iqm, stats.mean)):
        low, high = stats.interval(tasks, statistic, reps=4000)
        assert low == pytest.approx(intervals["x"][0, k], abs=0.02)
        assert high == pytest.approx(intervals["x"][1, k], abs=0.02)
    taus = np.linspace(0, 1.5, 16)
    theirs, _ = rly.create_performance_profile({"x": x}, taus)
    np.testing.assert_allclose(stats.performance_profile(tasks, taus), theirs["x"])
    improvement, _ = rly.get_interval_estimates({"x,y": (x, y)}, metrics.probability_of_improvement, reps=100)
    assert stats.probability_of_improvement(tasks, [y[:, t] for t in range(4)]) == pytest.approx(improvement["x,y"])

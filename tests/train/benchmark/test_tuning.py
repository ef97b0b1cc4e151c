"""scripts/tune_benchmark.py, the tuning protocol: every shipped tuning file names a suite, one of its tasks and,
per family of that suite, candidates whose first is the suite's own values; each candidate is one run at the
tuning budget on the tuning seed, its overrides laid over the suite's values, with no absolute metric."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support.scripts import load_script

REPO = Path(__file__).resolve().parents[3]
TUNING = sorted((REPO / "configs" / "benchmark" / "tuning").glob("*.yaml"))


def _script():
    return load_script("scripts/tune_benchmark.py")


@pytest.mark.parametrize("path", TUNING, ids=lambda p: p.stem)
def test_every_candidate_is_one_run_of_the_suite_with_its_overrides(path, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    tuning = yaml.safe_load(path.read_text())
    suite = yaml.safe_load((REPO / tuning["suite"]).read_text())
    found = _script().candidates(tuning, tmp_path)
    assert {family for family, *_ in found} == set(tuning["candidates"]) <= set(suite["algorithms"])
    assert tuning["seed"] >= 5, "the reference runs use seeds 0-4 (--seeds 5)"
    for family, k, overrides, job in found:
        assert k > 0 or overrides == {}, f"{family}: the first candidate is the suite's own values"
        assert job.seed == tuning["seed"] and job.folder == str(tmp_path / family / str(k))
        assert (job.task["budget"], job.task["eval_every"], job.task["absolute_factor"]) == (
            tuning["budget"],
            tuning["eval_every"],
            0,
        )
        for key, value in {**(suite["algorithms"][family] or {}), **overrides}.items():
            assert job.params[key] == value

"""A resumed run ends at the step an uninterrupted one does: checkpoints hold whole rollouts only (a save that
falls due mid-rollout waits for that rollout's update), so resuming from any of them collects the same count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tabletop.train.cli import main

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke" / "cromlet.yaml"  # 2 games x 64 steps a rollout


@pytest.mark.parametrize("overlap", [False, True], ids=["in-turn", "overlapped"])
def test_resuming_from_any_checkpoint_ends_at_the_uninterrupted_step(overlap, tmp_path):
    config = yaml.safe_load(SMOKE.read_text())
    config["total_steps"] = 300  # not a whole number of 128-step rollouts: the run ends at 384
    config["checkpoint"] = {"every": 100, "keep": 10}  # due mid-rollout, at 100, 200 and 300
    config["evaluation"] = {"every": 10_000, "games": 1, "final_games": 1}
    config["sb3"]["overlap"] = overlap
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))

    whole = tmp_path / "whole"
    assert main(["train", str(path), "--out", str(whole), "--quiet"]) == 0
    assert json.loads((whole / "final" / "eval.json").read_text())["steps"] == 384
    saved = sorted((whole / "checkpoints").iterdir())
    assert [p.name for p in saved] == ["step_000000128", "step_000000256", "step_000000384"]

    resumed = tmp_path / "resumed"
    assert main(["train", str(path), "--resume", str(saved[0]), "--out", str(resumed), "--quiet"]) == 0
    assert json.loads((resumed / "final" / "eval.json").read_text())["steps"] == 384

"""A run interrupted and resumed ends with the same weights as an uninterrupted one, tensor for tensor: checkpoints
hold the games in progress and every generator (train/selfplay/resume.py), and Ctrl-C during an update waits for
its end. A checkpoint saved without them still resumes, with new games."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO

from tabletop.agents.networks.saved import read_policy
from tabletop.train.selfplay import trainer
from tabletop.train.selfplay.callbacks import SelfPlayCallback
from tabletop.train.selfplay.checkpoints import TrainingInterrupted
from tabletop.train.selfplay.config import parse_config
from tabletop.train.selfplay.resume import STATE_FILE

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke" / "cromlet.yaml"  # 2 games x 64 steps a rollout


def _config(kind: str):
    """Four rollouts; snapshots, evaluations and saves fall due mid-rollout, and snapshots leave a pool of two
    while games still seat them."""
    data = yaml.safe_load(SMOKE.read_text())
    data.update(total_steps=512, evaluation={"every": 200, "games": 1, "final_games": 1})
    data["checkpoint"] = {"every": 300, "keep": 10}
    data["opponents"].update(snapshot_every=100, max_snapshots=2)
    data["sb3"]["vec_env"]["kind"] = kind
    return parse_config(data, "resume test")


def _final_weights(run: Path) -> dict[str, torch.Tensor]:
    return read_policy(run / "final" / "policy.pt").weights


class _CtrlCAt300(SelfPlayCallback):
    def _on_step(self) -> bool:
        if self.num_timesteps >= 300:  # mid-rollout: the third rollout began at 256
            raise KeyboardInterrupt
        return super()._on_step()


def _ctrl_c_in_the_update_at_256(real):
    def train(self) -> None:
        if self.num_timesteps == 256:  # the second rollout's update: SIGINT arrives while it runs
            os.kill(os.getpid(), signal.SIGINT)
        real(self)

    return train


@pytest.mark.parametrize(
    "kind, where, saved_at",
    [
        ("batched", "rollout", 256),
        ("dummy", "rollout", 256),
        pytest.param("subproc", "rollout", 256, marks=pytest.mark.slow),
        ("batched", "update", 256),
    ],
    ids=["batched-mid-rollout", "dummy-mid-rollout", "subproc-mid-rollout", "batched-mid-update"],
)
def test_an_interrupted_and_resumed_run_ends_with_the_uninterrupted_weights(
    kind, where, saved_at, tmp_path, monkeypatch
):
    config = _config(kind)
    trainer.train(config, out=tmp_path / "whole", progress=False)

    if where == "rollout":
        monkeypatch.setattr(trainer, "SelfPlayCallback", _CtrlCAt300)
    else:
        monkeypatch.setattr(MaskablePPO, "train", _ctrl_c_in_the_update_at_256(MaskablePPO.train))
    # as at a terminal: Ctrl-C raises KeyboardInterrupt (a pytest-xdist worker ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(TrainingInterrupted) as stop:
            trainer.train(config, out=tmp_path / "split", progress=False)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert stop.value.checkpoint.name == f"step_{saved_at:09d}" and (stop.value.checkpoint / STATE_FILE).is_file()
    monkeypatch.undo()
    result = trainer.train(config, resume=tmp_path / "split", progress=False)

    assert result.steps == 512 - saved_at
    whole, resumed = _final_weights(tmp_path / "whole"), _final_weights(tmp_path / "split")
    assert whole.keys() == resumed.keys()
    assert [k for k in whole if not torch.equal(whole[k], resumed[k])] == []


def test_a_checkpoint_without_games_resumes_with_new_ones(tmp_path, capsys):
    config = _config("batched")
    run = tmp_path / "run"
    trainer.train(config, out=run, steps=256, progress=False)
    saved = run / "checkpoints" / "step_000000256"
    (saved / STATE_FILE).unlink()  # as a checkpoint written before the games were kept
    capsys.readouterr()

    result = trainer.train(config, resume=run, progress=False)
    assert result.steps == 256
    assert f"resume: new games are dealt, not those of {saved}: it was saved without them" in capsys.readouterr().err

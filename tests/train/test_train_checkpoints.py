"""Training loses nothing: checkpoints appear under their name only when complete, resume skips a damaged
one for the newest complete one and says so, and Ctrl-C saves a checkpoint and prints the resume command."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import torch
import yaml

from tabletop.train.selfplay import checkpoints, trainer
from tabletop.train.selfplay.callbacks import SelfPlayCallback
from tabletop.train.selfplay.checkpoints import (
    TrainingInterrupted,
    latest_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from tabletop.train.selfplay.config import load_config
from tabletop.train.selfplay.trainer import train

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke" / "cromlet.yaml"


def _steps(run: Path) -> list[str]:
    return sorted(p.name for p in (run / "checkpoints").iterdir())


def _tensors(value) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


class _Model:
    """What `write_checkpoint` reads of a model: its step, and `save` (here a zip with SB3's members)."""

    def __init__(self, step: int):
        self.num_timesteps = step

    def save(self, path: Path) -> None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("data", json.dumps({"num_timesteps": self.num_timesteps}))
            archive.writestr("policy.pth", _tensors({}))
            archive.writestr("policy.optimizer.pth", _tensors({"state": {}, "param_groups": []}))


def test_a_write_cut_short_leaves_nothing_under_a_checkpoint_name(tmp_path, monkeypatch):
    write_checkpoint(tmp_path, _Model(64), [("step_000000000", {})], keep=3)

    def killed(*args, **kwargs):  # the process dies between the model and the pool
        raise SystemExit("killed")

    monkeypatch.setattr(checkpoints.torch, "save", killed)
    with pytest.raises(SystemExit):
        write_checkpoint(tmp_path, _Model(128), [], keep=3)
    assert _steps(tmp_path) == [".writing-step_000000128", "step_000000064"]
    assert latest_checkpoint(tmp_path).step == 64  # the half-written folder is no checkpoint
    monkeypatch.undo()
    write_checkpoint(tmp_path, _Model(192), [], keep=3)  # the next write clears what the kill left
    assert _steps(tmp_path) == ["step_000000064", "step_000000192"]


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    """A smoke run to 256 steps: checkpoints at 128 and 256."""
    run = tmp_path_factory.mktemp("trained") / "run"
    train(load_config(SMOKE), out=run, steps=256, progress=False)
    assert _steps(run) == ["step_000000128", "step_000000256"]
    return run


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda f: (f / "pool.pt").unlink(), "pool.pt is missing"),
        (
            lambda f: (f / "model.zip").write_bytes((f / "model.zip").read_bytes()[:500]),
            "model.zip is not a complete zip",
        ),
        (lambda f: (f / "pool.pt").write_bytes((f / "pool.pt").read_bytes()[:100]), "pool.pt cannot be read"),
    ],
    ids=["missing-pool", "truncated-model", "truncated-pool"],
)
def test_resume_skips_a_damaged_checkpoint_for_the_newest_complete_one(trained_run, tmp_path, capsys, damage, reason):
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    damage(run / "checkpoints" / "step_000000256")  # as a kill during an in-place write leaves it
    capsys.readouterr()

    result = train(load_config(SMOKE), steps=256, resume=run, progress=False)
    err = capsys.readouterr().err
    assert f"skipping {run / 'checkpoints' / 'step_000000256'}: {reason}" in err
    assert f"continuing from {run / 'checkpoints' / 'step_000000128'} (step 128)" in err
    assert result.steps == 256 - 128
    assert read_checkpoint(run / "checkpoints" / "step_000000256").step == 256  # rewritten whole on the way


def test_resume_names_every_reason_when_no_checkpoint_is_complete(tmp_path):
    folder = tmp_path / "checkpoints" / "step_000000064"
    folder.mkdir(parents=True)
    (folder / "model.zip").write_bytes(b"PK")
    with pytest.raises(
        ValueError, match=r"no complete checkpoint in checkpoints/ \(step_000000064: pool.pt is missing\)"
    ):
        latest_checkpoint(tmp_path)
    with pytest.raises(ValueError, match="not a complete checkpoint .pool.pt is missing"):
        latest_checkpoint(folder)
    with pytest.raises(ValueError, match="no such folder"):
        latest_checkpoint(tmp_path / "typo")


def test_ctrl_c_in_training_saves_a_checkpoint_that_resumes(tmp_path, monkeypatch):
    class CtrlC(SelfPlayCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= 150:  # in the second rollout: the first one's update has ended
                raise KeyboardInterrupt
            return super()._on_step()

    config = load_config(SMOKE)
    run = tmp_path / "run"
    monkeypatch.setattr(trainer, "SelfPlayCallback", CtrlC)
    with pytest.raises(TrainingInterrupted) as stop:
        train(config, out=run, steps=256, progress=False)
    saved = read_checkpoint(stop.value.checkpoint)
    assert saved.step == 128 and stop.value.checkpoint == run / "checkpoints" / "step_000000128"  # trained through
    assert [name for name, _ in saved.snapshots] == ["step_000000000", "step_000000064", "step_000000128"]
    assert stop.value.advice("configs/smoke/cromlet.yaml", 256).endswith(
        f"resume with: tabletop train configs/smoke/cromlet.yaml --resume {run} --steps 256"
    )

    monkeypatch.undo()
    result = train(config, steps=256, resume=run, progress=False)  # one rollout (2 envs x 64 steps) on
    assert result.steps == 128 and (run / "final" / "model.zip").is_file()
    assert _steps(run)[-1] == "step_000000256"


@pytest.mark.slow
def test_sigint_to_tabletop_train_saves_and_prints_the_resume_command(tmp_path):
    """The user's path: Ctrl-C reaches the whole process group, worker processes included."""
    config = yaml.safe_load(SMOKE.read_text())
    config["sb3"]["vec_env"]["kind"] = "subproc"
    config_path = tmp_path / "smoke.yaml"
    config_path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "tabletop.train.cli",
        "train",
        str(config_path),
        "--out",
        str(run),
        "--steps",
        "1000000",
        "--quiet",
    ]
    # PYTHONFAULTHANDLER: if it does not stop, SIGABRT makes every process of the run print its stacks
    # SIGINT as a terminal leaves it: a test run started in the background by a script (`cmd &`) ignores
    # SIGINT, and a child would inherit that and rightly train on after Ctrl-C
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while not (run / "checkpoints").is_dir() or not any((run / "checkpoints").glob("step_*")):
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)  # what a terminal sends on Ctrl-C
        try:
            _, err = process.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGABRT)
            pytest.fail(
                f"tabletop train still ran 240 s after Ctrl-C; where it was:\n{process.communicate(timeout=60)[1][-8000:]}"
            )
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    saved = re.search(r"progress saved in (\S+)", err)
    assert saved, err
    assert read_checkpoint(Path(saved.group(1))).step >= 128
    assert f"resume with: tabletop train {config_path} --resume {run} --steps 1000000" in err
    assert torch.load(Path(saved.group(1)) / "pool.pt", weights_only=True)["snapshots"]


@pytest.mark.slow
def test_a_run_saved_without_a_network_key_still_resumes(trained_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    saved = yaml.safe_load((run / "config.yaml").read_text())
    del saved["network"]["frozen_role"]  # as a run folder written without the key
    (run / "config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    train(load_config(SMOKE), steps=384, resume=run, progress=False)
    assert _steps(run)[-1] == "step_000000384"
    saved["network"]["hidden"] = [7]  # a different network is still refused
    (run / "config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    with pytest.raises(ValueError, match=r"changes what the run trained \(network.hidden: run \[7\], config \[32\]\)$"):
        train(load_config(SMOKE), steps=512, resume=run, progress=False)


def _rewrite_member(model: Path, member: str, change) -> None:
    """Rewrite one member of a zip (a valid archive with consistent checksums, holding damaged content)."""
    with zipfile.ZipFile(model) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members[member] = change(members[member])
    with zipfile.ZipFile(model, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _tampered_weights(data: bytes) -> bytes:
    weights = torch.load(io.BytesIO(data), weights_only=True)
    key = next(k for k in weights if k.endswith("weight"))
    weights[key] = torch.zeros(3, 3)
    return _tensors(weights)


def _tampered_pool(folder: Path) -> None:
    saved = torch.load(folder / "pool.pt", weights_only=True)
    name, weights = saved["snapshots"][-1]
    key = next(k for k in weights if k.endswith("weight"))
    saved["snapshots"][-1] = (name, {**weights, key: torch.zeros(2)})
    torch.save(saved, folder / "pool.pt")


class _Pickled:
    """Any class: torch.save pickles it, and only `weights_only=False` would run its code back."""


@pytest.mark.parametrize(
    "damage, reason",
    [
        (
            lambda f: _rewrite_member(f / "model.zip", "data", lambda b: b[:40]),
            "model.zip: its data member is not JSON",
        ),
        (
            lambda f: _rewrite_member(f / "model.zip", "policy.pth", lambda b: b[: len(b) // 2]),
            "model.zip: policy.pth cannot be read",
        ),
        (lambda f: _rewrite_member(f / "model.zip", "policy.pth", _tampered_weights), "model.zip: policy.pth: "),
        (_tampered_pool, "pool.pt: snapshot step_000000"),
        (
            lambda f: torch.save({"step": 256, "snapshots": [("x", _Pickled())]}, f / "pool.pt"),
            "pool.pt cannot be read",
        ),
        (lambda f: (f / "policy.pt").write_bytes((f / "policy.pt").read_bytes()[:200]), "policy.pt cannot be read"),
        (lambda f: (f / "resume.pt").write_bytes((f / "resume.pt").read_bytes()[:200]), "resume.pt cannot be read"),
        (
            lambda f: torch.save({**torch.load(f / "resume.pt", weights_only=True), "step": 128}, f / "resume.pt"),
            "resume.pt is not the games of step 256",
        ),
    ],
    ids=[
        "bad-data-json",
        "truncated-member",
        "tampered-shape",
        "tampered-pool",
        "pickled-pool",
        "truncated-policy",
        "truncated-games",
        "games-of-another-step",
    ],
)
def test_damage_inside_a_checkpoint_is_named_and_skipped(trained_run, tmp_path, damage, reason):
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    newest = run / "checkpoints" / "step_000000256"
    damage(newest)
    reports = []
    shapes = trainer.resume_shapes(load_config(SMOKE))
    checkpoint = latest_checkpoint(run, shapes, reports.append)
    assert checkpoint.step == 128
    assert reports[0].startswith(f"resume: skipping {newest}: {reason}"), reports
    assert (
        reports[1]
        == f"resume: continuing from {run / 'checkpoints' / 'step_000000128'} (step 128), the newest complete checkpoint"
    )


def test_every_network_key_that_differs_is_named_in_one_line(trained_run):
    config = load_config(SMOKE)
    saved = yaml.safe_load((trained_run / "config.yaml").read_text())
    saved["network"].update(width=64, activation="relu")
    with pytest.raises(ValueError) as refused:
        trainer.check_resumable(config, saved, trained_run)
    message = str(refused.value)
    assert "\n" not in message
    assert "network.activation: run 'relu', config 'tanh'; network.width: run 64, config 32" in message

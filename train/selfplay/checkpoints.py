"""Checkpoints that survive a kill: written beside their final folder, renamed into place, checked on resume.

A checkpoint is `checkpoints/step_N/`: `model.zip` (weights, optimiser, step count) and `pool.pt` (the
step and the opponent snapshots). It is written into `checkpoints/.writing-step_N/`, flushed to disk and
renamed into place (atomic on one filesystem), so a kill mid-write leaves a temporary folder that resume
ignores, never a half checkpoint under a checkpoint's name. Resume still reads what it loads (a folder
copied by hand or damaged on disk) and falls back to the newest complete checkpoint, saying which it
skipped and why.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from tabletop.agents.policy_agent import MODEL_FILE

CHECKPOINTS = "checkpoints"
POOL_FILE = "pool.pt"
WRITING = ".writing-"  # a checkpoint being written; left behind only by a kill, removed by the next write
REPLACED = ".replaced-"  # the previous checkpoint of the same step, while the new one takes its name
MODEL_MEMBERS = ("data", "policy.pth", "policy.optimizer.pth")  # what resuming reads from SB3's zip
_NAME = re.compile(r"step_(\d{9})")


@dataclass(frozen=True)
class Checkpoint:
    """A complete checkpoint, read: its folder, its step and the snapshot pool saved with it."""

    folder: Path
    step: int
    snapshots: list[tuple[str, dict]]

    @property
    def model(self) -> Path:
        return self.folder / MODEL_FILE


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run after its progress was saved in `checkpoint` (None: nothing saved yet).

    A KeyboardInterrupt still, so code that does not know it stops as on any Ctrl-C."""

    def __init__(self, run_dir: Path, checkpoint: Path | None):
        super().__init__(f"training interrupted; last checkpoint: {checkpoint}")
        self.run_dir, self.checkpoint = run_dir, checkpoint

    def advice(self, config_path: str | Path, steps: int | None = None) -> str:
        """What `tabletop train` prints: where the run stands and the exact command that continues it."""
        if self.checkpoint is None:
            return f"interrupted before the first checkpoint of {self.run_dir}: nothing to resume"
        command = ["tabletop", "train", str(config_path), "--resume", str(self.run_dir)]
        if steps is not None:
            command += ["--steps", str(steps)]
        return f"interrupted: progress saved in {self.checkpoint}\nresume with: {shlex.join(command)}"


def write_checkpoint(run_dir: Path, model, snapshots: list[tuple[str, dict]], keep: int) -> Path:
    """Write the checkpoint of `model`'s step beside its final folder, rename it into place, keep the
    newest `keep` checkpoints. Returns the checkpoint folder."""
    folder = run_dir / CHECKPOINTS / f"step_{model.num_timesteps:09d}"
    temp = folder.with_name(WRITING + folder.name)
    if temp.exists():
        shutil.rmtree(temp)
    temp.mkdir(parents=True)
    model.save(temp / MODEL_FILE)
    torch.save({"step": model.num_timesteps, "snapshots": snapshots}, temp / POOL_FILE)
    for path in (temp / MODEL_FILE, temp / POOL_FILE, temp):
        _flush(path)
    if folder.exists():  # the same step again (after a run's last update, or over a damaged one): swap
        old = folder.with_name(REPLACED + folder.name)
        if old.exists():
            shutil.rmtree(old)
        folder.rename(old)
        temp.rename(folder)
        shutil.rmtree(old)
    else:
        temp.rename(folder)
    _flush(folder.parent)
    _prune(folder.parent, keep)
    return folder


def save_model(model, path: Path) -> None:
    """`model.save(path)` through a temporary file renamed into place: a kill leaves the old file or the new."""
    temp = path.with_name(WRITING + path.name)
    model.save(temp)
    _flush(temp)
    os.replace(temp, path)


def read_checkpoint(folder: Path) -> Checkpoint:
    """The checkpoint in `folder`, or ValueError saying what makes it incomplete."""
    model, pool = folder / MODEL_FILE, folder / POOL_FILE
    for path in (model, pool):
        if not path.is_file():
            raise ValueError(f"{path.name} is missing")
    try:
        with zipfile.ZipFile(model) as archive:
            missing = [m for m in MODEL_MEMBERS if m not in archive.namelist()]
            damaged = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
        raise ValueError(f"{MODEL_FILE} is not a complete zip archive ({err})") from None
    if missing:
        raise ValueError(f"{MODEL_FILE} lacks {', '.join(missing)}")
    if damaged:
        raise ValueError(f"{MODEL_FILE} is damaged (bad checksum in {damaged})")
    try:
        saved = torch.load(pool, weights_only=False)
    except Exception as err:  # a truncated or foreign file fails in many ways; each means "not this one"
        raise ValueError(f"{POOL_FILE} cannot be read ({type(err).__name__}: {err})") from None
    if (
        not isinstance(saved, dict)
        or not isinstance(saved.get("step"), int)
        or not isinstance(saved.get("snapshots"), list)
    ):
        raise ValueError(f"{POOL_FILE} does not hold a step and a list of snapshots")
    named = _NAME.fullmatch(folder.name)
    if named and int(named.group(1)) != saved["step"]:
        raise ValueError(f"{POOL_FILE} is for step {saved['step']}, the folder for step {int(named.group(1))}")
    return Checkpoint(folder, saved["step"], saved["snapshots"])


def latest_checkpoint(path: Path, report: Callable[[str], None] | None = None) -> Checkpoint:
    """`path` itself if it is a checkpoint folder, else the newest complete checkpoint of the run folder
    `path`; every newer one skipped is reported (to stderr by default) with the reason."""
    report = report or _to_stderr
    if not path.is_dir():
        raise ValueError(f"nothing to resume at {str(path)!r}: no such folder")
    if not (path / CHECKPOINTS).is_dir():
        try:
            return read_checkpoint(path)
        except ValueError as err:
            raise ValueError(
                f"cannot resume from {str(path)!r}: not a complete checkpoint ({err}); expected a checkpoint "
                f"folder or a run folder with {CHECKPOINTS}/"
            ) from None
    skipped = []
    for folder in sorted(checkpoint_folders(path / CHECKPOINTS), reverse=True):
        try:
            checkpoint = read_checkpoint(folder)
        except ValueError as err:
            skipped.append(f"{folder.name}: {err}")
            report(f"resume: skipping {folder}: {err}")
            continue
        if skipped:
            report(f"resume: continuing from {folder}, the newest complete checkpoint")
        return checkpoint
    reasons = f" ({'; '.join(skipped)})" if skipped else ""
    raise ValueError(f"nothing to resume at {str(path)!r}: no complete checkpoint in {CHECKPOINTS}/{reasons}")


def newest_checkpoint(run_dir: Path) -> Path | None:
    """The newest checkpoint folder of a run (None if none): what an interrupted run leaves to resume."""
    found = sorted(checkpoint_folders(run_dir / CHECKPOINTS)) if (run_dir / CHECKPOINTS).is_dir() else []
    return found[-1] if found else None


def checkpoint_folders(folder: Path) -> list[Path]:
    """The folders named as checkpoints (`step_N`), not the temporary ones beside them."""
    return [p for p in folder.iterdir() if p.is_dir() and _NAME.fullmatch(p.name)]


def _prune(folder: Path, keep: int) -> None:
    """Keep the newest `keep` checkpoints; remove older ones and what a killed write left behind."""
    for old in sorted(checkpoint_folders(folder))[:-keep]:
        shutil.rmtree(old)
    for stale in folder.iterdir():
        if stale.name.startswith((WRITING, REPLACED)):
            shutil.rmtree(stale)


def _flush(path: Path) -> None:
    """fsync a file or a folder, so a rename never publishes data that is still only in memory (POSIX)."""
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)

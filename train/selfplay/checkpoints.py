"""Checkpoints that survive a kill: written beside their final folder, renamed into place, checked on resume.

A checkpoint is `checkpoints/step_N/`: `model.zip` (SB3's: weights, optimiser, step count), `pool.pt` (the
step and the opponent snapshots), `resume.pt` (the games in progress and every generator, resume.py: a resumed
run then trains as an uninterrupted one) and `policy.pt` (the plain policy file players and export load). It is
written into `checkpoints/.writing-step_N/`, flushed to disk and renamed into place (atomic on one
filesystem), so a kill mid-write leaves a temporary folder that resume ignores, never a half checkpoint
under a checkpoint's name.

Resume reads everything it loads before it trusts a checkpoint (a folder copied by hand or damaged on disk):
every zip member by its checksum, `data` as JSON, every tensor file with `torch.load(weights_only=True)`
(nothing in a run folder is unpickled: SB3's pickled classes in `data` are never read), and every tensor's
name and shape against the network the config builds. A checkpoint that fails is named with the file and
the problem and skipped for the previous complete one; resume says which it continues from.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from tabletop.agents.networks import POLICY_FILE
from tabletop.agents.networks.saved import SavedPolicy, load_plain, policy_from, write_policy
from tabletop.train.selfplay.resume import STATE_FILE, check_state

CHECKPOINTS = "checkpoints"
MODEL_FILE = "model.zip"
POOL_FILE = "pool.pt"
WRITING = ".writing-"  # a checkpoint being written; left behind only by a kill, removed by the next write
REPLACED = ".replaced-"  # the previous checkpoint of the same step, while the new one takes its name
MODEL_MEMBERS = ("data", "policy.pth", "policy.optimizer.pth")  # what resuming reads from SB3's zip
_NAME = re.compile(r"step_(\d{9})")


@dataclass(frozen=True)
class Shapes:
    """What a checkpoint of the config's network holds: each weight's shape by name, and the shape of each
    parameter the optimiser updates, in its order."""

    weights: dict[str, tuple[int, ...]]
    optimised: list[tuple[int, ...]]

    @classmethod
    def of(cls, policy: torch.nn.Module) -> Shapes:
        """The shapes of an SB3 policy of ours (its `optimizer` built)."""
        params = [p for group in policy.optimizer.param_groups for p in group["params"]]
        return cls({k: tuple(v.shape) for k, v in policy.state_dict().items()}, [tuple(p.shape) for p in params])

    def check(self, weights: Any, where: str) -> None:
        """A ValueError naming `where` and the first weight missing, unexpected or of another shape."""
        if not isinstance(weights, dict):
            raise ValueError(f"{where} holds no mapping of weights")
        missing = [k for k in self.weights if k not in weights]
        extra = [k for k in weights if k not in self.weights]
        if missing or extra:
            raise ValueError(f"{where} {f'lacks {missing[0]}' if missing else f'has {extra[0]}, not in the network'}")
        for key, shape in self.weights.items():
            got = tuple(weights[key].shape) if isinstance(weights[key], torch.Tensor) else None
            if got != shape:
                raise ValueError(
                    f"{where}: {key} is {list(got) if got is not None else 'not a tensor'}, not {list(shape)}"
                )

    def check_optimizer(self, state: Any, where: str) -> None:
        """Adam's moments must match the parameters they belong to."""
        try:
            moments = [(int(i), entry) for i, entry in state["state"].items()]
        except (TypeError, KeyError, AttributeError, ValueError):
            raise ValueError(f"{where} is not an optimiser state") from None
        for index, entry in moments:
            for name, value in entry.items():
                if isinstance(value, torch.Tensor) and value.dim() > 0:
                    if index >= len(self.optimised) or tuple(value.shape) != self.optimised[index]:
                        raise ValueError(
                            f"{where}: {name} of parameter {index} is {list(value.shape)}, not its parameter's shape"
                        )


@dataclass(frozen=True)
class Checkpoint:
    """A complete checkpoint, read: its folder, its step, the snapshot pool and the learner's state saved with it."""

    folder: Path
    step: int
    snapshots: list[tuple[str, dict]]
    params: dict[str, dict] = field(default_factory=dict)  # SB3's `policy` and `policy.optimizer` state dicts
    updates: int = 0  # SB3's `_n_updates`
    resume: dict | None = None  # resume.py's games and generators (None: a checkpoint without them)

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


def write_checkpoint(
    run_dir: Path,
    model,
    snapshots: list[tuple[str, dict]],
    keep: int,
    policy: SavedPolicy | None = None,
    step: int | None = None,
    games: dict | None = None,
) -> Path:
    """Write the checkpoint of `model` at `step` (default its step count; with `policy`, its plain policy file;
    with `games`, resume.py's games and generators) beside its final folder, rename it into place, keep the
    newest `keep` checkpoints. Returns the folder."""
    step = model.num_timesteps if step is None else step
    folder = run_dir / CHECKPOINTS / f"step_{step:09d}"
    temp = folder.with_name(WRITING + folder.name)
    if temp.exists():
        shutil.rmtree(temp)
    temp.mkdir(parents=True)
    counted, model.num_timesteps = model.num_timesteps, step  # the model file records the checkpoint's step
    try:
        model.save(temp / MODEL_FILE)
    finally:
        model.num_timesteps = counted
    torch.save({"step": step, "snapshots": snapshots}, temp / POOL_FILE)
    written = [temp / MODEL_FILE, temp / POOL_FILE]
    if games is not None:
        torch.save(games, temp / STATE_FILE)
        written.append(temp / STATE_FILE)
    if policy is not None:
        written.append(write_policy(temp / POLICY_FILE, policy))
    for path in (*written, temp):
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


def read_checkpoint(folder: Path, shapes: Shapes | None = None) -> Checkpoint:
    """The checkpoint in `folder`, every file read and (given `shapes`) every tensor checked against the
    network; else a ValueError naming the file and what makes it incomplete."""
    model, pool = folder / MODEL_FILE, folder / POOL_FILE
    for path in (model, pool):
        if not path.is_file():
            raise ValueError(f"{path.name} is missing")
    data, params = _read_model(model)
    step = data.get("num_timesteps")
    if not isinstance(step, int):
        raise ValueError(f"{MODEL_FILE}: its data member records no step count")
    saved = load_plain(pool, POOL_FILE)
    if (
        not isinstance(saved, dict)
        or not isinstance(saved.get("step"), int)
        or not isinstance(saved.get("snapshots"), list)
        or not all(isinstance(s, (tuple, list)) and len(s) == 2 and isinstance(s[0], str) for s in saved["snapshots"])
    ):
        raise ValueError(f"{POOL_FILE} does not hold a step and a list of named snapshots")
    named = _NAME.fullmatch(folder.name)
    for what, value in ((POOL_FILE, saved["step"]), (MODEL_FILE, step)):
        if named and int(named.group(1)) != value:
            raise ValueError(f"{what} is for step {value}, the folder for step {int(named.group(1))}")
    if shapes is not None:
        shapes.check(params["policy"], f"{MODEL_FILE}: policy.pth")
        shapes.check_optimizer(params["policy.optimizer"], f"{MODEL_FILE}: policy.optimizer.pth")
        for name, weights in saved["snapshots"]:
            shapes.check(weights, f"{POOL_FILE}: snapshot {name}")
    if (folder / POLICY_FILE).is_file():  # checkpoints saved before policy files have none
        policy = policy_from(load_plain(folder / POLICY_FILE, POLICY_FILE), Path(POLICY_FILE))
        if shapes is not None:
            shapes.check(policy.weights, POLICY_FILE)
    games = None
    if (folder / STATE_FILE).is_file():  # checkpoints saved before exact resume have none
        games = load_plain(folder / STATE_FILE, STATE_FILE)
        check_state(games, step, shapes.check if shapes is not None else lambda weights, where: None)
    updates = data.get("_n_updates")
    return Checkpoint(
        folder, step, [tuple(s) for s in saved["snapshots"]], params, updates if isinstance(updates, int) else 0, games
    )


def _read_model(model: Path) -> tuple[dict, dict[str, Any]]:
    """SB3's zip, read without unpickling: (`data` as JSON, the `policy` and `policy.optimizer` state dicts)."""
    try:
        with zipfile.ZipFile(model) as archive:
            missing = [m for m in MODEL_MEMBERS if m not in archive.namelist()]
            if missing:
                raise ValueError(f"{MODEL_FILE} lacks {', '.join(missing)}")
            damaged = archive.testzip()
            if damaged:
                raise ValueError(f"{MODEL_FILE} is damaged (bad checksum in {damaged})")
            members = {m: archive.read(m) for m in MODEL_MEMBERS}
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise ValueError(f"{MODEL_FILE} is not a complete zip archive ({err})") from None
    try:
        data = json.loads(members["data"].decode())
    except ValueError as err:  # bad JSON or bad UTF-8
        raise ValueError(f"{MODEL_FILE}: its data member is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{MODEL_FILE}: its data member is not a JSON object")
    params = {}
    for member in ("policy.pth", "policy.optimizer.pth"):
        try:
            params[member[:-4]] = torch.load(io.BytesIO(members[member]), map_location="cpu", weights_only=True)
        except Exception as err:  # noqa: BLE001 - a truncated member fails in many ways
            raise ValueError(f"{MODEL_FILE}: {member} cannot be read ({type(err).__name__}: {err})") from None
    return data, params


def latest_checkpoint(
    path: Path, shapes: Shapes | None = None, report: Callable[[str], None] | None = None
) -> Checkpoint:
    """`path` itself if it is a checkpoint folder, else the newest complete checkpoint of the run folder
    `path` (tensors checked against `shapes` when given); every newer one skipped is reported (to stderr by
    default) with the reason, and so is the one it continues from."""
    report = report or _to_stderr
    if not path.is_dir():
        raise ValueError(f"nothing to resume at {str(path)!r}: no such folder")
    if not (path / CHECKPOINTS).is_dir():
        try:
            checkpoint = read_checkpoint(path, shapes)
        except ValueError as err:
            raise ValueError(
                f"cannot resume from {str(path)!r}: not a complete checkpoint ({err}); expected a checkpoint "
                f"folder or a run folder with {CHECKPOINTS}/"
            ) from None
        report(f"resume: continuing from {path} (step {checkpoint.step})")
        return checkpoint
    skipped = []
    for folder in sorted(checkpoint_folders(path / CHECKPOINTS), reverse=True):
        try:
            checkpoint = read_checkpoint(folder, shapes)
        except ValueError as err:
            skipped.append(f"{folder.name}: {err}")
            report(f"resume: skipping {folder}: {err}")
            continue
        newest = ", the newest complete checkpoint" if skipped else ""
        report(f"resume: continuing from {folder} (step {checkpoint.step}){newest}")
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

"""Optional dependencies: which extra of pyproject.toml installs each, and one clear line when one is missing.

`tabletop` runs on numpy, gymnasium and pettingzoo alone; training, export, exported policies, the web
server and the benchmark's baselines each need an extra. Code that needs one calls `require` before it
writes anything, so a missing extra is a `MissingExtra` naming the command that installs it: never a
traceback from deep inside, never a half-made output.
"""

from __future__ import annotations

import importlib
import platform
import subprocess
from importlib import metadata
from pathlib import Path

EXTRA_OF = {  # importable module -> the extra that installs it (None: no extra does)
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "yaml": "train",
    "tensorboard": "train",
    "matplotlib": "train",
    "openskill": "train",
    "onnx": "export",
    "onnxruntime": "export",
    "starlette": "web",
    "uvicorn": "web",
    "websockets": "web",
    "ray": "rllib",
    "pyspiel": "openspiel",
    "pygame": "dev",  # PettingZoo's classic envs (the bench baselines) import it
    "rlcard": None,  # PettingZoo's texas_holdem_v4 imports it
}


class MissingExtra(ModuleNotFoundError):
    """An optional dependency is not installed; the message says which extra installs it, in one line."""


def missing(what: str, module: str) -> MissingExtra:
    """The error for `what` (a command, an agent kind) lacking `module`: which extra to install, and how."""
    extra = EXTRA_OF.get(module)
    if extra is None:
        return MissingExtra(f"{what} needs {module}, which no extra installs: pip install {module}", name=module)
    return MissingExtra(
        f"{what} needs the {extra} extra ({module} is missing): pip install -e '.[{extra}]'", name=module
    )


def require(what: str, *modules: str) -> None:
    """Import each of `modules`, or raise `MissingExtra` saying `what` needs it. A module that is there but
    lacks one of its own dependencies raises as it is: that is a broken install, not a missing extra."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
            raise missing(what, module) from None


def installed_versions(*dists: str) -> dict[str, str | None]:
    """Python's version and each distribution's installed version (None where it is not installed)."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for dist in dists:
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = None
    return found


def source_commit() -> str | None:
    """The git commit this package's source is checked out at, with "+changes" where files differ from it; None
    for an install that is not a git checkout."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():  # an installed copy: a repository around site-packages is not its source
        return None
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")

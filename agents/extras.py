"""Optional dependencies: which extra of pyproject.toml installs each, and one clear line when one is missing.

`tabletop` runs on numpy, gymnasium and pettingzoo alone; training, export, exported policies, the web
server and the benchmark's baselines each need an extra. Code that needs one calls `require` before it
writes anything, so a missing extra is a `MissingExtra` naming the command that installs it: never a
traceback from deep inside, never a half-made output.
"""

from __future__ import annotations

import importlib

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

"""The repository's scripts/ and .ci/ files, which are not packages, loaded as modules for their tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def load_script(relative: str) -> ModuleType:
    """The script at `relative` (from the repository root) as a module, registered under its stem so that a
    dataclass it defines can look its module up."""
    path = REPO / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(path.stem, module)
    spec.loader.exec_module(module)
    return module

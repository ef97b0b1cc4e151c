"""Algorithm families: each trains a learner on a benchmark task through the `Family` protocol (base.py).

A family is a module exposing `FAMILY`; the table below names them and is the suite's `algorithms:` key.
Modules are imported only when their family is used, so one family's extra (ray) is never needed by another;
`NEEDS` names the modules each family imports, so a grid can leave out a family whose extra is missing before
any run starts (`missing_extra`).
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
from typing import Any

from tabletop.agents.extras import MissingExtra, missing
from tabletop.train.benchmark.families import hyperparameters
from tabletop.train.benchmark.families.base import Family

FAMILIES = {
    "ppo": "tabletop.train.benchmark.families.ppo",
    "rllib_ppo": "tabletop.train.benchmark.families.rllib",
    "rllib_appo": "tabletop.train.benchmark.families.rllib",
    "dqn": "tabletop.train.benchmark.families.dqn",
    "nfsp": "tabletop.train.benchmark.families.nfsp",
    "mmd": "tabletop.train.benchmark.families.mmd",
    "psro": "tabletop.train.benchmark.families.psro",
    "alphazero": "tabletop.train.benchmark.families.alphazero",
}
NEEDS = {  # family -> the modules it imports (their extras: agents/extras.py); a family not listed needs torch
    "ppo": ("torch", "sb3_contrib"),
    "rllib_ppo": ("torch", "ray"),
    "rllib_appo": ("torch", "ray"),
}


class FamilyUnavailable(ValueError):
    """A family named in the table whose module is not in this installation (not written or not merged yet)."""


def load_family(name: str) -> Family:
    """The family called `name`; a ValueError names the allowed ones, or says its module is missing."""
    if name not in FAMILIES:
        raise ValueError(f"unknown algorithm {name!r}; allowed: {', '.join(FAMILIES)}")
    module_name = FAMILIES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise  # the module is there but lacks a dependency: the family says which (a missing extra)
        raise FamilyUnavailable(
            f"algorithm {name!r} is not available in this installation: its module {module_name} is missing"
        ) from None
    families = getattr(module, "FAMILIES", None)  # a module serving several names (rllib_ppo, rllib_appo)
    return families[name] if families is not None else module.FAMILY


def family_defaults(name: str) -> dict[str, Any]:
    """A copy of family `name`'s hyperparameters with their defaults: from the torch-free table where it is
    listed (so a mistyped key is refused before torch loads), else from the family's own module."""
    if name in hyperparameters.DEFAULTS:
        return copy.deepcopy(hyperparameters.DEFAULTS[name])
    return copy.deepcopy(load_family(name).defaults)


def available_families() -> list[str]:
    """The families whose module imports here (tests run every one of them)."""
    found = []
    for name in FAMILIES:
        try:
            load_family(name)
        except FamilyUnavailable:
            continue
        found.append(name)
    return found


def missing_extra(name: str) -> MissingExtra | None:
    """The one-line error naming the extra that family `name` lacks here, or None when it has what it needs.
    Looks modules up without importing them (ray takes seconds to import)."""
    for module in NEEDS.get(name, ("torch",)):
        if importlib.util.find_spec(module) is None:
            return missing(f"the {name} benchmark family", module)
    return None

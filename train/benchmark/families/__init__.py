"""Algorithm families: each trains a learner on a benchmark task through the `Family` protocol (base.py).

A family is a module exposing `FAMILY`; the table below names them and is the suite's `algorithms:` key.
Modules are imported only when their family is used, so one family's extra (ray) is never needed by another.
"""

from __future__ import annotations

import importlib

from tabletop.train.benchmark.families.base import Family

FAMILIES = {
    "ppo": "tabletop.train.benchmark.families.ppo",
    "rllib_ppo": "tabletop.train.benchmark.families.rllib",
    "rllib_appo": "tabletop.train.benchmark.families.rllib",
    "dqn": "tabletop.train.benchmark.families.dqn",
    "nfsp": "tabletop.train.benchmark.families.nfsp",
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

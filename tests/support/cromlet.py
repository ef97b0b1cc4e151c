"""Cromlet helpers shared by its tests."""

from __future__ import annotations

from support import play_out
from tabletop.envs.cromlet.rules import CromletGame


def random_states(config: dict, count: int, seed: int):
    """States reached by random play, sampled along many games."""
    return play_out.random_states(CromletGame(**config), count, seed)

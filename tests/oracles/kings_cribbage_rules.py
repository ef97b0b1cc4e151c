"""The tiles-mode sub-step bookkeeping of Kings Cribbage's rules as it was written in numpy before the kernels
(`envs/kings_cribbage/kernels.py`: `narrow`, `mark_legal`) took over its loops: the oracle of the
differential test."""

from __future__ import annotations

import numpy as np

from tabletop.envs.kings_cribbage.movegen import MAX_HAND, MoveSet


def narrow(alive: MoveSet, depth: int, action: int) -> MoveSet:
    """The moves whose place action at `depth` is `action`."""
    keep = alive.actions[:, depth] == action
    return MoveSet(alive.actions[keep], alive.lengths[keep], alive.points[keep])


def place_mask(alive: MoveSet, depth: int, num_actions: int, commit: int) -> np.ndarray:
    """The sub-step mask while some move exists: the next tile of every move extending the pending tiles, and
    commit once one of them is complete."""
    mask = np.zeros(num_actions + 1, dtype=np.int8)[:-1]  # one spare entry, for the padding action -1
    if depth < MAX_HAND:
        mask.base[alive.actions[:, depth]] = 1  # the padding -1 lands on the spare entry
    if depth and (alive.lengths == depth).any():
        mask[commit] = 1
    return mask

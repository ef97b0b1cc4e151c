"""Which moves a turn offers with `action_mode="moves"`, as offer.py computed it in numpy before its loops
moved into kernels (`envs/kings_cribbage/kernels.py`: `offer_contenders`, `offer_slots`): the oracle of the
differential test. The rule itself is offer.py's docstring; this narrows the moves in two passes (by points,
then by points and centre distance together) where the kernel needs one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletop.envs.kings_cribbage.movegen import EMPTY_MOVES, MoveSet
from tabletop.envs.kings_cribbage.offer import _FAR, _distances
from tabletop.envs.kings_cribbage.tiles import FACE_KIND, NUM_KINDS, RACK_SIZE

_BASE = RACK_SIZE + 1  # a leave key counts the tiles of each kind in base 6 (a rack holds at most 5 of one)


def leave_keys(moves: MoveSet, rack: Sequence[int], cells: int) -> np.ndarray:
    """Per move a number that is equal for two moves exactly when they lay the same kinds (leave the same rack)."""
    kinds = sorted(set(rack))
    weight = np.zeros(NUM_KINDS, dtype=np.int64)
    weight[kinds] = _BASE ** np.arange(len(kinds))
    face_weight = np.append(weight[FACE_KIND], 0)  # by face; the padding face -1 reads the last entry
    return np.add.reduce(face_weight[moves.actions // cells], 1)


def centre_distance(actions: np.ndarray, size: int) -> np.ndarray:
    """Per move the sum over its tiles of |2 row - (size - 1)| + |2 col - (size - 1)| (padding adds nothing)."""
    return np.add.reduce(_distances(size)[actions % (size * size)] * (actions >= 0), 1)


def offered_moves(moves: MoveSet, rack: Sequence[int], size: int, limit: int) -> MoveSet:
    """The moves a turn offers (see the module docstring), in slot order."""
    if not len(moves):
        return EMPTY_MOVES
    leave = leave_keys(moves, rack, size * size)
    index = _contenders(moves.points, leave, limit)
    actions = moves.actions[index]
    # the same again by points and then closeness to the centre, as one number, before the full sort
    key = moves.points[index] * _FAR - centre_distance(actions, size)
    keep = _contenders(key, leave[index], limit)
    index, actions = index[keep], actions[keep]
    index = index[np.lexsort((*actions.T[::-1], -key[keep]))]
    _, leader_at = np.unique(leave[index], return_index=True)
    leader = np.zeros(len(index), dtype=bool)
    leader[leader_at] = True
    chosen = np.sort(leader_at)[:limit]
    if len(chosen) < limit:
        chosen = np.sort(np.concatenate([chosen, (~leader).nonzero()[0][: limit - len(chosen)]]))
    index = index[chosen]
    return MoveSet(moves.actions[index], moves.lengths[index], moves.points[index])


def _contenders(value: np.ndarray, leave: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the moves that can be offered when moves rank by `value` (highest first) before anything
    else: each leave's best, and every move at least as good as the limit-th best."""
    best = np.full(_BASE**RACK_SIZE, np.iinfo(np.int64).min)
    np.maximum.at(best, leave, value)
    keep = value == best[leave]
    if len(value) > limit:
        keep |= value >= np.partition(value, len(value) - limit)[len(value) - limit]
    else:
        keep[:] = True
    return keep.nonzero()[0]

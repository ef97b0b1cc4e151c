"""Which moves a turn offers with `action_mode="moves"`, and in which order: a fixed rule, so a slot means the
same thing in every position that has the same moves.

Moves are *ranked* by points (highest first), then by closeness to the centre of the board (the sum over the
placed tiles of |2 row - (size - 1)| + |2 col - (size - 1)|, smallest first), then by their place actions
(`face * cells + cell`, in cell order, padded with -1) compared as sequences, smallest first. The ranking is
total: two moves never tie on all three.

A move's *leave* is what stays on the rack (the kinds it does not lay). The offer takes, in ranking order,
the first move of every leave (a rack of 5 has at most 31 leaves, so with `limit` >= 31 every one is
offered), then the best-ranked of the other moves until `limit` are offered; with more leaves than `limit`,
the first `limit` of those leaders. The offered moves fill the slots in ranking order. So whatever the cut,
the best-scoring move is offered, and any player that values a move by its points plus a worth of its leave
(the `leave` heuristic, `greedy`) finds its choice among the offered ones while `limit` >= 31.

Only moves that can be offered are sorted: each leave's best-ranked moves by points and distance, and every move
ranked at least as high as the `limit`-th by them, so an opening with 300,000 moves costs one compiled pass
(kernels.py) over the moves, not a sort.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from tabletop.envs.kings_cribbage import kernels
from tabletop.envs.kings_cribbage.movegen import EMPTY_MOVES, MoveSet
from tabletop.envs.kings_cribbage.tiles import FACE_KIND

_FAR = 1 << 10  # more than any centre distance (5 tiles, each at most 25 + 25 on the largest board)


@cache
def _distances(size: int) -> np.ndarray:
    """Per cell |2 row - (size - 1)| + |2 col - (size - 1)|."""
    row, col = np.divmod(np.arange(size * size), size)
    return np.abs(2 * row - (size - 1)) + np.abs(2 * col - (size - 1))


@cache
def _by_place_action(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per place action `face * cells + cell`: the kind it lays and its cell's centre distance."""
    return np.repeat(FACE_KIND, size * size), np.tile(_distances(size), len(FACE_KIND))


def offered_moves(moves: MoveSet, rack: Sequence[int], size: int, limit: int) -> MoveSet:
    """The moves a turn offers (see the module docstring), in slot order."""
    if not len(moves):
        return EMPTY_MOVES
    kinds, distances = _by_place_action(size)
    leave, key, index = kernels.offer_contenders(
        moves.actions, moves.points, np.sort(np.asarray(rack, dtype=np.int64)), kinds, distances, limit, _FAR
    )
    ranked = index[np.lexsort((*moves.actions[index].T[::-1], -key[index]))]  # points, closeness, place actions
    index = ranked[kernels.offer_slots(leave[ranked], limit)]
    return MoveSet(moves.actions[index], moves.lengths[index], moves.points[index])

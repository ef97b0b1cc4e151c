"""The rack side of move generation: every multiset of faces a rack can lay as 2-5 tiles, with its orderings.

Combos are listed by size, then by their sorted faces (the order the move list follows). A combo's distinct
orderings depend only on which of its sorted faces are equal (its *pattern*), so they are precomputed once
per pattern as index rows into the sorted faces. Racks offering the same choices (which of their sorted
distinct faces each tile may show) share a cached template that is relabelled with the rack's faces.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations, product
from typing import NamedTuple

import numpy as np

from tabletop.envs.kings_cribbage.scoring import MAX_HAND, MIN_HAND, TILE_KEY
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, FACE_VALUE, FACES_OF_KIND, NUM_FACES

MIXED = -1  # colour state of tiles of both colours (LIGHT 0 / DARK 1 otherwise)
FACE_KEY = np.array(TILE_KEY, dtype=np.int64)[FACE_VALUE]  # a face's share of a hand key
_PAD = NUM_FACES  # sorts after every face while combos are built; -1 in the finished tables


def _pattern_orderings() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pattern code (size * 16 + bit i-1 set when sorted faces i-1 and i are equal): the distinct
    orderings as rows of indices into the sorted faces (padded with MAX_HAND), their start and count."""
    rows = []
    start, count = np.zeros((2, 16 * (MAX_HAND + 1)), dtype=np.int64)
    for size in range(MIN_HAND, MAX_HAND + 1):
        for bits in range(1 << (size - 1)):
            labels, first = [0], [0]
            for i in range(1, size):
                if not bits >> (i - 1) & 1:
                    first.append(i)
                labels.append(len(first) - 1)
            code = size * 16 + bits
            start[code] = len(rows)
            for order in sorted(set(permutations(labels))):  # label order = face order: same sorting
                rows.append([first[label] for label in order] + [MAX_HAND] * (MAX_HAND - size))
            count[code] = len(rows) - start[code]
    return np.array(rows, dtype=np.int64), start, count


_ORDER_ROWS, _ORDER_START, _ORDER_COUNT = _pattern_orderings()
_CHOICES = {n: np.array(list(product(range(3), repeat=n)), dtype=np.int64) for n in range(MAX_HAND + 1)}
_KEY_OF = np.append(FACE_KEY, 0)  # indexed by face, -1 (padding) last
_COLOURS_OF = np.append(np.where(FACE_COLOUR == 0, 1, MAX_HAND + 1), 0)  # a light tile counts 1, a dark one 6
_COUNTS = np.arange((MAX_HAND + 1) ** 2)  # light + 6 * dark tiles
_STATE_OF = np.where(_COUNTS // (MAX_HAND + 1) == 0, 0, np.where(_COUNTS % (MAX_HAND + 1) == 0, 1, MIXED))
FACE_BIT = np.int64(1) << np.arange(NUM_FACES, dtype=np.int64)
_BIT_OF = np.append(FACE_BIT, 0)


class RackCombos(NamedTuple):
    """Combo c: `size[c]` faces, hand `key[c]`, colour state `state[c]`, the set of its faces as bits of
    `face_bits[c]`, orderings `orderings[start[c]:][:count[c]]` (rows of faces padded with -1); combos of
    size k are `combos_of[k]:combos_of[k + 1]`."""

    faces: tuple[int, ...]  # the distinct faces of the rack, sorted
    size: np.ndarray
    key: np.ndarray
    state: np.ndarray
    face_bits: np.ndarray
    start: np.ndarray
    count: np.ndarray
    orderings: np.ndarray
    combos_of: np.ndarray


def rack_combos(rack: tuple[int, ...]) -> RackCombos:
    """The combos of a rack of kinds (sorted tuple). Racks whose tiles offer the same choices among their
    sorted distinct faces share one template of face indices; only the relabelling is per rack."""
    options = [FACES_OF_KIND[kind] for kind in rack]
    faces = tuple(sorted(set().union(*options)))
    index = {face: i for i, face in enumerate(faces)}
    template = _template(tuple(tuple(index[face] for face in faces_of) for faces_of in options))
    label = np.array(faces + (-1,), dtype=np.int64)
    combo = label[template.faces]
    return RackCombos(
        faces=faces,
        size=template.size,
        key=np.add.reduce(_KEY_OF[combo], 1),
        state=_STATE_OF[np.add.reduce(_COLOURS_OF[combo], 1)],
        face_bits=np.bitwise_or.reduce(_BIT_OF[combo], 1),
        start=template.start,
        count=template.count,
        orderings=label[template.orderings],
        combos_of=template.combos_of,
    )


@dataclass(frozen=True)
class _Template:
    """A rack's combos with faces as indices into its sorted distinct faces (-1: padding)."""

    faces: np.ndarray
    size: np.ndarray
    start: np.ndarray
    count: np.ndarray
    orderings: np.ndarray
    combos_of: np.ndarray


@lru_cache(maxsize=None)
def _template(options_of_tile: tuple[tuple[int, ...], ...]) -> _Template:
    """One choice per tile among absent / its faces (face indices), deduplicated, by size then sorted faces."""
    tiles = len(options_of_tile)
    options = np.full((tiles, 3), -1, dtype=np.int64)
    options[:, 0] = _PAD
    for i, faces in enumerate(options_of_tile):
        options[i, 1 : 1 + len(faces)] = faces
    chosen = options[np.arange(tiles), _CHOICES[tiles]]
    size = (chosen != _PAD).sum(1)
    chosen = np.sort(chosen[(chosen >= 0).all(1) & (size >= MIN_HAND)], axis=1)
    chosen = np.hstack([chosen, np.full((len(chosen), MAX_HAND - tiles), _PAD)])
    size = (chosen != _PAD).sum(1)
    code = size
    for column in chosen.T:
        code = code * (_PAD + 1) + column
    chosen = chosen[np.unique(code, return_index=True)[1]]
    size = (chosen != _PAD).sum(1)
    real = chosen != _PAD
    equal = (chosen[:, 1:] == chosen[:, :-1]) & real[:, 1:]
    pattern = size * 16 + (equal * (1 << np.arange(MAX_HAND - 1))).sum(1)
    count = _ORDER_COUNT[pattern]
    start = np.cumsum(count) - count
    rows = np.repeat(_ORDER_START[pattern] - start, count) + np.arange(count.sum())
    faces = np.hstack([np.where(real, chosen, -1), np.full((len(chosen), 1), -1)])
    orderings = faces[np.repeat(np.arange(len(faces)), count)[:, None], _ORDER_ROWS[rows]]
    return _Template(faces[:, :MAX_HAND], size, start, count, orderings, np.searchsorted(size, np.arange(MAX_HAND + 2)))

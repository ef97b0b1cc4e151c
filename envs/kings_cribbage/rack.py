"""The rack side of move generation: every multiset of faces a rack can lay as 2-5 tiles, with its orderings.

Combos are listed by size, then by their sorted faces (the order the move list follows). A combo's distinct
orderings depend only on which of its sorted faces are equal (its *pattern*), so they are precomputed once
per pattern as index rows into the sorted faces. Racks offering the same choices (which of their sorted
distinct faces each tile may show) share a template, built once per such *pattern*; the move kernel relabels
it with the rack's faces as it reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import permutations, product

import numpy as np

from tabletop.envs.kings_cribbage import kernels
from tabletop.envs.kings_cribbage.scoring import MAX_HAND, MIN_HAND, TILE_KEY
from tabletop.envs.kings_cribbage.tiles import FACE_VALUE, FACES_OF_KIND, NUM_FACES

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
# per kind its faces, ascending, then -1 (what `kernels.rack_pattern` reads)
KIND_FACES = np.array([faces + (-1,) * (2 - len(faces)) for faces in FACES_OF_KIND], dtype=np.int64)
_CHOICES = {n: np.array(list(product(range(3), repeat=n)), dtype=np.int64) for n in range(MAX_HAND + 1)}


@dataclass(frozen=True)
class Template:
    """A rack's combos with faces as indices into its sorted distinct faces (-1: padding): combo c lays
    `faces[c]` (`size[c]` of them), its orderings are `orderings[start[c]:][:count[c]]`, and the combos of k
    tiles are `combos_of[k]:combos_of[k + 1]`."""

    faces: np.ndarray
    size: np.ndarray
    start: np.ndarray
    count: np.ndarray
    orderings: np.ndarray
    combos_of: np.ndarray

    @cached_property
    def kernel_args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What a move kernel reads of the template after the rack's length (faces, start, count, orderings,
        combos_of), bundled once: a turn passes them on without reading five attributes."""
        return (self.faces, self.start, self.count, self.orderings, self.combos_of)

    @cached_property
    def packed(self) -> np.ndarray:
        """`kernel_args` as one array (`kernels.pack`): what `kernels.turn_pairs` and `pairs_place_step` read."""
        return kernels.pack(*self.kernel_args)


def _template(options_of_tile: tuple[tuple[int, ...], ...]) -> Template:
    """One choice per tile among absent / its faces (face indices), deduplicated, by size then sorted faces
    (built by `kernels.rack_combos`; the same in plain numpy: tests/oracles/kings_cribbage_rack.py)."""
    tiles = len(options_of_tile)
    options = np.full((tiles, 3), -1, dtype=np.int64)
    options[:, 0] = _PAD
    for i, faces in enumerate(options_of_tile):
        options[i, 1 : 1 + len(faces)] = faces
    return Template(
        *kernels.rack_combos(options, _CHOICES[tiles], _ORDER_ROWS, _ORDER_START, _ORDER_COUNT, _PAD, MIN_HAND)
    )


def rack_options(rack: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """(each tile's faces as indices into the rack's sorted distinct faces, those faces) of a rack of kinds."""
    options = [FACES_OF_KIND[kind] for kind in rack]
    faces = tuple(sorted(set().union(*options)))
    index = {face: i for i, face in enumerate(faces)}
    return tuple(tuple(index[face] for face in faces_of) for faces_of in options), faces


_TEMPLATES: dict[int, Template] = {}  # by pattern code: a few thousand patterns at most, each built once


def rack_template(rack: Sequence[int]) -> tuple[Template, np.ndarray]:
    """(template, label) of a rack of kinds: the combos as indices into its sorted distinct faces, shared by every
    rack whose tiles offer the same choices among them, and those faces (then -1, the padding). A move kernel
    relabels them as it reads them. Racks seldom repeat (~142k of 5 tiles), so the pattern and the label come
    from one kernel call (~2 us; `rack_options` in Python took ~7), and only a new pattern pays for Python."""
    code, label = kernels.rack_pattern(np.array(rack, np.int64), KIND_FACES)
    template = _TEMPLATES.get(code)
    if template is None:
        template = _TEMPLATES[code] = _template(rack_options(tuple(sorted(rack)))[0])
    return template, label

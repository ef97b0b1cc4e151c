"""Kings Cribbage's rack templates as they were built in numpy before `kernels.rack_combos` took over the
loops (`envs/kings_cribbage/rack.py`): the oracle the differential test holds the kernel to.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.kings_cribbage.rack import _CHOICES, _ORDER_COUNT, _ORDER_ROWS, _ORDER_START, _PAD, Template
from tabletop.envs.kings_cribbage.scoring import MAX_HAND, MIN_HAND


def template(options_of_tile: tuple[tuple[int, ...], ...]) -> Template:
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
    return Template(faces[:, :MAX_HAND], size, start, count, orderings, np.searchsorted(size, np.arange(MAX_HAND + 2)))

"""The numpy move generator that movegen.py's kernels replaced, kept as their oracle (and as the
description of the method in array form): every step is a handful of numpy calls over all windows, combos
and orderings at once.

It reads movegen.py's tables, so the kernels and this oracle agree on the scoring by construction; what the
differential test compares is the enumeration: which windows, pairs and orderings, their points and their
order. (tests/envs/kings_cribbage/test_kings_cribbage_oracle.py checks the tables and moves against an exhaustive search.)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

import numpy as np

from tabletop.envs.kings_cribbage.movegen import ACROSS_KEYS, ACROSS_POINTS, EMPTY_MOVES, WINDOW_BONUS, MoveSet
from tabletop.envs.kings_cribbage.rack import FACE_KEY, MIXED, rack_template
from tabletop.envs.kings_cribbage.scoring import FIRST_MOVE_BONUS, HAND_TABLE, MAX_HAND, TILE_KEY
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, NUM_FACES, NUM_RANKS, RACK_SIZE

NO_TILES = 2
_SPAN = np.arange(MAX_HAND)
_WINDOW_BONUS = WINDOW_BONUS
# the cross-hand table flat, each row followed by a 0 that the padding face -1 of the next row reads
_ACROSS = np.hstack([ACROSS_POINTS, np.zeros((len(ACROSS_POINTS), 1), dtype=np.int64)]).reshape(-1)
FACE_BIT = np.int64(1) << np.arange(NUM_FACES, dtype=np.int64)
_ACROSS_KEYS = ACROSS_KEYS
_ACROSS_ALLOWED = (ACROSS_POINTS >= 0) @ FACE_BIT  # per row the faces allowed across, as bits
_ACROSS_CAP = _ACROSS_KEYS[-1]
_NOTHING_ACROSS = len(_ACROSS_ALLOWED) - 1  # the row of a cell with no tile beside it across


# --- the rack's combos, relabelled with its faces -------------------------------------------------------------
_KEY_OF = np.append(FACE_KEY, 0)  # indexed by face, -1 (padding) last
_COLOURS_OF = np.append(np.where(FACE_COLOUR == 0, 1, MAX_HAND + 1), 0)  # a light tile counts 1, a dark one 6
_COUNTS = np.arange((MAX_HAND + 1) ** 2)  # light + 6 * dark tiles
_STATE_OF = np.where(_COUNTS // (MAX_HAND + 1) == 0, 0, np.where(_COUNTS % (MAX_HAND + 1) == 0, 1, MIXED))
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
    template, label = rack_template(rack)
    faces = tuple(int(face) for face in label[:-1])
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


# --- the board and the moves ---------------------------------------------------------------------------------
def _colour_states(most: int) -> np.ndarray:
    """[tiles, light tiles]: the colour state of a set of tiles (one lookup instead of nested wheres)."""
    tiles, lights = np.indices((most + 1, most + 1))
    return np.where(tiles == 0, NO_TILES, np.where(lights == tiles, 0, np.where(lights == 0, 1, MIXED)))


_COLOUR_STATE = _colour_states(64)  # more tiles than a line of the largest board (26) holds


def _cell_codes() -> tuple[np.ndarray, ...]:
    """By cell code (value + 16 for a dark tile; 0 and 16 are empty): is a tile, hand key, is light, order prime."""
    primes = (1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)  # by value: the earlier generator's order key
    table = np.zeros((4, 32), dtype=np.int64)
    table[3] = 1
    for value in range(1, NUM_RANKS + 1):
        for code in (value, value + 16):
            table[:, code] = (1, TILE_KEY[value], code < 16, primes[value])
    return table[0] > 0, table[1], table[2], table[3]


_TILE_BY_CODE, _KEY_BY_CODE, _LIGHT_BY_CODE, _PRIME_BY_CODE = _cell_codes()


class _Geometry(NamedTuple):
    """Index tables for a board of size n, built once per size. Padded lines are 2n rows of n + 2 * MAX_HAND
    cells (`free` is read flat by line * width + index); their prefix sums are 4 planes of 2n rows of one more
    entry (read flat); line positions are kept flat by l * (n + 1) + p, with a padding position p = n. Window
    [s, s + L) is indexed [l, s, L - 1]."""

    starts: np.ndarray  # (n, 1) padded-line index where each window starts
    fits: np.ndarray  # (n, 5) the window lies on the board
    window_hi: np.ndarray  # (4, 2n, n, 5) prefix-sum indices of the window's end, per plane
    window_lo: np.ndarray  # (4, 2n, n, 1) and of its start
    after_end: np.ndarray  # (2n, n, 5) `free` indices of the cell just after the window
    before_start: np.ndarray  # (2n, n, 1) and just before it
    cell: np.ndarray  # per line position its cell; the padding's is the last (a padding face -1 then makes action -1)
    other: np.ndarray  # per cell l * n + p of a line, its line position in the other direction
    at_cell: np.ndarray  # (3, 2n, n) per plane the prefix-sum index of each cell and of the one after it
    after_cell: np.ndarray
    line_start: np.ndarray  # (3, 2n, 1) per plane the prefix-sum index where each line starts


@cache
def _geometry(n: int) -> _Geometry:
    width = n + 2 * MAX_HAND
    plane = 2 * n * (width + 1)
    planes = (np.arange(4) * plane)[:, None, None, None]
    lines = np.arange(2 * n)[:, None, None]
    starts = MAX_HAND + np.arange(n)[:, None]
    ends = starts + _SPAN + 1
    line_start = lines[:, :, 0] * (width + 1) + planes[:3, :, :, 0]
    line, pos = np.arange(2 * n)[:, None], np.arange(n + 1)
    cell = np.where(line < n, line * n + pos, pos * n + line - n)
    cell[:, n] = n * n - 1
    line, pos = line[:, :n], pos[:n]
    at_cell = line_start + MAX_HAND + pos
    return _Geometry(
        starts=starts,
        fits=ends <= MAX_HAND + n,
        window_hi=planes + line_start[0, :, :, None] + ends,
        window_lo=planes + line_start[0, :, :, None] + starts,
        after_end=lines * width + ends,
        before_start=lines * width + starts - 1,
        cell=cell.reshape(-1),
        other=(np.where(line < n, pos + n, pos) * (n + 1) + line % n).reshape(-1),
        at_cell=at_cell,
        after_cell=at_cell + 1,
        line_start=line_start,
    )


@cache
def _opening_cells(n: int) -> tuple[np.ndarray, ...]:
    """Per number of tiles L (index L - 2), the cells of every line of L cells on an empty board of size n: rows,
    then columns, padded to 5 with the last cell (a padding face -1 then makes action -1)."""
    by_length = []
    for length in range(2, MAX_HAND + 1):
        line, start = np.divmod(np.arange(n * (n - length + 1)), n - length + 1)
        span = np.where(_SPAN < length, _SPAN, 0)
        rows = line[:, None] * n + start[:, None] + span
        cols = (start[:, None] + span) * n + line[:, None]
        cells = np.concatenate([rows, cols])
        cells[:, length:] = n * n - 1
        by_length.append(cells)
    return tuple(by_length)


_COLOUR_STATE_FLAT = _COLOUR_STATE.reshape(-1)  # [tiles * 65 + light tiles]
_STATES = _COLOUR_STATE.shape[1]


class _Board:
    """The board as 2n lines (rows, then columns), each padded with MAX_HAND empty cells on both sides.

    Per line position (flat, see `_Geometry`) `across` is the row of the cross-hand table (`_ACROSS`) for the
    tiles beside the cell along the perpendicular line."""

    def __init__(self, values: np.ndarray, colours: np.ndarray):
        n = self.size = values.shape[0]
        self.cells = n * n
        self.first = not values.any()
        g = self.geometry = _geometry(n)
        width = n + 2 * MAX_HAND
        self.code = np.zeros((2 * n, width), dtype=np.int64)  # cell codes along each line
        self.code[:n, MAX_HAND : MAX_HAND + n] = values + 16 * colours
        self.code[n:, MAX_HAND : MAX_HAND + n] = self.code[:n, MAX_HAND : MAX_HAND + n].T
        # prefix sums along the lines of: tiles, keys, light tiles, cells with a tile beside them across
        sums = self.sums = np.zeros((4, 2 * n, width + 1), dtype=np.int64)
        occ = _TILE_BY_CODE[self.code]
        sums[0, :, 1:] = occ
        sums[1, :, 1:] = _KEY_BY_CODE[self.code]
        sums[2, :, 1:] = _LIGHT_BY_CODE[self.code]
        free = self.free = ~occ
        near = sums[3, :, 1:]  # a tile beside the cell in the neighbouring line of the same direction
        near[1:] = occ[:-1]
        near[:-1] |= occ[1:]
        near[n - 1] = occ[n - 2]  # the last row and the first column are no neighbours
        near[n] = occ[n + 1]
        near &= free
        self.touch_across = near[:, MAX_HAND : MAX_HAND + n] > 0
        np.add.accumulate(sums, axis=2, out=sums)
        flat = sums.reshape(-1)
        # the runs of tiles beside each cell along its line: [lo, cell) and (cell, hi)
        index = np.arange(width)
        before = np.maximum.accumulate(np.where(occ, 0, index), axis=1)  # last empty cell at or before
        after = np.minimum.accumulate(np.where(occ, width - 1, index)[:, ::-1], axis=1)[:, ::-1]
        low = flat.take(before[:, MAX_HAND - 1 : MAX_HAND - 1 + n] + 1 + g.line_start)
        high = flat.take(after[:, MAX_HAND + 1 : MAX_HAND + 1 + n] + g.line_start)
        tiles, key, lights = flat.take(g.at_cell) - low + high - flat.take(g.after_cell)  # [lo, cell) and (cell, hi)
        self.touch_along = (tiles > 0) & free[:, MAX_HAND : MAX_HAND + n]
        # the hands across: each touched cell's tiles beside it, seen from the other line
        touched = self.touch_along.reshape(-1).nonzero()[0]
        index = _ACROSS_KEYS.searchsorted(np.minimum(key.reshape(-1)[touched], _ACROSS_CAP))
        state = _COLOUR_STATE_FLAT[tiles.reshape(-1)[touched] * _STATES + lights.reshape(-1)[touched]] % 3
        self.across = np.full(2 * n * (n + 1), _NOTHING_ACROSS, dtype=np.int64)
        self.across[g.other[touched]] = 3 * index + state  # light 0, dark 1, mixed 2

    def windows(self, most: int) -> tuple[np.ndarray, ...]:
        """Candidate windows as (line, start, length, board tiles' key, their colour state, empty cells), in
        line, start, length order: 2..`most` empty cells, inside the board, the cells just outside empty, and
        after the first move holding or touching a board tile."""
        n, g = self.size, self.geometry
        flat, free = self.sums.reshape(-1), self.free.reshape(-1)
        sums = flat.take(g.window_hi) - flat.take(g.window_lo)  # [_, l, s, L - 1]: window [s, s + L)
        empties = _SPAN + 1 - sums[0]
        ok = (empties >= 2) & (empties <= most) & g.fits & free.take(g.after_end) & free.take(g.before_start)
        if not self.first:
            ok &= (sums[0] + sums[3]) > 0
        found = ok.reshape(-1).nonzero()[0]
        line, start, last = found // (n * MAX_HAND), found // MAX_HAND % n, found % MAX_HAND
        fixed, key, lights = sums[:3].reshape(3, -1).take(found, axis=1)
        return line, start, last + 1, key, _COLOUR_STATE_FLAT[fixed * _STATES + lights], empties.reshape(-1)[found]

    def window_moves(
        self, rack: RackCombos, rack_size: int, ordered: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions, lengths, points) of every legal move of 2+ tiles."""
        n = self.size
        if self.first and not ordered:
            return self._opening_moves(rack, rack_size)
        line, start, length, key, state, empties = self.windows(min(MAX_HAND, rack_size))
        # every window against the rack's combos of its size: one table lookup
        first_combo = rack.combos_of[empties]
        count = rack.combos_of[empties + 1] - first_combo
        pair_window = np.arange(len(count)).repeat(count)
        pair_combo = np.arange(len(pair_window)) + (first_combo + count - count.cumsum()).repeat(count)
        hand = HAND_TABLE[key[pair_window] + rack.key[pair_combo]]
        valid = (hand >= 0).nonzero()[0]
        pair_window, pair_combo = pair_window[valid], pair_combo[valid]
        window_code = (state + 1) + 4 * (length == MAX_HAND) + 8 * (empties == RACK_SIZE)
        points = (
            hand[valid]
            + _WINDOW_BONUS[window_code[pair_window], rack.state[pair_combo]]
            + FIRST_MOVE_BONUS * self.first
        )
        if ordered:
            order = self._group_order(line, start, length, state, empties, pair_window)
            pair_window, pair_combo, points = pair_window[order], pair_combo[order], points[order]
        # each window's empty cells, left-aligned, as flat line positions l * (n + 1) + p (p = n: padding)
        span = start[:, None] + _SPAN
        empty = (_SPAN < length[:, None]) & self.free.reshape(-1)[
            (line * (n + 2 * MAX_HAND) + MAX_HAND)[:, None] + span
        ]
        at = np.where(empty, span, n)
        at.sort(axis=1)
        at += (line * (n + 1))[:, None]
        across = self.across[at]
        if not self.first:  # drop pairs where some empty cell accepts none of the combo's faces across
            fits = np.logical_and.reduce(
                (_ACROSS_ALLOWED[across][pair_window] & rack.face_bits[pair_combo][:, None]) != 0, 1
            )
            pair_window, pair_combo, points = pair_window[fits], pair_combo[fits], points[fits]
        # every valid (window, combo) with every ordering of the combo
        count = rack.count[pair_combo]
        row = np.arange(count.sum()) + (rack.start[pair_combo] + count - count.cumsum()).repeat(count)
        faces = rack.orderings[row]
        window = pair_window.repeat(count)
        points = points.repeat(count)
        if not self.first:
            gains = np.add.reduce(_ACROSS[(across * (NUM_FACES + 1))[window] + faces], 1)  # < 0 if one is BLOCKED
            ok = (gains >= 0).nonzero()[0]  # (face -1, padding, reads a 0)
            faces, window, points = faces[ok], window[ok], points[ok] + gains[ok]
        return faces * self.cells + self.geometry.cell[at][window], empties[window], points

    def _opening_moves(self, rack: RackCombos, rack_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The first move, where a combo's points do not depend on where it lies: each valid ordering of the rack's
        combos of L tiles is laid on every line of L cells at once, straight into the result."""
        sizes = []
        for length, cells in zip(range(2, min(MAX_HAND, rack_size) + 1), _opening_cells(self.size)):
            combo = np.arange(rack.combos_of[length], rack.combos_of[length + 1])
            hand = HAND_TABLE[rack.key[combo]]
            combo = combo[hand >= 0]
            window_code = NO_TILES + 1 + (4 + 8) * (length == MAX_HAND)
            points = hand[hand >= 0] + _WINDOW_BONUS[window_code, rack.state[combo]] + FIRST_MOVE_BONUS
            count = rack.count[combo]
            faces = rack.orderings[np.arange(count.sum()) + (rack.start[combo] + count - count.cumsum()).repeat(count)]
            sizes.append((length, cells, faces, points.repeat(count)))
        total = sum(len(faces) * len(cells) for _, cells, faces, _ in sizes)
        actions, lengths, points = (
            np.empty((total, MAX_HAND), dtype=np.int64),
            np.empty(total, dtype=np.int64),
            np.empty(total, dtype=np.int64),
        )
        done = 0
        for length, cells, faces, face_points in sizes:
            rows = slice(done, done + len(faces) * len(cells))
            np.add(faces[:, None, :] * self.cells, cells, out=actions[rows].reshape(len(faces), len(cells), MAX_HAND))
            lengths[rows] = length
            points[rows] = face_points.repeat(len(cells))
            done = rows.stop
        return actions, lengths, points

    def _group_order(self, line, start, length, state, empties, pair_window) -> np.ndarray:
        """The pairs' permutation into the players' order: rows before columns, tile counts in the order their
        smallest group code comes, group code (board tiles' order key, colour state, empty cells)."""
        n = self.size
        primes = _PRIME_BY_CODE[self.code[line[:, None], self.geometry.starts[start] + _SPAN]]
        order_key = np.where(_SPAN < length[:, None], primes, 1).prod(1)
        code = (((order_key * 4 + state + 1) * 8 + empties) + ((line >= n).astype(np.int64) << 40))[pair_window]
        count_class = (line[pair_window] >= n) * 8 + empties[pair_window]
        class_first = np.full(16, np.iinfo(np.int64).max)
        np.minimum.at(class_first, count_class, code)
        return np.lexsort((code, class_first[count_class]))

    def single_tile_moves(self, rack: RackCombos) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions, lengths, points) of every legal one-tile move: valid hands along and across the cell."""
        n = self.size
        touched = (self.touch_along[:n] | self.touch_across[:n]).reshape(-1).nonzero()[0]
        rows, cols = touched // n, touched % n
        faces = np.array(rack.faces, dtype=np.int64)
        across = _ACROSS.reshape(-1, NUM_FACES + 1)
        points = across[self.across[rows * (n + 1) + cols][:, None], faces]  # the column's hand
        points += across[self.across[(n + cols) * (n + 1) + rows][:, None], faces]  # the row's
        legal = (points >= 0).reshape(-1).nonzero()[0]
        cell, face = legal // len(faces), legal % len(faces)
        actions = np.full((len(legal), MAX_HAND), -1, dtype=np.int64)
        actions[:, 0] = faces[face] * self.cells + touched[cell]
        return actions, np.ones(len(legal), dtype=np.int64), points.reshape(-1)[legal]


def oracle_moves(values: np.ndarray, colours: np.ndarray, rack: Sequence[int], ordered: bool = True) -> MoveSet:
    """Every legal move for a player holding `rack` (tile kinds) on this board (values 0 = empty); `ordered`:
    in the players' order (see the module's docstring), else in whatever order is cheapest."""
    if not len(rack):
        return EMPTY_MOVES
    board = _Board(np.asarray(values), np.asarray(colours))
    combos = rack_combos(tuple(sorted(map(int, rack))))
    moves = board.window_moves(combos, len(rack), ordered)
    if not board.first:
        moves = tuple(np.concatenate(column) for column in zip(moves, board.single_tile_moves(combos)))
    return MoveSet(*moves)

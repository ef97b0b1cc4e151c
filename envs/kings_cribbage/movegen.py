"""Every legal move of a turn, enumerated at once (the sub-step masks are derived from this set).

A move fills some empty cells of one row or column. After the move those cells and the board tiles between
them form one maximal line `[a, b]` (the cells just outside it stay empty), so a move of 2+ tiles is fully
described by its *window* `[a, b]` — the tiles fill exactly the window's empty cells — plus the faces laid
there. Rows and columns are handled together as 2n padded lines (rows first, then the columns); sums over
windows and over the runs of tiles beside a cell come from prefix sums along the lines. Every window is
paired with the rack's combos of its number of empty cells (rack.py) and each pair's main hand is one
table lookup (its key is the board tiles' key plus the combo's). Pairs where some empty cell accepts none
of the combo's faces across are dropped (one bit test per cell); the rest are expanded to every ordering of
the combo and checked against the hands across each empty cell. One-tile moves have no
direction and are read cell by cell from the same cross-hand table. Nothing loops in Python over windows,
combos or cells, so a turn costs a fixed number of numpy calls whatever the board.

A move is a sequence of place actions `face * cells + cell` in increasing cell order: one move, one sequence.
Moves are listed rows before columns, then by group (board tiles' order key, colour state, empty cells;
tile counts in the order their first group comes), window, combo and ordering, one-tile moves last. This is
the order of the earlier generator, kept because heuristics break ties by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from tabletop.envs.kings_cribbage.rack import FACE_BIT, FACE_KEY, MIXED, RackCombos, rack_combos
from tabletop.envs.kings_cribbage.scoring import INVALID, MAX_HAND, TILE_KEY, hand_points
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, NUM_FACES, RACK_SIZE

FIRST_MOVE_BONUS = 10
FULL_RACK_BONUS = 10
ONE_COLOUR_BONUS = 10
NO_TILES = 2  # colour state of an empty set of tiles besides LIGHT (0) / DARK (1) / MIXED (-1)
_TILE_KEY = np.array((0, *TILE_KEY[1:]), dtype=np.int64)  # by value; empty cells (0) add nothing
# by value: the earlier generator's key (a product of primes), which still orders groups in the move list
_ORDER_PRIME = np.array((1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41), dtype=np.int64)
_SPAN = np.arange(MAX_HAND)
_FAR = 1 << 20  # past every position
BLOCKED = -(1 << 20)  # a face that makes an invalid hand across: any sum of gains holding it stays negative


@dataclass(frozen=True)
class MoveSet:
    """All legal moves of one turn: `actions[i, :lengths[i]]` are move i's place actions, `points[i]` its score."""

    actions: np.ndarray
    lengths: np.ndarray
    points: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)


EMPTY_MOVES = MoveSet(np.zeros((0, MAX_HAND), dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


def _colour_states(most: int) -> np.ndarray:
    """[tiles, light tiles]: the colour state of a set of tiles (one lookup instead of nested wheres)."""
    tiles, lights = np.indices((most + 1, most + 1))
    return np.where(tiles == 0, NO_TILES, np.where(lights == tiles, 0, np.where(lights == 0, 1, MIXED)))


_COLOUR_STATE = _colour_states(64)  # more tiles than a line of the largest board (26) holds
_NO_CLASS = np.full(16, np.iinfo(np.int64).max)


def _one_colour_bonus(length, fixed_state, new_state) -> np.ndarray:
    """+10 where the finished hand has exactly 5 tiles, all of one colour."""
    same = (new_state != MIXED) & ((fixed_state == NO_TILES) | (fixed_state == new_state))
    return np.where((length == MAX_HAND) & same, ONE_COLOUR_BONUS, 0)


def _ragged(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For blocks of `counts` items laid end to end: each item's block and its index inside the block."""
    block = np.repeat(np.arange(len(counts)), counts)
    return block, np.arange(len(block)) - np.repeat(np.cumsum(counts) - counts, counts)


@lru_cache(maxsize=None)
def _offsets(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Padded-line indices for a board of size n: where each window [s, s + L) starts, (n, 1), and ends (one
    past), (n, 5) by L - 1, and which windows fit on the board."""
    starts = MAX_HAND + np.arange(n)[:, None]
    ends = starts + _SPAN + 1
    return starts, ends, ends <= MAX_HAND + n


def _prefix_sums(*grids: np.ndarray) -> np.ndarray:
    """(len(grids), lines, width + 1): sums along each line before each index, so [a, b) sums to s[b] - s[a]."""
    stacked = np.stack(grids).astype(np.int64)
    sums = np.zeros(stacked.shape[:2] + (stacked.shape[2] + 1,), dtype=np.int64)
    np.cumsum(stacked, axis=2, out=sums[:, :, 1:])
    return sums


class _Board:
    """The board as 2n lines (rows, then columns), each padded with MAX_HAND empty cells on both sides."""

    def __init__(self, values: np.ndarray, colours: np.ndarray):
        n = self.size = values.shape[0]
        self.cells = n * n
        self.first = not values.any()
        self.starts, self.ends, self.fits = _offsets(n)
        self.line_base = np.arange(2 * n)[:, None] * (n + 2 * MAX_HAND + 1)  # line starts in flat prefix sums
        padded = np.zeros((2 * n, n + 2 * MAX_HAND), dtype=np.int64)  # value + 16 for a dark tile
        padded[:n, MAX_HAND : MAX_HAND + n] = values + 16 * colours
        padded[n:, MAX_HAND : MAX_HAND + n] = padded[:n, MAX_HAND : MAX_HAND + n].T
        padded[padded == 16] = 0  # an empty cell is empty whatever its colour entry
        self.occ = padded > 0
        self.order_prime = _ORDER_PRIME[padded % 16]
        # cells with a tile beside them across their line: in the neighbouring lines of the same direction
        near = np.zeros(self.occ.shape, dtype=bool)
        near[1:] = self.occ[:-1]
        near[:-1] |= self.occ[1:]
        near[n - 1] = self.occ[n - 2]  # the last row and the first column are no neighbours
        near[n] = self.occ[n + 1]
        touch_across = near & ~self.occ
        # prefix sums of tiles, keys, light tiles, touched cells
        self.sums = _prefix_sums(self.occ, _TILE_KEY[padded % 16], self.occ & (padded < 16), touch_across)
        # the runs of tiles beside each cell along its line: [lo, cell) and (cell, hi)
        index = np.arange(padded.shape[1])
        before = np.maximum.accumulate(np.where(self.occ, 0, index), axis=1)  # last empty cell at or before
        after = np.minimum.accumulate(np.where(self.occ, index[-1], index)[:, ::-1], axis=1)[:, ::-1]
        cell = index[MAX_HAND : MAX_HAND + n]
        lo, hi = before[:, MAX_HAND - 1 : MAX_HAND - 1 + n] + 1, after[:, MAX_HAND + 1 : MAX_HAND + 1 + n]
        ends = np.empty((4, 2 * n, n), dtype=np.int64)  # flat indices of the prefix sums to read
        ends[0], ends[1], ends[2], ends[3] = cell, lo, hi, cell + 1
        ends += self.line_base
        at = self.sums[:3].reshape(3, -1)[:, ends]
        tiles, key, lights = at[:, 0] - at[:, 1] + at[:, 2] - at[:, 3]  # [lo, cell) and (cell, hi)
        self.touch_along = (tiles > 0) & ~self.occ[:, MAX_HAND : MAX_HAND + n]
        self.touch_across = touch_across[:, MAX_HAND : MAX_HAND + n]
        self.across, self.allowed = self._hands_across(tiles, key, lights)

    def _hands_across(self, tiles: np.ndarray, key: np.ndarray, lights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The hands across each cell of each line, i.e. with the tiles beside it along the perpendicular line:
        flattened (2n, n, faces + 1) points of the hand face f makes at [l, p, f] (0 without such tiles,
        BLOCKED for an invalid or too long hand, 0 in the last column, read by the padding face -1), and per
        cell l * n + p the faces allowed there as bits (-1: all; one more entry, for padding, allows all)."""
        n = self.size
        line, pos = np.nonzero(self.touch_along)
        t = tiles[line, pos]
        points = hand_points(key[line, pos][:, None] + FACE_KEY)
        bonus = _one_colour_bonus(t[:, None] + 1, _COLOUR_STATE[t, lights[line, pos]][:, None], FACE_COLOUR[None, :])
        table = np.zeros((2 * n * n, NUM_FACES + 1), dtype=np.int64)
        across_cell = np.where(line < n, pos + n, pos) * n + line % n  # the cell as seen from the other line
        table[across_cell, :NUM_FACES] = np.where(points == INVALID, BLOCKED, points + bonus)
        allowed = np.full(2 * n * n + 1, -1, dtype=np.int64)
        allowed[across_cell] = (points != INVALID) @ FACE_BIT
        return table.reshape(-1), allowed

    def windows(self, most: int) -> tuple[np.ndarray, ...]:
        """Candidate windows as (line, start, length, board tiles' key and order key, their colour state, empty
        cells), in line, start, length order: 2..`most` empty cells, inside the board, the cells just outside
        empty, and after the first move holding or touching a board tile."""
        starts, ends = self.starts, self.ends
        sums = self.sums[:, :, ends] - self.sums[:, :, starts]  # [_, l, s, L - 1]: window [s, s + L)
        empties = _SPAN + 1 - sums[0]
        ok = (empties >= 2) & (empties <= most) & self.fits & ~self.occ[:, ends] & ~self.occ[:, starts - 1]
        if not self.first:
            ok &= (sums[0] > 0) | (sums[3] > 0)
        line, start, last = np.nonzero(ok)
        fixed, key, lights = sums[:3, line, start, last]
        cells = starts[start] + _SPAN
        order_key = np.where(_SPAN <= last[:, None], self.order_prime[line[:, None], cells], 1).prod(1)
        return line, start, last + 1, key, order_key, _COLOUR_STATE[fixed, lights], empties[line, start, last]

    def window_moves(self, rack: RackCombos, rack_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions, lengths, points) of every legal move of 2+ tiles."""
        n = self.size
        line, start, length, key, order_key, state, empties = self.windows(min(MAX_HAND, rack_size))
        # every window against the rack's combos of its size: one table lookup
        pair_window, local = _ragged(rack.combos_of[empties + 1] - rack.combos_of[empties])
        pair_combo = rack.combos_of[empties[pair_window]] + local
        hand = hand_points(key[pair_window] + rack.key[pair_combo])
        valid = hand != INVALID
        pair_window, pair_combo = pair_window[valid], pair_combo[valid]
        points = hand[valid] + _one_colour_bonus(length[pair_window], state[pair_window], rack.state[pair_combo])
        # order: rows before columns, tile counts in the order their smallest group code comes, group code
        code = (((order_key * 4 + state + 1) * 8 + empties) + ((line >= n).astype(np.int64) << 40))[pair_window]
        count_class = (line[pair_window] >= n) * 8 + empties[pair_window]
        class_first = _NO_CLASS.copy()
        np.minimum.at(class_first, count_class, code)
        order = np.lexsort((code, class_first[count_class]))
        pair_window, pair_combo, points = pair_window[order], pair_combo[order], points[order]
        points += FULL_RACK_BONUS * (empties[pair_window] == RACK_SIZE) + FIRST_MOVE_BONUS * self.first
        # each window's empty cells: index of their across hands, their cell (padding: see below)
        span = start[:, None] + _SPAN
        empty = (_SPAN < length[:, None]) & ~self.occ[line[:, None], span + MAX_HAND]
        pos = np.sort(np.where(empty, span, _FAR), axis=1)
        pad = pos == _FAR
        pos[pad] = 0
        across_at = np.where(pad, NUM_FACES + 1, ((line[:, None] * n + pos) * (NUM_FACES + 1)))
        cell = np.where(line[:, None] < n, line[:, None] * n + pos, pos * n + line[:, None] - n)
        cell[pad] = self.cells - 1  # face -1 makes action -1
        if not self.first:  # drop pairs where some empty cell accepts none of the combo's faces across
            allowed = self.allowed[np.where(pad, 2 * n * n, line[:, None] * n + pos)]
            fits = ((allowed[pair_window] & rack.face_bits[pair_combo, None]) != 0).all(1)
            pair_window, pair_combo, points = pair_window[fits], pair_combo[fits], points[fits]
        # every valid (window, combo) with every ordering of the combo
        pair, at = _ragged(rack.count[pair_combo])
        faces = rack.orderings[rack.start[pair_combo][pair] + at]
        window = pair_window[pair]
        points = points[pair]
        if not self.first:
            gains = self.across[across_at[window] + faces]  # face -1 (padding) reads a 0
            gains = gains[:, 0] + gains[:, 1] + gains[:, 2] + gains[:, 3] + gains[:, 4]  # < 0 if one is BLOCKED
            ok = np.flatnonzero(gains >= 0)
            faces, window, points = faces[ok], window[ok], points[ok] + gains[ok]
        return faces * self.cells + cell[window], empties[window], points

    def single_tile_moves(self, rack: RackCombos) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions, lengths, points) of every legal one-tile move: valid hands along and across the cell."""
        n = self.size
        rows, cols = np.nonzero(self.touch_along[:n] | self.touch_across[:n])
        faces = np.array(rack.faces, dtype=np.int64)
        across = self.across.reshape(2 * n, n, NUM_FACES + 1)
        vertical = across[rows, cols][:, faces]
        horizontal = across[n + cols, rows][:, faces]
        cell, face = np.nonzero(vertical + horizontal >= 0)
        actions = np.full((len(cell), MAX_HAND), -1, dtype=np.int64)
        actions[:, 0] = faces[face] * self.cells + rows[cell] * n + cols[cell]
        return actions, np.ones(len(cell), dtype=np.int64), vertical[cell, face] + horizontal[cell, face]


def generate_moves(values: np.ndarray, colours: np.ndarray, rack: Sequence[int]) -> MoveSet:
    """Every legal move for a player holding `rack` (tile kinds) on this board (values 0 = empty)."""
    if not len(rack):
        return EMPTY_MOVES
    board = _Board(np.asarray(values), np.asarray(colours))
    combos = rack_combos(tuple(sorted(int(k) for k in rack)))
    parts = [board.window_moves(combos, len(rack))]
    if not board.first:
        parts.append(board.single_tile_moves(combos))
    return MoveSet(*(np.concatenate(column) for column in zip(*parts)))

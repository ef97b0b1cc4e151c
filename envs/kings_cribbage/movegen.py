"""Every legal move of a turn, enumerated at once (the sub-step masks are derived from this set).

A move fills some empty cells of one row or column. After the move those cells and the board tiles between
them form one maximal line `[a, b]` (the cells just outside it stay empty), so a move of 2+ tiles is fully
described by its *window* `[a, b]` — the tiles fill exactly the window's empty cells — plus the faces laid
there. Rows and columns are handled together as 2n padded lines (rows first, then the columns); sums over
windows and over the runs of tiles beside a cell come from prefix sums along the lines. Every window is
paired with the rack's combos of its number of empty cells (rack.py) and each pair's main hand is one
table lookup (its key is the board tiles' key plus the combo's). Pairs where some empty cell accepts none
of the combo's faces across are dropped (one bit test per cell); the rest are expanded to every ordering of
the combo and checked against the hands across each empty cell, read from a table built once at import
(by the tiles beside the cell, their colours and the face laid). One-tile moves have no direction and are
read cell by cell from the same cross-hand table. On the empty board a combo scores the same on every line,
so the opening lays each valid ordering on every line at once. Nothing loops in Python over windows, combos
or cells, so a turn costs a fixed number of numpy calls whatever the board; those calls are methods, ufuncs
and flat `take`s over index tables built once per board size, because on arrays this small numpy's per-call
cost, not the data, is what a turn spends.

A move is a sequence of place actions `face * cells + cell` in increasing cell order: one move, one sequence.
The rules need only the set of moves. `ordered=True` (what players get) lists them rows before columns, then
by group (board tiles' order key, colour state, empty cells; tile counts in the order their first group
comes), window, combo and ordering, one-tile moves last: the order of the earlier generator, kept because
heuristics break ties by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import NamedTuple

import numpy as np

from tabletop.envs.kings_cribbage.rack import FACE_BIT, FACE_KEY, MIXED, RackCombos, rack_combos
from tabletop.envs.kings_cribbage.scoring import HAND_TABLE, INVALID, MAX_HAND, TILE_KEY, TILE_OFFSET, hand_points
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, NUM_FACES, NUM_RANKS, RACK_SIZE

FIRST_MOVE_BONUS = 10
FULL_RACK_BONUS = 10
ONE_COLOUR_BONUS = 10
NO_TILES = 2  # colour state of an empty set of tiles besides LIGHT (0) / DARK (1) / MIXED (-1)
_SPAN = np.arange(MAX_HAND)
BLOCKED = -(1 << 20)  # a face that makes an invalid hand across: any sum of gains holding it stays negative
# a move scores its main hand and one hand across each placed tile, each at most the best hand plus the
# one-colour bonus, plus the opening and full-rack bonuses
MOVE_MOST = (MAX_HAND + 1) * (int(HAND_TABLE.max()) + ONE_COLOUR_BONUS) + FIRST_MOVE_BONUS + FULL_RACK_BONUS


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


def _one_colour_bonus(length, fixed_state, new_state) -> np.ndarray:
    """+10 where the finished hand has exactly 5 tiles, all of one colour."""
    same = (new_state != MIXED) & ((fixed_state == NO_TILES) | (fixed_state == new_state))
    return np.where((length == MAX_HAND) & same, ONE_COLOUR_BONUS, 0)


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


def _window_bonuses() -> np.ndarray:
    """[window code, combo colour state]: the bonuses a window's hand adds besides its points, where the window
    code is (board tiles' colour state + 1) + 4 * (5 cells long) + 8 * (5 empty cells); combo states 0, 1, -1."""
    code = np.arange(16)[:, None]
    fixed, five_long, five_empty = code % 4 - 1, code // 4 % 2, code // 8
    bonus = _one_colour_bonus(np.where(five_long, MAX_HAND, 0), fixed, np.array([0, 1, MIXED]))
    return bonus + FULL_RACK_BONUS * five_empty


_WINDOW_BONUS = _window_bonuses()


def _across_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hand across a cell, by the tiles beside it: their keys, sorted (every multiset of 1-4 ranks, and a
    last key standing for 5+ tiles); per row 3 * key index + colour state (0 light, 1 dark, 2 mixed) the
    points of the hand each face makes, one-colour bonus included, or BLOCKED, then a 0 that the padding
    face -1 of the next row reads; and per row the faces allowed, as bits. One more row, for cells with no
    tile beside them, holds 0 points and allows every face."""
    keys = sorted(
        sum(TILE_KEY[r] for r in ranks)
        for size in range(1, MAX_HAND)
        for ranks in combinations_with_replacement(range(1, NUM_RANKS + 1), size)
    )
    keys = np.array(keys + [MAX_HAND * TILE_OFFSET], dtype=np.int64)
    points = hand_points(keys[:, None] + FACE_KEY)
    tiles = (keys // TILE_OFFSET)[:, None]
    table = np.zeros((len(keys), 3, NUM_FACES + 1), dtype=np.int64)
    for state in (0, 1, MIXED):
        bonus = _one_colour_bonus(tiles + 1, state, FACE_COLOUR)
        table[:, state, :NUM_FACES] = np.where(points == INVALID, BLOCKED, points + bonus)
    rows = np.vstack([table.reshape(-1, NUM_FACES + 1), np.zeros(NUM_FACES + 1, dtype=np.int64)])
    return keys, rows.reshape(-1), np.append(np.repeat((points != INVALID) @ FACE_BIT, 3), -1)


_ACROSS_KEYS, _ACROSS, _ACROSS_ALLOWED = _across_table()
_ACROSS_CAP = _ACROSS_KEYS[-1]
_NOTHING_ACROSS = len(_ACROSS_ALLOWED) - 1  # the row of a cell with no tile beside it across


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


@lru_cache(maxsize=None)
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


@lru_cache(maxsize=None)
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

    def window_moves(self, rack: RackCombos, rack_size: int, ordered: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        points = hand[valid] + _WINDOW_BONUS[window_code[pair_window], rack.state[pair_combo]] + FIRST_MOVE_BONUS * self.first
        if ordered:
            order = self._group_order(line, start, length, state, empties, pair_window)
            pair_window, pair_combo, points = pair_window[order], pair_combo[order], points[order]
        # each window's empty cells, left-aligned, as flat line positions l * (n + 1) + p (p = n: padding)
        span = start[:, None] + _SPAN
        empty = (_SPAN < length[:, None]) & self.free.reshape(-1)[(line * (n + 2 * MAX_HAND) + MAX_HAND)[:, None] + span]
        at = np.where(empty, span, n)
        at.sort(axis=1)
        at += (line * (n + 1))[:, None]
        across = self.across[at]
        if not self.first:  # drop pairs where some empty cell accepts none of the combo's faces across
            fits = np.logical_and.reduce((_ACROSS_ALLOWED[across][pair_window] & rack.face_bits[pair_combo][:, None]) != 0, 1)
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
        actions, lengths, points = np.empty((total, MAX_HAND), dtype=np.int64), np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
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


def generate_moves(values: np.ndarray, colours: np.ndarray, rack: Sequence[int], ordered: bool = True) -> MoveSet:
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

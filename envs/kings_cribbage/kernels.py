"""Kings Cribbage's compiled inner loops (numba, cached on disk): move generation as plain loops over the
board's lines, the windows on them, the rack's combos and their orderings, kept as the turn's pairs of a
window and a combo until the moves are read whole (a tiles-mode turn writes out only those its first place
action begins); the opening kept as the rack's orderings (its first mask and its narrowing read them, not
35-42k moves); the tiles-mode sub-steps (narrowing the moves to the pending tiles, the place mask); the
moves-mode offer's one pass over the moves; the rack templates (a rack's combos and their orderings, built
once per rack pattern: ~120 us where numpy took ~440); and the observation's common part in one call.

A mid-game turn costs about 18 us here where the numpy formulas spent ~0.6 ms in fifty small array calls. Each
array a kernel returns costs about 0.4 us, so the step kernels return one array and the ints that split it.
`movegen.py`, `rules.py` and `offer.py` say what is computed and in which order, and build every table these
loops read (the tables are passed in, so a changed table can never hide behind a stale compiled copy); the
numpy code these loops replaced is the oracle (tests/oracles/kings_cribbage_*.py) of
`tests/envs/kings_cribbage/test_kings_cribbage_kernels.py`.

The board is read as 2n lines, rows then columns: line l < n is row l, line n + c is column c, and a cell's
position on a line is its column (on a row) or its row (on a column).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numba
import numpy as np
from numba.cpython.unsafe import numbers as _bits

from tabletop.envs.kings_cribbage.scoring import FIRST_MOVE_BONUS, MAX_HAND
from tabletop.envs.kings_cribbage.tiles import NUM_FACES, RACK_SIZE

# numba's bit-scan intrinsics, typed for mypy as the integer functions they are inside a kernel
leading_zeros = cast(Callable[[int | np.integer], int], _bits.leading_zeros)
trailing_zeros = cast(Callable[[int | np.integer], int], _bits.trailing_zeros)

BLOCKED = -(1 << 20)  # a face that makes an invalid hand across: any sum of gains holding it stays negative
NO_TILES = 2  # colour state of no tiles, besides light 0, dark 1 and mixed -1
MIXED_COLUMN = 2  # the mixed state's column in tables by [light, dark, mixed]
# the columns of a window's row (`_windows`)
LINE, START, LENGTH, KEY, STATE, EMPTIES, ORDER_KEY = range(7)
# the across keys' hash table (`movegen.ACROSS_SLOTS`): a key's first slot is the top bits of its product with this
HASH_MULTIPLIER = 0x9E3779B97F4A7C15
MEMO_SLOTS = 64  # the slots of `_pairs`' memo of the combos that make a valid hand, by key and empty cells
COLUMN_BIT = 40  # a group code (`_group_code`) marks a column window here; the rest of it is below 2**40
CLASS_SHIFT = 41  # and the rank of its tile-count class goes above


@numba.njit(cache=True)
def _lines(values: np.ndarray, colours: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, dark) along the 2n lines (bytes, as the board: every stage reads them, often), and per line its
    tiles as bits over its positions (a board is at most 26 wide): the stages visit only the cells beside a tile
    (a test per cell of the board mispredicts often, since tiles lie anywhere)."""
    n = values.shape[0]
    both = np.empty((2, 2 * n, n), dtype=np.int8)  # one allocation: a kernel call's allocations are much of its cost
    value, dark = both[0], both[1]
    occupied = np.zeros(2 * n, dtype=np.int64)
    for r in range(n):
        for c in range(n):
            value[r, c] = value[n + c, r] = values[r, c]
            dark[r, c] = dark[n + c, r] = colours[r, c]
            tile = np.int64(values[r, c] != 0)
            occupied[r] |= tile << c
            occupied[n + c] |= tile << r
    return value, dark, occupied


@numba.njit(cache=True, inline="always")
def _beside(occupied, n: int) -> np.int64:
    """The empty positions of a line (its tiles as bits, `occupied`) next to one of its tiles."""
    return ((occupied << 1) | (occupied >> 1)) & ~occupied & ((np.int64(1) << n) - 1)


@numba.njit(cache=True, inline="always")
def _colour_state(tiles: int, lights: int) -> int:
    if tiles == 0:
        return NO_TILES
    if lights == tiles:
        return 0
    return 1 if lights == 0 else -1


@numba.njit(cache=True)
def _tile_spans(occupied, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per line, the first and last position holding a tile on it or on a neighbouring line of the same
    direction ((n, -1) where none), from the lines' tiles as bits: a window that holds or touches a tile lies
    across that span."""
    lines = len(occupied)
    spans = np.empty((2, lines), dtype=np.int64)
    lo, hi = spans[0], spans[1]
    for line in range(lines):
        first = 0 if line < n else n
        near = occupied[line]
        if line > first:
            near |= occupied[line - 1]
        if line + 1 < first + n:
            near |= occupied[line + 1]
        if near:
            lo[line], hi[line] = trailing_zeros(near), 63 - leading_zeros(near)
        else:
            lo[line], hi[line] = n, -1
    return lo, hi


@numba.njit(cache=True)
def _windows(
    value, dark, occupied, tile_key, prime, most: int, first: bool, gain_row, accepts, prune: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidate windows as rows (line, start, length, board tiles' key, their colour state, empty cells, their
    order key), in line, start, length order: 2..`most` empty cells, on the board, the cells just outside
    empty, and after the first move holding or touching a board tile (so only windows across a line's tile
    span are looked at). The order key, the product of a prime per board tile (`prime`, by value), is what the
    players' order compares first. An empty cell touches a tile across where it has a row of `_cross_gains`
    (`gain_row`); with `prune`, no window holds a cell that accepts none of the rack's faces across (two
    windows in three had one: they make no move, but the players' order also reads their hands). With them,
    per window its empty cells in increasing cell order and their rows of `_cross_gains` (left-aligned), from
    the same pass."""
    lines, n = value.shape
    lo, hi = _tile_spans(occupied, n)
    bound = 0  # a start makes at most one window per length
    for line in range(lines):
        if first:
            bound += n * MAX_HAND
        elif hi[line] >= 0:
            bound += (hi[line] + 1 - max(0, lo[line] - MAX_HAND + 1)) * MAX_HAND
    buffer = np.empty(bound * (7 + 2 * MAX_HAND), dtype=np.int64)
    found = buffer[: 7 * bound].reshape((bound, 7))
    cells = buffer[7 * bound : (7 + MAX_HAND) * bound].reshape((bound, MAX_HAND))
    rows = buffer[(7 + MAX_HAND) * bound :].reshape((bound, MAX_HAND))
    empty_cell = np.empty(2 * MAX_HAND, dtype=np.int64)  # the empty cells of the window being extended, their rows
    count = 0
    full = (np.int64(1) << n) - 1
    for line in range(lines):
        tiles_at = occupied[line]
        # the starts looked at whose cell before is empty (or off the board), as bits
        starts = full & ~(tiles_at << 1)
        if not first:
            if hi[line] < 0:
                continue
            low = max(0, lo[line] - MAX_HAND + 1)
            starts &= ((np.int64(1) << (hi[line] + 1)) - 1) & ~((np.int64(1) << low) - 1)
        while starts:
            start = trailing_zeros(starts)
            starts &= starts - 1
            tiles = key = lights = 0
            order_key = 1
            touching = False
            for length in range(1, min(MAX_HAND, n - start) + 1):
                p = start + length - 1
                v = value[line, p]
                if v:
                    tiles, key, lights = tiles + 1, key + tile_key[v], lights + 1 - dark[line, p]
                    order_key *= prime[v]
                else:
                    row = gain_row[line, p]
                    if prune and not accepts[row]:
                        break
                    touching |= row > 0
                    empty_cell[length - tiles - 1] = line * n + p if line < n else p * n + line - n
                    empty_cell[MAX_HAND + length - tiles - 1] = row
                empties = length - tiles
                if tiles_at >> (start + length) & 1:  # (0 past the board's edge)
                    continue
                if 2 <= empties <= most and (first or tiles or touching):
                    window = found[count]
                    window[LINE], window[START], window[LENGTH], window[KEY] = line, start, length, key
                    window[STATE], window[EMPTIES], window[ORDER_KEY] = _colour_state(tiles, lights), empties, order_key
                    for i in range(empties):
                        cells[count, i], rows[count, i] = empty_cell[i], empty_cell[MAX_HAND + i]
                    count += 1
    return found[:count], cells[:count], rows[:count]


@numba.njit(cache=True, inline="always")
def _across_row(slots, rows, shift: int, key: int) -> int:
    """The cross-hand table's row index of an across key: linear probing from its hashed slot, the top bits of
    the product (`shift`: 64 less log2 of the slots; every key that a board can show is in the table)."""
    slot = np.int64((np.uint64(key) * np.uint64(HASH_MULTIPLIER)) >> np.uint64(shift))
    while slots[slot] != key:
        slot = (slot + 1) & (len(slots) - 1)
    return rows[slot]


@numba.njit(cache=True)
def _cross_gains(
    value, dark, occupied, tile_key, across_slots, across_rows, across_points, across_cap, label
) -> tuple[np.ndarray, ...]:
    """What each of the rack's faces (by index into `label`) gains across each empty cell, as a row per cell with
    a tile beside it across: (per line position its row, per row the gain of each face (BLOCKED where it makes
    an invalid hand), per row the faces accepted as bits over those indices). Row 0 is every cell with nothing
    across: 0 for every face. A cell's hand across a line is the runs beside it along the other line: the
    cross-hand table's row for their key (found in the hash table `across_slots`; `across_cap` stands for 5+
    tiles) and colour state (light 0, dark 1, mixed 2): `across_points` holds -1 where the table holds BLOCKED.
    Rows are numbered by line, then position: only the empty cells beside a tile of their line are visited."""
    lines, n = value.shape
    faces = len(label) - 1
    most = lines * n + 1
    buffer = np.empty(lines * n + most * faces + most, dtype=np.int64)
    row_of = buffer[: lines * n].reshape((lines, n))
    gains = buffer[lines * n : lines * n + most * faces].reshape((most, faces))
    accepts = buffer[lines * n + most * faces :]
    row_of[:] = 0
    gains[0], accepts[0] = 0, (1 << faces) - 1
    shift, size = 64, len(across_slots)
    while size > 1:
        shift, size = shift - 1, size >> 1
    touched = 0
    for line in range(lines):
        beside = _beside(occupied[line], n)
        while beside:
            p = trailing_zeros(beside)
            beside &= beside - 1
            tiles = key = lights = 0
            q = p - 1
            while q >= 0 and value[line, q]:
                tiles, key, lights = tiles + 1, key + tile_key[value[line, q]], lights + 1 - dark[line, q]
                q -= 1
            q = p + 1
            while q < n and value[line, q]:
                tiles, key, lights = tiles + 1, key + tile_key[value[line, q]], lights + 1 - dark[line, q]
                q += 1
            state = _colour_state(tiles, lights)
            table_row = 3 * _across_row(across_slots, across_rows, shift, min(key, across_cap)) + (
                MIXED_COLUMN if state < 0 else state
            )
            touched += 1
            if line < n:  # row `line`, column p: the hand across position `line` of column p
                row_of[n + p, line] = touched
            else:
                row_of[p, line - n] = touched
            accepted = 0
            for f in range(faces):
                gain = across_points[table_row, label[f]]
                if gain >= 0:
                    gains[touched, f] = gain
                    accepted |= 1 << f
                else:
                    gains[touched, f] = BLOCKED
            accepts[touched] = accepted
    return row_of, gains[: touched + 1], accepts[: touched + 1]


@numba.njit(cache=True)
def _combo_facts(template_faces, label, face_key, face_colour) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per combo of the rack (`template_faces`: indices into the rack's faces `label`, -1 after the last):
    its hand key, colour state column (light 0, dark 1, mixed 2) and its faces as bits over those indices."""
    combos = template_faces.shape[0]
    facts = np.zeros((3, combos), dtype=np.int64)
    key, state, bits = facts[0], facts[1], facts[2]
    for c in range(combos):
        lights = darks = 0
        for i in range(MAX_HAND):
            if template_faces[c, i] < 0:
                break
            face = label[template_faces[c, i]]
            key[c] += face_key[face]
            bits[c] |= 1 << template_faces[c, i]
            darks += face_colour[face]
            lights += 1 - face_colour[face]
        state[c] = 0 if darks == 0 else (1 if lights == 0 else MIXED_COLUMN)
    return key, state, bits


@numba.njit(cache=True, inline="always")
def _group_code(window, n: int) -> int:
    """The players' order key of a window's moves: board tiles' order key, colour state, empty cells, and
    columns after rows."""
    column = 1 if window[LINE] >= n else 0
    return (window[ORDER_KEY] * 4 + window[STATE] + 1) * 8 + window[EMPTIES] + (column << COLUMN_BIT)


@numba.njit(cache=True)
def _pairs(
    windows,
    rows,
    accepts,
    n,
    combos_of,
    combo_key,
    combo_state,
    combo_bits,
    hand_table,
    window_bonus,
    first: bool,
    ordered: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every window with every rack combo of its number of empty cells that makes a valid main hand and whose
    faces each empty cell accepts across: (window, combo, points of the main hand with its bonuses), and where
    `ordered`, per tile-count class (columns * 8 + empty cells) the smallest group code among the windows with
    a valid main hand, which orders the classes for the players. A window's hands depend only on its board
    tiles' key and its empty cells, which windows share (~25 of ~60 a turn differ): the combos that make a valid
    hand there are looked up once per key and empty cells and kept (a direct-mapped memo of `MEMO_SLOTS`), and
    a window tests only those against its cells (about one combo in seven makes a valid hand)."""
    bound = 0
    for w in range(len(windows)):
        bound += combos_of[windows[w, EMPTIES] + 1] - combos_of[windows[w, EMPTIES]]
    # pairs (window, combo, points), the smallest group code per class, the valid combos (combo, hand) and the
    # memo (per slot its key * 8 + empty cells, where its combos begin, how many)
    buffer = np.empty(5 * bound + 16 + 3 * MEMO_SLOTS, dtype=np.int64)
    pair_window, pair_combo, pair_points = buffer[:bound], buffer[bound : 2 * bound], buffer[2 * bound : 3 * bound]
    valid_combo, valid_hand = buffer[3 * bound : 4 * bound], buffer[4 * bound : 5 * bound]
    class_first = buffer[5 * bound : 5 * bound + 16]
    memo = buffer[5 * bound + 16 :].reshape((MEMO_SLOTS, 3))
    class_first[:] = np.iinfo(np.int64).max
    memo[:, 0] = -1
    count = valid = 0
    for w in range(len(windows)):
        length, key, state, empties = windows[w, LENGTH], windows[w, KEY], windows[w, STATE], windows[w, EMPTIES]
        hands = key * 8 + empties
        slot = (hands ^ hands >> 17) & (MEMO_SLOTS - 1)
        if memo[slot, 0] != hands:  # the combos with a valid hand here, written always and kept where valid
            memo[slot, 0], memo[slot, 1] = hands, valid
            for c in range(combos_of[empties], combos_of[empties + 1]):
                hand = hand_table[key + combo_key[c]]
                valid_combo[valid], valid_hand[valid] = c, hand
                valid += hand >= 0
            memo[slot, 2] = valid - memo[slot, 1]
        begin, end = memo[slot, 1], memo[slot, 1] + memo[slot, 2]
        if begin == end:
            continue
        if ordered:
            count_class = 8 * (windows[w, LINE] >= n) + empties
            class_first[count_class] = min(class_first[count_class], _group_code(windows[w], n))
        window_code = (state + 1) + 4 * (length == MAX_HAND) + 8 * (empties == RACK_SIZE)
        # the faces each empty cell accepts across (every face past the last cell): a combo fits where each
        # cell accepts one of its faces, tested without a branch
        n0, n1 = accepts[rows[w, 0]], accepts[rows[w, 1]]
        n2 = accepts[rows[w, 2]] if empties > 2 else -1
        n3 = accepts[rows[w, 3]] if empties > 3 else -1
        n4 = accepts[rows[w, 4]] if empties > 4 else -1
        for v in range(begin, end):
            c = valid_combo[v]
            bits = combo_bits[c]
            fits = (n0 & bits != 0) & (n1 & bits != 0) & (n2 & bits != 0) & (n3 & bits != 0) & (n4 & bits != 0)
            pair_window[count], pair_combo[count] = w, c
            pair_points[count] = valid_hand[v] + window_bonus[window_code, combo_state[c]] + FIRST_MOVE_BONUS * first
            count += fits
    return pair_window[:count], pair_combo[:count], pair_points[:count], class_first


@numba.njit(cache=True)
def _players_order(windows, pair_window, class_first, n: int) -> np.ndarray:
    """The pairs' permutation into the players' order: tile-count classes in the order of their smallest group
    code, then group code, then as generated (a stable sort)."""
    rank = np.zeros(16, dtype=np.int64)
    for a in range(16):
        for b in range(16):
            rank[a] += class_first[b] < class_first[a]
    key = np.empty(len(pair_window), dtype=np.int64)
    for k in range(len(pair_window)):
        window = windows[pair_window[k]]
        count_class = 8 * (window[LINE] >= n) + window[EMPTIES]
        key[k] = (rank[count_class] << CLASS_SHIFT) + _group_code(window, n)
    return np.argsort(key, kind="mergesort")


@numba.njit(cache=True, inline="always")
def _move_rows(count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Room for `count` moves: (actions, lengths, points), as a `MoveSet` holds them, in one allocation."""
    buffer = np.empty(count * (MAX_HAND + 2), dtype=np.int64)
    actions = buffer[: count * MAX_HAND].reshape((count, MAX_HAND))
    return actions, buffer[count * MAX_HAND : count * (MAX_HAND + 1)], buffer[count * (MAX_HAND + 1) :]


@numba.njit(cache=True, inline="always")
def _emit(actions, lengths, points, m: int, faces, cells, row: int, size: int, score: int, board_cells: int) -> int:
    """Write one move (its `size` faces on `cells[row]`) at row m; return the next row."""
    for i in range(size):
        actions[m, i] = faces[i] * board_cells + cells[row, i]
    for i in range(size, MAX_HAND):
        actions[m, i] = -1
    lengths[m], points[m] = size, score
    return m + 1


@numba.njit(cache=True)
def opening_orderings(
    rack_size,
    template_faces,
    start,
    count,
    orderings,
    combos_of,
    label,
    hand_table,
    window_bonus,
    face_key,
    face_colour,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first move's valid orderings of the rack's combos, once each, by size, combo and ordering: (faces
    [orderings, MAX_HAND] with -1 after the last, sizes, points). Where a combo lies does not change its points,
    so the opening's moves are each of these laid on every line of its size (`opening_moves`). The arguments
    are `turn_pairs`'."""
    combo_key, combo_state, _ = _combo_facts(template_faces, label, face_key, face_colour)
    most = min(MAX_HAND, rack_size)
    total = 0
    for size in range(2, most + 1):
        for c in range(combos_of[size], combos_of[size + 1]):
            if hand_table[combo_key[c]] >= 0:
                total += count[c]
    faces = np.full((total, MAX_HAND), -1, dtype=np.int64)
    sizes = np.empty(total, dtype=np.int64)
    points = np.empty(total, dtype=np.int64)
    t = 0
    for size in range(2, most + 1):
        window_code = NO_TILES + 1 + (4 + 8) * (size == MAX_HAND)
        for c in range(combos_of[size], combos_of[size + 1]):
            hand = hand_table[combo_key[c]]
            if hand < 0:
                continue
            score = hand + window_bonus[window_code, combo_state[c]] + FIRST_MOVE_BONUS
            for r in range(start[c], start[c] + count[c]):
                for i in range(size):
                    faces[t, i] = label[orderings[r, i]]
                sizes[t], points[t] = size, score
                t += 1
    return faces, sizes, points


@numba.njit(cache=True)
def opening_moves(faces, sizes, points, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The opening's moves, unordered: each ordering (`opening_orderings`) on every line of its size, rows
    then columns, by line and start."""
    total = 0
    for t in range(len(sizes)):
        total += 2 * n * (n - sizes[t] + 1)
    actions, lengths, move_points = _move_rows(total)
    cells = np.empty((1, MAX_HAND), dtype=np.int64)
    m = 0
    for t in range(len(sizes)):
        size = sizes[t]
        for column in range(2):
            for line in range(n):
                for first in range(n - size + 1):
                    for i in range(size):
                        cells[0, i] = (first + i) * n + line if column else line * n + first + i
                    m = _emit(actions, lengths, move_points, m, faces[t], cells, 0, size, points[t], n * n)
    return actions, lengths, move_points


@numba.njit(cache=True)
def opening_mask(mask, faces, sizes, n: int) -> None:
    """Into the zeroed `mask`: the opening's first place actions, read from its orderings (`opening_moves`
    need not be built). A face begins a move at a cell where its shortest ordering fits rightwards or
    downwards."""
    shortest = np.full(NUM_FACES, n + 1, dtype=np.int64)
    for t in range(len(sizes)):
        shortest[faces[t, 0]] = min(shortest[faces[t, 0]], sizes[t])
    for face in range(len(shortest)):
        size = shortest[face]
        for r in range(n):
            for c in range(n):
                if c + size <= n or r + size <= n:
                    mask[face * n * n + r * n + c] = 1


@numba.njit(cache=True)
def opening_narrow(faces, sizes, points, n: int, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`narrow(*opening_moves(...), 0, action)` without building the opening's moves: the orderings that
    begin with the action's face, laid rightwards then downwards from its cell where they fit."""
    face, cell = action // (n * n), action % (n * n)
    r, c = cell // n, cell % n
    total = 0
    for t in range(len(sizes)):
        if faces[t, 0] == face:
            total += (c + sizes[t] <= n) + (r + sizes[t] <= n)
    actions, lengths, move_points = _move_rows(total)
    cells = np.empty((1, MAX_HAND), dtype=np.int64)
    m = 0
    for t in range(len(sizes)):
        size = sizes[t]
        if faces[t, 0] != face:
            continue
        if c + size <= n:
            for i in range(size):
                cells[0, i] = cell + i
            m = _emit(actions, lengths, move_points, m, faces[t], cells, 0, size, points[t], n * n)
        if r + size <= n:
            for i in range(size):
                cells[0, i] = cell + i * n
            m = _emit(actions, lengths, move_points, m, faces[t], cells, 0, size, points[t], n * n)
    return actions, lengths, move_points


# the columns of a pair's row (`turn_pairs`): its main hand's points with their bonuses, its combo, its empty
# cells' count, whether any of them has a tile beside it across, then the cells (-1 after the last) and their
# rows of `_cross_gains` (0 after the last)
P_POINTS, P_COMBO, P_EMPTIES, P_ACROSS, P_CELLS = range(5)
P_ROWS = P_CELLS + MAX_HAND
PAIR_COLUMNS = P_ROWS + MAX_HAND
# a turn's store (`turn_pairs`) begins with the sizes of its parts: pair rows, gain rows, gain columns, one-tile
# moves; the pairs, the gains and the one-tile moves follow, then the first place actions
STORE_HEADER = 4


@numba.njit(cache=True, inline="always")
def _unstore(store) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(pairs, gains, one-tile moves, where the first place actions begin) of a turn's store."""
    pairs_at = STORE_HEADER
    gains_at = pairs_at + store[0] * PAIR_COLUMNS
    singles_at = gains_at + store[1] * store[2]
    legal_at = singles_at + 2 * store[3]
    return (
        store[pairs_at:gains_at].reshape((store[0], PAIR_COLUMNS)),
        store[gains_at:singles_at].reshape((store[1], store[2])),
        store[singles_at:legal_at].reshape((store[3], 2)),
        legal_at,
    )


@numba.njit(cache=True, inline="always")
def _laid(pairs, k: int, gains, orderings, r: int) -> int:
    """The points of pair k's combo laid in ordering r, or -1 where a tile makes an invalid hand across."""
    score = pairs[k, P_POINTS]
    if pairs[k, P_ACROSS]:
        for i in range(pairs[k, P_EMPTIES]):
            gain = gains[pairs[k, P_ROWS + i], orderings[r, i]]
            if gain < 0:  # BLOCKED across
                return -1
            score += gain
    return score


@numba.njit(cache=True, inline="always")
def _moves_bound(pairs, singles, count, cell: int, action: int) -> int:
    """At most how many moves `write_moves` writes (every ordering of the pairs it looks at, every one-tile move)."""
    bound = len(singles)
    for k in range(len(pairs)):
        if action < 0 or pairs[k, P_CELLS] == cell:
            bound += count[pairs[k, P_COMBO]]
    return bound


@numba.njit(cache=True, inline="always")
def _write_rows(pairs, gains, singles, start, count, orderings, label, n: int, action: int, actions, lengths, points):
    """`write_moves` into the rows given (`_moves_bound` of them); how many it wrote."""
    board_cells = n * n
    face, cell = action // board_cells, action % board_cells
    m = 0
    for k in range(len(pairs)):
        if action >= 0 and pairs[k, P_CELLS] != cell:
            continue
        c, empties = pairs[k, P_COMBO], pairs[k, P_EMPTIES]
        for r in range(start[c], start[c] + count[c]):
            if action >= 0 and label[orderings[r, 0]] != face:
                continue
            score = _laid(pairs, k, gains, orderings, r)
            if score < 0:
                continue
            for i in range(empties):
                actions[m, i] = label[orderings[r, i]] * board_cells + pairs[k, P_CELLS + i]
            for i in range(empties, MAX_HAND):
                actions[m, i] = -1
            lengths[m], points[m] = empties, score
            m += 1
    for s in range(len(singles)):
        if action < 0 or singles[s, 0] == action:
            actions[m, 0] = singles[s, 0]
            for i in range(1, MAX_HAND):
                actions[m, i] = -1
            lengths[m], points[m] = 1, singles[s, 1]
            m += 1
    return m


@numba.njit(cache=True)
def write_moves(
    store, start, count, orderings, label, n: int, action: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moves of a turn's store (`turn_pairs`) written out (actions, lengths, points), in their order: every
    ordering of each pair's combo that makes valid hands across, then the one-tile moves. `action` >= 0: only
    the moves that begin with it (the first place step of a turn)."""
    pairs, gains, singles, _ = _unstore(store)
    actions, lengths, points = _move_rows(_moves_bound(pairs, singles, count, action % (n * n), action))
    m = _write_rows(pairs, gains, singles, start, count, orderings, label, n, action, actions, lengths, points)
    return actions[:m], lengths[:m], points[:m]


@numba.njit(cache=True)
def turn_pairs(
    values, colours, rack_size, template, label, ordered, tables, table_bytes, mask
) -> tuple[np.ndarray, int, bool]:
    """A turn's legal moves, not written out: every window with every combo of the rack that makes a move there,
    as rows (the `P_` columns) in the order `movegen.generate_moves` documents (`write_moves` writes them).
    Returns them as one array, the turn's store (one array out of a kernel costs ~0.4 us): those pairs, each
    cell's gains across, the one-tile moves as rows (action, points) and the first place actions ascending
    (from the second value on). The first actions are marked in `mask`, cleared first (empty: none are wanted, and an
    empty array comes back for them); an ordering is checked across only where its first action is not marked yet.
    The last value says whether the board is empty: the first move is here only in the players' order
    (unordered, it is `opening_moves`, and nothing else is computed).

    The rack: its distinct faces `label` (sorted, then -1) and its combos as a template of indices into them
    (rack.py's, `pack`ed: faces, start, count, orderings, combos_of); the tables: movegen.py's, `pack`ed into
    `tables` (the int64 ones, then the scalars: the across cap and where the cross-hand points begin in
    `table_bytes`) and `table_bytes` (the hand table, then the cross-hand points). A kernel call pays for each
    argument (~60 ns), so they come as four arrays, not nineteen."""
    value, dark, occupied = _lines(values, colours)
    n = values.shape[0]
    first = not occupied.any()
    if first and not ordered:
        return np.zeros(STORE_HEADER, dtype=np.int64), STORE_HEADER, True
    template_faces, start, count, orderings, combos_of = _template_parts(template)
    tile_key, prime, across_slots, across_rows = _part(tables, 0), _part(tables, 1), _part(tables, 2), _part(tables, 3)
    window_bonus = _part(tables, 4).reshape((len(_part(tables, 4)) // 3, 3))
    face_key, face_colour, scalars = _part(tables, 5), _part(tables, 6), _part(tables, 7)
    across_cap, hand_table = scalars[0], table_bytes[: scalars[1]]
    across_points = table_bytes[scalars[1] :].reshape(((len(table_bytes) - scalars[1]) // NUM_FACES, NUM_FACES))
    most = min(MAX_HAND, rack_size)
    combo_key, combo_state, combo_bits = _combo_facts(template_faces, label, face_key, face_colour)
    gain_row, gains, accepts = _cross_gains(
        value, dark, occupied, tile_key, across_slots, across_rows, across_points, across_cap, label
    )
    windows, cells, rows = _windows(value, dark, occupied, tile_key, prime, most, first, gain_row, accepts, not ordered)
    pair_window, pair_combo, pair_points, class_first = _pairs(
        windows,
        rows,
        accepts,
        n,
        combos_of,
        combo_key,
        combo_state,
        combo_bits,
        hand_table,
        window_bonus,
        first,
        ordered,
    )
    if ordered:
        order = _players_order(windows, pair_window, class_first, n)
        pair_window, pair_combo, pair_points = pair_window[order], pair_combo[order], pair_points[order]
    faces_held = len(label) - 1
    # scratch: the one-tile moves (written always, kept where valid), then the first actions marked as bits: per
    # face of the rack (by index into `label`) a bit per cell, read back in order without a scan of the mask
    words = (n * n + 63) // 64
    scratch = np.empty(2 * (0 if first else n * n * faces_held) + faces_held * words, dtype=np.int64)
    singles = scratch[: len(scratch) - faces_held * words].reshape((len(scratch) - faces_held * words) // 2, 2)
    marks = scratch[len(scratch) - faces_held * words :].reshape((faces_held, words))
    marks[:] = 0
    marking = len(mask) > 0
    if marking:
        mask[:] = 0
    s = 0
    if not first:  # one-tile moves: a valid hand along or across the cell, none invalid
        for r in range(n):
            beside = _beside(occupied[r], n)  # the empty cells of row r with a tile beside them, either way
            if r > 0:
                beside |= occupied[r - 1] & ~occupied[r]
            if r + 1 < n:
                beside |= occupied[r + 1] & ~occupied[r]
            while beside:
                c = trailing_zeros(beside)
                beside &= beside - 1
                along, across = gains[gain_row[r, c]], gains[gain_row[n + c, r]]
                cell = r * n + c
                for f in range(faces_held):  # written always, kept where valid (no branch to mispredict)
                    score = along[f] + across[f]
                    singles[s, 0], singles[s, 1] = label[f] * n * n + cell, score
                    valid = score >= 0
                    s += valid
                    if marking:
                        mask[label[f] * n * n + cell] |= valid
                        marks[f, cell >> 6] |= np.int64(valid) << (cell & 63)
    # the store in one allocation, the pairs written straight into it; room for the first actions: a pair begins
    # at most one per empty cell (one per face of its combo), a one-tile move one, and one slot to spare (the
    # marked actions are written before they are counted)
    pair_count = len(pair_combo)
    room = 0
    if len(mask):
        room = s + 1
        for k in range(pair_count):
            room += windows[pair_window[k], EMPTIES]
    parts = STORE_HEADER + pair_count * PAIR_COLUMNS + gains.size + 2 * s
    store = np.empty(parts + room, dtype=np.int64)
    store[0], store[1], store[2], store[3] = pair_count, gains.shape[0], gains.shape[1], s
    pairs = store[STORE_HEADER : STORE_HEADER + pair_count * PAIR_COLUMNS].reshape((pair_count, PAIR_COLUMNS))
    for k in range(pair_count):
        w = pair_window[k]
        empties = windows[w, EMPTIES]
        pairs[k, P_POINTS], pairs[k, P_COMBO], pairs[k, P_EMPTIES] = pair_points[k], pair_combo[k], empties
        across = 0
        for i in range(MAX_HAND):
            pairs[k, P_CELLS + i] = cells[w, i] if i < empties else -1
            pairs[k, P_ROWS + i] = rows[w, i] if i < empties else 0
            across |= rows[w, i] if i < empties else 0
        pairs[k, P_ACROSS] = across != 0
    at = _put(store, STORE_HEADER + pair_count * PAIR_COLUMNS, gains)
    _put(store, at, singles[:s])
    if not len(mask):
        return store, parts, first
    _mark_first(mask, marks, pairs, accepts, template_faces, start, count, orderings, label, n * n)
    marked = _marked_actions(store[parts:], marks, label, n * n)
    return store[: parts + marked], parts, first


def pack(*parts: np.ndarray) -> np.ndarray:
    """Arrays end to end (each flattened, as int64) after a header of where each begins and the last ends: what a
    kernel reads as one argument (`_part`)."""
    ends = np.cumsum([len(parts) + 1] + [np.size(part) for part in parts])
    return np.concatenate([ends, *(np.ravel(part) for part in parts)]).astype(np.int64)


@numba.njit(cache=True, inline="always")
def _part(packed, i: int) -> np.ndarray:
    """Part i of `pack`ed arrays, flat."""
    return packed[packed[i] : packed[i + 1]]


@numba.njit(cache=True, inline="always")
def _template_parts(template) -> tuple[np.ndarray, ...]:
    """A `pack`ed rack template's arrays: faces, start, count, orderings, combos_of (rack.py's `Template`)."""
    faces, orderings = _part(template, 0), _part(template, 3)
    return (
        faces.reshape((len(faces) // MAX_HAND, MAX_HAND)),
        _part(template, 1),
        _part(template, 2),
        orderings.reshape((len(orderings) // MAX_HAND, MAX_HAND)),
        _part(template, 4),
    )


@numba.njit(cache=True, inline="always")
def _put(store, at: int, part) -> int:
    """Copy the rows of `part` into `store` from `at` on; return where the next part begins."""
    for i in range(part.shape[0]):
        for j in range(part.shape[1]):
            store[at] = part[i, j]
            at += 1
    return at


@numba.njit(cache=True)
def _mark_first(mask, marks, pairs, accepts, template_faces, start, count, orderings, label, board_cells) -> None:
    """Into `mask` (the one-tile moves' first actions already marked) and `marks` (the same as bits per face
    index and cell): the first place action of every move of the pairs. An ordering is checked across only where
    its first action is not marked yet: it is a move where each empty cell accepts its face (`accepts`:
    `_cross_gains`'), tested as bits without a branch."""
    for k in range(len(pairs)):
        c, cell, empties = pairs[k, P_COMBO], pairs[k, P_CELLS], pairs[k, P_EMPTIES]
        word, bit = cell >> 6, np.int64(1) << (cell & 63)
        if not pairs[k, P_ACROSS]:  # every ordering is a move, and each face of the combo begins one
            for i in range(empties):
                face = template_faces[c, i]
                mask[label[face] * board_cells + cell] = 1
                marks[face, word] |= bit
            continue
        # per empty cell the faces it accepts; all bits past the last, which the orderings' -1 padding reads
        a0, a1 = accepts[pairs[k, P_ROWS]], accepts[pairs[k, P_ROWS + 1]]
        a2 = accepts[pairs[k, P_ROWS + 2]] if empties > 2 else -1
        a3 = accepts[pairs[k, P_ROWS + 3]] if empties > 3 else -1
        a4 = accepts[pairs[k, P_ROWS + 4]] if empties > 4 else -1
        for r in range(start[c], start[c] + count[c]):
            face = orderings[r, 0]
            action = label[face] * board_cells + cell
            if mask[action]:
                continue
            fits = a0 >> face & a1 >> orderings[r, 1] & a2 >> (orderings[r, 2] & 63)
            fits &= a3 >> (orderings[r, 3] & 63) & a4 >> (orderings[r, 4] & 63) & 1
            mask[action] = fits
            marks[face, word] |= fits << (cell & 63)


@numba.njit(cache=True)
def count_moves(store, start, count, orderings) -> int:
    """How many moves a turn's store (`turn_pairs`) holds (what `write_moves` would write)."""
    pairs, gains, singles, _ = _unstore(store)
    moves = len(singles)
    for k in range(len(pairs)):
        c = pairs[k, P_COMBO]
        for r in range(start[c], start[c] + count[c]):
            moves += _laid(pairs, k, gains, orderings, r) >= 0
    return moves


@numba.njit(cache=True)
def pairs_place_step(
    store, template, label, n: int, action: int, mask, commit: int
) -> tuple[np.ndarray, int, int, int]:
    """`place_step` at depth 0 on a turn kept as `turn_pairs` gives it: the moves that begin with `action`
    written out, their next place actions marked in `mask` (cleared first) and listed, and the points of the
    one-tile move `action` is (-1: none). One array holds the legal actions, then the moves' actions, lengths
    and points (one array out of a kernel costs ~0.4 us); the ints say how many legal actions and moves. It is
    one allocation: room for the legal actions, then for the moves, closed up once they are counted. The rack's
    template comes `pack`ed, as `turn_pairs` reads it."""
    _, start, count, orderings, _ = _template_parts(template)
    pairs, gains, singles, _ = _unstore(store)
    bound = _moves_bound(pairs, singles, count, action % (n * n), action)
    at = bound + 1  # the moves begin here; the legal actions (at most one per move, and the commit) end here
    out = np.empty(at + (MAX_HAND + 2) * bound, dtype=np.int64)
    actions = out[at : at + MAX_HAND * bound].reshape((bound, MAX_HAND))
    lengths, points = out[at + MAX_HAND * bound : at + (MAX_HAND + 1) * bound], out[at + (MAX_HAND + 1) * bound :]
    moves = _write_rows(pairs, gains, singles, start, count, orderings, label, n, action, actions, lengths, points)
    listed = _mark_rows(mask, actions, lengths, lengths, True, moves, 1, commit, out)
    complete = complete_points(lengths[:moves], points, lengths, True, 1)
    # close up, in an order that reads each value before it is overwritten: lengths and points right after the
    # moves' actions (moved towards the front), the legal actions right before them (moved towards the back)
    end = at + MAX_HAND * moves
    for k in range(moves):
        out[end + k] = lengths[k]
    for k in range(moves):
        out[end + moves + k] = points[k]
    for i in range(listed - 1, -1, -1):
        out[at - listed + i] = out[i]
    return out[at - listed : end + 2 * moves], listed, moves, complete


@numba.njit(cache=True)
def _marked_actions(found, marks, label, cells: int) -> int:
    """Into `found`: the place actions marked (`marks`: per face index of the rack's `label`, ascending, a bit per
    cell), ascending; how many."""
    count = 0
    for f in range(len(label) - 1):
        for word in range(marks.shape[1]):
            bits = marks[f, word]
            while bits:
                found[count] = label[f] * cells + word * 64 + trailing_zeros(bits)
                bits &= bits - 1
                count += 1
    return count


@numba.njit(cache=True)
def narrow(actions, lengths, points, depth: int, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moves whose place action at `depth` is `action` (in their order): one pass, not three masks."""
    keep = 0
    for k in range(len(lengths)):
        keep += actions[k, depth] == action
    kept_actions, kept_lengths, kept_points = _move_rows(keep)
    m = 0
    for k in range(len(lengths)):
        if actions[k, depth] == action:
            kept_actions[m] = actions[k]
            kept_lengths[m], kept_points[m] = lengths[k], points[k]
            m += 1
    return kept_actions, kept_lengths, kept_points


@numba.njit(cache=True, inline="always")
def _row(rows, every: bool, k: int) -> int:
    """The k-th move looked at: row k of the moves (`every`), else row `rows[k]`."""
    return k if every else rows[k]


@numba.njit(cache=True)
def place_step(
    actions, lengths, points, rows_in, rows_at: int, every: bool, depth: int, action: int, mask, commit: int
) -> tuple[np.ndarray, int, int]:
    """The tiles-mode place step in one call, on the moves extending the pending tiles (every move, or the rows
    `rows_in[rows_at:]`, ascending): the rows whose place action at `depth` is `action`, then `mark_legal` at
    `depth + 1` on them (the mask and the legal actions after a step are always read next, by the driver and the
    check of the following action). Returns one array, the legal actions then those rows (one array out of a
    kernel costs ~0.4 us), how many legal actions, and the points of the move the `depth + 1` tiles complete
    (-1: none; the commit reads it)."""
    rows = rows_in[rows_at:]
    looked = len(lengths) if every else len(rows)
    # one allocation: room for the legal actions (at most one per row kept, and the commit), then the rows kept
    at = looked + 1
    out = np.empty(at + looked, dtype=np.int64)
    m = 0
    for k in range(looked):
        row = _row(rows, every, k)
        if actions[row, depth] == action:
            out[at + m] = row
            m += 1
    kept = out[at : at + m]
    listed = _mark_rows(mask, actions, lengths, kept, False, m, depth + 1, commit, out)
    for i in range(listed - 1, -1, -1):  # the legal actions right before the rows kept
        out[at - listed + i] = out[i]
    return out[at - listed : at + m], listed, complete_points(lengths, points, kept, False, depth + 1)


@numba.njit(cache=True)
def complete_points(lengths, points, rows, every: bool, depth: int) -> int:
    """The points of the move that the `depth` pending tiles complete among the moves extending them (every
    move, or the rows `rows`): moves are distinct sets of place actions, so at most one has that length. -1
    where none does."""
    for k in range(len(lengths) if every else len(rows)):
        row = _row(rows, every, k)
        if lengths[row] == depth:
            return points[row]
    return -1


@numba.njit(cache=True, inline="always")
def _sort_front(values, count: int) -> None:
    """Sort `values[:count]` in place: a place step lists a few actions, where `sort`'s set-up costs more than
    an insertion sort (~0.5 us of a ~1.8 us call); longer lists (the opening's) are sorted by `sort`."""
    if count > 16:
        values[:count].sort()
        return
    for i in range(1, count):
        value, j = values[i], i - 1
        while j >= 0 and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value


@numba.njit(cache=True, inline="always")
def _mark_rows(mask, actions, lengths, rows, every: bool, looked: int, depth: int, commit: int, found) -> int:
    """`mark_legal` on the first `looked` moves looked at, its actions into `found` (room for `looked` + 1):
    how many."""
    mask[:] = 0
    count = 0
    complete = False
    for k in range(looked):
        row = _row(rows, every, k)
        if lengths[row] > depth:
            action = actions[row, depth]
            if not mask[action]:
                mask[action] = 1
                found[count] = action
                count += 1
        elif depth and lengths[row] == depth:
            complete = True
    _sort_front(found, count)
    if complete:  # after every place action
        mask[commit] = 1
        found[count] = commit
        count += 1
    return count


@numba.njit(cache=True)
def mark_legal(mask, actions, lengths, rows, every: bool, depth: int, commit: int) -> np.ndarray:
    """Into `mask`, cleared first (a caller may hand it over unwritten: `np.empty` costs less than `np.zeros`):
    the place action at `depth` of every move looked at (every move, or the rows `rows`), and `commit` where
    one is complete. Returns the actions marked, ascending (read from the moves, not from a scan of the whole
    mask)."""
    looked = len(lengths) if every else len(rows)
    found = np.empty(looked + 1, dtype=np.int64)
    return found[: _mark_rows(mask, actions, lengths, rows, every, looked, depth, commit, found)]


@numba.njit(cache=True)
def offer_contenders(
    actions, points, rack, action_kind, action_distance, limit: int, far: int
) -> tuple[np.ndarray, ...]:
    """Per move its leave key (the kinds it lays, counted in base RACK_SIZE + 1 over the rack's sorted distinct
    kinds: equal exactly for moves that leave the same rack) and its rank key (points * `far` - centre
    distance: higher ranks first), and the moves that can be offered (offer.py): each leave's best by rank key,
    and every move at least as good as the `limit`-th best. `action_kind` and `action_distance` are by place
    action: the kind it lays, its cell's centre distance."""
    weight = np.zeros(action_kind.max() + 1, dtype=np.int64)
    place = 1
    for i in range(len(rack)):
        if i == 0 or rack[i] != rack[i - 1]:
            weight[rack[i]] = place
            place *= RACK_SIZE + 1
    moves = len(points)
    leave = np.zeros(moves, dtype=np.int64)
    key = np.empty(moves, dtype=np.int64)
    best = np.full(place, np.iinfo(np.int64).min, dtype=np.int64)
    for k in range(moves):
        away = 0
        for i in range(MAX_HAND):
            action = actions[k, i]
            if action < 0:
                break
            leave[k] += weight[action_kind[action]]
            away += action_distance[action]
        key[k] = points[k] * far - away
        best[leave[k]] = max(best[leave[k]], key[k])
    least = np.partition(key, moves - limit)[moves - limit] if moves > limit else np.iinfo(np.int64).min
    keep = 0
    for k in range(moves):
        keep += key[k] >= least or key[k] == best[leave[k]]
    index = np.empty(keep, dtype=np.int64)
    m = 0
    for k in range(moves):
        if key[k] >= least or key[k] == best[leave[k]]:
            index[m] = k
            m += 1
    return leave, key, index


@numba.njit(cache=True)
def offer_slots(leave, limit: int) -> np.ndarray:
    """Of moves in ranking order (their leave keys), the positions offered, in that order: the first move of
    every leave, the first `limit` of those if there are more, then the best others until `limit`."""
    seen = np.zeros(leave.max() + 1, dtype=np.bool_)
    leader = np.zeros(len(leave), dtype=np.bool_)
    leaders = 0
    for i in range(len(leave)):
        if not seen[leave[i]]:
            seen[leave[i]] = leader[i] = True
            leaders += 1
    others = max(0, limit - leaders)
    chosen = np.empty(min(limit, len(leave)), dtype=np.int64)
    m = taken_leaders = taken_others = 0
    for i in range(len(leave)):
        if leader[i] and taken_leaders < limit:
            taken_leaders += 1
        elif not leader[i] and taken_others < others:
            taken_others += 1
        else:
            continue
        chosen[m] = i
        m += 1
    return chosen


@numba.njit(cache=True)
def rack_pattern(rack, kind_faces) -> tuple[int, np.ndarray]:
    """(pattern code, label) of a rack of kinds (any order): `label` its distinct faces sorted, then -1; the code
    equal exactly for racks whose sorted tiles offer the same choices among those faces (rack.py's
    `rack_options`): per tile, 1 + its first face's index + 11 * (1 + its second's, or 0), in base 121, the
    first tile lowest (every digit is at least 1, so racks of fewer tiles get codes of their own)."""
    kinds = rack.copy()
    _sort_front(kinds, len(kinds))
    faces = np.empty(2 * len(kinds) + 1, dtype=np.int64)
    held = 0
    for i in range(len(kinds)):
        if i == 0 or kinds[i] != kinds[i - 1]:
            for j in range(2):
                if kind_faces[kinds[i], j] >= 0:
                    faces[held] = kind_faces[kinds[i], j]
                    held += 1
    _sort_front(faces, held)
    faces[held] = -1
    code = 0
    for i in range(len(kinds) - 1, -1, -1):
        digit, weight = 0, 1
        for j in range(2):
            face = kind_faces[kinds[i], j]
            if face >= 0:
                index = 0  # its place among the sorted faces (at most 10: a scan)
                while faces[index] < face:
                    index += 1
                digit += weight * (1 + index)
            weight *= 11
        code = code * 121 + digit
    return code, faces[: held + 1]


@numba.njit(cache=True)
def rack_combos(options, choices, order_rows, order_start, order_count, pad: int, least: int) -> tuple[np.ndarray, ...]:
    """A rack template's arrays (rack.py's `Template`: faces, size, start, count, orderings, combos_of) from
    each tile's options (`options[i]`: `pad` for absent, then its face indices, -1 after them) and every choice
    of one option per tile (`choices`): the chosen faces sorted, combos of fewer than `least` tiles dropped,
    duplicates merged, by size then faces; each combo's distinct orderings read from the per-pattern tables."""
    tiles = options.shape[0]
    chosen = np.empty((len(choices), MAX_HAND + 1), dtype=np.int64)  # faces, then the sort code
    kept = 0
    for r in range(len(choices)):
        row = chosen[kept]
        usable, size = True, 0
        for i in range(tiles):
            face = options[i, choices[r, i]]
            usable &= face >= 0
            row[i] = face
            size += face != pad
        if not usable or size < least:
            continue
        for i in range(tiles, MAX_HAND):
            row[i] = pad
        row[:MAX_HAND] = np.sort(row[:MAX_HAND])
        code = size
        for i in range(MAX_HAND):
            code = code * (pad + 1) + row[i]
        row[MAX_HAND] = code
        kept += 1
    order = np.argsort(chosen[:kept, MAX_HAND], kind="mergesort")
    combos = 0
    for i in range(kept):
        combos += i == 0 or chosen[order[i], MAX_HAND] != chosen[order[i - 1], MAX_HAND]
    faces = np.full((combos, MAX_HAND + 1), -1, dtype=np.int64)  # a last -1 column: the orderings' padding
    size = np.zeros(combos, dtype=np.int64)
    start = np.empty(combos, dtype=np.int64)
    count = np.empty(combos, dtype=np.int64)
    pattern = np.empty(combos, dtype=np.int64)
    c = -1
    total = 0
    for i in range(kept):
        row = chosen[order[i]]
        if i and row[MAX_HAND] == chosen[order[i - 1], MAX_HAND]:
            continue
        c += 1
        bits = 0
        for j in range(MAX_HAND):
            if row[j] != pad:
                faces[c, j] = row[j]
                size[c] += 1
                if j and row[j] == row[j - 1]:
                    bits |= 1 << (j - 1)
        pattern[c] = size[c] * 16 + bits
        start[c], count[c] = total, order_count[pattern[c]]
        total += count[c]
    orderings = np.empty((total, MAX_HAND), dtype=np.int64)
    for c in range(combos):
        for k in range(count[c]):
            for j in range(MAX_HAND):
                orderings[start[c] + k, j] = faces[c, order_rows[order_start[pattern[c]] + k, j]]
    combos_of = np.searchsorted(size, np.arange(MAX_HAND + 2))
    return faces[:, :MAX_HAND], size, start, count, orderings, combos_of


@numba.njit(cache=True)
def board_planes(obs, values, colours, rank_at, colour_at) -> int:
    """The observation's board planes, into the zeroed `obs`: 1 at `rank_at[v] + cell` where a tile showing
    value v lies and at `colour_at[colour] + cell`; returns how many tiles lie on the board."""
    n = values.shape[1]
    tiles = 0
    for r in range(values.shape[0]):
        for c in range(n):
            v = values[r, c]
            if v:
                cell = r * n + c
                obs[rank_at[v] + cell] = 1
                obs[colour_at[colours[r, c]] + cell] = 1
                tiles += 1
    return tiles


@numba.njit(cache=True)
def own_tiles(obs, rack, pending, marked, faces, at, cells: int, quarter: float, mover: bool) -> None:
    """The seat's own tiles into the observation `obs` (its board planes already written): the rack by kind,
    the pending move's tiles on the board planes and in `pending` (taken off the mover's rack: they are
    still on it), and the mover's tiles chosen for the exchange. `faces` holds each face's value, colour and
    kind (rows); `at` the offsets of the rank planes, the colour planes, `pending`, `rack` and
    `exchange_chosen`."""
    rank0, colour0, pending0, rack0, chosen0 = at[0], at[1], at[2], at[3], at[4]
    for kind in rack:
        obs[rack0 + kind] += quarter
    for action in pending:
        face, cell = action // cells, action % cells
        obs[rank0 + (faces[0, face] - 1) * cells + cell] = 1
        obs[colour0 + faces[1, face] * cells + cell] = 1
        obs[pending0 + cell] = 1
        if mover:
            obs[rack0 + faces[2, face]] -= quarter
    if mover:
        for kind in marked:
            obs[chosen0 + kind] += quarter


@numba.njit(cache=True)
def encode_table(
    obs,
    values,
    colours,
    rank_at,
    colour_at,
    facts,
    rack_size,
    pending_size,
    faces,
    own_at,
    cells,
    quarter,
    mover,
    counts_at,
    scales,
) -> int:
    """What every observation holds, into the zeroed `obs` in one call (an encoding runs at every step): the
    board planes (`board_planes`), the seat's own tiles (`own_tiles`) and the seats' counts (scores, rack sizes,
    bag sizes) over their `scales` at `counts_at`. `facts` is the seat's rack, then the pending move's place
    actions, then the kinds chosen for the exchange, then the counts (one array: one conversion from Python).
    Returns how many tiles lie on the board."""
    tiles = board_planes(obs, values, colours, rank_at, colour_at)
    pending, counted = rack_size + pending_size, len(facts) - len(scales)
    own_tiles(
        obs, facts[:rack_size], facts[rack_size:pending], facts[pending:counted], faces, own_at, cells, quarter, mover
    )
    for i in range(len(scales)):
        obs[counts_at + i] = np.float32(facts[counted + i]) / scales[i]
    return tiles

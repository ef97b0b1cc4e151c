"""Kings Cribbage's compiled inner loops (numba, cached on disk): move generation as plain loops over the
board's lines, the windows on them, the rack's combos and their orderings, kept as the turn's pairs of a
window and a combo until the moves are read whole (a tiles-mode turn writes out only those its first place
action begins); the opening kept as the rack's orderings (its first mask and its narrowing read them, not
35-42k moves); the tiles-mode sub-steps (narrowing the moves to the pending tiles, the place mask); the
moves-mode offer's one pass over the moves; the rack templates (a rack's combos and their orderings, built
once per rack pattern: ~120 us where numpy took ~440); and the observation's common part in one call.

A mid-game turn costs about 20 us here where the numpy formulas spent ~0.6 ms in fifty small array calls. Each
array a kernel returns costs about 0.4 us, so the step kernels return one array and the ints that split it.
`movegen.py`, `rules.py` and `offer.py` say what is computed and in which order, and build every table these
loops read (the tables are passed in, so a changed table can never hide behind a stale compiled copy); the
numpy code these loops replaced is the oracle (tests/oracles/kings_cribbage_*.py) of
`tests/envs/kings_cribbage/test_kings_cribbage_kernels.py`.

The board is read as 2n lines, rows then columns: line l < n is row l, line n + c is column c, and a cell's
position on a line is its column (on a row) or its row (on a column).
"""

from __future__ import annotations

import numba
import numpy as np

from tabletop.envs.kings_cribbage.scoring import FIRST_MOVE_BONUS, MAX_HAND
from tabletop.envs.kings_cribbage.tiles import NUM_FACES, RACK_SIZE

BLOCKED = -(1 << 20)  # a face that makes an invalid hand across: any sum of gains holding it stays negative
NO_TILES = 2  # colour state of no tiles, besides light 0, dark 1 and mixed -1
MIXED_COLUMN = 2  # the mixed state's column in tables by [light, dark, mixed]
# the columns of a window's row (`_windows`)
LINE, START, LENGTH, KEY, STATE, EMPTIES, ORDER_KEY = range(7)
# the across keys' hash table (`movegen.ACROSS_SLOTS`): a key's first slot is the top bits of its product with this
HASH_MULTIPLIER = 0x9E3779B97F4A7C15
COLUMN_BIT = 40  # a group code (`_group_code`) marks a column window here; the rest of it is below 2**40
CLASS_SHIFT = 41  # and the rank of its tile-count class goes above


@numba.njit(cache=True)
def _lines(values: np.ndarray, colours: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, dark) along the 2n lines (bytes, as the board: every stage reads them, often)."""
    n = values.shape[0]
    both = np.empty((2, 2 * n, n), dtype=np.int8)  # one allocation: a kernel call's allocations are much of its cost
    value, dark = both[0], both[1]
    for r in range(n):
        for c in range(n):
            value[r, c] = value[n + c, r] = values[r, c]
            dark[r, c] = dark[n + c, r] = colours[r, c]
    return value, dark


@numba.njit(cache=True, inline="always")
def _colour_state(tiles: int, lights: int) -> int:
    if tiles == 0:
        return NO_TILES
    if lights == tiles:
        return 0
    return 1 if lights == 0 else -1


@numba.njit(cache=True)
def _tile_spans(value) -> tuple[np.ndarray, np.ndarray]:
    """Per line, the first and last position holding a tile on it or on a neighbouring line of the same
    direction ((n, -1) where none): a window that holds or touches a tile lies across that span."""
    lines, n = value.shape
    spans = np.empty((4, lines), dtype=np.int64)
    own_lo, own_hi, lo, hi = spans[0], spans[1], spans[2], spans[3]
    own_lo[:], own_hi[:] = n, -1
    for line in range(lines):
        for p in range(n):
            if value[line, p]:
                own_lo[line], own_hi[line] = min(own_lo[line], p), p
    lo[:], hi[:] = own_lo, own_hi
    for line in range(lines):
        first = 0 if line < n else n
        for other in (line - 1, line + 1):
            if first <= other < first + n:
                lo[line], hi[line] = min(lo[line], own_lo[other]), max(hi[line], own_hi[other])
    return lo, hi


@numba.njit(cache=True)
def _windows(value, dark, tile_key, prime, most: int, first: bool, gain_row, accepts, prune: bool) -> np.ndarray:
    """Candidate windows as rows (line, start, length, board tiles' key, their colour state, empty cells, their
    order key), in line, start, length order: 2..`most` empty cells, on the board, the cells just outside
    empty, and after the first move holding or touching a board tile (so only windows across a line's tile
    span are looked at). The order key, the product of a prime per board tile (`prime`, by value), is what the
    players' order compares first. An empty cell touches a tile across where it has a row of `_cross_gains`
    (`gain_row`); with `prune`, no window holds a cell that accepts none of the rack's faces across (two
    windows in three had one: they make no move, but the players' order also reads their hands)."""
    lines, n = value.shape
    lo, hi = _tile_spans(value)
    found = np.empty((lines * n * MAX_HAND, 7), dtype=np.int64)
    count = 0
    for line in range(lines):
        starts = range(n) if first else range(max(0, lo[line] - MAX_HAND + 1), hi[line] + 1)
        for start in starts:
            if start > 0 and value[line, start - 1]:
                continue
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
                    if prune and not accepts[gain_row[line, p]]:
                        break
                    touching |= gain_row[line, p] > 0
                empties = length - tiles
                if start + length < n and value[line, start + length]:
                    continue
                if 2 <= empties <= most and (first or tiles or touching):
                    row = found[count]
                    row[LINE], row[START], row[LENGTH], row[KEY] = line, start, length, key
                    row[STATE], row[EMPTIES], row[ORDER_KEY] = _colour_state(tiles, lights), empties, order_key
                    count += 1
    return found[:count]


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
    value, dark, tile_key, across_slots, across_rows, across_points, across_cap, label
) -> tuple[np.ndarray, ...]:
    """What each of the rack's faces (by index into `label`) gains across each empty cell, as a row per cell with
    a tile beside it across: (per line position its row, per row the gain of each face (BLOCKED where it makes
    an invalid hand), per row the faces accepted as bits over those indices). Row 0 is every cell with nothing
    across: 0 for every face. A cell's hand across a line is the runs beside it along the other line: the
    cross-hand table's row for their key (found in the hash table `across_slots`; `across_cap` stands for 5+
    tiles) and colour state (light 0, dark 1, mixed 2): `across_points` holds -1 where the table holds BLOCKED."""
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
        for p in range(n):
            if value[line, p]:
                continue
            tiles = key = lights = 0
            q = p - 1
            while q >= 0 and value[line, q]:
                tiles, key, lights = tiles + 1, key + tile_key[value[line, q]], lights + 1 - dark[line, q]
                q -= 1
            q = p + 1
            while q < n and value[line, q]:
                tiles, key, lights = tiles + 1, key + tile_key[value[line, q]], lights + 1 - dark[line, q]
                q += 1
            if not tiles:
                continue
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
def _window_cells(windows, value, gain_row) -> tuple[np.ndarray, np.ndarray]:
    """Per window its empty cells in increasing cell order and their rows of `_cross_gains` (left-aligned)."""
    n = value.shape[1]
    both = np.empty((2, len(windows), MAX_HAND), dtype=np.int64)
    cells, rows = both[0], both[1]
    for w in range(len(windows)):
        line, start, length = windows[w, LINE], windows[w, START], windows[w, LENGTH]
        i = 0
        for p in range(start, start + length):
            if not value[line, p]:
                cells[w, i] = line * n + p if line < n else p * n + line - n
                rows[w, i] = gain_row[line, p]
                i += 1
    return cells, rows


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
    a valid main hand, which orders the classes for the players. The hand table is large (2.8 MB) and a lookup
    likely a cache miss, so a hand is looked up only where the pair or the class order needs it."""
    bound = 0
    for w in range(len(windows)):
        bound += combos_of[windows[w, EMPTIES] + 1] - combos_of[windows[w, EMPTIES]]
    buffer = np.empty(3 * bound + 16, dtype=np.int64)
    pair_window, pair_combo, pair_points = buffer[:bound], buffer[bound : 2 * bound], buffer[2 * bound : 3 * bound]
    class_first = buffer[3 * bound :]
    class_first[:] = np.iinfo(np.int64).max
    count = 0
    needs = np.empty(MAX_HAND, dtype=np.int64)  # a window's cells that do not accept every face: their faces
    for w in range(len(windows)):
        length, key, state, empties = windows[w, LENGTH], windows[w, KEY], windows[w, STATE], windows[w, EMPTIES]
        window_code = (state + 1) + 4 * (length == MAX_HAND) + 8 * (empties == RACK_SIZE)
        count_class = 8 * (windows[w, LINE] >= n) + empties
        code = _group_code(windows[w], n)
        needed = 0
        for i in range(empties):
            if accepts[rows[w, i]] != accepts[0]:
                needs[needed] = accepts[rows[w, i]]
                needed += 1
        for c in range(combos_of[empties], combos_of[empties + 1]):
            fits = True
            for i in range(needed):
                if not needs[i] & combo_bits[c]:
                    fits = False
                    break
            if not fits and (not ordered or class_first[count_class] <= code):
                continue
            hand = hand_table[key + combo_key[c]]
            if hand < 0:
                continue
            class_first[count_class] = min(class_first[count_class], code)
            if fits:
                pair_window[count], pair_combo[count] = w, c
                pair_points[count] = hand + window_bonus[window_code, combo_state[c]] + FIRST_MOVE_BONUS * first
                count += 1
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


@numba.njit(cache=True)
def write_moves(
    store, start, count, orderings, label, n: int, action: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moves of a turn's store (`turn_pairs`) written out (actions, lengths, points), in their order: every
    ordering of each pair's combo that makes valid hands across, then the one-tile moves. `action` >= 0: only
    the moves that begin with it (the first place step of a turn)."""
    pairs, gains, singles, _ = _unstore(store)
    board_cells = n * n
    face, cell = action // board_cells, action % board_cells
    bound = len(singles)
    for k in range(len(pairs)):
        if action < 0 or pairs[k, P_CELLS] == cell:
            bound += count[pairs[k, P_COMBO]]
    actions, lengths, points = _move_rows(bound)
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
    return actions[:m], lengths[:m], points[:m]


@numba.njit(cache=True)
def turn_pairs(
    values,
    colours,
    rack_size,
    template_faces,
    start,
    count,
    orderings,
    combos_of,
    label,
    ordered,
    tile_key,
    prime,
    hand_table,
    across_slots,
    across_rows,
    across_points,
    across_cap,
    window_bonus,
    face_key,
    face_colour,
    mask,
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
    (rack.py); the tables: movegen.py's."""
    value, dark = _lines(values, colours)
    n = values.shape[0]
    first = not value.any()
    if first and not ordered:
        return np.zeros(STORE_HEADER, dtype=np.int64), STORE_HEADER, True
    most = min(MAX_HAND, rack_size)
    combo_key, combo_state, combo_bits = _combo_facts(template_faces, label, face_key, face_colour)
    gain_row, gains, accepts = _cross_gains(
        value, dark, tile_key, across_slots, across_rows, across_points, across_cap, label
    )
    windows = _windows(value, dark, tile_key, prime, most, first, gain_row, accepts, not ordered)
    cells, rows = _window_cells(windows, value, gain_row)
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
    pairs = np.empty((len(pair_combo), PAIR_COLUMNS), dtype=np.int64)
    for k in range(len(pair_combo)):
        w = pair_window[k]
        empties = windows[w, EMPTIES]
        pairs[k, P_POINTS], pairs[k, P_COMBO], pairs[k, P_EMPTIES], pairs[k, P_ACROSS] = (
            pair_points[k],
            pair_combo[k],
            empties,
            0,
        )
        for i in range(MAX_HAND):
            pairs[k, P_CELLS + i] = cells[w, i] if i < empties else -1
            pairs[k, P_ROWS + i] = rows[w, i] if i < empties else 0
            if i < empties and rows[w, i]:
                pairs[k, P_ACROSS] = 1
    faces_held = len(label) - 1
    singles = np.empty((0 if first else n * n * faces_held, 2), dtype=np.int64)
    s = 0
    if not first:  # one-tile moves: a valid hand along or across the cell, none invalid
        for r in range(n):
            for c in range(n):
                if value[r, c] or not (gain_row[r, c] or gain_row[n + c, r]):  # no tile beside it
                    continue
                for f in range(faces_held):
                    score = gains[gain_row[r, c], f] + gains[gain_row[n + c, r], f]
                    if score >= 0:
                        singles[s, 0], singles[s, 1] = label[f] * n * n + r * n + c, score
                        s += 1
    singles = singles[:s]
    marked = 0
    if len(mask):
        marked = _mark_first(mask, pairs, gains, singles, template_faces, start, count, orderings, label, n * n)
    parts = STORE_HEADER + pairs.size + gains.size + singles.size
    store = np.empty(parts + marked, dtype=np.int64)
    store[0], store[1], store[2], store[3] = len(pairs), gains.shape[0], gains.shape[1], len(singles)
    at = _put(store, STORE_HEADER, pairs)
    at = _put(store, at, gains)
    _put(store, at, singles)
    if marked:
        _marked_actions(store[parts:], mask, label, n * n)
    return store, parts, first


@numba.njit(cache=True, inline="always")
def _put(store, at: int, part) -> int:
    """Copy the rows of `part` into `store` from `at` on; return where the next part begins."""
    for i in range(part.shape[0]):
        for j in range(part.shape[1]):
            store[at] = part[i, j]
            at += 1
    return at


@numba.njit(cache=True)
def _mark_first(mask, pairs, gains, singles, template_faces, start, count, orderings, label, board_cells) -> int:
    """Into `mask`, cleared first: the first place action of every move of the pairs and one-tile moves; how
    many are marked. An ordering is checked across only where its first action is not marked yet."""
    mask[:] = 0
    marked = 0
    for k in range(len(pairs)):
        c = pairs[k, P_COMBO]
        if not pairs[k, P_ACROSS]:  # every ordering is a move, and each face of the combo begins one
            for i in range(pairs[k, P_EMPTIES]):
                action = label[template_faces[c, i]] * board_cells + pairs[k, P_CELLS]
                if not mask[action]:
                    mask[action] = 1
                    marked += 1
            continue
        for r in range(start[c], start[c] + count[c]):
            action = label[orderings[r, 0]] * board_cells + pairs[k, P_CELLS]
            if not mask[action] and _laid(pairs, k, gains, orderings, r) >= 0:
                mask[action] = 1
                marked += 1
    for s in range(len(singles)):
        if not mask[singles[s, 0]]:
            mask[singles[s, 0]] = 1
            marked += 1
    return marked


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
    store, start, count, orderings, label, n: int, action: int, mask, commit: int
) -> tuple[np.ndarray, int, int, int]:
    """`place_step` at depth 0 on a turn kept as `turn_pairs` gives it: the moves that begin with `action`
    written out, their next place actions marked in `mask` (cleared first) and listed, and the points of the
    one-tile move `action` is (-1: none). One array holds the legal actions, then the moves' actions, lengths
    and points (one array out of a kernel costs ~0.4 us); the ints say how many legal actions and moves."""
    actions, lengths, points = write_moves(store, start, count, orderings, label, n, action)
    every = np.empty(0, dtype=np.int64)
    legal = mark_legal(mask, actions, lengths, every, True, 1, commit)
    moves, listed = len(lengths), len(legal)
    out = np.empty(listed + (MAX_HAND + 2) * moves, dtype=np.int64)
    out[:listed] = legal
    at = _put(out, listed, actions)
    out[at : at + moves] = lengths
    out[at + moves :] = points
    return out, listed, moves, complete_points(lengths, points, every, True, 1)


@numba.njit(cache=True)
def _marked_actions(found, mask, label, cells: int) -> None:
    """Into `found`: the place actions marked in `mask`, ascending, read face by face (the rack's `label`,
    ascending) over the faces' blocks of cells."""
    count = 0
    for f in range(len(label) - 1):
        for action in range(label[f] * cells, (label[f] + 1) * cells):
            if mask[action]:
                found[count] = action
                count += 1


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
    kept = np.empty(looked, dtype=np.int64)  # one pass: the rows kept are read from the front of it
    m = 0
    for k in range(looked):
        row = _row(rows, every, k)
        if actions[row, depth] == action:
            kept[m] = row
            m += 1
    kept = kept[:m]
    legal = mark_legal(mask, actions, lengths, kept, False, depth + 1, commit)
    out = np.empty(len(legal) + m, dtype=np.int64)
    out[: len(legal)] = legal
    out[len(legal) :] = kept
    return out, len(legal), complete_points(lengths, points, kept, False, depth + 1)


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


@numba.njit(cache=True)
def mark_legal(mask, actions, lengths, rows, every: bool, depth: int, commit: int) -> np.ndarray:
    """Into `mask`, cleared first (a caller may hand it over unwritten: `np.empty` costs less than `np.zeros`):
    the place action at `depth` of every move looked at (every move, or the rows `rows`), and `commit` where
    one is complete. Returns the actions marked, ascending (read from the moves, not from a scan of the whole
    mask)."""
    mask[:] = 0
    looked = len(lengths) if every else len(rows)
    found = np.empty(looked + 1, dtype=np.int64)
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
    return found[:count]


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

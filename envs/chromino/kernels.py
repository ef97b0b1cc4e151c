"""Chromino's inner loops, compiled with numba: the placement search, the laying of one tile, the
masks and move rows the rules derive from a search, and the turn's steps on arrays for a compiled loop
that plays many actions in one call (a heuristic's search rollout; `rules.py` stays the rules' source).

`table.py` and `rules.py` say what the arrays mean and when a placement is legal; these functions are
their loops over cells and rows, kept here because a step of the game is a few hundred small array
reads that numpy would turn into dozens of temporary arrays. Compiled on first call and cached on disk
(`cache=True`), so a warm start compiles nothing.

Open-end bits (an empty cell's `ends`): bit 1, 2, 4, 8 for an end that points up, down, left, right
into the cell.
"""

from __future__ import annotations

import numba
import numpy as np

from tabletop.envs.chromino.actions import CHOOSE, DRAWN, NUM_ORIENTATIONS, OVER, PLACE
from tabletop.envs.chromino.tiles import ACCEPT_ALL, EMPTY, WILD

PAD = 2  # blocked border cells around the grid so that every cell a loop reads lies in the arrays


@numba.njit(cache=True)
def _bit(dr, dc):
    """The open-end bit of an end pointing towards (dr, dc) into its cell."""
    if dr:
        return 1 if dr < 0 else 2
    return 4 if dc < 0 else 8


@numba.njit(cache=True)
def search_marking(mask, accept, contacts, ends, size, box, tiles, palindrome, junior, oriented_colours):
    """`search` for the tiles `tiles` (both readings of each, one for a palindrome) that also marks the
    choose actions of the placements found (`mask[NUM_ORIENTATIONS * tile + orientation]`): a choose stage's moves and mask
    in one call."""
    moves = search(accept, contacts, ends, size, box, oriented(tiles, palindrome), junior, oriented_colours)
    mark(mask, moves, 0, 0, NUM_ORIENTATIONS, 1)
    return moves


@numba.njit(cache=True)
def oriented(tiles, palindrome):
    """The oriented tiles of `tiles` (`tiles.oriented_tiles`): both readings of each, one for a palindrome."""
    out = np.empty(2 * len(tiles), dtype=np.int64)
    k = 0
    for t in tiles:
        out[k] = 2 * t
        k += 1
        if not palindrome[t]:
            out[k] = 2 * t + 1
            k += 1
    return out[:k]


@numba.njit(cache=True)
def search(accept, contacts, ends, size, box, oriented, junior, oriented_colours):
    """Every legal placement of the oriented tiles `oriented` around the layout's padded bounding box
    `box` (r0, r1, c0, c1): int64 rows (tile, orientation, row, col, contacts), horizontal placements
    before vertical ones, centres in row-major order, then the oriented tiles in the order given."""
    out = np.empty((64, 5), dtype=np.int64)
    n = 0
    r0, r1, c0, c1 = box
    lo, hi = PAD, PAD + size - 1
    for vertical in range(2):
        dr, dc = vertical, 1 - vertical
        along, back, across = _bit(dr, dc), _bit(-dr, -dc), _bit(dc, dr) | _bit(-dc, -dr)
        for r in range(max(r0 - 1 - dr, lo), min(r1 + 1 + dr, hi) + 1):  # centres whose tile can touch the box
            for c in range(max(c0 - 1 - dc, lo), min(c1 + 1 + dc, hi) + 1):
                touching = contacts[r - dr, c - dc] + contacts[r, c] + contacts[r + dr, c + dc]
                if touching == 0 or (touching < 2 and not junior):  # most cells: nothing near (checked first)
                    continue
                a0, a1, a2 = accept[r - dr, c - dc], accept[r, c], accept[r + dr, c + dc]
                if a0 == 0 or a1 == 0 or a2 == 0:
                    continue
                in_line = crosswise = False
                if junior:  # one contact, at an open end: in line at either end, or crosswise at the centre
                    in_line = ((ends[r - dr, c - dc] & along) | (ends[r + dr, c + dc] & back)) != 0
                    crosswise = (ends[r, c] & across) != 0
                    if touching != 1 or not (in_line or crosswise):
                        continue
                elif touching < 2:
                    continue
                for k in oriented:
                    colours = oriented_colours[k]
                    if not ((a0 >> colours[0]) & (a1 >> colours[1]) & (a2 >> colours[2]) & 1):
                        continue
                    if junior and not (in_line or (crosswise and colours[1] == WILD)):
                        continue
                    if n == out.shape[0]:
                        out = np.concatenate((out, np.empty_like(out)))  # room for twice as many
                    out[n, 0], out[n, 1] = k >> 1, 2 * vertical + (k & 1)
                    out[n, 2], out[n, 3], out[n, 4] = r - PAD, c - PAD, touching
                    n += 1
    return out[:n].copy()  # exactly as large as the answer: states keep it


@numba.njit(cache=True)
def places_after(
    colour,
    tile_at,
    contacts,
    accept,
    ends,
    size,
    box,
    moves,
    hand,
    unseen,
    rivals,
    palindrome,
    junior,
    oriented_colours,
):
    """`Table.places_after`: for each placement row of `moves` (tile, orientation, row, col, ...), on the table
    with it laid: the places each tile of `hand` has (-1 for the laid tile), how many of `unseen` have one, and
    whether any of `rivals` has one. A legal placement never covers the start tile, so it is never laid as one."""
    n = len(moves)
    places = np.full((n, len(hand)), -1, dtype=np.int64)
    fits = np.zeros(n, dtype=np.int64)
    rival_fits = np.zeros(n, dtype=np.bool_)
    unseen_oriented, rivals_oriented = oriented(unseen, palindrome), oriented(rivals, palindrome)
    counts = np.zeros(len(palindrome), dtype=np.int64)
    for i in range(n):
        tile, orientation, r, c = moves[i, 0], moves[i, 1], moves[i, 2] + PAD, moves[i, 3] + PAD
        dr, dc = (1, 0) if orientation >= 2 else (0, 1)  # table._STEPS: vertical from orientation 2 on
        contacts_after, accept_after, ends_after = contacts.copy(), accept.copy(), ends.copy()
        colours = oriented_colours[2 * tile + (orientation & 1)]
        lay(
            colour.copy(),
            tile_at.copy(),
            contacts_after,
            accept_after,
            ends_after,
            size,
            tile,
            colours,
            r,
            c,
            dr,
            dc,
            False,
        )
        after = (min(box[0], r - dr), max(box[1], r + dr), min(box[2], c - dc), max(box[3], c + dc))
        rest = oriented(hand[hand != tile], palindrome)
        for row in search(accept_after, contacts_after, ends_after, size, after, rest, junior, oriented_colours):
            counts[row[0]] += 1
        for k in range(len(hand)):
            if hand[k] != tile:
                places[i, k] = counts[hand[k]]
                counts[hand[k]] = 0
        if len(unseen):
            for row in search(
                accept_after, contacts_after, ends_after, size, after, unseen_oriented, junior, oriented_colours
            ):
                counts[row[0]] = 1
            for t in unseen:
                fits[i] += counts[t]
                counts[t] = 0
        if len(rivals):
            found = search(
                accept_after, contacts_after, ends_after, size, after, rivals_oriented, junior, oriented_colours
            )
            rival_fits[i] = len(found) > 0
    return places, fits, rival_fits


@numba.njit(cache=True)
def lay(colour, tile_at, contacts, accept, ends, size, tile, colours, r, c, dr, dc, at_start):
    """Lay tile `tile` (squares `colours` in reading order, its centre on padded cell (r, c), along
    (dr, dc); `at_start`: the start placement) into the arrays and bring the empty cells around it up
    to date. False, with nothing changed, if a square would leave the grid or cover a tile."""
    for k in range(-1, 2):
        rk, ck = r + k * dr, c + k * dc
        if not (PAD <= rk < PAD + size and PAD <= ck < PAD + size) or colour[rk, ck] != EMPTY:
            return False
    for k in range(-1, 2):
        rk, ck = r + k * dr, c + k * dc
        colour[rk, ck], tile_at[rk, ck] = colours[k + 1], tile
        contacts[rk, ck] = accept[rk, ck] = ends[rk, ck] = 0  # kept for empty cells only
    around = np.empty((8, 2), dtype=np.int64)  # three along each long side, then one beyond each end
    i = 0
    for k in range(-1, 2):
        for s in (-1, 1):
            around[i, 0], around[i, 1] = r + k * dr + s * dc, c + k * dc + s * dr
            i += 1
    around[6, 0], around[6, 1], around[7, 0], around[7, 1] = r - 2 * dr, c - 2 * dc, r + 2 * dr, c + 2 * dc
    for i in range(8):
        _refresh(colour, contacts, accept, size, around[i, 0], around[i, 1])
    _open_end(colour, ends, size, r - dr, c - dc, -dr, -dc)
    _open_end(colour, ends, size, r + dr, c + dc, dr, dc)
    if colours[1] == WILD and (at_start or colour[r + dc, c + dr] != EMPTY or colour[r - dc, c - dr] != EMPTY):
        _open_centre(colour, ends, size, r, c, dr, dc)  # it lies crosswise
    for i in range(8):  # the centre of another chameleon that this tile touches: that one now lies crosswise
        nr, nc = around[i, 0], around[i, 1]
        if colour[nr, nc] == WILD:
            if tile_at[nr, nc + 1] == tile_at[nr, nc]:
                _open_centre(colour, ends, size, nr, nc, 0, 1)
            else:
                _open_centre(colour, ends, size, nr, nc, 1, 0)
    return True


@numba.njit(cache=True)
def _open_centre(colour, ends, size, r, c, dr, dc):
    """Both sides of a crosswise chameleon's centre (r, c); the tile lies along (dr, dc)."""
    _open_end(colour, ends, size, r, c, dc, dr)
    _open_end(colour, ends, size, r, c, -dc, -dr)


@numba.njit(cache=True)
def _open_end(colour, ends, size, r, c, dr, dc):
    """The square on (r, c) is open towards (dr, dc) if that neighbour cell is empty and on the grid."""
    tr, tc = r + dr, c + dc
    if colour[tr, tc] == EMPTY and PAD <= tr < PAD + size and PAD <= tc < PAD + size:
        ends[tr, tc] |= _bit(dr, dc)


@numba.njit(cache=True)
def _refresh(colour, contacts, accept, size, r, c):
    """Contacts and acceptance bits of the empty grid cell (r, c) from its four neighbours: any colour
    next to nothing, the one colour touched (or a wild centre), only a wild centre between two colours."""
    if colour[r, c] != EMPTY or not (PAD <= r < PAD + size and PAD <= c < PAD + size):
        return
    count = bits = 0  # occupied neighbours; bit k: a neighbour of colour k (wild centres match anything)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        other = colour[r + dr, c + dc]
        if other != EMPTY:
            count += 1
            if other != WILD:
                bits |= 1 << other
    contacts[r, c] = count
    if not bits:
        accept[r, c] = ACCEPT_ALL
    elif bits & (bits - 1) == 0:  # one colour
        accept[r, c] = bits | (1 << WILD)
    else:
        accept[r, c] = 1 << WILD


@numba.njit(cache=True)
def mark(mask, moves, base, i, stride, j):
    """mask[base + stride * moves[:, i] + moves[:, j]] = 1: the actions that `moves` make legal."""
    for k in range(moves.shape[0]):
        mask[base + stride * moves[k, i] + moves[k, j]] = 1


@numba.njit(cache=True)
def rows_of(moves, tile, orientation):
    """The rows of `moves` that lay `tile` in `orientation`, in their order."""
    keep = np.empty(moves.shape[0], dtype=np.bool_)
    for k in range(moves.shape[0]):
        keep[k] = moves[k, 0] == tile and moves[k, 1] == orientation
    return moves[keep]


# --- the turn, for a compiled loop that plays many actions in one call (a heuristic's search rollout) -------------
# `ChrominoState` (rules.py) is the rules' readable source; these steps play its `_apply_action` on the arrays of
# `ChrominoState.engine_arrays`, and `ChrominoState.resume` takes the position back.

CURRENT, PHASE, CHOSEN, ORIENTATION, DRAWN_TILE, DREW, IDLE, BAG_SIZE, PLACED = range(9)
"""Slots of the `turn` counters: the seat to move, the phase, the chosen tile and its way round, the drawn tile
(-1: none), whether the seat drew this turn, the idle turns in a row, the tiles left in the bag, the placements."""


@numba.njit(cache=True)
def stage_moves(
    accept, contacts, ends, size, box, hands, hand_sizes, turn, junior, chameleon, palindrome, oriented_colours
):
    """`ChrominoState.legal_moves`: the placements the turn stage allows, in the same order."""
    phase, p = turn[PHASE], turn[CURRENT]
    if phase == OVER:
        return np.empty((0, 5), dtype=np.int64)
    if phase == DRAWN:
        tiles = turn[DRAWN_TILE : DRAWN_TILE + 1]
    elif phase == PLACE:
        tiles = turn[CHOSEN : CHOSEN + 1]
    elif hand_sizes[p] == 1 and chameleon[hands[p, 0]]:  # a lone chameleon must draw first
        return np.empty((0, 5), dtype=np.int64)
    else:
        tiles = hands[p, : hand_sizes[p]]
    moves = search(accept, contacts, ends, size, box, oriented(tiles, palindrome), junior, oriented_colours)
    if phase == PLACE:
        return moves[moves[:, 1] == turn[ORIENTATION]]
    return moves


@numba.njit(cache=True)
def choose(turn, tile, orientation):
    """`ChrominoState._apply_action` of a choose action: the tile and its way round, to be laid next."""
    turn[PHASE], turn[CHOSEN], turn[ORIENTATION] = PLACE, tile, orientation


@numba.njit(cache=True)
def place(grids, box, hands, hand_sizes, placements, finished, points, turn, row, col, rules, value, oriented_colours):
    """`ChrominoState._place` of the chosen tile with its centre on (row, col), then the end of the turn. `grids`:
    colour, tile id, contacts, acceptance, open ends; `box`: the padded bounding box, updated; `rules`: the grid
    size, the first player, expert scoring (0/1), the bonus for going out and the penalty a tile left."""
    colour, tile_at, contacts, accept, ends = grids
    size, expert = rules[0], rules[2]
    p, tile, orientation = turn[CURRENT], turn[CHOSEN], turn[ORIENTATION]
    dr, dc = (0, 1) if orientation < 2 else (1, 0)
    r, c = row + PAD, col + PAD
    if expert:
        touched = np.zeros(value.shape[0], dtype=np.bool_)
        for k in range(-1, 2):
            for nr, nc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                t = tile_at[r + k * dr + nr, c + k * dc + nc]
                if t >= 0:
                    touched[t] = True
        points[p] += value[tile] + np.sum(value[touched])
    colours = oriented_colours[2 * tile + (orientation & 1)]
    lay(colour, tile_at, contacts, accept, ends, size, tile, colours, r, c, dr, dc, False)
    box[0], box[1] = min(box[0], r - dr), max(box[1], r + dr)
    box[2], box[3] = min(box[2], c - dc), max(box[3], c + dc)
    k = turn[PLACED]
    placements[k, 0], placements[k, 1], placements[k, 2], placements[k, 3] = tile, orientation, row, col
    turn[PLACED] = k + 1
    hand, n = hands[p], hand_sizes[p]
    k = 0
    while hand[k] != tile:
        k += 1
    hand[k : n - 1] = hand[k + 1 : n]
    hand_sizes[p] = n - 1
    if n == 1:
        finished[p] = True
    end_turn(True, hand_sizes, finished, points, turn, rules)


@numba.njit(cache=True)
def draw(hands, hand_sizes, bag, turn, chameleon):
    """`ChrominoState._draw`: the bag's last tile into the hand (kept sorted); after a lone chameleon's
    compulsory draw the turn goes on as a normal turn, else the drawn tile may be laid or kept."""
    p = turn[CURRENT]
    hand, n = hands[p], hand_sizes[p]
    lone_chameleon = n == 1 and chameleon[hand[0]]
    turn[BAG_SIZE] -= 1
    tile = bag[turn[BAG_SIZE]]
    k = n
    while k > 0 and hand[k - 1] > tile:
        hand[k] = hand[k - 1]
        k -= 1
    hand[k] = tile
    hand_sizes[p] = n + 1
    turn[DREW] = 1
    if lone_chameleon:
        turn[PHASE] = CHOOSE
    else:
        turn[PHASE], turn[DRAWN_TILE] = DRAWN, tile


@numba.njit(cache=True)
def end_turn(placed, hand_sizes, finished, points, turn, rules):
    """`ChrominoState._end_turn` (and `_finish`): the next seat's turn, or the end of the round."""
    n = hand_sizes.shape[0]
    turn[IDLE] = 0 if placed or turn[DREW] else turn[IDLE] + 1
    following = (turn[CURRENT] + 1) % n
    turn[CHOSEN] = turn[DRAWN_TILE] = turn[ORIENTATION] = -1
    turn[DREW] = 0
    if (finished.any() and following == rules[1]) or turn[IDLE] >= n:
        turn[PHASE] = OVER
        if rules[2]:
            for seat in range(n):
                if finished[seat]:
                    points[seat] += rules[3]
                else:
                    points[seat] -= rules[4] * hand_sizes[seat]
    else:
        turn[CURRENT], turn[PHASE] = following, CHOOSE

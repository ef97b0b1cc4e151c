"""Shared helpers for the Chromino tests (no tests here): rule-scenario positions and an independent
legality check written straight from the rules, sharing no code with the engine."""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import PHASES
from tabletop.envs.chromino.rules import ChrominoGame, ChrominoState
from tabletop.envs.chromino.table import Placement
from tabletop.envs.chromino.tiles import tile_id

MIDDLE = 22  # centre of the default 45-cell grid


def scenario(game: ChrominoGame, placements, hands, bag_top=(), current=0, first=0, phase="choose", points=None):
    """A rule scenario's position: `placements` as (name, orientation, row, col); every tile not on the table,
    in a hand or in `bag_top` goes to the bottom of the bag (the next draw is bag_top[0]).

    Scenarios are positions, not saved games: most have no history a game could produce (a three-tile hand
    beside a one-tile hand with only the start tile down), which `from_json` rightly refuses, and the rule each
    one shows does not depend on it. So they are set up with the state's constructor, never loaded."""
    used = {tile_id(p[0]) for p in placements} | {tile_id(t) for h in hands for t in h} | {tile_id(t) for t in bag_top}
    assert len(used) == len(placements) + sum(map(len, hands)) + len(bag_top), "a tile is listed twice"
    rest = [t for t in range(T.NUM_TILES) if t not in used]
    state = ChrominoState(
        game,
        [sorted(tile_id(t) for t in h) for h in hands],
        rest + [tile_id(t) for t in reversed(bag_top)],
        [Placement(tile_id(name), o, r, c) for name, o, r, c in placements],
        first,
    )
    state.current, state.phase = current, PHASES.index(phase)
    state.finished = [not h for h in hands]
    if points is not None:
        state.points = list(points)
    return state


def cells_of(orientation: int, row: int, col: int) -> list[tuple[int, int]]:
    dr, dc = (0, 1) if orientation < 2 else (1, 0)
    return [(row - dr, col - dc), (row, col), (row + dr, col + dc)]


def brute_fits(board: np.ndarray, tile: int, orientation: int, row: int, col: int, min_contacts: int) -> bool:
    """The contact rules, square by square, straight from the colour grid (no shared code)."""
    g = board.shape[0]
    cells = cells_of(orientation, row, col)
    colours = list(T.TILE_COLOURS[tile])
    if orientation % 2:
        colours.reverse()
    contacts = 0
    for (r, c), colour in zip(cells, colours):
        if not (0 <= r < g and 0 <= c < g) or board[r, c] != T.EMPTY:
            return False
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < g and 0 <= nc < g and board[nr, nc] != T.EMPTY:
                contacts += 1
                other = board[nr, nc]
                if colour != T.WILD and other != T.WILD and other != colour:
                    return False
    return contacts >= min_contacts


def brute_legal_cells(board: np.ndarray, tile: int, orientation: int, min_contacts: int) -> np.ndarray:
    """Boolean (g, g) grid of legal centre cells, by whole-grid numpy shifts (independent of Table)."""
    g = board.shape[0]
    padded = np.full((g + 4, g + 4), T.EMPTY, dtype=np.int16)
    padded[2:-2, 2:-2] = board
    inside = np.zeros_like(padded, dtype=bool)
    inside[2:-2, 2:-2] = True
    occupied = padded != T.EMPTY
    ok_for, count = {}, np.zeros_like(padded)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        count += np.roll(occupied, (-dr, -dc), axis=(0, 1))
    for colour in range(6):
        good = inside & ~occupied
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            n = np.roll(padded, (-dr, -dc), axis=(0, 1))
            good &= (n == T.EMPTY) | (n == T.WILD) | (n == colour) | (colour == T.WILD)
        ok_for[colour] = good
    colours = list(T.TILE_COLOURS[tile])
    if orientation % 2:
        colours.reverse()
    dr, dc = (0, 1) if orientation < 2 else (1, 0)
    legal = np.ones_like(occupied)
    total = np.zeros_like(count)
    for k, colour in zip((-1, 0, 1), colours):
        legal &= np.roll(ok_for[colour], (-k * dr, -k * dc), axis=(0, 1))
        total += np.roll(count, (-k * dr, -k * dc), axis=(0, 1))
    legal &= total >= min_contacts
    return legal[2:-2, 2:-2]


def junior_openings(board: np.ndarray, tiles: np.ndarray, vertical: bool) -> dict[tuple[int, int], tuple[int, int]]:
    """The junior ruling, colours aside, for a tile lying vertically (or horizontally): centre cell -> (which of
    its squares, 0-2 in reading order, makes the one contact; the colour it touches) for every placement on
    empty cells that touches the table exactly once, at an open end, in line with it or crosswise at its centre.
    """
    g = board.shape[0]
    occupied = board != T.EMPTY
    d = (1, 0) if vertical else (0, 1)
    # centres whose three cells lie on empty grid cells with one contact in all, by whole-grid shifts
    count = np.zeros((g + 4, g + 4), dtype=np.int64)  # occupied neighbours, on a grid padded by two
    blocked = np.ones((g + 4, g + 4), dtype=np.int64)  # off the grid or occupied
    blocked[2:-2, 2:-2] = occupied
    for e in _STEPS:
        count[2:-2, 2:-2] += np.roll(np.pad(occupied, 1), (-e[0], -e[1]), axis=(0, 1))[1:-1, 1:-1]

    def shifted(a, k):
        return a[2 + k * d[0] : g + 2 + k * d[0], 2 + k * d[1] : g + 2 + k * d[1]]

    free = shifted(blocked, -1) + shifted(blocked, 0) + shifted(blocked, 1) == 0
    single = shifted(count, -1) + shifted(count, 0) + shifted(count, 1) == 1
    found = {}
    for row, col in np.argwhere(free & single).tolist():
        opening = _junior_opening(board, tiles, (row, col), d)
        if opening is not None:
            found[(row, col)] = opening
    return found


_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _junior_opening(board: np.ndarray, tiles: np.ndarray, centre, d) -> tuple[int, int] | None:
    """For a tile centred on `centre` lying along `d` whose cells are empty and touch the table once: (which of
    its squares makes that contact, the colour it touches) if the contact is one the junior ruling allows.

    Straight from the ruling's text and the grids of colours and tile ids (no engine code): an open end is an
    end square of a laid tile whose outward cell along that tile is empty, or a side of the centre of a
    crosswise chameleon (the start tile, horizontal on the middle cell, or a chameleon whose centre touches
    another tile: in a junior layout nothing else ever touches a chameleon's centre). A tile attaches in line
    (an end square on that cell, running straight on) or, a chameleon only, crosswise (its centre there)."""
    g = board.shape[0]

    def occupied(cell):
        return 0 <= cell[0] < g and 0 <= cell[1] < g and board[cell] != T.EMPTY

    cells = [(centre[0] + k * d[0], centre[1] + k * d[1]) for k in (-1, 0, 1)]
    contacts = [
        (i, x, (x[0] + e[0], x[1] + e[1]))
        for i, x in enumerate(cells)
        for e in _STEPS
        if occupied((x[0] + e[0], x[1] + e[1]))
    ]
    if len(contacts) != 1:
        return None
    ((i, x, a),) = contacts
    e = (x[0] - a[0], x[1] - a[1])  # from the laid square to the new one
    across = e not in (d, (-d[0], -d[1]))
    if i == 1:
        new_side_ok = across  # crosswise; that only a chameleon may is judged with the colours
    else:
        new_side_ok = e == (d if i == 0 else (-d[0], -d[1]))
    laid = [tuple(c) for c in np.argwhere(tiles == tiles[a]).tolist()]  # row-major: the middle one is the centre
    along = (laid[2][0] - laid[1][0], laid[2][1] - laid[1][1])
    if a == laid[1]:
        start = laid[1] == (g // 2, g // 2) and along == (0, 1)
        touched = occupied((a[0] + along[1], a[1] + along[0])) or occupied((a[0] - along[1], a[1] - along[0]))
        old_side_ok = board[a] == T.WILD and (start or touched) and e not in (along, (-along[0], -along[1]))
    else:
        old_side_ok = (a[0] - laid[1][0], a[1] - laid[1][1]) == e  # outward from an end square, along its tile
    return (i, int(board[a])) if new_side_ok and old_side_ok else None


def brute_junior_fits(board: np.ndarray, tiles: np.ndarray, tile: int, orientation: int, row: int, col: int) -> bool:
    """One junior placement, judged alone (the fuzz test's check of every placement made)."""
    d = (1, 0) if orientation >= 2 else (0, 1)
    cells = cells_of(orientation, row, col)
    g = board.shape[0]
    if not all(0 <= r < g and 0 <= c < g and board[r, c] == T.EMPTY for r, c in cells):
        return False
    opening = _junior_opening(board, tiles, (row, col), d)
    return opening is not None and _junior_colours_match(tile, orientation, *opening)


def _junior_colours_match(tile: int, orientation: int, i: int, touched: int) -> bool:
    """The touching squares match (a chameleon centre matches anything); only a chameleon lies crosswise."""
    colours = list(T.TILE_COLOURS[tile])
    if orientation % 2:
        colours.reverse()
    return (i != 1 or bool(T.IS_CHAMELEON[tile])) and (T.WILD in (colours[i], touched) or colours[i] == touched)


def brute_junior_cells(board: np.ndarray, tiles: np.ndarray, tile: int, orientation: int, openings=None) -> np.ndarray:
    """Boolean (g, g) grid of legal junior centre cells."""
    if openings is None:
        openings = junior_openings(board, tiles, vertical=orientation >= 2)
    legal = np.zeros(board.shape, dtype=bool)
    for (row, col), (i, touched) in openings.items():
        legal[row, col] = _junior_colours_match(tile, orientation, i, touched)
    return legal


def brute_mask(state) -> np.ndarray:
    """The legal-action mask rebuilt from the rules text, by exhaustive placement search."""
    game = state.game
    a = game.actions
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if state.is_terminal():
        return mask
    view = state.view(None)
    board, tiles, seat = np.asarray(view["board"]), np.asarray(view["tiles"]), view["current_player"]
    hand = list(view["hands"][seat])
    junior = view["variant"] == "junior"
    openings = {o: junior_openings(board, tiles, vertical=o >= 2) for o in (0, 2)} if junior else None

    def legal_cells(tile, orientation):
        if junior:
            return brute_junior_cells(board, tiles, tile, orientation, openings[orientation & 2])
        return brute_legal_cells(board, tile, orientation, 2)

    def orientations(tile):
        return (0, 2) if T.TILE_COLOURS[tile][0] == T.TILE_COLOURS[tile][2] else (0, 1, 2, 3)

    if view["phase"] == "place":
        cells = legal_cells(view["chosen_tile"], view["chosen_orientation"])
        mask[a.start("place") + np.flatnonzero(cells.ravel())] = 1
        return mask
    candidates = [view["drawn_tile"]] if view["phase"] == "drawn" else hand
    if view["phase"] == "choose" and len(hand) == 1 and T.IS_CHAMELEON[hand[0]]:
        candidates = []  # a chameleon may not be the last tile played
    for tile in candidates:
        for o in orientations(tile):
            if legal_cells(tile, o).any():
                mask[a.encode("choose", tile, o)] = 1
    if view["phase"] == "drawn":
        mask[a.start("pass")] = 1
    elif not mask.any():
        mask[a.start("draw") if view["bag"] else a.start("pass")] = 1
    return mask


def hide_differently(state, seat, rng):
    """The same public situation with other hands and the bag dealt differently: the hands of the other seats
    that the public history says nothing about (not the mover's once it drew or chose this turn, not those of
    seats that just passed idle, which had nothing to lay) trade tiles with each other and the bag."""
    data = state.to_json()
    mover_busy = state.phase != 0 or state.drew
    last_mover = state.current if state.is_terminal() else state.current - 1
    idle = {(last_mover - i) % len(data["hands"]) for i in range(state.idle_turns)}
    others = [
        s
        for s, h in enumerate(data["hands"])
        if s != seat and len(h) > 1 and not (mover_busy and s == state.current) and s not in idle
    ]
    pool = data["bag"] + [t for s in others for t in data["hands"][s]]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for s in others:
        k = len(data["hands"][s])
        data["hands"][s], pool = pool[:k], pool[k:]
    data["bag"] = pool
    return state.game.state_from_json(data)

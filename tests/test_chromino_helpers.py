"""Shared helpers for the Chromino tests (no tests here): scenario states from JSON and an independent
legality check written straight from the rules, sharing no code with the engine."""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.chromino.tiles import tile_id, tile_name

MIDDLE = 22  # centre of the default 45-cell grid


def scenario(game: ChrominoGame, placements, hands, bag_top=(), current=0, first=0, phase="choose", **extra):
    """A state from JSON: `placements` as (name, orientation, row, col); every tile not on the table,
    in a hand or in `bag_top` goes to the bottom of the bag (the next draw is bag_top[0])."""
    used = {tile_id(p[0]) for p in placements} | {tile_id(t) for h in hands for t in h} | {tile_id(t) for t in bag_top}
    rest = [tile_name(t) for t in range(T.NUM_TILES) if t not in used]
    data = {
        "game": game.config(),
        "first_player": first,
        "current_player": current,
        "phase": phase,
        "hands": [list(h) for h in hands],
        "bag": rest + list(reversed(bag_top)),
        "placements": [list(p) for p in placements],
        **extra,
    }
    return game.state_from_json(data)


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


def brute_mask(state) -> np.ndarray:
    """The legal-action mask rebuilt from the rules text, by exhaustive placement search."""
    game = state.game
    a = game.actions
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if state.is_terminal():
        return mask
    view = state.view(None)
    board, seat, m = np.asarray(view["board"]), view["current_player"], game.min_contacts
    hand = list(view["hands"][seat])

    def orientations(tile):
        return (0, 2) if T.TILE_COLOURS[tile][0] == T.TILE_COLOURS[tile][2] else (0, 1, 2, 3)

    if view["phase"] == "place":
        cells = brute_legal_cells(board, view["chosen_tile"], view["chosen_orientation"], m)
        mask[a.place_base + np.flatnonzero(cells.ravel())] = 1
        return mask
    candidates = [view["drawn_tile"]] if view["phase"] == "drawn" else hand
    if view["phase"] == "choose" and len(hand) == 1 and T.IS_CHAMELEON[hand[0]]:
        candidates = []  # a chameleon may not be the last tile played
    for tile in candidates:
        for o in orientations(tile):
            if brute_legal_cells(board, tile, o, m).any():
                mask[a.choose(tile, o)] = 1
    if view["phase"] == "drawn":
        mask[a.pass_] = 1
    elif not mask.any():
        mask[a.draw if view["bag"] else a.pass_] = 1
    return mask

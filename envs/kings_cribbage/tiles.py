"""Tiles, faces and board coordinates: the vocabulary every other module speaks.

A *kind* is what a tile physically is (colour, printed rank): 2 colours x 13 ranks = 26 kinds, four tiles
of each (two decks of cards, suits ignored), 104 tiles. A *face* is a kind as it is laid on the board:
every kind lays with its printed rank, and a 6 or a 9 may also be turned around to show the other number,
so each colour has 15 faces (30 in all). Once on the board a tile's value is fixed.
"""

from __future__ import annotations

import numpy as np

COLOURS = ("light", "dark")
LIGHT, DARK = 0, 1
NUM_RANKS = 13
NUM_KINDS = 2 * NUM_RANKS
TILES_PER_KIND = 4
NUM_TILES = NUM_KINDS * TILES_PER_KIND
RACK_SIZE = 5
FACES_PER_COLOUR = NUM_RANKS + 2
NUM_FACES = 2 * FACES_PER_COLOUR
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SHORT_RANK = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")


def kind_of(colour: int, rank: int) -> int:
    return colour * NUM_RANKS + rank - 1


def kind_colour(kind: int) -> int:
    return kind // NUM_RANKS


def kind_rank(kind: int) -> int:
    return kind % NUM_RANKS + 1


def face_value(rank: int) -> int:
    """Points a tile of this rank counts towards fifteens and the leftover deduction (J/Q/K = 10)."""
    return min(rank, 10)


def _face_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per face: the kind it comes from and the value it shows (faces 13/14 of a colour: 6 as 9, 9 as 6)."""
    kinds, values = [], []
    for colour in (LIGHT, DARK):
        for rank in range(1, NUM_RANKS + 1):
            kinds.append(kind_of(colour, rank))
            values.append(rank)
        kinds += [kind_of(colour, 6), kind_of(colour, 9)]
        values += [9, 6]
    kinds_arr = np.array(kinds, dtype=np.int64)
    return kinds_arr, np.array(values, dtype=np.int64), kinds_arr // NUM_RANKS


FACE_KIND, FACE_VALUE, FACE_COLOUR = _face_table()
FACES_OF_KIND: tuple[tuple[int, ...], ...] = tuple(
    tuple(int(f) for f in np.flatnonzero(FACE_KIND == k)) for k in range(NUM_KINDS)
)


def kind_name(kind: int) -> str:
    return f"{COLOURS[kind_colour(kind)]} {RANK_NAMES[kind_rank(kind) - 1]}"


def face_name(face: int) -> str:
    """'dark 6 as 9' for a turned tile, 'light Q' otherwise."""
    kind, value = int(FACE_KIND[face]), int(FACE_VALUE[face])
    name = kind_name(kind)
    return name if value == kind_rank(kind) else f"{name} as {RANK_NAMES[value - 1]}"


def column_letter(col: int) -> str:
    return chr(ord("A") + col)


def cell_name(cell: int, size: int) -> str:
    """Chess-like: column letter then row number, row 1 at the top ('H7')."""
    row, col = divmod(cell, size)
    return f"{column_letter(col)}{row + 1}"

"""The 80 Chromino tiles, generated rather than typed: 75 colour triples up to reversal + 5 chameleons.

A tile is an int id. Ids 0..74 are the normal tiles in lexicographic order of their canonical colour
triple (the smaller of the triple and its reverse); 75..79 are the chameleons R*Y, Y*G, G*B, B*P, P*R.
An *oriented* tile `2 * tile + flip` reads the triple forwards (flip 0) or backwards (flip 1); the
placement search works on oriented tiles so both readings are searched at once.
"""

from __future__ import annotations

from itertools import product

import numpy as np

COLOUR_NAMES = ("red", "yellow", "green", "blue", "purple")
LETTERS = "RYGBP"
NUM_COLOURS = 5
WILD = 5  # a chameleon's centre square: matches every colour
EMPTY = -1
SYMBOLS = LETTERS + "*"


def _generate() -> list[tuple[int, int, int]]:
    normal = sorted({min(seq, seq[::-1]) for seq in product(range(NUM_COLOURS), repeat=3)})
    chameleons = [(c, WILD, (c + 1) % NUM_COLOURS) for c in range(NUM_COLOURS)]
    return normal + chameleons


TILE_COLOURS = np.array(_generate(), dtype=np.int8)
NUM_TILES = len(TILE_COLOURS)
NUM_NORMAL = NUM_TILES - NUM_COLOURS
IS_CHAMELEON = TILE_COLOURS[:, 1] == WILD
PALINDROME = TILE_COLOURS[:, 0] == TILE_COLOURS[:, 2]
# Expert value: distinct colours (1, 2 or 3); a chameleon is worth 3.
VALUE = np.array([3 if ch else len(set(cols)) for cols, ch in zip(TILE_COLOURS.tolist(), IS_CHAMELEON)], dtype=np.int64)

ORIENTED_COLOURS = np.empty((2 * NUM_TILES, 3), dtype=np.int8)
ORIENTED_COLOURS[0::2] = TILE_COLOURS
ORIENTED_COLOURS[1::2] = TILE_COLOURS[:, ::-1]

# Acceptance bits of an empty cell: bit k (k < 5) = colour k may go there, bit 5 = a wild centre may.
# FITS[p, bits, k] says whether square p of oriented tile k may lie on a cell with those bits.
ACCEPT_ALL = (1 << (WILD + 1)) - 1
FITS = np.array(
    [
        [[(bits >> int(colour)) & 1 for colour in ORIENTED_COLOURS[:, p]] for bits in range(ACCEPT_ALL + 1)]
        for p in range(3)
    ],
    dtype=bool,
)

_NAMES = ["".join(SYMBOLS[c] for c in cols) for cols in TILE_COLOURS.tolist()]
_BY_NAME = {name: t for t, name in enumerate(_NAMES)} | {name[::-1]: t for t, name in enumerate(_NAMES)}


def tile_name(tile: int) -> str:
    """Short name such as 'RGB' or 'R*Y' (a chameleon), in the tile's canonical reading."""
    return _NAMES[tile]


def tile_id(name: str) -> int:
    """The tile called `name`, read in either direction ('RGB' and 'BGR' are the same tile)."""
    try:
        return _BY_NAME[name.upper()]
    except KeyError:
        raise ValueError(f"unknown tile {name!r}: three of {SYMBOLS!r}, e.g. 'RGB' or 'R*Y'") from None


def colour_words(colours) -> str:
    """'red-green-blue' for a colour sequence (a wild centre reads 'chameleon')."""
    return "-".join("chameleon" if c == WILD else COLOUR_NAMES[c] for c in colours)


def oriented_tiles(tiles) -> np.ndarray:
    """Oriented-tile indices of `tiles`: both readings, but one only for a palindrome (ABA)."""
    out = []
    for t in tiles:
        out.append(2 * t)
        if not PALINDROME[t]:
            out.append(2 * t + 1)
    return np.array(out, dtype=np.int64)

"""The letter tiles: 56 consonants of 21 kinds (docs/rulings.md), plus the blank, and their text forms."""

from __future__ import annotations

import numpy as np

LETTERS = "BCDFGHJKLMNPQRSTVWXYZ"
"""Tile kinds 0..20, alphabetical. Every clue in the rulebook uses consonants only."""
NUM_LETTERS = len(LETTERS)
BLANK = NUM_LETTERS
"""Tile kind of a blank (a gap in a clue)."""
NUM_TILE_KINDS = NUM_LETTERS + 1
LETTER_INDEX = {ch: i for i, ch in enumerate(LETTERS)}

_COPIES = {**dict.fromkeys("RSTNL", 4), **dict.fromkeys("DGKMPBCHFW", 3), **dict.fromkeys("JQVXYZ", 1)}
LETTER_COUNTS = np.array([_COPIES[ch] for ch in LETTERS], dtype=np.int64)
"""How many tiles of each letter the game holds (56 in all)."""
TOTAL_LETTERS = int(LETTER_COUNTS.sum())


def tile_char(tile: int) -> str:
    return "_" if tile == BLANK else LETTERS[tile]


def tiles_string(tiles: list[int]) -> str:
    """`[G, R, blank, N]` -> `"GR_N"`."""
    return "".join(tile_char(t) for t in tiles)


def parse_tiles(text: str) -> list[int]:
    """`"GR_N"` -> tile kinds; raises ValueError on anything but our (capital) consonants and `_`."""
    tiles = []
    for ch in text:
        if ch == "_":
            tiles.append(BLANK)
        elif ch in LETTER_INDEX:
            tiles.append(LETTER_INDEX[ch])
        else:
            raise ValueError(f"{ch!r} is not a tile; tiles are the capitals {LETTERS} and _ (a blank)")
    return tiles


def counts_string(counts: np.ndarray) -> str:
    """Letter counts -> sorted letters, e.g. `"BDRRS"`."""
    return "".join(ch * int(c) for ch, c in zip(LETTERS, counts))


def parse_counts(text: str) -> np.ndarray:
    """Sorted or unsorted letters (no blanks) -> counts per letter kind."""
    counts = np.zeros(NUM_LETTERS, dtype=np.int64)
    for tile in parse_tiles(text):
        if tile == BLANK:
            raise ValueError(f"{text!r}: blanks are counted separately, not among letters")
        counts[tile] += 1
    return counts


def skeleton(text: str) -> str:
    """The consonant skeleton a clue can spell: our letters of `text`, in order ("green" -> "GRN")."""
    return "".join(ch for ch in text.upper() if ch in LETTER_INDEX)

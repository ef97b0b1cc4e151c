"""The Cromlet board (shipped as board.json) and the card numbering derived from it.

Circles are numbered 0..131 cromlet by cromlet (A first), ascending within a cromlet. A card is
named by its type: type `c` < 132 is the card of circle `c`; type 132 (`WILD`) is any of the six
interchangeable wilds.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np


def _load() -> dict:
    return json.loads(resources.files("tabletop.envs.cromlet").joinpath("board.json").read_text())


_DATA = _load()

LETTERS: tuple[str, ...] = tuple(_DATA["cromlets"])
VALUES_BY_CROMLET: tuple[tuple[int, ...], ...] = tuple(tuple(v) for v in _DATA["cromlets"].values())
NUM_CROMLETS = len(LETTERS)
NUM_CIRCLES = sum(len(v) for v in VALUES_BY_CROMLET)
NUM_WILDS = int(_DATA["wilds"])
NUM_CARDS = NUM_CIRCLES + NUM_WILDS
WILD = NUM_CIRCLES  # the card type of every wild (and its hand-count column)

CROMLET_START = np.cumsum([0] + [len(v) for v in VALUES_BY_CROMLET[:-1]]).astype(np.int64)
CIRCLE_CROMLET = np.repeat(np.arange(NUM_CROMLETS), [len(v) for v in VALUES_BY_CROMLET])
CIRCLE_VALUE = np.concatenate([np.array(v) for v in VALUES_BY_CROMLET]).astype(np.int64)
CROMLET_STOP = CROMLET_START + np.array([len(v) for v in VALUES_BY_CROMLET], dtype=np.int64)
MAX_VALUE = int(CIRCLE_VALUE.max())
MAX_SIZE = max(len(v) for v in VALUES_BY_CROMLET)  # circles in the largest cromlet
CIRCLE_NAMES: tuple[str, ...] = tuple(f"{LETTERS[k]}{v}" for k, vals in enumerate(VALUES_BY_CROMLET) for v in vals)
_CIRCLE_BY_NAME = {name: i for i, name in enumerate(CIRCLE_NAMES)}


def card_name(card: int) -> str:
    """'Q8' for a circle card, 'wild' for any of the six wilds."""
    return CIRCLE_NAMES[card] if card < NUM_CIRCLES else "wild"


def card_type(name: str) -> int:
    """Inverse of `card_name` on card types: 'Q8' -> its circle, 'wild' -> WILD."""
    if name.lower() == "wild":
        return WILD
    if name not in _CIRCLE_BY_NAME:
        raise ValueError(f"unknown Cromlet card {name!r}; cards are a cromlet letter A-X and a circle value, or 'wild'")
    return _CIRCLE_BY_NAME[name]


def cromlet_index(letter: str) -> int:
    if letter not in LETTERS:
        raise ValueError(f"unknown cromlet {letter!r}; cromlets are {LETTERS[0]}-{LETTERS[-1]}")
    return LETTERS.index(letter)


def circles_of(cromlet: int) -> range:
    start = int(CROMLET_START[cromlet])
    return range(start, start + len(VALUES_BY_CROMLET[cromlet]))


CROMLET_SLICES: tuple[slice, ...] = tuple(slice(r.start, r.stop) for r in map(circles_of, range(NUM_CROMLETS)))

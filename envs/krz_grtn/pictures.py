"""The picture deck (package data `pictures.json`) and the fixed features a policy sees per concept.

Concept `2 * card + side` is one side of one card. Features describe the words a clue giver would
spell, in the tiles' own alphabet (21 consonants), so a policy can compare clues with pictures:

- `skeleton`: the first SKELETON_LENGTH consonants of the name, in order, one-hot each (6 x 21);
- `name_letters`: how often each consonant occurs in the name (21);
- `keyword_letters`: how often each consonant occurs in the keywords (21);
- `initials`: 1 for each consonant that starts a word of the name or of a keyword (21).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletop.envs.krz_grtn.tiles import LETTER_INDEX, NUM_LETTERS, skeleton

SKELETON_LENGTH = 6
FEATURE_SIZE = SKELETON_LENGTH * NUM_LETTERS + 3 * NUM_LETTERS


@dataclass(frozen=True)
class Concept:
    id: int
    name: str
    keywords: tuple[str, ...]

    @property
    def card(self) -> int:
        return self.id // 2

    @property
    def words(self) -> tuple[str, ...]:
        """Name first, then keywords: the words a clue may point at."""
        return (self.name, *self.keywords)


def _load() -> tuple[Concept, ...]:
    data = json.loads((Path(__file__).with_name("pictures.json")).read_text(encoding="utf-8"))
    concepts = []
    for card, sides in enumerate(data["cards"]):
        for side, entry in enumerate(sides):
            concepts.append(Concept(2 * card + side, entry["name"], tuple(entry["keywords"])))
    return tuple(concepts)


def featurise(concept: Concept) -> np.ndarray:
    """The fixed feature vector of one concept (see the module docstring)."""
    out = np.zeros(FEATURE_SIZE, dtype=np.float32)
    skel = skeleton(concept.name)
    for i, ch in enumerate(skel[:SKELETON_LENGTH]):
        out[i * NUM_LETTERS + LETTER_INDEX[ch]] = 1.0
    base = SKELETON_LENGTH * NUM_LETTERS
    for ch in skel:
        out[base + LETTER_INDEX[ch]] += 1.0
    for ch in skeleton(" ".join(concept.keywords)):
        out[base + NUM_LETTERS + LETTER_INDEX[ch]] += 1.0
    for word in " ".join(concept.words).split():
        initial = word[0].upper()
        if initial in LETTER_INDEX:
            out[base + 2 * NUM_LETTERS + LETTER_INDEX[initial]] = 1.0
    return out


CONCEPTS = _load()
NUM_CARDS = len(CONCEPTS) // 2
CONCEPT_ID = {c.name: c.id for c in CONCEPTS}
FEATURES = np.stack([featurise(c) for c in CONCEPTS])
FEATURES.setflags(write=False)


def concept_id(name: str) -> int:
    """The id of a concept by its (unique) name; ValueError names the problem."""
    try:
        return CONCEPT_ID[name]
    except KeyError:
        raise ValueError(f"{name!r} is not a picture in the deck") from None

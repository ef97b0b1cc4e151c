"""The shipped picture deck: 167 double-sided cards of distinct, concrete concepts, and their features."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np

from tabletop.envs.krz_grtn import pictures
from tabletop.envs.krz_grtn.pictures import CONCEPTS, FEATURE_SIZE, FEATURES, NUM_CARDS, SKELETON_LENGTH, featurise
from tabletop.envs.krz_grtn.tiles import LETTER_INDEX, NUM_LETTERS, skeleton


def normalise(name: str) -> str:
    """Lower case, letters only, a plural ending dropped: "Hot-Dogs" and "hot dog" collide."""
    word = re.sub("[^a-z]", "", name.lower())
    for ending in ("es", "s"):
        if word.endswith(ending) and len(word) > 4:
            return word[: -len(ending)]
    return word


def test_167_cards_with_two_sides_each():
    data = json.loads(Path(pictures.__file__).with_name("pictures.json").read_text())
    assert len(data["cards"]) == NUM_CARDS == 167
    assert all(len(card) == 2 for card in data["cards"])
    assert len(CONCEPTS) == 334


def test_every_concept_has_a_name_and_three_to_five_distinct_keywords():
    for concept in CONCEPTS:
        assert concept.name == concept.name.strip().lower() and concept.name
        assert 3 <= len(concept.keywords) <= 5, concept
        assert len(set(concept.keywords)) == len(concept.keywords), concept
        assert concept.name not in concept.keywords, concept
        assert skeleton(concept.name), f"{concept.name}: a name should give a consonant to spell"
        assert len(set(skeleton(" ".join(concept.words)))) >= 4, f"{concept.name}: too few consonants to hint with"


def test_no_duplicate_or_plural_twin_names():
    seen: dict[str, str] = {}
    for concept in CONCEPTS:
        key = normalise(concept.name)
        assert key not in seen, f"{concept.name!r} duplicates {seen[key]!r}"
        seen[key] = concept.name


def test_no_near_duplicate_concepts_sharing_three_keywords():
    for a, b in itertools.combinations(CONCEPTS, 2):
        shared = set(a.keywords) & set(b.keywords)
        assert len(shared) < 3, f"{a.name!r} and {b.name!r} share {sorted(shared)}"


def test_features_are_the_documented_featurisation():
    assert FEATURES.shape == (334, FEATURE_SIZE) and not FEATURES.flags.writeable
    green = next(c for c in CONCEPTS if c.name == "pedestrian light")
    f = featurise(green)
    skel = skeleton(green.name)  # PDSTRNLGHT
    for i, ch in enumerate(skel[:SKELETON_LENGTH]):
        assert f[i * NUM_LETTERS + LETTER_INDEX[ch]] == 1
    base = SKELETON_LENGTH * NUM_LETTERS
    assert f[base + LETTER_INDEX["T"]] == 2  # T twice in "pedestrian light"
    assert f[base + NUM_LETTERS + LETTER_INDEX["W"]] == 1  # "walk"
    initials = {LETTER_INDEX[ch] for ch in "PLGWSC"}  # pedestrian light green walk signal crossing
    assert set(np.flatnonzero(f[base + 2 * NUM_LETTERS :])) == initials
    assert len({FEATURES[i].tobytes() for i in range(len(CONCEPTS))}) == len(CONCEPTS)

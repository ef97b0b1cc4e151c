"""KRZ GRTN's compiled kernels against plain Python oracles (tests/oracles/krz_grtn_observe.py): for a
target and a clue so far, the same letter facts (LETTER_FACTS 4..7, bit for bit) and the same "own clue
fits a target word" flags; for laid-out pictures and revealed clues (blanks among their letters), the same
PAIR_MATCH rows.

Clues from random games rarely fit a word, so the clues here are drawn to: the letters of one of the
target's words in order with some left out (they fit), such a clue with a letter put in (often one more
matched, no longer a fit), or random letters; lengths 0 to 10. CI checks a few thousand; `KRZ_DIFF_POSITIONS=100000
python -m pytest -q -n 0 tests/envs/krz_grtn/test_krz_grtn_kernels.py` runs the large check (docs/testing.md).
"""

from __future__ import annotations

import os

import numpy as np
from oracles.krz_grtn_observe import clue_fits, letter_extensions, pair_match

from tabletop.envs.krz_grtn.kernels import WORD_LENGTHS, WORDS, extend_clue, match_pairs
from tabletop.envs.krz_grtn.observe import PAIR_MATCH, letter_statics
from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.tiles import BLANK, LETTERS, NUM_LETTERS
from tabletop.envs.krz_grtn.words import word_skeletons

CLUES = int(os.environ.get("KRZ_DIFF_POSITIONS", "4000"))


def _clue(rng: np.random.Generator, concept: int) -> str:
    words = word_skeletons(concept)
    kind = rng.integers(3)
    if kind == 2:
        return "".join(rng.choice(list(LETTERS), size=rng.integers(0, 11)))
    word = words[rng.integers(len(words))]
    kept = sorted(rng.choice(len(word), size=rng.integers(0, len(word) + 1), replace=False))
    letters = [word[j] for j in kept]
    if kind == 1:
        letters.insert(rng.integers(len(letters) + 1), LETTERS[rng.integers(NUM_LETTERS)])
    return "".join(letters)


def test_extend_clue_matches_the_python_oracle():
    rng = np.random.default_rng(2026_12_03)
    facts = np.zeros((NUM_LETTERS, 4), dtype=np.float32)
    fitting = 0
    for _ in range(CLUES):
        concept = int(rng.integers(len(CONCEPTS)))
        letters = _clue(rng, concept)
        indices = np.array([LETTERS.index(ch) for ch in letters], dtype=np.int64)
        facts[:] = np.nan  # every entry must be written
        flags = extend_clue(WORDS[concept], WORD_LENGTHS[concept], indices, facts)
        expected = letter_extensions(concept, letters)
        where = f"concept {concept} ({CONCEPTS[concept].name!r}), clue {letters!r}"
        assert np.array_equal(facts, expected[:, 3:]), where
        assert np.array_equal(letter_statics(concept), expected[:, :3]), where
        assert tuple(bool(f) for f in flags) == clue_fits(concept, letters), where
        fitting += bool(flags[0])
    assert fitting > CLUES // 4  # the drawn clues exercise fitting clues, not only misses


def test_the_word_table_spells_every_concepts_words():
    for concept in range(len(CONCEPTS)):
        words = word_skeletons(concept)
        assert WORD_LENGTHS[concept, : len(words)].tolist() == [len(w) for w in words]
        assert not WORD_LENGTHS[concept, len(words) :].any()
        for i, word in enumerate(words):
            assert "".join(LETTERS[k] for k in WORDS[concept, i, : len(word)]) == word


def test_match_pairs_matches_the_python_oracle():
    rng = np.random.default_rng(2026_12_04)
    pictures = rng.integers(len(CONCEPTS), size=(CLUES // 8, 12))
    fitting = 0
    for row in pictures:
        clues = [_clue(rng, int(rng.choice(row))) for _ in range(5)]  # clues for one of the pictures, mostly
        tiles = np.full((5, 12), -1, dtype=np.int64)
        for k, letters in enumerate(clues):
            indices = [LETTERS.index(ch) for ch in letters]
            for _ in range(rng.integers(3)):  # blanks anywhere in a clue count for nothing
                indices.insert(rng.integers(len(indices) + 1), BLANK)
            tiles[k, : len(indices)] = indices
        block = np.zeros((len(row), 5, len(PAIR_MATCH)), dtype=np.float32)
        match_pairs(WORDS, WORD_LENGTHS, row, tiles, block)
        for c, concept in enumerate(row):
            for k, letters in enumerate(clues):
                where = f"concept {concept} ({CONCEPTS[concept].name!r}), clue {letters!r}"
                assert np.array_equal(block[c, k], pair_match(int(concept), letters)), where
                fitting += bool(block[c, k, 2])
    assert fitting > CLUES // 8  # fitting pairs are exercised, not only misses

"""KRZ GRTN's compiled inner loop (numba, cached on disk): a giver's clue against the target's words.

The `roles` feature group asks, at every giver's step, which of the 21 letters would extend the clue so
far into a target word; in Python that was a subsequence table per word and a loop per letter, most of
the group's cost (the clue changes most steps, so a cache rarely answered). `observe.py` stays the
readable source of truth and calls this; the Python it replaced is kept in
`tests/oracles/krz_grtn_observe.py`, and `tests/envs/krz_grtn/test_krz_grtn_kernels.py` and the
observer's differential test hold the kernel to it, bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.tiles import LETTER_INDEX, NUM_LETTERS
from tabletop.envs.krz_grtn.words import word_skeletons


def _word_table() -> tuple[np.ndarray, np.ndarray]:
    """Every concept's word skeletons as letter indices: words [concept, word, place] (-1 past a word's
    end) and lengths [concept, word] (0 past the concept's last word)."""
    skeletons = [word_skeletons(concept) for concept in range(len(CONCEPTS))]
    most, longest = max(map(len, skeletons)), max(len(w) for words in skeletons for w in words)
    words = np.full((len(CONCEPTS), most, longest), -1, dtype=np.int64)
    lengths = np.zeros((len(CONCEPTS), most), dtype=np.int64)
    for concept, concept_words in enumerate(skeletons):
        for i, word in enumerate(concept_words):
            words[concept, i, : len(word)] = [LETTER_INDEX[ch] for ch in word]
            lengths[concept, i] = len(word)
    return words, lengths


WORDS, WORD_LENGTHS = _word_table()


@numba.njit(cache=True, nogil=True)
def extend_clue(words: np.ndarray, lengths: np.ndarray, letters: np.ndarray, facts: np.ndarray) -> np.ndarray:
    """For one concept's words (a row of WORDS and WORD_LENGTHS) and a clue's letter indices, write
    `facts[k]` = (clue + letter k fits a word, ... from that word's initial, share of the words it fits,
    it matches one more letter of a word) for every letter k, and return (the clue fits a word, fits one
    from its initial): what the observer computed in Python as `letter_extensions` and `fits` before.

    A clue plus `k` fits a word iff `k` occurs at a place j where `word[:j]` spells the whole clue, and
    matches one more letter iff `word[:j]` matches as many clue letters as the whole word does; `row[j]` is
    how many clue letters `word[:j]` spells in order (the last row of the subsequence table)."""
    n = len(letters)
    fit_counts = np.zeros(NUM_LETTERS, dtype=np.int64)
    from_initial = np.zeros(NUM_LETTERS, dtype=np.bool_)
    gain = np.zeros(NUM_LETTERS, dtype=np.bool_)
    fits_word = np.zeros(NUM_LETTERS, dtype=np.bool_)
    row = np.zeros(words.shape[1] + 1, dtype=np.int64)
    previous = np.zeros(words.shape[1] + 1, dtype=np.int64)
    clue = np.zeros(2, dtype=np.bool_)
    count = 0
    for i in range(len(lengths)):
        length = lengths[i]
        if length == 0:
            break
        count += 1
        row[: length + 1] = 0
        for a in range(n):
            previous[: length + 1] = row[: length + 1]
            for j in range(length):
                if letters[a] == words[i, j]:
                    row[j + 1] = previous[j] + 1
                else:
                    row[j + 1] = max(previous[j + 1], row[j])
        fits_word[:] = False
        for j in range(length):
            k = words[i, j]
            if row[j] == n:
                fits_word[k] = True
            if row[j] == row[length]:
                gain[k] = True
        for k in range(NUM_LETTERS):
            if fits_word[k]:
                fit_counts[k] += 1
                if words[i, 0] == (letters[0] if n else k):  # the clue's initial once it has one, else k's
                    from_initial[k] = True
        if n and row[length] == n:
            clue[0] = True
            clue[1] |= words[i, 0] == letters[0]
    for k in range(NUM_LETTERS):
        facts[k, 0] = fit_counts[k] > 0
        facts[k, 1] = from_initial[k]
        facts[k, 2] = fit_counts[k] / count
        facts[k, 3] = gain[k]
    return clue

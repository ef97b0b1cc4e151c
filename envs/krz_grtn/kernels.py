"""KRZ GRTN's compiled inner loops (numba, cached on disk): clues against pictures' words.

The `roles` feature group asks, at every giver's step, which of the 21 letters would extend the clue so
far into a target word, and at X's guess how every revealed clue fits every laid-out picture's words; in
Python each was a subsequence table per word (and a loop per letter), most of the group's cost (clues
change most steps, so a cache rarely answered). `observe.py` stays the readable source of truth and calls
these; the same in plain Python is the oracle `tests/oracles/krz_grtn_observe.py`, and
`tests/envs/krz_grtn/test_krz_grtn_kernels.py` and the observer's differential test hold the kernels to
it, bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.tiles import BLANK, LETTER_INDEX, NUM_LETTERS
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
def _matched(letters: np.ndarray, word: np.ndarray, length: int, row: np.ndarray, previous: np.ndarray) -> int:
    """How many of `letters` the word's first `length` letters spell in order (`words.matched`), leaving in
    `row[j]` how many `word[:j]` spells (the last row of the subsequence table)."""
    row[: length + 1] = 0
    for a in range(len(letters)):
        previous[: length + 1] = row[: length + 1]
        for j in range(length):
            if letters[a] == word[j]:
                row[j + 1] = previous[j] + 1
            else:
                row[j + 1] = max(previous[j + 1], row[j])
    return row[length]


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
        _matched(letters, words[i], length, row, previous)
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


@numba.njit(cache=True, nogil=True)
def match_pairs(words: np.ndarray, lengths: np.ndarray, pictures: np.ndarray, clues: np.ndarray, block: np.ndarray):
    """`block[c, k]` = PAIR_MATCH of laid-out picture `pictures[c]` (a concept) and clue k, for clues given
    as tile rows (`clues[k]`, BLANK tiles left out, -1 past the clue's end); rows of clues without letters
    are left as they are (zero). WORDS and WORD_LENGTHS are the whole tables."""
    row = np.zeros(words.shape[2] + 1, dtype=np.int64)
    previous = np.zeros(words.shape[2] + 1, dtype=np.int64)
    letters = np.zeros(clues.shape[1], dtype=np.int64)
    for k in range(clues.shape[0]):
        n = 0
        for tile in clues[k]:
            if tile < 0:
                break
            if tile != BLANK:
                letters[n] = tile
                n += 1
        if n == 0:
            continue
        clue = letters[:n]
        for c in range(len(pictures)):
            concept = pictures[c]
            best = 0
            first = 0
            fits = starts = fits_from_initial = False
            heuristic = 0.0
            for i in range(lengths.shape[1]):
                length = lengths[concept, i]
                if length == 0:
                    break
                word = words[concept, i]
                common = _matched(clue, word, length, row, previous)
                initial = word[0] == clue[0]
                score = common / n + (1.0 + 0.2 * n) * (1.0 if common == n else 0.0) + 0.5 * (1.0 if initial else 0.0)
                if i == 0:
                    first, heuristic = common, score
                best = max(best, common)
                heuristic = max(heuristic, score)
                fits |= common == n
                starts |= initial
                fits_from_initial |= common == n and initial
            block[c, k, 0] = 1.0
            block[c, k, 1] = best / n
            block[c, k, 2] = fits
            block[c, k, 3] = starts
            block[c, k, 4] = fits_from_initial
            block[c, k, 5] = first / n
            block[c, k, 6] = min(n, 8) / 8
            block[c, k, 7] = min(heuristic, 5.0) / 5.0
    return block

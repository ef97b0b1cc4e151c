"""How clue letters fit a picture's words: the comparisons the skeleton heuristic and the observer share.

A clue can spell a concept's consonant skeleton: its whole name, a word of the name, or a keyword.
Letters fit a word when the word spells them in order (a subsequence), so the longest common
subsequence says how much of a clue a word accounts for.
"""

from __future__ import annotations

from functools import cache

from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.tiles import BLANK, LETTERS, skeleton


@cache
def word_skeletons(concept: int) -> tuple[str, ...]:
    """The consonant skeletons a clue may spell for a concept: the whole name, each word of it, each keyword."""
    c = CONCEPTS[concept]
    return tuple(dict.fromkeys(w for w in map(skeleton, (c.name, *c.name.split(), *c.keywords)) if w))


def clue_letters(tiles: list[int]) -> str:
    """A clue's letters in order, blanks left out."""
    return "".join(LETTERS[t] for t in tiles if t != BLANK)


def matched_prefixes(letters: str, word: str) -> list[int]:
    """`matched(letters, word[:j])` for every j: the last row of the subsequence table."""
    prev = [0] * (len(word) + 1)
    for a in letters:
        cur = [0]
        for j, b in enumerate(word):
            cur.append(prev[j] + 1 if a == b else max(prev[j + 1], cur[j]))
        prev = cur
    return prev


def matched(letters: str, word: str) -> int:
    """How many of `letters` a word spells in order: the longest common subsequence."""
    return matched_prefixes(letters, word)[-1]


def word_fit(letters: str, word: str, common: int) -> float:
    """The skeleton heuristic's score of (non-empty) clue letters against one word that spells `common` of
    them in order: the share spelled, a bonus for spelling them all (larger for longer clues) and one for
    sharing the word's initial."""
    n = len(letters)
    return common / n + (1.0 + 0.2 * n) * (common == n) + 0.5 * (word[0] == letters[0])


def clue_fit(letters: str, concept: int) -> float:
    """How well clue letters fit one concept: the best `word_fit` over its skeletons (0 for no letters)."""
    if not letters:
        return 0.0
    return max(word_fit(letters, w, matched(letters, w)) for w in word_skeletons(concept))

"""KRZ GRTN heuristics: a clue giver that spells consonant skeletons, a guesser that matches clues.

Both read only the seat's `view` (own tiles, the target if a giver, laid-out pictures and revealed
clues) and the public picture deck, never the hidden state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.tiles import BLANK, LETTER_COUNTS, LETTER_INDEX, LETTERS, NUM_LETTERS, skeleton
from tabletop.envs.krz_grtn.words import clue_fit, clue_letters, word_skeletons


def _letter_usefulness() -> np.ndarray:
    """How often each consonant occurs in the deck's words: a spare copy of a rare one is worth least."""
    freq = np.ones(NUM_LETTERS)
    for concept in CONCEPTS:
        for ch in skeleton(" ".join(concept.words)):
            freq[LETTER_INDEX[ch]] += 1
    return freq


USEFULNESS = _letter_usefulness()


def plan_for_word(skel: str, held: np.ndarray, blanks: int, budget: int) -> tuple[list[int], float]:
    """Spell `skel` in order from the held letters, a blank marking each run of skipped letters, up to
    `budget` letters. Returns the tiles and a score (more letters, an initial, few gaps score higher)."""
    held = held.copy()
    tiles: list[int] = []
    letters = gaps = 0
    skipped = False
    starts_with_initial = False
    for i, ch in enumerate(skel):
        if letters == budget:
            break
        k = LETTER_INDEX[ch]
        if held[k] > 0:
            if skipped and letters and blanks > 0:
                tiles.append(BLANK)
                blanks -= 1
            skipped = False
            held[k] -= 1
            tiles.append(k)
            letters += 1
            starts_with_initial |= i == 0
        else:
            skipped = True
            gaps += letters > 0
    score = letters + (1.5 if starts_with_initial else 0.0) - 0.25 * gaps
    return tiles, score


def plan_clue(target: int, held: np.ndarray, blanks: int, budget: int, rank: int) -> list[int]:
    """The whole clue for `target` from the tiles a giver started with (letters `held`, `blanks`)."""
    plans = []
    for skel in word_skeletons(target):
        tiles, score = plan_for_word(skel, held, blanks, budget)
        if sum(t != BLANK for t in tiles) >= 2:
            plans.append((-score, len(skel), skel, tiles))
    if plans:
        plans.sort()
        return plans[rank % min(len(plans), 2)][3]
    # No word can be spelled: lay the target's most frequent letters we hold, then our most plentiful ones.
    wanted = skeleton(" ".join(CONCEPTS[target].words))
    order = sorted(range(NUM_LETTERS), key=lambda k: (LETTERS[k] not in wanted, -held[k], k))
    tiles, held = [], held.copy()
    for k in order:
        while held[k] > 0 and len(tiles) < 2:
            held[k] -= 1
            tiles.append(k)
    return tiles


def giver_plan(
    target: int, letters: np.ndarray, blanks: int, clue: list[int], view: dict[str, Any], giver: int
) -> list[int]:
    """The clue `skeleton` lays as `giver` for `target`, holding `letters` and `blanks` behind its screen besides
    the tiles of `clue` it has laid so far (all it started with), at the level `view` shows."""
    held = np.array(letters, dtype=np.int64)
    for tile in clue:
        if tile != BLANK:
            held[tile] += 1
    budget = 3 if view["candidates_needed"] >= 5 and held.sum() >= 6 else 2
    return plan_clue(target, held, blanks + clue.count(BLANK), budget, view["givers"].index(giver))


def clue_match(clue: list[int], concept: int) -> float:
    """How well a clue's letters (in order) fit one concept's words: best over its skeletons."""
    return clue_fit(clue_letters(clue), concept)


class SkeletonTeammate:
    """Plays any seat. Giver: spells the target's consonant skeleton (name or a keyword) with two letters,
    three when the level lays out many pictures and tiles are plentiful; the second giver prefers the
    second-best word, so clues differ. X: picks the picture that best fits all clues. Life! when the
    givers' public letter counts run low (a rule on public facts, so all givers agree)."""

    name = "skeleton"
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        phase = view["phase"]
        if phase == "vote":
            return self._vote(action_mask, view)
        if phase == "clue":
            return self._clue(action_mask, view)
        if phase == "return":
            return self._return(action_mask, view)
        return self._guess(action_mask, view)

    def _vote(self, mask: np.ndarray, view: dict[str, Any]) -> int:
        if not mask[act.VOTE_NO]:
            return act.VOTE_YES
        owned = [view["owned_letters"][g] for g in view["givers"]]
        low = np.mean(owned) <= 3.0 and view["lives"] >= 2
        return act.VOTE_YES if low else act.VOTE_NO

    def _clue(self, mask: np.ndarray, view: dict[str, Any]) -> int:
        clue = view["clue"]
        plan = giver_plan(view["target"], view["letters"], view["blanks"], clue, view, view["seat"])
        if plan[: len(clue)] == clue and len(plan) > len(clue) and mask[act.add_tile(plan[len(clue)])]:
            return act.add_tile(plan[len(clue)])
        if mask[act.FINISH_CLUE]:
            return act.FINISH_CLUE
        legal = np.flatnonzero(mask[act.ADD_TILE : act.add_tile(BLANK)])
        return act.add_tile(int(legal[np.argmax(view["letters"][legal])]))

    def _return(self, mask: np.ndarray, view: dict[str, Any]) -> int:
        held = view["letters"]
        candidates = np.flatnonzero(held)
        worth = USEFULNESS[candidates] / held[candidates]
        return act.return_letter(int(candidates[np.argmin(worth)]))

    def _guess(self, mask: np.ndarray, view: dict[str, Any]) -> int:
        return self._best_guess(self._fit(view), view)

    def _fit(self, view: dict[str, Any]) -> np.ndarray:
        """How well all the clues fit each laid-out picture."""
        return np.array([sum(clue_match(c, concept) for c in view["clues"].values()) for concept in view["candidates"]])

    def _best_guess(self, scores: np.ndarray, view: dict[str, Any]) -> int:
        """Point at a best-scoring picture, at random among ties."""
        best = np.flatnonzero(scores == scores.max())
        return act.guess(int(best[self.rng.integers(best.size)]))


class ReadingTeammate(SkeletonTeammate):
    """`skeleton` with an X that reads the clues as `skeleton` givers lay them: for each laid-out picture, how
    often givers holding letters drawn from what X cannot see would have laid exactly these clues had it been
    the target. X points at the picture that explains the clues in the most of `WORLDS` draws; `skeleton`'s fit
    breaks ties, and decides alone where no picture explains them (givers of another kind). Giver, vote and
    returns as `skeleton`.

    A draw deals the letters X has not seen (all 56 less its own and the clues on the table) into the givers'
    screens, as many as each owns besides its clue (public counts), uniformly, as `state.resample` does; every
    giver starts a clue with all its blanks (they go back behind the screen after each attempt), as many as X
    holds."""

    name = "reader"
    WORLDS = 64

    def _guess(self, mask: np.ndarray, view: dict[str, Any]) -> int:
        fit = self._fit(view)
        return self._best_guess(self._explained(view) * (fit.max() - fit.min() + 1.0) + fit, view)

    def _explained(self, view: dict[str, Any]) -> np.ndarray:
        """Per laid-out picture: in how many drawn worlds `skeleton` givers would lay every clue shown."""
        candidates, clues = view["candidates"], view["clues"]
        unseen = LETTER_COUNTS - view["letters"]
        for clue in clues.values():
            unseen -= np.bincount([t for t in clue if t != BLANK], minlength=NUM_LETTERS)
        pool = np.repeat(np.arange(NUM_LETTERS), unseen)
        screens = [view["owned_letters"][g] - sum(t != BLANK for t in clue) for g, clue in clues.items()]
        blanks = view["blanks"] - np.array([clue.count(BLANK) for clue in clues.values()])
        laid: dict[tuple, bool] = {}  # (picture, giver, screen): whether skeleton lays that giver's clue for it
        explained = np.zeros(len(candidates))
        for _ in range(self.WORLDS):
            self.rng.shuffle(pool)
            fits, at = np.ones(len(candidates), dtype=bool), 0
            for (giver, clue), size, spare in zip(clues.items(), screens, blanks):
                screen = np.bincount(pool[at : at + size], minlength=NUM_LETTERS)
                at += size
                for i, target in enumerate(candidates):
                    key = (i, giver, screen.tobytes())
                    if fits[i] and key not in laid:
                        laid[key] = giver_plan(target, screen, spare, clue, view, giver) == clue
                    fits[i] = fits[i] and laid[key]
            explained += fits
        return explained


HEURISTICS = {"skeleton": SkeletonTeammate, "reader": ReadingTeammate}

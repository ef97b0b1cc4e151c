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
    """`skeleton` with an X that reads each clue two ways: as a `skeleton` giver would have laid it (in how many of
    `WORLDS` draws of the letters X cannot see a `skeleton` giver would lay exactly this clue, had each laid-out
    picture been the target), and by `skeleton`'s fit (its scores as a spread of `OTHER` probability over the
    pictures). A giver's two readings are weighed by how often its clues matched the model when this seat saw
    the target revealed this game (from `PRIOR`: 3 to 1 for the model), and X points at the picture the clues
    together make likeliest. So with `skeleton` givers it reads what their clues hold beyond the fit, and with
    givers of another kind (the learned team's) the fit still counts. Giver, vote and returns as `skeleton`.

    A draw deals the letters X has not seen (all 56 less its own and the clues on the table) into the givers'
    screens, as many as each owns besides its clue (public counts), uniformly, as `state.resample` does; every
    giver starts a clue with all its blanks (they go back behind the screen after each attempt), as many as X
    holds. What a seat learns of the givers comes from its own guesses and the revealed targets: a seat's record
    is its own, even where one agent plays several seats."""

    name = "reader"
    WORLDS = 64
    SHARPNESS, OTHER = 2.0, 0.2
    PRIOR = (3.0, 1.0)  # (clues that matched the model, clues that did not) before any is seen

    def __init__(self, seed: int | None = None):
        super().__init__(seed)
        self._record: dict[tuple[int, int], list[float]] = {}  # (seat, giver): [matched, did not]
        self._asked: dict[int, tuple[list[int], dict[int, np.ndarray]]] = {}  # seat: its last guess's readings

    def act(self, observation: Any, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        self._learn(view)
        return super().act(observation, action_mask, view)

    def _learn(self, view: dict[str, Any]) -> None:
        """After this seat's guess, the revealed target says whether each giver's clue matched the model."""
        seat, last = view["seat"], view["last_attempt"]
        if last is None:  # a game's first attempt: nothing seen of its givers yet
            self._record = {key: record for key, record in self._record.items() if key[0] != seat}
            self._asked.pop(seat, None)
            return
        if seat not in self._asked or last["x"] != seat:
            return
        candidates, explained = self._asked.pop(seat)
        if last["target"] in candidates:
            where = candidates.index(last["target"])
            for giver, counts in explained.items():
                self._record.setdefault((seat, giver), list(self.PRIOR))[0 if counts[where] else 1] += 1

    def _guess(self, mask: np.ndarray, view: dict[str, Any]) -> int:
        seat, candidates = view["seat"], view["candidates"]
        explained = self._explained(view)
        self._asked[seat] = (list(candidates), explained)
        likelihood = np.zeros(len(candidates))
        for giver, clue in view["clues"].items():
            matched, missed = self._record.get((seat, giver), self.PRIOR)
            fit = np.array([clue_match(clue, concept) for concept in candidates])
            other = np.exp(self.SHARPNESS * (fit - fit.max()))
            trust = matched / (matched + missed)
            reading = trust * explained[giver] / self.WORLDS + (1 - trust) * self.OTHER * other / other.sum()
            likelihood += np.log(reading)
        return self._best_guess(likelihood, view)

    def _explained(self, view: dict[str, Any]) -> dict[int, np.ndarray]:
        """Per giver, per laid-out picture: in how many drawn worlds a `skeleton` giver would lay its clue."""
        candidates, clues = view["candidates"], view["clues"]
        unseen = LETTER_COUNTS - view["letters"]
        for clue in clues.values():
            unseen -= np.bincount([t for t in clue if t != BLANK], minlength=NUM_LETTERS)
        pool = np.repeat(np.arange(NUM_LETTERS), unseen)
        screens = [view["owned_letters"][g] - sum(t != BLANK for t in clue) for g, clue in clues.items()]
        blanks = view["blanks"] - np.array([clue.count(BLANK) for clue in clues.values()])
        laid: dict[tuple, bool] = {}  # (picture, giver, screen): whether skeleton lays that giver's clue for it
        explained = {giver: np.zeros(len(candidates)) for giver in clues}
        for _ in range(self.WORLDS):
            self.rng.shuffle(pool)
            at = 0
            for (giver, clue), size, spare in zip(clues.items(), screens, blanks):
                screen = np.bincount(pool[at : at + size], minlength=NUM_LETTERS)
                at += size
                for i, target in enumerate(candidates):
                    key = (i, giver, screen.tobytes())
                    if key not in laid:
                        laid[key] = giver_plan(target, screen, spare, clue, view, giver) == clue
                    explained[giver][i] += laid[key]
        return explained


HEURISTICS = {"skeleton": SkeletonTeammate, "reader": ReadingTeammate}

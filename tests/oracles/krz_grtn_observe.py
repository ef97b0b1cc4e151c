"""KRZ GRTN's observation as it was written before the encoder wrote its seat rows by flat index and
counted the bag from the seats' tallies, and the `roles` group's letter facts and pair matches as they were
computed before `kernels.extend_clue` and `kernels.match_pairs` (`envs/krz_grtn/observe.py`): the oracle the
differential tests hold the encoder and the kernels to, bit for bit.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from tabletop.envs.krz_grtn.observe import PAIR_MATCH, ROLE_GLOBALS, SEAT_FEATURES, KrzGrtnObserver, _clue
from tabletop.envs.krz_grtn.pictures import CONCEPTS, FEATURE_SIZE, FEATURES
from tabletop.envs.krz_grtn.rules import GUESS, OVER, KrzGrtnState
from tabletop.envs.krz_grtn.tiles import LETTER_INDEX, LETTERS, NUM_LETTERS, TOTAL_LETTERS, skeleton
from tabletop.envs.krz_grtn.words import clue_letters, matched, matched_prefixes, word_fit, word_skeletons

BAG_GLOBAL = ROLE_GLOBALS.index("letters in the middle / 56")


@lru_cache(maxsize=1 << 16)
def letter_extensions(concept: int, letters: str) -> np.ndarray:
    """LETTER_FACTS 1..7 for every letter given a target and a clue so far: [NUM_LETTERS, 7].

    One table per word answers all 21 letters: the clue plus `ch` fits a word iff `ch` occurs at a place
    j where `word[:j]` already spells the whole clue, and matches one more letter iff `word[:j]` matches
    as many clue letters as the whole word does."""
    words = word_skeletons(concept)
    name, keywords = skeleton(CONCEPTS[concept].name), skeleton(" ".join(CONCEPTS[concept].keywords))
    fits = np.zeros((NUM_LETTERS, len(words)), dtype=bool)
    from_initial = np.zeros((NUM_LETTERS, len(words)), dtype=bool)
    gain = np.zeros(NUM_LETTERS, dtype=bool)
    first = letters[0] if letters else None  # the clue's initial once it has one, else the tile's own
    for i, word in enumerate(words):
        row = matched_prefixes(letters, word)
        for j, ch in enumerate(word):
            k = LETTER_INDEX[ch]
            fits[k, i] |= row[j] == len(letters)
            gain[k] |= row[j] == row[-1]
        for k in np.flatnonzero(fits[:, i]):
            from_initial[k, i] = word[0] == (first or LETTERS[k])
    out = np.zeros((NUM_LETTERS, 7), dtype=np.float32)
    out[:, 0] = [min(name.count(ch), 4) / 4 for ch in LETTERS]
    out[:, 1] = [min(keywords.count(ch), 8) / 8 for ch in LETTERS]
    out[:, 2] = [any(w[0] == ch for w in words) for ch in LETTERS]
    out[:, 3], out[:, 4], out[:, 5], out[:, 6] = fits.any(1), from_initial.any(1), fits.mean(1), gain
    out.setflags(write=False)  # shared by every caller through the cache
    return out


@lru_cache(maxsize=1 << 16)
def pair_match(concept: int, letters: str) -> np.ndarray:
    """PAIR_MATCH for one picture and one clue's letters (blanks left out)."""
    out = np.zeros(len(PAIR_MATCH), dtype=np.float32)
    if not letters:
        return out
    words, n = word_skeletons(concept), len(letters)
    common = [matched(letters, w) for w in words]
    fits = [c == n for c in common]
    initial = [w[0] == letters[0] for w in words]
    heuristic = max(word_fit(letters, w, c) for w, c in zip(words, common))
    out[:] = (
        1.0,
        max(common) / n,
        any(fits),
        any(initial),
        any(f and i for f, i in zip(fits, initial)),
        common[0] / n,
        min(n, 8) / 8,
        min(heuristic, 5.0) / 5.0,
    )
    out.setflags(write=False)  # shared by every caller through the cache
    return out


def clue_fits(concept: int, letters: str) -> tuple[bool, bool]:
    """ROLE_GLOBALS' "own clue fits a target word" and "... from its initial", as `_role_facts` had them."""
    words = word_skeletons(concept)
    fits = [matched(letters, w) == len(letters) for w in words] if letters else []
    return any(fits), any(f and w[0] == letters[0] for f, w in zip(fits, words))


class OracleObserver(KrzGrtnObserver):
    """The observer with its former `encode`, `_seats`, clue-against-target letter facts and pair matches (the
    rest of the `roles` group and the hidden parts are shared)."""

    def encode(self, state: KrzGrtnState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        game, s, at = self.game, self.s, self.at
        n = game.num_players
        if out is None:
            out = self.layout.zeros()
        else:
            out.fill(0.0)
        is_x = seat == state.x
        out[at["role"] + (0 if is_x else 1)] = 1.0
        if state.phase != OVER:
            out[at["phase"] + state.phase] = 1.0
        index = min(state.level_index, len(game.levels) - 1)
        out[at["level"] + game.levels[index] - 1] = 1.0
        out[at["levels_passed"] + state.level_index] = 1.0
        out[s["level_card"]] = self.level_card[index]
        out[at["lives"] + state.lives] = 1.0
        self._oracle_seats(state, seat, out[s["seats"]].reshape(n, SEAT_FEATURES))
        out[at["bag"]] = state.bag.sum() / TOTAL_LETTERS
        out[s["own_letters"]] = state.supply[seat]
        if game.blanks_per_player:
            out[at["own_blanks"]] = state.blanks[seat] / game.blanks_per_player
        _clue(state.clues[seat], out, at["own_clue"])
        revealed = state.phase == GUESS
        if state.target >= 0 and not is_x:
            out[s["target"]] = FEATURES[state.target]
            if revealed:
                out[at["target_position"] + state.target_position] = 1.0
        if revealed:
            k = len(state.candidates)
            out[s["candidates"]][: k * FEATURE_SIZE] = FEATURES[state.candidates].ravel()
            out[at["candidate_present"] : at["candidate_present"] + k] = 1.0
            width = (s["clues"].stop - at["clues"]) // (n - 1)
            for slot, giver in enumerate(state.givers()):
                _clue(state.clues[giver], out, at["clues"] + slot * width)
        if state.last_attempt is not None:
            out[at["last_attempt"] + (0 if state.last_attempt["passed"] else 1)] = 1.0
        if self.roles:
            self._role_facts(state, seat, is_x, out)
            out[s["role_globals"].start + BAG_GLOBAL] = state.bag.sum() / TOTAL_LETTERS  # as it was counted
        if self.omniscient:
            self._hidden(state, seat, out)
        return out

    def _oracle_seats(self, state: KrzGrtnState, seat: int, block: np.ndarray) -> None:
        n = self.game.num_players
        held, clued, limit = state.held, state.clue_letters, self.game.tile_limit
        block[:, 2] = [(held[p] + clued[p]) / limit for p in self.order[seat]]
        block[(state.x - seat) % n, 0] = 1.0
        if state.current_player >= 0:
            block[(state.current_player - seat) % n, 1] = 1.0
        givers = state.givers()
        for giver in givers[: state.clues_done]:
            block[(giver - seat) % n, 3] = 1.0
        for giver in givers[: state.votes]:
            block[(giver - seat) % n, 4] = 1.0

    def _clue_against_target(self, target: int, tiles: list[int]) -> tuple[bool, bool, np.ndarray]:
        letters = clue_letters(tiles)
        return (*clue_fits(target, letters), letter_extensions(target, letters)[:, 3:])

    def _match_pairs(self, pictures: list[int], clues: list[list[int]], block: np.ndarray) -> None:
        letters = [clue_letters(clue) for clue in clues]
        for c, concept in enumerate(pictures):
            for k, clue in enumerate(letters):
                block[c, k] = pair_match(concept, clue)

"""Observation encoding: a seat's knowledge as a float32 vector (private), or everything (omniscient).

Seats are listed relative to the observer (slot 0 = self, then clockwise); revealed clues are listed
relative to X (slot 0 = the giver on X's left), the order in which they were made. The role block says
whether the observer is X or a giver, so one shared policy can play every seat.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.core import Layout
from tabletop.envs.krz_grtn.pictures import FEATURE_SIZE, FEATURES
from tabletop.envs.krz_grtn.rules import GUESS, MAX_DRAWS, NUM_LEVELS, OVER, KrzGrtn, KrzState
from tabletop.envs.krz_grtn.tiles import LETTER_COUNTS, NUM_LETTERS, NUM_TILE_KINDS, TOTAL_LETTERS

SEAT_FEATURES = 5
ACTING_PHASES = 4  # vote, clue, return, guess
LETTER_RANGE = (0, int(LETTER_COUNTS.max()))  # counts of one letter: at most its copies in the game
FEATURE_RANGE = (0, float(FEATURES.max()))  # picture features count letters (see pictures.py)


def most_letters_owned(game: KrzGrtn) -> int:
    """A seat may exceed the tile limit by one draw (then it returns tiles, the RETURN phase)."""
    return min(game.tile_limit + max(game.life_letters, *game.level_draws), TOTAL_LETTERS)


def private_layout(game: KrzGrtn) -> Layout:
    n, c, length = game.num_players, game.max_candidates, game.max_clue_length
    return Layout.of(
        ("role", 2, "1 at [0] if this seat is X (the guesser), at [1] if it is a clue giver"),
        ("phase", ACTING_PHASES, "one-hot phase: Life! vote, clue making, returning tiles, X's guess"),
        ("level", NUM_LEVELS, "one-hot number of the level card on top (1..6)"),
        ("levels_passed", NUM_LEVELS + 1, "one-hot levels passed so far (0..6); also the shared score"),
        ("level_card", 2, "A / max candidates and B / 8 of the current level card"),
        ("lives", game.lives + 1, "one-hot life cards left"),
        ("seats", (n, SEAT_FEATURES), "per seat from self clockwise: is X, to act, letters owned / "
         "tile limit, clue finished this attempt, raised a hand in this Life! vote",
         (0, most_letters_owned(game) / game.tile_limit)),
        ("bag", 1, "letters in the middle / 56"),
        ("own_letters", NUM_LETTERS, "own letters behind the screen, count per letter B..Z", LETTER_RANGE),
        ("own_blanks", 1, "own blanks behind the screen / blanks per player"),
        ("own_clue", (length, NUM_TILE_KINDS), "own clue so far, one-hot tile per position (B..Z, blank)"),
        ("target", FEATURE_SIZE, "features of the picture to hint at (givers only; zero for X)", FEATURE_RANGE),
        ("target_position", c, "one-hot place of the target among the laid-out pictures (givers only)"),
        ("candidates", (c, FEATURE_SIZE), "features of the laid-out pictures (during X's guess)", FEATURE_RANGE),
        ("candidate_present", c, "1 for each laid-out picture"),
        ("clues", (n - 1, length, NUM_TILE_KINDS), "revealed clues from X's left, one-hot tile per position"),
        ("last_attempt", 2, "1 at [0] if the previous attempt passed, at [1] if it failed"),
    )


def omniscient_layout(game: KrzGrtn) -> Layout:
    n, c, length = game.num_players, game.max_candidates, game.max_clue_length
    return private_layout(game) + Layout.of(
        ("all_letters", (n, NUM_LETTERS), "every seat's letters behind its screen, from the observer clockwise", LETTER_RANGE),
        ("all_clues", (n, length, NUM_TILE_KINDS), "every seat's clue so far, revealed or not"),
        ("bag_letters", NUM_LETTERS, "letters in the middle, count per letter", LETTER_RANGE),
        ("true_target", FEATURE_SIZE, "features of the target picture", FEATURE_RANGE),
        ("true_target_position", c, "one-hot place of the target among the laid-out pictures"),
    )


class KrzGrtnObserver:
    """Fills one layout; slices are looked up once, so encoding is a handful of numpy writes."""

    def __init__(self, game: KrzGrtn, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        self.layout = omniscient_layout(game) if omniscient else private_layout(game)
        self.s = {seg.name: self.layout.slice(seg.name) for seg in self.layout.segments}

    def encode(self, state: KrzState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        game, s = self.game, self.s
        n = game.num_players
        if out is None:
            out = self.layout.zeros()
        else:
            out.fill(0.0)  # the blocks below are written sparsely
        is_x = seat == state.x
        out[s["role"].start + (0 if is_x else 1)] = 1.0
        if state.phase != OVER:
            out[s["phase"].start + state.phase] = 1.0
        index = min(state.level_index, len(game.levels) - 1)
        out[s["level"].start + game.levels[index] - 1] = 1.0
        out[s["levels_passed"].start + state.level_index] = 1.0
        out[s["level_card"]] = (game.candidates_at(index) / game.max_candidates, game.draws_at(index) / MAX_DRAWS)
        out[s["lives"].start + state.lives] = 1.0
        self._seats(state, seat, out[s["seats"]].reshape(n, SEAT_FEATURES))
        out[s["bag"].start] = state.bag.sum() / TOTAL_LETTERS
        out[s["own_letters"]] = state.supply[seat]
        if game.blanks_per_player:
            out[s["own_blanks"].start] = state.blanks[seat] / game.blanks_per_player
        self._clue(state.clues[seat], out[s["own_clue"]])
        revealed = state.phase == GUESS
        if state.target >= 0 and not is_x:
            out[s["target"]] = FEATURES[state.target]
            if revealed:
                out[s["target_position"].start + state.target_position] = 1.0
        if revealed:
            k = len(state.candidates)
            out[s["candidates"]][: k * FEATURE_SIZE] = FEATURES[state.candidates].ravel()
            out[s["candidate_present"].start : s["candidate_present"].start + k] = 1.0
            clue_block = out[s["clues"]].reshape(n - 1, -1)
            for slot, giver in enumerate(state.givers()):
                self._clue(state.clues[giver], clue_block[slot])
        if state.last_attempt is not None:
            out[s["last_attempt"].start + (0 if state.last_attempt["passed"] else 1)] = 1.0
        if self.omniscient:
            self._hidden(state, seat, out)
        return out

    def _seats(self, state: KrzState, seat: int, block: np.ndarray) -> None:
        n = self.game.num_players
        order = [(seat + slot) % n for slot in range(n)]
        givers = state.givers()
        block[:, 2] = [(state.held[p] + state.clue_letters[p]) / self.game.tile_limit for p in order]
        block[(state.x - seat) % n, 0] = 1.0
        if state.current_player >= 0:
            block[(state.current_player - seat) % n, 1] = 1.0
        for giver in givers[: state.clues_done]:
            block[(giver - seat) % n, 3] = 1.0
        for giver in givers[: state.votes]:
            block[(giver - seat) % n, 4] = 1.0

    def _clue(self, tiles: list[int], flat: np.ndarray) -> None:
        if tiles:
            flat[np.arange(len(tiles)) * NUM_TILE_KINDS + np.asarray(tiles)] = 1.0

    def _hidden(self, state: KrzState, seat: int, out: np.ndarray) -> None:
        s, n = self.s, self.game.num_players
        order = [(seat + k) % n for k in range(n)]
        out[s["all_letters"]] = state.supply[order].ravel()
        clue_block = out[s["all_clues"]].reshape(n, -1)
        for slot, other in enumerate(order):
            self._clue(state.clues[other], clue_block[slot])
        out[s["bag_letters"]] = state.bag
        if state.target >= 0:
            out[s["true_target"]] = FEATURES[state.target]
            if state.target_position >= 0:
                out[s["true_target_position"].start + state.target_position] = 1.0

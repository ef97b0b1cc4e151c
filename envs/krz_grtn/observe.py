"""Observation encoding: a seat's knowledge as a float32 vector (private), or everything (omniscient).

Seats are listed relative to the observer (slot 0 = self, then clockwise); revealed clues are listed
relative to X (slot 0 = the giver on X's left), the order in which they were made. The role block says
whether the observer is X or a giver, so one shared policy can play every seat.

Three segments serve a role-aware network (agents/networks/roles.py) with weights shared across
entities and player counts: `role_globals` (a fixed-size summary), `letter_facts` (one row per tile kind:
what a giver knows about that tile and the target's words) and `pair_match` (one row per laid-out picture
and revealed clue: how the clue's letters fit the picture's words). They compare letters with words; they
are computed from what the seat may know only (a giver's target, X's laid-out pictures and clues). They
cost most of a step, so they form the opt-in feature group `roles` (`features=["roles"]`); the default
observation is the lean rest.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tabletop.envs.core import Layout, Parameters
from tabletop.envs.core.params import feature_groups
from tabletop.envs.core.structures import require_segments, shape
from tabletop.envs.krz_grtn.phases import CLUE, RETURN, VOTE
from tabletop.envs.krz_grtn.pictures import CONCEPTS, FEATURE_SIZE, FEATURES
from tabletop.envs.krz_grtn.rules import (
    GUESS,
    MAX_CANDIDATES,
    MAX_DRAWS,
    MAX_LIVES,
    MAX_TILE_LIMIT,
    NUM_LEVELS,
    OVER,
    KrzGrtnGame,
    KrzGrtnState,
)
from tabletop.envs.krz_grtn.tiles import (
    BLANK,
    LETTER_COUNTS,
    LETTER_INDEX,
    LETTERS,
    NUM_LETTERS,
    NUM_TILE_KINDS,
    TOTAL_LETTERS,
    skeleton,
)
from tabletop.envs.krz_grtn.words import word_skeletons

SEAT_FEATURES = 5
ACTING_PHASES = 4  # vote, clue, return, guess
LETTER_RANGE = (0, int(LETTER_COUNTS.max()))  # counts of one letter: at most its copies in the game
FEATURE_RANGE = (0, float(FEATURES.max()))  # picture features count letters (see pictures.py)


ROLE_GLOBALS = (
    "is X",
    "is a giver",
    "phase: vote",
    "phase: clue",
    "phase: return",
    "phase: guess",
    "A / 12",
    "B / 8",
    "lives / 5",
    "levels passed / 6",
    "own letters / 16",
    "own blanks / 2",
    "letters in own clue / 16",
    "own clue fits a target word",
    "own clue fits a target word from its initial",
    "giver rank / 5 (0 = first after X)",
    "is the last giver",
    "givers' mean letters owned / 16",
    "givers' fewest letters owned / 16",
    "givers / 5",
    "letters in the middle / 56",
    "clues laid out / 5",
    "own letters over the tile limit / 16",
)
LETTER_FACTS = (
    "held: own count / 4 (blank row: own blanks / 2)",
    "in the target's name / 4",
    "in its keywords / 8",
    "starts a target word",
    "clue + tile fits a target word",
    "... from that word's initial",
    "share of target words the clue + tile fits",
    "clue + tile matches one more letter of a target word",
    "how common the letter is in the deck's words (most common = 1)",
    "is the blank",
)
PAIR_MATCH = (
    "clue present",
    "letters matched in order / clue letters (best word)",
    "the clue fits a word",
    "the clue starts with a word's initial",
    "fits a word from its initial",
    "matched in the name / clue letters",
    "clue letters / 8",
    "the skeleton heuristic's match score / 5",
)


def _deck_frequency() -> np.ndarray:
    freq = np.ones(NUM_LETTERS)
    for concept in CONCEPTS:
        for ch in skeleton(" ".join(concept.words)):
            freq[LETTER_INDEX[ch]] += 1
    return (freq / freq.max()).astype(np.float32)


DECK_FREQUENCY = _deck_frequency()


@cache
def letter_statics(concept: int) -> np.ndarray:
    """LETTER_FACTS 1..3 for every letter and a target, whatever the clue: [NUM_LETTERS, 3]."""
    words = word_skeletons(concept)
    name, keywords = skeleton(CONCEPTS[concept].name), skeleton(" ".join(CONCEPTS[concept].keywords))
    out = np.zeros((NUM_LETTERS, 3), dtype=np.float32)
    out[:, 0] = [min(name.count(ch), 4) / 4 for ch in LETTERS]
    out[:, 1] = [min(keywords.count(ch), 8) / 8 for ch in LETTERS]
    out[:, 2] = [any(w[0] == ch for w in words) for ch in LETTERS]
    out.setflags(write=False)  # shared by every caller through the cache
    return out


def most_letters_owned(game: KrzGrtnGame) -> int:
    """A seat may exceed the tile limit by one draw (then it returns tiles, the RETURN phase)."""
    return min(game.tile_limit + max(game.life_letters, *game.level_draws), TOTAL_LETTERS)


ROLES = "roles"
FEATURE_GROUPS = {
    ROLES: "`role_globals`, `letter_facts` and `pair_match`: letters compared with words, for the `roles` network"
}


def private_layout(game: KrzGrtnGame, features: tuple[str, ...] = ()) -> Layout:
    n, c, length = game.num_players, game.max_candidates, game.max_clue_length
    layout = Layout.of(
        ("role", 2, "1 at [0] if this seat is X (the guesser), at [1] if it is a clue giver"),
        ("phase", ACTING_PHASES, "one-hot phase: Life! vote, clue making, returning tiles, X's guess"),
        ("level", NUM_LEVELS, "one-hot number of the level card on top (1..6)"),
        ("levels_passed", NUM_LEVELS + 1, "one-hot levels passed so far (0..6); also the shared score"),
        ("level_card", 2, "A / max candidates and B / 8 of the current level card"),
        ("lives", game.lives + 1, "one-hot life cards left"),
        (
            "seats",
            (n, SEAT_FEATURES),
            "per seat from self clockwise: is X, to act, letters owned / "
            "tile limit, clue finished this attempt, raised a hand in this Life! vote",
            (0, most_letters_owned(game) / game.tile_limit),
        ),
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
    return layout + roles_layout(game) if ROLES in features else layout


def roles_layout(game: KrzGrtnGame) -> Layout:
    n, c = game.num_players, game.max_candidates
    return Layout.of(
        ("role_globals", len(ROLE_GLOBALS), "the same for every player count: " + "; ".join(ROLE_GLOBALS)),
        (
            "letter_facts",
            (NUM_TILE_KINDS, len(LETTER_FACTS)),
            "givers only, per tile kind B..Z, blank: " + "; ".join(LETTER_FACTS),
        ),
        (
            "pair_match",
            (c, n - 1, len(PAIR_MATCH)),
            "during X's guess, per laid-out picture and revealed clue (from X's left): " + "; ".join(PAIR_MATCH),
        ),
    )


def omniscient_layout(game: KrzGrtnGame, features: tuple[str, ...] = ()) -> Layout:
    n, c, length = game.num_players, game.max_candidates, game.max_clue_length
    return private_layout(game, features) + Layout.of(
        (
            "all_letters",
            (n, NUM_LETTERS),
            "every seat's letters behind its screen, from the observer clockwise",
            LETTER_RANGE,
        ),
        ("all_clues", (n, length, NUM_TILE_KINDS), "every seat's clue so far, revealed or not"),
        ("bag_letters", NUM_LETTERS, "letters in the middle, count per letter", LETTER_RANGE),
        ("true_target", FEATURE_SIZE, "features of the target picture", FEATURE_RANGE),
        ("true_target_position", c, "one-hot place of the target among the laid-out pictures"),
    )


ROLE_SEGMENTS = ("role_globals", "letter_facts", "pair_match")


def roles_network_structure(table) -> dict:
    """What the `roles` network reads (the `roles` feature group), and the action layout it scores."""
    from tabletop.envs.krz_grtn import actions as act

    layout = table.observer.layout
    require_segments(layout, ROLE_SEGMENTS, "roles", f"add features: [{ROLES}] to env_kwargs")
    blocks = {name: shape(layout, name) for name in ROLE_SEGMENTS}
    return {
        "offsets": {name: layout.slice(name).start for name in ROLE_SEGMENTS},
        "globals": blocks["role_globals"][0],
        "tile_kinds": blocks["letter_facts"][0],
        "letter_facts": blocks["letter_facts"][1],
        "candidates": blocks["pair_match"][0],
        "clues": blocks["pair_match"][1],
        "pair_facts": blocks["pair_match"][2],
        "actions": {
            "vote": act.VOTE_NO,
            "add": act.ADD_TILE,
            "finish": act.FINISH_CLUE,
            "return": act.RETURN_LETTER,
            "guess": act.GUESS,
            "total": table.game.num_actions,
        },
    }


class KrzGrtnObserver:
    """Fills one layout; slices are looked up once, so encoding is a handful of numpy writes."""

    parameters = Parameters(feature_groups(FEATURE_GROUPS))
    feature_groups = FEATURE_GROUPS
    network_structures = {"roles": roles_network_structure}  # network kinds besides `mlp`, and what they read

    def __init__(self, game: KrzGrtnGame, omniscient: bool, features: tuple[str, ...] = ()):
        self.game = game
        self.omniscient = omniscient
        self.roles = ROLES in features
        self.layout = (omniscient_layout if omniscient else private_layout)(game, features)
        self.s = {seg.name: self.layout.slice(seg.name) for seg in self.layout.segments}
        self.at = {name: where.start for name, where in self.s.items()}  # one-hot blocks: start + index
        n = game.num_players
        self.order = [tuple((seat + slot) % n for slot in range(n)) for seat in range(n)]  # seats from each seat
        if self.roles:  # numba loads only for the group that needs it (about 0.3 s of a lean start)
            from tabletop.envs.krz_grtn import kernels

            self._kernels = kernels
            self._extensions = np.zeros((NUM_LETTERS, 4), dtype=np.float32)  # `extend_clue`'s rows
        self.level_card = [
            np.array([game.candidates_at(i) / game.max_candidates, game.draws_at(i) / MAX_DRAWS], dtype=np.float32)
            for i in range(len(game.levels))
        ]

    def encode(self, state: KrzGrtnState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        game, s, at = self.game, self.s, self.at
        n = game.num_players
        if out is None:
            out = self.layout.zeros()
        else:
            out.fill(0.0)  # the blocks below are written sparsely
        is_x = seat == state.x
        out[at["role"] + (0 if is_x else 1)] = 1.0
        if state.phase != OVER:
            out[at["phase"] + state.phase] = 1.0
        index = min(state.level_index, len(game.levels) - 1)
        out[at["level"] + game.levels[index] - 1] = 1.0
        out[at["levels_passed"] + state.level_index] = 1.0
        out[s["level_card"]] = self.level_card[index]
        out[at["lives"] + state.lives] = 1.0
        self._seats(state, seat, out)
        out[at["bag"]] = _bag_size(state) / TOTAL_LETTERS
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
        if self.omniscient:
            self._hidden(state, seat, out)
        return out

    def _role_facts(self, state: KrzGrtnState, seat: int, is_x: bool, out: np.ndarray) -> None:
        """`role_globals`, and `letter_facts` (a giver) or `pair_match` (laid-out pictures)."""
        game, s = self.game, self.s
        givers = state.givers()
        owned = [state.owned_letters(g) for g in givers]
        target = state.target if not is_x else -1
        clue_fits = clue_fits_from_initial = False
        if target >= 0:
            clue_fits, clue_fits_from_initial, extensions = self._clue_against_target(target, state.clues[seat])
        index = min(state.level_index, len(game.levels) - 1)
        rank = givers.index(seat) if seat in givers else 0
        g = out[s["role_globals"]]
        g[0 if is_x else 1] = 1.0
        if state.phase != OVER:
            g[2 + state.phase] = 1.0
        g[6:] = (
            game.candidates_at(index) / MAX_CANDIDATES,
            game.draws_at(index) / MAX_DRAWS,
            state.lives / MAX_LIVES,
            state.level_index / NUM_LEVELS,
            state.held[seat] / MAX_TILE_LIMIT,
            state.blanks[seat] / 2,
            state.clue_letters[seat] / MAX_TILE_LIMIT,
            clue_fits,
            clue_fits_from_initial,
            rank / 5,
            not is_x and rank == len(givers) - 1,
            sum(owned) / len(owned) / MAX_TILE_LIMIT,
            min(owned) / MAX_TILE_LIMIT,
            len(givers) / 5,
            _bag_size(state) / TOTAL_LETTERS,
            (len(givers) if state.phase == GUESS else 0) / 5,
            max(0, state.held[seat] - game.tile_limit) / MAX_TILE_LIMIT,
        )
        if not is_x and state.phase in (VOTE, CLUE, RETURN):
            facts = out[s["letter_facts"]].reshape(NUM_TILE_KINDS, len(LETTER_FACTS))
            facts[:NUM_LETTERS, 0] = np.minimum(state.supply[seat], 4) / 4
            facts[BLANK, 0] = state.blanks[seat] / 2
            if target >= 0:
                facts[:NUM_LETTERS, 1:4] = letter_statics(target)
                facts[:NUM_LETTERS, 4:8] = extensions
            facts[:NUM_LETTERS, 8] = DECK_FREQUENCY
            facts[BLANK, 9] = 1.0
        if state.phase == GUESS:
            block = out[s["pair_match"]].reshape(game.max_candidates, game.num_players - 1, len(PAIR_MATCH))
            self._match_pairs(state.candidates, [state.clues[giver] for giver in givers], block)

    def _match_pairs(self, pictures: list[int], clues: list[list[int]], block: np.ndarray) -> None:
        """`block[c, k]` = PAIR_MATCH of laid-out picture c and revealed clue k (zero for a clue without letters)."""
        tiles = np.full((len(clues), self.game.max_clue_length), -1, dtype=np.int64)
        for slot, clue in enumerate(clues):
            tiles[slot, : len(clue)] = clue
        k = self._kernels
        k.match_pairs(k.WORDS, k.WORD_LENGTHS, np.array(pictures, dtype=np.int64), tiles, block)

    def _clue_against_target(self, target: int, tiles: list[int]) -> tuple[bool, bool, np.ndarray]:
        """A giver's clue so far against the target's words: (it fits a word, it fits one from that word's
        initial, LETTER_FACTS 4..7 for every letter as [NUM_LETTERS, 4] in a buffer the next call reuses)."""
        letters = np.array([t for t in tiles if t != BLANK], dtype=np.int64)
        k = self._kernels
        fits, from_initial = k.extend_clue(k.WORDS[target], k.WORD_LENGTHS[target], letters, self._extensions)
        return fits, from_initial, self._extensions

    def _seats(self, state: KrzGrtnState, seat: int, out: np.ndarray) -> None:
        """The `seats` block, one row of SEAT_FEATURES per seat from the observer clockwise, written by flat
        index (row `(p - seat) % n` is seat p's)."""
        n, start = self.game.num_players, self.at["seats"]
        held, clued, limit = state.held, state.clue_letters, self.game.tile_limit
        for slot, p in enumerate(self.order[seat]):
            out[start + slot * SEAT_FEATURES + 2] = (held[p] + clued[p]) / limit
        out[start + (state.x - seat) % n * SEAT_FEATURES] = 1.0
        if state.current_player >= 0:
            out[start + (state.current_player - seat) % n * SEAT_FEATURES + 1] = 1.0
        givers = state.givers()
        for giver in givers[: state.clues_done]:
            out[start + (giver - seat) % n * SEAT_FEATURES + 3] = 1.0
        for giver in givers[: state.votes]:
            out[start + (giver - seat) % n * SEAT_FEATURES + 4] = 1.0

    def _hidden(self, state: KrzGrtnState, seat: int, out: np.ndarray) -> None:
        s, n = self.s, self.game.num_players
        order = [(seat + k) % n for k in range(n)]
        out[s["all_letters"]] = state.supply[order].ravel()
        width = (s["all_clues"].stop - s["all_clues"].start) // n
        for slot, other in enumerate(order):
            _clue(state.clues[other], out, s["all_clues"].start + slot * width)
        out[s["bag_letters"]] = state.bag
        if state.target >= 0:
            out[s["true_target"]] = FEATURES[state.target]
            if state.target_position >= 0:
                out[s["true_target_position"].start + state.target_position] = 1.0


def _bag_size(state: KrzGrtnState) -> int:
    """Letters in the middle: every letter is in the bag, behind a screen (`held`) or in a clue (`clue_letters`),
    so a sum of two short lists gives what `state.bag.sum()` gives, without a numpy call."""
    return TOTAL_LETTERS - sum(state.held) - sum(state.clue_letters)


def _clue(tiles: list[int], out: np.ndarray, start: int) -> None:
    """One-hot rows of a clue's tiles, the row of its k-th tile at `start + k * NUM_TILE_KINDS`."""
    for k, tile in enumerate(tiles):
        out[start + k * NUM_TILE_KINDS + tile] = 1.0

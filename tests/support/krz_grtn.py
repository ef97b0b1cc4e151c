"""Helpers for the KRZ GRTN tests (no tests here): scenario states from readable JSON, random play."""

from __future__ import annotations

import numpy as np

from tabletop.envs.krz_grtn.pictures import CONCEPT_ID, CONCEPTS, NUM_CARDS
from tabletop.envs.krz_grtn.rules import KrzGrtnGame
from tabletop.envs.krz_grtn.tiles import LETTER_COUNTS, LETTERS, counts_string, parse_counts


def scenario(
    game: KrzGrtnGame,
    supplies: list[str],
    *,
    phase: str = "vote",
    x: int = 0,
    current: int | None = None,
    level_index: int = 0,
    lives: int = 5,
    clues: list[str] | None = None,
    target: str | None = "pedestrian light",
    candidates: list[str] | None = None,
    target_position: int = -1,
    votes: int = 0,
    clues_done: int = 0,
    seed: int = 0,
) -> dict:
    """A complete JSON state as a table would set it up; the bag, blanks and deck are whatever is left over.

    Past level 1 the previous attempt is on record (`last_attempt`: the level before passed, by the seat right
    of X, its picture in the discard), as every state that has passed a level holds one. Later draws come
    from the generator `load` passes (`"rng": null`)."""
    n = game.num_players
    clues = clues or [""] * n
    used = sum((parse_counts(s) for s in supplies), np.zeros_like(LETTER_COUNTS))
    used = used + sum((parse_counts(c.replace("_", "")) for c in clues), np.zeros_like(LETTER_COUNTS))
    if candidates is None:
        candidates = [target] if target is not None else []
    table_cards = {CONCEPT_ID[c] // 2 for c in candidates}
    givers = [(x + k) % n for k in range(1, n)]
    if current is None:
        current = {"vote": givers[min(votes, n - 2)], "clue": givers[min(clues_done, n - 2)]}.get(phase, x)
    deck = [c for c in np.random.default_rng(seed).permutation(NUM_CARDS).tolist() if c not in table_cards]
    discard, last_attempt = [], None
    if level_index > 0:
        card = deck.pop(0)  # from the bottom of the deck
        discard.append(card)
        last_x = (x - 1) % n
        last_givers = [(last_x + k) % n for k in range(1, n)]
        last_attempt = {
            "level": game.levels[level_index - 1],
            "x": last_x,
            "target": CONCEPTS[2 * card].name,
            "guess": CONCEPTS[2 * card].name,
            "passed": True,
            "clues": {str(g): clue for g, clue in zip(last_givers, ("RS", "TN", "LR", "ST", "NL"))},
        }
    return {
        "game": "krz_grtn",
        "config": game.config(),
        "num_players": n,
        "phase": phase,
        "current_player": current,
        "x": x,
        "level_index": level_index,
        "lives": lives,
        "deck": deck,
        "discard": discard,
        "bag": counts_string(LETTER_COUNTS - used),
        "supplies": supplies,
        "blanks": [game.blanks_per_player - c.count("_") for c in clues],
        "clues": clues,
        "target": target,
        "candidates": candidates,
        "target_position": target_position,
        "votes": votes,
        "clues_done": clues_done,
        "draw_queue": [],
        "draw_amount": 0,
        "after_draws": "",
        "outcome": 0,
        "end_reason": "",
        "last_attempt": last_attempt,
        "rng": None,
    }


def load(game: KrzGrtnGame, data: dict, seed: int = 0):
    return game.state_from_json(data, np.random.default_rng(seed))


def random_states(num_players: int, games: int, seed: int, **kwargs):
    """Yield (state, next action) along seeded uniformly random games."""
    game = KrzGrtnGame(num_players=num_players, **kwargs)
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_initial_state(np.random.default_rng(seed * 10_000 + g))
        while not state.is_terminal():
            legal = np.flatnonzero(state.legal_action_mask())
            action = int(legal[rng.integers(legal.size)])
            yield state, action
            state.apply(action)
        yield state, None


def swap_letters(state, seat: int, rng: np.random.Generator, in_clue: bool) -> bool:
    """Exchange one of `seat`'s letters (behind the screen, or in the clue) with a different one from the bag."""
    if in_clue:
        spots = [i for i, t in enumerate(state.clues[seat]) if t < len(LETTERS)]
        if not spots:
            return False
        spot = spots[rng.integers(len(spots))]
        old = state.clues[seat][spot]
    else:
        held = np.flatnonzero(state.supply[seat])
        if held.size == 0:
            return False
        old = int(held[rng.integers(held.size)])
    options = [k for k in np.flatnonzero(state.bag) if k != old]
    if not options:
        return False
    new = int(options[rng.integers(len(options))])
    state.bag[new] -= 1
    state.bag[old] += 1
    if in_clue:
        state.clues[seat][spot] = new
    else:
        state.supply[seat, old] -= 1
        state.supply[seat, new] += 1
    state._mask = None
    return True


def lengthen_clue(state, seat: int, rng: np.random.Generator) -> bool:
    """Move one of `seat`'s letters from behind the screen into the clue being laid (owned count unchanged)."""
    held = np.flatnonzero(state.supply[seat])
    if held.size == 0:
        return False
    letter = int(held[rng.integers(held.size)])
    state.supply[seat, letter] -= 1
    state.held[seat] -= 1
    state.clues[seat].append(letter)
    state.clue_letters[seat] += 1
    state._mask = None
    return True

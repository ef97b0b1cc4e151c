"""Determinization: a full KRZ GRTN position drawn from what one seat knows (OpenSpiel's `resample_from_infostate`).

Hidden from `seat`: the deck's order (from everyone); the target while `seat` is X (before the layout: which
unseen picture, and its side; during the guess: which of the laid-out pictures); the letters behind the other
screens and in the middle; the other givers' clues until they are revealed; the generator behind later draws.
Known to it: its own letters, blanks and clue, how many letters every player owns (screen plus clue), the
bag's size, the pictures in the box and on the table, revealed clues and `last_attempt`.

How each is drawn (docs/krz_grtn.md, "Determinization"): the deck is shuffled; X's target is a uniform unseen
picture with a uniform side (a uniform laid-out picture during the guess: clues are choices, not evidence
this draw reads); the unseen letters (every letter less the own screen and clue and the revealed clues) are
dealt uniformly into the other players' owned counts and the middle; an unrevealed clue keeps no secret it
could show: its number of letters is uniform in [2, owned] once finished ([0, owned] while being laid), its
blanks uniform in [0, blanks kept], its letters a uniform choice of the giver's owned letters, in random
order. The state is built through the JSON form (`to_json` / `state_from_json`).
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.krz_grtn.phases import CLUE, GUESS, MIN_CLUE_LETTERS
from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.tiles import BLANK, LETTER_COUNTS, NUM_LETTERS, counts_string, tiles_string


def unseen_letters(state, seat: int) -> np.ndarray:
    """Counts per letter of the letters `seat` has not seen: behind other screens, in hidden clues, in the middle."""
    counts = LETTER_COUNTS - state.supply[seat] - np.bincount(_letters(state.clues[seat]), minlength=NUM_LETTERS)
    for g in _revealed_clues(state, seat):
        counts -= np.bincount(_letters(state.clues[g]), minlength=NUM_LETTERS)
    return counts


def resample(state, seat: int, rng: np.random.Generator):
    """A new state with the hidden letters, clues, target and deck order redrawn from what `seat` knows."""
    game = state.game
    n = game.num_players
    if not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
        raise ValueError(f"seat must be an int in [0, {n}), got {seat!r}")
    seat = int(seat)
    data = state.to_json()
    letters = np.repeat(np.arange(NUM_LETTERS), unseen_letters(state, seat))
    rng.shuffle(letters)
    revealed = set(_revealed_clues(state, seat))
    supplies, clues, blanks = [row.copy() for row in state.supply], [list(c) for c in state.clues], list(state.blanks)
    for p in range(n):
        if p == seat:
            continue
        fixed = _letters(clues[p]) if p in revealed else []
        owned = state.owned_letters(p) - len(fixed)
        mine, letters = letters[:owned], letters[owned:]
        if p not in revealed and state.phase == CLUE and p in _clue_makers(state):
            clues[p], mine, blanks[p] = _draw_clue(mine, p in state.givers()[: state.clues_done], game, rng)
        elif p not in revealed:
            clues[p] = []
        supplies[p] = np.bincount(mine, minlength=NUM_LETTERS)
    data["supplies"] = [counts_string(row) for row in supplies]
    data["clues"] = [tiles_string(c) for c in clues]
    data["blanks"] = blanks
    data["bag"] = counts_string(np.bincount(letters, minlength=NUM_LETTERS))
    deck = sorted(state.deck)  # the cards alone: their order is hidden, so no draw may start from it
    if seat == state.x and state.target >= 0:
        if state.phase == GUESS:
            position = int(rng.integers(len(state.candidates)))
            data["target"], data["target_position"] = CONCEPTS[state.candidates[position]].name, position
        else:  # any picture not yet seen, either side: the target's card and the deck's are one pool to X
            deck = sorted([*deck, state.target // 2])
            card = deck.pop(int(rng.integers(len(deck))))
            target = 2 * card + int(rng.integers(2))
            data["target"], data["candidates"] = CONCEPTS[target].name, [CONCEPTS[target].name]
    data["deck"] = [deck[i] for i in rng.permutation(len(deck))]
    data["rng"] = np.random.PCG64(int(rng.integers(2**63))).state
    return game.state_from_json(data)


def _letters(tiles: list[int]) -> list[int]:
    return [t for t in tiles if t != BLANK]


def _revealed_clues(state, seat: int) -> list[int]:
    """Other givers whose clues `seat` has seen on the table (laid out for the guess)."""
    return [g for g in state.givers() if g != seat] if state.phase == GUESS else []


def _clue_makers(state) -> tuple[int, ...]:
    """Givers whose clue is finished or being laid (clue phase)."""
    givers = state.givers()
    return givers[: state.clues_done + 1] if state.clues_done < len(givers) else givers


def _draw_clue(owned: np.ndarray, finished: bool, game, rng: np.random.Generator):
    """An unrevealed clue from a giver's owned letters: (clue tiles, letters left behind the screen, blanks kept)."""
    least = MIN_CLUE_LETTERS if finished else 0
    count = int(rng.integers(least, len(owned) + 1))
    used_blanks = int(rng.integers(game.blanks_per_player + 1))
    tiles = owned[:count].tolist() + [BLANK] * used_blanks  # `owned` is already in random order
    order = rng.permutation(len(tiles))
    return [tiles[i] for i in order], owned[count:], game.blanks_per_player - used_blanks

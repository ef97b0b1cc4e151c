"""The fixed action layout: one Discrete space for every sub-step of a level attempt.

| actions | meaning |
|---|---|
| 0 | vote "no" in the Life! vote |
| 1 | say "Life!" (vote yes) |
| 2 .. 22 | add letter B..Z (our 21 consonants, alphabetical) to your clue |
| 23 | add a blank to your clue |
| 24 | finish your clue |
| 25 .. 45 | return letter B..Z to the middle (tile limit) |
| 46 .. 46+A_max-1 | X guesses candidate i (positions on the table, left to right) |
"""

from __future__ import annotations

from tabletop.envs.krz_grtn.tiles import BLANK, LETTERS, NUM_LETTERS, NUM_TILE_KINDS

VOTE_NO = 0
VOTE_YES = 1
ADD_TILE = 2
FINISH_CLUE = ADD_TILE + NUM_TILE_KINDS
RETURN_LETTER = FINISH_CLUE + 1
GUESS = RETURN_LETTER + NUM_LETTERS


def num_actions(max_candidates: int) -> int:
    return GUESS + max_candidates


def add_tile(tile: int) -> int:
    return ADD_TILE + tile


def return_letter(letter: int) -> int:
    return RETURN_LETTER + letter


def guess(position: int) -> int:
    return GUESS + position


def describe(action: int, candidate_names: list[str] | None = None) -> str:
    """The action in the rulebook's words; `candidate_names` names the guessed picture if known."""
    if action == VOTE_NO:
        return 'keep your hand down (no "Life!")'
    if action == VOTE_YES:
        return 'raise your hand: "Life!"'
    if ADD_TILE <= action < FINISH_CLUE:
        tile = action - ADD_TILE
        return "add a blank to the clue" if tile == BLANK else f"add {LETTERS[tile]} to the clue"
    if action == FINISH_CLUE:
        return "finish the clue"
    if RETURN_LETTER <= action < GUESS:
        return f"return {LETTERS[action - RETURN_LETTER]} to the middle"
    position = action - GUESS
    name = ""
    if candidate_names is not None and position < len(candidate_names):
        name = f" ({candidate_names[position]})"
    return f"point at picture {position + 1}{name}"

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

from collections.abc import Mapping
from functools import cache
from typing import Any

from tabletop.envs.core.actions import ActionLayout
from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.tiles import BLANK, LETTERS, NUM_LETTERS, NUM_TILE_KINDS


@cache
def layout(max_candidates: int) -> ActionLayout:
    """The actions of a table of at most `max_candidates` pictures (only the guesses depend on it)."""
    return ActionLayout.of(
        ("vote_no", (), 'vote "no" in the Life! vote'),
        ("vote_yes", (), 'say "Life!" (vote yes)'),
        (
            "add_tile",
            NUM_TILE_KINDS,
            "add tile t to your clue: letters B..Z (our 21 consonants, alphabetical), then the blank",
        ),
        ("finish_clue", (), "finish your clue"),
        ("return_letter", NUM_LETTERS, "return letter B..Z to the middle (tile limit)"),
        ("guess", max_candidates, "X guesses candidate i (positions on the table, left to right)"),
    )


# the first action of each block: every block before the guesses is the same for every table
VOTE_NO, VOTE_YES, ADD_TILE, FINISH_CLUE, RETURN_LETTER, GUESS = (b.start for b in layout(1).blocks)


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


def public_constants(game) -> dict:
    """What a drawing of this configuration reads besides a seat's view: the letters, the levels, the lives."""
    return {"letters": LETTERS, "blank": BLANK, "levels": list(game.levels), "max_lives": int(game.lives)}


def picture_names(view: Mapping[str, Any]) -> dict[str, list[Any]]:
    """{id: [name, keywords]} for every picture id the view holds (table, target, last attempt): a page names
    only pictures its seat already sees, so it never receives the deck."""
    ids = set(view.get("candidates") or [])
    if view.get("target") is not None:
        ids.add(view["target"])
    last = view.get("last_attempt")
    if last:
        ids.update(last[k] for k in ("target", "guess") if last.get(k) is not None)
    return {str(i): [CONCEPTS[i].name, list(CONCEPTS[i].keywords)] for i in sorted(int(i) for i in ids)}

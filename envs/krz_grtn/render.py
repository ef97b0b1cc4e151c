"""The table as text (`ansi`) and as a picture (`rgb_array`): level, lives, pictures laid out, clues.

The text render of a seat shows only what that seat knows (`KrzGrtnState.view`); without a seat, and in the
picture, the whole table as an onlooker behind every screen would see it (the target is marked).
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.core.canvas import BLACK, FELT, GREY, LIGHT_GREY, PLAYER_COLORS, WHITE, Canvas
from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.envs.krz_grtn.rules import CLUE, GUESS, OVER, PHASES, KrzGrtnGame, KrzGrtnState
from tabletop.envs.krz_grtn.tiles import BLANK, counts_string, tile_char, tiles_string

CARD_W, CARD_H, GAP = 118, 84, 8
TILE = 22
GOLD = (230, 180, 40)
TILE_FACE = (245, 232, 200)


class KrzGrtnRenderer:
    """Text for a seat (or the whole table) and the onlooker's picture."""

    def __init__(self, game: KrzGrtnGame):
        self.game = game

    def ansi(self, state: KrzGrtnState, seat: int | None = None) -> str:
        return ansi(state, seat)

    def rgb(self, state: KrzGrtnState) -> np.ndarray:
        return rgb(state)

    def describe(self, state: KrzGrtnState, action: int, seat: int | None = None) -> str | None:
        """Votes, finished clues and guesses are public. A clue is laid behind the giver's screen until all
        clues are revealed, so another seat learns nothing of a tile added (not even how many: the private
        observation hides clue lengths), only that the clue is finished; a letter put back to the middle
        is seen as a letter, not which one."""
        action = int(action)
        if seat is None or seat == state.current_player:
            return state.action_to_string(action)
        if act.ADD_TILE <= action < act.FINISH_CLUE:
            return None
        if act.RETURN_LETTER <= action < act.GUESS:
            return "return a letter to the middle"
        return state.action_to_string(action)


def _header(state: KrzGrtnState) -> str:
    game = state.game
    index = min(state.level_index, len(game.levels) - 1)
    return (
        f"level {game.levels[index]} ({state.level_index} of {len(game.levels)} passed) "
        f"A {game.candidates_at(index)} B {game.draws_at(index)} lives {state.lives}"
    )


def _status(state: KrzGrtnState) -> str:
    if state.phase == OVER:
        return ("WON: " if state.outcome > 0 else "LOST: ") + state.end_reason
    return f"X is player_{state.x} - {PHASES[state.phase]}: player_{state.current} to act"


def ansi(state: KrzGrtnState, seat: int | None = None) -> str:
    """The table as `seat` knows it: its own screen and clue, the target if a giver, the other seats'
    letter counts, their clues once laid out; everything if `seat` is None."""
    sees_target = seat is None or seat != state.x
    lines = ["KRZ GRTN  " + _header(state), _status(state)]
    if state.target >= 0 and sees_target:
        target = CONCEPTS[state.target]
        lines.append(f"target (givers only): {target.name} [{', '.join(target.keywords)}]")
    if state.phase == GUESS:
        marks = ["*" if sees_target and i == state.target_position else " " for i in range(len(state.candidates))]
        lines.append(
            "pictures: "
            + "  ".join(f"{i + 1}){m}{CONCEPTS[c].name}" for i, (c, m) in enumerate(zip(state.candidates, marks)))
        )
    for s in range(state.game.num_players):
        role = "X    " if s == state.x else "giver"
        clue = tiles_string(state.clues[s]) or "-"
        if seat in (None, s):
            screen = f"letters {counts_string(state.supply[s]) or '-':<10} blanks {state.blanks[s]}"
        else:
            screen, clue = f"owns {state.owned_letters(s)} letters", clue if state.phase == GUESS else "?"
        lines.append(f"player_{s} {role} {screen}  clue {clue}")
    lines.append(f"middle: {int(state.bag.sum())} letters; deck: {len(state.deck)} cards")
    return "\n".join(lines)


def rgb(state: KrzGrtnState) -> np.ndarray:
    game = state.game
    cols = max(game.max_candidates, 4)
    width = GAP + cols * (CARD_W + GAP)
    height = 40 + CARD_H + 2 * GAP + game.num_players * (TILE + GAP) + GAP
    canvas = Canvas(height, width, FELT)
    canvas.text(6, GAP, "KRZ GRTN " + _header(state), WHITE, 2)
    canvas.text(24, GAP, _status(state)[: (width - GAP) // 8], LIGHT_GREY, 2)
    _pictures(canvas, state, 40)
    _clues(canvas, state, 40 + CARD_H + 2 * GAP)
    return canvas.pixels


def _pictures(canvas: Canvas, state: KrzGrtnState, top: int) -> None:
    """The laid-out pictures; before the layout, the target alone (face up for the givers)."""
    shown = state.candidates if state.phase == GUESS else ([state.target] if state.target >= 0 else [])
    for i, concept in enumerate(shown):
        left = GAP + i * (CARD_W + GAP)
        is_target = state.phase != GUESS or i == state.target_position
        canvas.rect(top, left, CARD_H, CARD_W, WHITE)
        canvas.frame(top, left, CARD_H, CARD_W, GOLD if is_target else GREY, 3)
        words = [CONCEPTS[concept].name, *CONCEPTS[concept].keywords[:3]]
        for row, word in enumerate(words):
            canvas.text(top + 8 + row * 18, left + 6, word[:13], BLACK if row == 0 else GREY, 2 if row == 0 else 1)
        if state.phase == GUESS:
            canvas.text(top + CARD_H - 14, left + CARD_W - 14, str(i + 1), BLACK, 2)


def _clues(canvas: Canvas, state: KrzGrtnState, top: int) -> None:
    """One row per seat: seat colour, role, and the clue tiles (hidden tiles shown while still laid)."""
    for seat in range(state.game.num_players):
        y = top + seat * (TILE + GAP)
        canvas.rect(y, GAP, TILE, TILE, PLAYER_COLORS[seat % len(PLAYER_COLORS)])
        canvas.text(y + 6, GAP + TILE + 6, "X" if seat == state.x else f"P{seat}", WHITE, 2)
        for j, tile in enumerate(state.clues[seat]):
            x = GAP + 3 * TILE + j * (TILE + 4)
            canvas.rect(y, x, TILE, TILE, TILE_FACE if tile != BLANK else LIGHT_GREY)
            if tile != BLANK:
                canvas.text(y + 6, x + 8, tile_char(tile), BLACK, 2)
        if state.phase == CLUE and seat == state.current:
            x = GAP + 3 * TILE + len(state.clues[seat]) * (TILE + 4)
            canvas.frame(y, x, TILE, TILE, GOLD, 2)

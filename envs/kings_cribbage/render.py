"""Kings Cribbage pictures: terminal text and an RGB board with light and dark tiles."""

from __future__ import annotations

import numpy as np

from tabletop.envs.core.canvas import BLACK, FELT, PLAYER_COLORS, WHITE, Canvas
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame, KingsCribbageState, exchange_words
from tabletop.envs.kings_cribbage.tiles import (
    FACE_COLOUR,
    FACE_VALUE,
    SHORT_RANK,
    column_letter,
    kind_colour,
    kind_rank,
)

IVORY = (245, 238, 215)
EBONY = (60, 40, 30)
PENDING = (230, 120, 20)
CELL = 30


def _board_tiles(state: KingsCribbageState) -> dict[tuple[int, int], tuple[int, int, bool]]:
    """(row, col) -> (value, colour, pending) for committed and pending tiles."""
    size = state.game.board_size
    tiles = {}
    for r, c in zip(*np.nonzero(state.values)):
        tiles[int(r), int(c)] = (int(state.values[r, c]), int(state.colours[r, c]), False)
    for action in state.pending:
        face, cell = divmod(action, state.game.cells)
        tiles[divmod(cell, size)] = (int(FACE_VALUE[face]), int(FACE_COLOUR[face]), True)
    return tiles


def _rack_text(rack) -> str:
    return " ".join(SHORT_RANK[kind_rank(k) - 1] + ("d" if kind_colour(k) else "l") for k in rack)


class KingsCribbageRenderer:
    """Text for a seat (or everyone) and the spectator's picture."""

    def __init__(self, game: KingsCribbageGame):
        self.game = game

    def ansi(self, state: KingsCribbageState, seat: int | None = None) -> str:
        """Light tiles as ` 7 `, dark tiles as `[7]`, pending tiles as `<7>` / `{7}`; T is a ten.

        Racks are shown for `seat` only (every rack if None); other racks as a tile count."""
        size = self.game.board_size
        tiles = _board_tiles(state)
        lines = ["    " + "".join(f" {column_letter(c)} " for c in range(size))]
        for r in range(size):
            row = []
            for c in range(size):
                if (r, c) not in tiles:
                    row.append(" . ")
                    continue
                value, colour, pending = tiles[r, c]
                brackets = ("<>", "{}") if pending else ("  ", "[]")
                left, right = brackets[colour]
                row.append(f"{left}{SHORT_RANK[value - 1]}{right}")
            lines.append(f"{r + 1:>3} " + "".join(row))
        for s, rack in enumerate(state.racks):
            marker = "*" if s == state.current_player else " "
            shown = _rack_text(rack) if seat in (None, s) else f"{len(rack)} tiles"
            lines.append(f"{marker}player_{s}: score {state.score[s]:>4}  rack {shown}")
        lines.append(
            f" bag: {', '.join(str(len(b)) for b in state.bags)} tiles" + ("  (game over)" if state.terminal else "")
        )
        return "\n".join(lines)

    def describe(self, state: KingsCribbageState, action: int, seat: int | None = None) -> str:
        """Tiles laid on the board, commits and passes are public (a pass says how many tiles go back to
        the bag); which tiles a player sets aside for the exchange stays behind the rack."""
        words = state.action_to_string(action)
        g, action = self.game, int(action)
        if seat is None or seat == state.current_player:
            return words
        if g.moves_mode and action >= g.exchange_base:
            return exchange_words((action - g.exchange_base).bit_count())
        if not g.moves_mode and g.mark_base <= action < g.exchange_action:
            return "choose a tile for the exchange"
        return words

    def rgb(self, state: KingsCribbageState) -> np.ndarray:
        """The board (pending tiles framed in orange) and each seat's score; the mover's swatch is framed."""
        size = self.game.board_size
        margin, panel = 24, 150
        width = margin + size * CELL + panel
        height = max(margin + size * CELL + 8, 40 + 30 * self.game.num_players)
        canvas = Canvas(height, width, WHITE)
        canvas.rect(margin, margin, size * CELL, size * CELL, FELT)
        for i in range(size):
            canvas.text(4, margin + i * CELL + CELL // 2 - 2, column_letter(i), BLACK, scale=1)
            label = str(i + 1)
            canvas.text(margin + i * CELL + CELL // 2 - 3, 2, label, BLACK, scale=1)
        for i in range(size + 1):
            canvas.rect(margin + i * CELL, margin, 1, size * CELL, (20, 70, 40))
            canvas.rect(margin, margin + i * CELL, size * CELL, 1, (20, 70, 40))
        for (r, c), (value, colour, pending) in _board_tiles(state).items():
            top, left = margin + r * CELL + 2, margin + c * CELL + 2
            canvas.rect(top, left, CELL - 3, CELL - 3, EBONY if colour else IVORY)
            if pending:
                canvas.frame(top, left, CELL - 3, CELL - 3, PENDING, thickness=2)
            text = SHORT_RANK[value - 1]
            canvas.text(top + 8, left + (CELL - 3 - Canvas.text_width(text)) // 2, text, WHITE if colour else BLACK)
        x = margin + size * CELL + 12
        for seat in range(self.game.num_players):
            y = margin + 30 * seat
            canvas.rect(y, x, 12, 12, PLAYER_COLORS[seat % len(PLAYER_COLORS)])
            if seat == state.current_player:
                canvas.frame(y - 2, x - 2, 16, 16, BLACK)
            canvas.text(y, x + 18, f"P{seat} {state.score[seat]}", BLACK)
        return canvas.pixels

"""Pictures of the table: coloured squares in a terminal (`ansi`) and an RGB image (`rgb_array`).

The text render of a seat shows that seat's hand (and the public lone tiles), so a human can play from
it; without a seat it shows every hand. The picture shows the public table only.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame, ChrominoState
from tabletop.envs.core.canvas import BLACK, FELT, WHITE, Canvas

RGB = ((215, 48, 39), (245, 200, 40), (50, 160, 70), (40, 95, 210), (135, 65, 170), (250, 250, 250))
_ANSI_BG = ("41", "43", "42", "44", "45", "47")
CELL = 14


class ChrominoRenderer:
    """Text for a seat (or everyone) and the spectator's picture."""

    def __init__(self, game: ChrominoGame):
        self.game = game

    def ansi(self, state: ChrominoState, seat: int | None = None) -> str:
        return ansi(state, seat)

    def rgb(self, state: ChrominoState) -> np.ndarray:
        return rgb(state)

    def describe(self, state: ChrominoState, action: int, seat: int | None = None) -> str:
        """Placements, draws and passes are public (the tile drawn is never named); the tile a player takes
        to lay stays in the hand until the placement shows it, so another seat reads only that one was taken."""
        words = state.action_to_string(action)
        if seat is None or seat == state.current_player or self.game.actions.decode(int(action))[0] != "choose":
            return words
        return "take a tile to lay it"


def _crop(state, margin: int = 1) -> tuple[slice, slice]:
    colours, _ = state.table.grid()
    rows, cols = np.nonzero(colours != T.EMPTY)
    g = state.game.grid_size
    return (
        slice(max(rows.min() - margin, 0), min(rows.max() + margin + 1, g)),
        slice(max(cols.min() - margin, 0), min(cols.max() + margin + 1, g)),
    )


def _status_lines(state) -> list[str]:
    g = state.game
    sizes = " ".join(f"P{s}:{len(h)}" for s, h in enumerate(state.hands))
    lines = [f"{g.variant} {g.num_players}P  bag {len(state.bag)}  hands {sizes}"]
    if state.is_terminal():
        won = [f"P{s}" for s, w in enumerate(state.winners()) if w]
        lines.append(
            "over: "
            + ("winners " + " ".join(won) if g.variant != "expert" else "returns " + str(state.returns().tolist()))
        )
    else:
        lines.append(f"to move: P{state.current_player} ({('choose', 'drawn', 'place')[state.phase]})")
    lone = [f"P{s}:{T.tile_name(h[0])}" for s, h in enumerate(state.hands) if len(h) == 1]
    if lone:
        lines.append("last tiles: " + " ".join(lone))
    if g.variant == "expert":
        lines.append("points: " + " ".join(f"P{s}:{p}" for s, p in enumerate(state.points)))
    return lines


def ansi(state: ChrominoState, seat: int | None = None) -> str:
    """Status, then `seat`'s hand (every hand if None), then the occupied part of the grid."""
    colours, _ = state.table.grid()
    rows, cols = _crop(state)
    shown = range(state.game.num_players) if seat is None else [seat]
    out = _status_lines(state)
    out += [f"hand P{s}: {' '.join(T.tile_name(t) for t in state.hands[s]) or '-'}" for s in shown]
    out.append("     " + "".join(f"{c:>2}" for c in range(cols.start, cols.stop)))
    for r in range(rows.start, rows.stop):
        line = [f"{r:>4} "]
        for c in range(cols.start, cols.stop):
            v = int(colours[r, c])
            line.append(" ." if v == T.EMPTY else f"\x1b[{_ANSI_BG[v]};30m{'**' if v == T.WILD else '  '}\x1b[0m")
        out.append("".join(line))
    return "\n".join(out) + "\n"


def rgb(state: ChrominoState) -> np.ndarray:
    """The whole grid (one square per cell, tiles outlined) above a status panel."""
    colours, tile_ids = state.table.grid()
    g = state.game.grid_size
    lines = _status_lines(state)
    width = max(g * CELL + 2 * CELL, max(Canvas.text_width(s) for s in lines) + 2 * CELL)
    canvas = Canvas(g * CELL + 2 * CELL + len(lines) * 14 + 6, width, WHITE)
    canvas.rect(0, 0, g * CELL + 2 * CELL, width, FELT)
    top = left = CELL
    for r, c in zip(*np.nonzero(colours != T.EMPTY)):
        y, x = top + r * CELL, left + c * CELL
        canvas.rect(y, x, CELL, CELL, BLACK)
        # extend towards same-tile neighbours so each tile reads as one piece with a dark outline
        same_right = c + 1 < g and tile_ids[r, c + 1] == tile_ids[r, c]
        same_down = r + 1 < g and tile_ids[r + 1, c] == tile_ids[r, c]
        canvas.rect(y + 1, x + 1, CELL - 2 + same_down * 2, CELL - 2 + same_right * 2, RGB[colours[r, c]])
        if colours[r, c] == T.WILD:
            canvas.text(y + 2, x + 4, "*", BLACK, scale=2)
    for i, line in enumerate(lines):
        canvas.text(g * CELL + 2 * CELL + 4 + i * 14, CELL, line, BLACK, scale=2)
    return canvas.pixels

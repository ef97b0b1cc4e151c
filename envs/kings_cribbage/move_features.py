"""What a network reads about each offered move (`action_mode="moves"`): one row of features per move, so a
scorer with shared weights can rank the moves. Everything comes from the board and the mover's own rack.

The lines a move makes are read from the runs of board tiles beside each cell (before the move): a move's own
line is its tiles plus the board tiles between and beyond them, and every laid tile's cross line is the tile
plus the runs beside it across (the move's other tiles never lie there).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletop.envs.kings_cribbage.movegen import MOVE_MOST, MoveSet
from tabletop.envs.kings_cribbage.scoring import MAX_HAND
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, FACE_KIND, FACE_VALUE, NUM_KINDS, NUM_RANKS, TILES_PER_KIND

LINES = MAX_HAND + 1  # a move scores its own line and one cross line per tile at most
ENDS = 2 * LINES
FEATURES = (  # (name, columns, meaning): the columns of one move's row, in order
    ("points", 1, f"points / {MOVE_MOST} (the most one move can score)"),
    ("tiles", 1, f"tiles laid / {MAX_HAND}"),
    ("used", NUM_KINDS, "tiles laid, by kind (colour * 13 + rank - 1), count / 4"),
    ("kept", NUM_KINDS, "tiles left on the rack, by kind, count / 4"),
    (
        "placed",
        4 * MAX_HAND,
        "per laid tile in cell order: row / (size - 1), column / (size - 1), value shown / 13, "
        "1 if dark (zeros after the last tile)",
    ),
    ("hands", 1, f"lines of 2+ tiles the move scores / {LINES}"),
    ("longest", 1, f"tiles in the longest of them / {MAX_HAND}"),
    ("closed", 1, f"those of {MAX_HAND} tiles (nobody can extend them) / {LINES}"),
    ("open_ends", 1, f"empty cells just beyond the ends of the shorter ones / {ENDS}"),
    ("hooks", 1, f"empty cells next to a laid tile / {ENDS}"),
)


def _columns() -> dict[str, slice]:
    columns, start = {}, 0
    for name, width, _ in FEATURES:
        columns[name] = slice(start, start + width)
        start += width
    return columns


COLUMNS = _columns()  # name -> its columns in a move's row
NUM_FEATURES = sum(width for _, width, _ in FEATURES)


def board_runs(values: np.ndarray) -> np.ndarray:
    """(4, n, n): the board tiles right before each cell in its row (left), after it (right), above it, below it."""
    n = len(values)
    occupied = values > 0
    looking_back = np.stack(
        (occupied, occupied[:, ::-1], occupied.T, occupied.T[:, ::-1])
    )  # each direction along axis 2
    index = np.arange(n)
    through = index - np.maximum.accumulate(np.where(looking_back, -1, index), axis=2)  # tiles ending at the cell
    back = np.zeros((4, n, n), dtype=np.int64)
    back[:, :, 1:] = through[:, :, :-1]
    runs = np.empty_like(back)
    runs[0], runs[1], runs[2], runs[3] = back[0], back[1][:, ::-1], back[2].T, back[3][:, ::-1].T
    return runs


_KIND_OF = np.append(FACE_KIND, NUM_KINDS)  # by face; the padding face -1 reads the last entry
_VALUE_OF = np.append(FACE_VALUE, 0)
_DARK_OF = np.append(FACE_COLOUR, 0)


def encode_moves(values: np.ndarray, moves: MoveSet, rack: Sequence[int], out: np.ndarray) -> None:
    """Write one row per move into `out` (rows, NUM_FEATURES), which holds zeros; rows past the moves stay 0."""
    m = len(moves)
    if not m:
        return
    n = len(values)
    cells = n * n
    actions, lengths, rows = moves.actions, moves.lengths, np.arange(m)
    real = actions >= 0
    face, cell = np.divmod(actions, cells)  # padding: face -1, the last cell
    row, col = np.divmod(cell, n)
    out = out[:m]
    out[:, COLUMNS["points"].start] = moves.points / MOVE_MOST
    out[:, COLUMNS["tiles"].start] = lengths / MAX_HAND
    used = np.bincount((rows[:, None] * (NUM_KINDS + 1) + _KIND_OF[face]).reshape(-1), minlength=m * (NUM_KINDS + 1))
    used = used.reshape(m, NUM_KINDS + 1)[:, :NUM_KINDS]
    out[:, COLUMNS["used"]] = used / TILES_PER_KIND
    out[:, COLUMNS["kept"]] = (np.bincount(rack, minlength=NUM_KINDS) - used) / TILES_PER_KIND
    placed = out[:, COLUMNS["placed"]].reshape(m, MAX_HAND, 4)
    on_board = real / (n - 1)
    placed[..., 0], placed[..., 1] = row * on_board, col * on_board
    placed[..., 2], placed[..., 3] = _VALUE_OF[face] / NUM_RANKS, _DARK_OF[face]
    # the lines: the move's own line (a one-tile move's: its row) and each tile's cross line
    runs = board_runs(values).reshape(-1)
    vertical = (lengths > 1) & (col[:, 0] == col[:, 1])
    along = np.where(
        vertical, 2 * cells, 0
    )  # where the runs before a cell along the move's line start (+ cells: after)
    across = (2 * cells - along)[:, None] + cell
    before_across, after_across = runs[across], runs[across + cells]
    pos_along, pos_across = np.where(vertical[:, None], row, col), np.where(vertical[:, None], col, row)
    last = lengths - 1
    first_at, last_at = pos_along[:, 0], pos_along[rows, last]
    before, after = runs[along + cell[:, 0]], runs[along + cells + cell[rows, last]]
    length = np.empty((m, MAX_HAND + 1), dtype=np.int64)
    length[:, 0] = last_at - first_at + 1 + before + after
    length[:, 1:] = (1 + before_across + after_across) * real
    low = np.empty_like(length)  # the cells just beyond each line's ends
    high = np.empty_like(length)
    low[:, 0], high[:, 0] = first_at - before - 1, last_at + after + 1
    low[:, 1:], high[:, 1:] = pos_across - before_across - 1, pos_across + after_across + 1
    scored = length >= 2
    open_line = scored & (length < MAX_HAND)
    out[:, COLUMNS["hands"].start] = np.add.reduce(scored, 1) / LINES
    out[:, COLUMNS["longest"].start] = np.maximum.reduce(length * scored, 1) / MAX_HAND
    out[:, COLUMNS["closed"].start] = np.add.reduce(length == MAX_HAND, 1) / LINES
    out[:, COLUMNS["open_ends"].start] = np.add.reduce(open_line & (low >= 0), 1) + np.add.reduce(
        open_line & (high < n), 1
    )
    out[:, COLUMNS["open_ends"].start] /= ENDS
    hooks = np.add.reduce(real & (before_across == 0) & (pos_across > 0), 1)
    hooks += np.add.reduce(real & (after_across == 0) & (pos_across < n - 1), 1)
    hooks += (before == 0) & (first_at > 0)
    hooks += (after == 0) & (last_at < n - 1)
    out[:, COLUMNS["hooks"].start] = hooks / ENDS


def encode_exchanges(rack: Sequence[int], choices: Sequence[int], out: np.ndarray) -> None:
    """Row `choice` of `out` (32, NUM_KINDS; zeros) for every allowed exchange: the tiles it returns to the bag,
    by kind, count / 4 (the choice's bits name positions of the sorted rack)."""
    for choice in choices:
        for position, kind in enumerate(rack):
            if choice >> position & 1:
                out[choice, kind] += 1 / TILES_PER_KIND

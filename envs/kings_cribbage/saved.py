"""Reading a saved state: the checks a position passes before the rules rebuild it.

`read(game, data)` returns the `Position` a saved state describes if the rules can reach it in `game`'s
configuration, and raises `InvalidStateError(field, problem)` otherwise. Every check is an invariant of play:

* keys: exactly the keys `State.to_json` writes, each of its JSON type (a bool is not an int).
* board: a cell is empty (0 in `values`, `colours` and `printed`) or holds a tile: a colour, a printed rank,
  and that rank shown (a 6 may show 9, a 9 may show 6). Never exactly one tile (the opening lays 2-5), one
  orthogonally connected group (every later move touches the board), every line of 2+ tiles a crib hand of
  at most 5 in which every tile scores.
* tiles: the board, the racks and the bags hold each kind exactly 4 times, or as often as the `box` holds it
  (field `tiles`); in solitaire, seat 0's rack and bag hold light tiles only and seat 1's dark ones.
* racks: at most `rack_size` tiles (5), and that many while the seat's bag holds any (a move refills the
  rack, an exchange keeps the bag's size); an empty rack only for the seat whose going out ended the game.
* scores: move points, so none with an empty board, at least the opening's 12 once a tile lies, at most
  what the tiles on the board can have scored; `deductions` are 0 until the end, then the face value of
  each rack.
* the end: a finished game ended one of three ways: the mover went out (`passes` 0), `stall_rounds` rounds
  passed without a move (`passes` at the limit), or every bag is empty and no seat has a move. Before the
  end `passes` stays below the limit.

The move being built (`pending`) and the exchange choices (`marked`) are checked in rules.py by replaying
them as actions; that is also where a state saved as unfinished that the rules would have ended is refused.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop.envs.core.validate import check_header, generator_state, get, integer, require, seat
from tabletop.envs.kings_cribbage.movegen import FIRST_MOVE_BONUS, MOVE_MOST, generate_moves
from tabletop.envs.kings_cribbage.scoring import HAND_POINTS, INVALID, MIN_HAND, hand_key
from tabletop.envs.kings_cribbage.tiles import (
    NUM_FACES,
    NUM_KINDS,
    NUM_RANKS,
    face_value,
    kind_colour,
    kind_name,
    kind_rank,
)

KEYS = (
    "game",
    "config",
    "values",
    "colours",
    "printed",
    "racks",
    "bags",
    "scores",
    "deductions",
    "current",
    "passes",
    "terminal",
    "pending",
    "marked",
    "rng",
)
OPENING_LEAST = FIRST_MOVE_BONUS + 2  # the opening's bonus plus the smallest hand (a pair or a fifteen)
TURNED = {6: 9, 9: 6}  # printed rank -> the other value the tile may show


@dataclass
class Position:
    """The fields of a saved state, checked; racks sorted as the rules keep them."""

    values: np.ndarray
    colours: np.ndarray
    printed: np.ndarray
    racks: list[list[int]]
    bags: list[list[int]]
    scores: list[int]
    deductions: list[int]
    current: int
    passes: int
    terminal: bool
    pending: list[int]
    marked: list[int]
    rng: dict[str, Any]


def read(game: Any, data: Any) -> Position:
    """The position in `data` (a dict as `State.to_json` writes it), or `InvalidStateError`."""
    check_header(data, "kings_cribbage", game.config())
    extra = sorted(str(k) for k in data if k not in KEYS)
    require(
        not extra, extra[0] if extra else "state", f"not a field of a Kings Cribbage state (fields: {', '.join(KEYS)})"
    )
    values, colours, printed = (_grid(data, name, game.board_size) for name in ("values", "colours", "printed"))
    _check_cells(values, colours, printed)
    _check_lines(values)
    n = game.num_players
    racks = [sorted(rack) for rack in _kind_lists(data, "racks", n)]
    bags = _kind_lists(data, "bags", len(set(game.bag_of)))
    _check_tiles(game, values, colours, printed, racks, bags)
    terminal = get(data, "terminal", bool)
    limit = game.stall_rounds * n
    position = Position(
        values=values,
        colours=colours,
        printed=printed,
        racks=racks,
        bags=bags,
        scores=_ints(data, "scores", n, -(2**31), 2**31 - 1),
        deductions=_ints(data, "deductions", n, 0, 2**31 - 1),
        current=seat(get(data, "current", int), "current", n),
        passes=integer(get(data, "passes", int), "passes", 0, limit),
        terminal=terminal,
        pending=[
            integer(a, f"pending[{i}]", 0, NUM_FACES * game.cells - 1) for i, a in enumerate(get(data, "pending", list))
        ],
        marked=[integer(k, f"marked[{i}]", 0, NUM_KINDS - 1) for i, k in enumerate(get(data, "marked", list))],
        rng=generator_state(get(data, "rng", dict)),
    )
    require(
        terminal or position.passes < limit,
        "passes",
        f"{position.passes} turns without a move end the game "
        f"(stall_rounds x num_players = {limit}), but terminal is false",
    )
    _check_racks(game, position)
    _check_scores(position, int(np.count_nonzero(values)))
    if terminal:
        _check_ending(game, position)
    return position


# --- the board ------------------------------------------------------------------------------------------------
def _grid(data: Any, name: str, size: int) -> np.ndarray:
    rows = get(data, name, list)
    require(len(rows) == size, name, f"must have {size} rows (board_size), got {len(rows)}")
    high = 1 if name == "colours" else NUM_RANKS
    for r, row in enumerate(rows):
        require(isinstance(row, list) and len(row) == size, f"{name}[{r}]", f"must be a list of {size} ints")
        if not all(type(cell) is int and 0 <= cell <= high for cell in row):  # the fast path of the check below
            for c, cell in enumerate(row):
                integer(cell, f"{name}[{r}][{c}]", 0, high)
    return np.array(rows, dtype=np.int8)


def _check_cells(values: np.ndarray, colours: np.ndarray, printed: np.ndarray) -> None:
    for r, c in zip(*np.nonzero((values > 0) | (colours > 0) | (printed > 0))):
        at = f"[{r}][{c}]"
        value, colour, rank = int(values[r, c]), int(colours[r, c]), int(printed[r, c])
        if not value:
            require(not colour, f"colours{at}", f"{colour} on an empty cell (values{at} is 0): empty cells are 0")
            require(not rank, f"printed{at}", f"{rank} on an empty cell (values{at} is 0): empty cells are 0")
        require(rank > 0, f"printed{at}", f"0 (no tile) but values{at} shows {value}")
        shown = f"{rank} or {TURNED[rank]}" if rank in TURNED else str(rank)
        require(value in (rank, TURNED.get(rank)), f"values{at}", f"a tile printed {rank} shows {shown}, not {value}")


def _check_lines(values: np.ndarray) -> None:
    """Tiles: never exactly one, one connected group, every line of 2+ a valid crib hand."""
    tiles = [tuple(int(x) for x in cell) for cell in zip(*np.nonzero(values))]
    require(len(tiles) != 1, "values", "holds one tile: the opening move lays 2-5 tiles")
    if not tiles:
        return
    occupied, seen, todo = set(tiles), {tiles[0]}, [tiles[0]]
    while todo:
        r, c = todo.pop()
        for near in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if near in occupied and near not in seen:
                seen.add(near)
                todo.append(near)
    apart = min(occupied - seen, default=None)
    require(
        apart is None,
        "values",
        f"the tile at {_cell(apart)} is not connected to the tile at {_cell(tiles[0])}: "
        "every move after the first touches the board",
    )
    for direction, grid in (("row", values), ("column", values.T)):
        for index in map(
            int, np.flatnonzero(((grid[:, 1:] > 0) & (grid[:, :-1] > 0)).any(1))
        ):  # lines with two tiles side by side
            line, start = grid[index].tolist(), None
            for pos, value in enumerate(line + [0]):
                if value and start is None:
                    start = pos
                elif not value and start is not None:
                    hand = line[start:pos]
                    if len(hand) >= MIN_HAND:
                        cell = (index, start) if direction == "row" else (start, index)
                        require(
                            HAND_POINTS.get(hand_key(hand), INVALID) != INVALID,
                            "values",
                            f"the {direction} of tiles {hand} from {_cell(cell)} is not a crib hand of 2-5 tiles "
                            "in which every tile scores",
                        )
                    start = None


def _cell(cell: tuple[int, int] | None) -> str:
    return "none" if cell is None else f"values[{cell[0]}][{cell[1]}]"


# --- tiles and racks -----------------------------------------------------------------------------------------
def _kind_lists(data: Any, name: str, count: int) -> list[list[int]]:
    lists = get(data, name, list)
    what = "one per seat" if name == "racks" else "one bag; two in solitaire, light and dark"
    require(len(lists) == count, name, f"must hold {count} list{'s' * (count > 1)} ({what}), got {len(lists)}")
    for i, items in enumerate(lists):
        require(isinstance(items, list), f"{name}[{i}]", f"must be a list of tile kinds, got {type(items).__name__}")
        for j, kind in enumerate(items):
            integer(kind, f"{name}[{i}][{j}]", 0, NUM_KINDS - 1)
    return [list(items) for items in lists]


def _check_tiles(game: Any, values, colours, printed, racks: list[list[int]], bags: list[list[int]]) -> None:
    """Each of the game's tiles exactly once; solitaire seats hold and draw their own colour only."""
    count = Counter((colours * NUM_RANKS + printed - 1)[values > 0].tolist())
    for holder in racks + bags:
        count.update(holder)
    tiles = Counter(kind for bag in game.bag_tiles() for kind in bag)
    for kind in range(NUM_KINDS):
        require(
            count[kind] == tiles[kind],
            "tiles",
            f"{kind_name(kind)}: {count[kind]} on the board, the racks and the bags together; "
            f"the game has {tiles[kind]} of this kind",
        )
    if game.variant == "solitaire":
        for name, lists in (("racks", racks), ("bags", bags)):
            for i, items in enumerate(lists):
                wrong = [k for k in items if kind_colour(k) != i]
                require(
                    not wrong,
                    f"{name}[{i}]",
                    f"holds {kind_name(wrong[0]) if wrong else ''}: in solitaire "
                    f"seat {i} draws {('light', 'dark')[i]} tiles only",
                )


def _check_racks(game: Any, p: Position) -> None:
    size = game.rack_size
    for s, rack in enumerate(p.racks):
        require(len(rack) <= size, f"racks[{s}]", f"holds {len(rack)} tiles; a rack holds at most {size}")
        bag = len(p.bags[game.bag_of[s]])
        require(
            len(rack) == size or not bag,
            f"racks[{s}]",
            f"holds {len(rack)} tiles while its bag holds {bag}: a rack is refilled to {size} after every move",
        )
        require(rack or p.terminal, f"racks[{s}]", "is empty, but going out ends the game (terminal is false)")


# --- scores and the end ----------------------------------------------------------------------------------------
def _check_scores(p: Position, board_tiles: int) -> None:
    if not p.terminal:
        require(not any(p.deductions), "deductions", f"{p.deductions}: the leftover tiles are deducted at the end only")
    earned = [score + deduction for score, deduction in zip(p.scores, p.deductions)]
    for s, points in enumerate(earned):
        least = f"less than minus the deduction {p.deductions[s]}" if p.deductions[s] else "negative"
        require(points >= 0, f"scores[{s}]", f"{p.scores[s]} is {least}: moves never lose points")
    total = sum(earned)
    if not board_tiles:
        require(total == 0, "scores", f"{p.scores}: nobody scores before the first tiles lie on the board")
    else:
        require(total >= OPENING_LEAST, "scores", f"{p.scores}: the opening move alone scores at least {OPENING_LEAST}")
        most = board_tiles * MOVE_MOST  # every move lays at least one tile
        require(total <= most, "scores", f"{p.scores}: {board_tiles} tiles on the board score at most {most} together")


def _check_ending(game: Any, p: Position) -> None:
    """A finished game: no move in progress, the leftover deducted, and one of the three ways to end."""
    require(not p.pending, "pending", "the game is over: no move is being built")
    require(not p.marked, "marked", "the game is over: no exchange is being chosen")
    for s, rack in enumerate(p.racks):
        left = sum(face_value(kind_rank(k)) for k in rack)
        require(
            p.deductions[s] == left,
            f"deductions[{s}]",
            f"{p.deductions[s]}, but the tiles left on the rack count {left}",
        )
    out = [s for s, rack in enumerate(p.racks) if not rack]
    if out:
        require(len(out) == 1, "racks", f"seats {out} are all empty: the game ends when the first one goes out")
        require(p.current == out[0], "current", f"{p.current}, but seat {out[0]} went out and so moved last")
        require(p.passes == 0, "passes", f"{p.passes}, but the game ended on seat {out[0]}'s move, which resets it")
        return
    if p.passes == game.stall_rounds * game.num_players:
        return
    require(
        not any(p.bags),
        "terminal",
        "true, but nobody went out, passes is below the stall limit and a bag still holds tiles",
    )
    for s, rack in enumerate(p.racks):
        require(
            not len(generate_moves(p.values, p.colours, rack, ordered=False)),
            "terminal",
            f"true, but seat {s} can still move (the game ends when the bags are empty and nobody can)",
        )


def _ints(data: Any, name: str, count: int, low: int, high: int) -> list[int]:
    items = get(data, name, list)
    require(len(items) == count, name, f"must hold {count} ints (one per seat), got {len(items)}")
    return [integer(x, f"{name}[{i}]", low, high) for i, x in enumerate(items)]

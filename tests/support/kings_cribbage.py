"""Kings Cribbage helpers shared by its tests: positions redrawn from what a seat cannot see, exhaustive move search."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations, permutations, product

from tabletop.envs.core import InvalidStateError
from tabletop.envs.kings_cribbage.tiles import FACE_KIND


def perturbed(state, observer: int, rng) -> object | None:
    """The same public position with every fact hidden from `observer` redrawn: others' free rack tiles
    swapped with the bag, the bag reshuffled. None if the redraw breaks the move or exchange being built."""
    data = state.to_json()
    game = state.game
    cells = game.cells
    locked = Counter(int(FACE_KIND[a // cells]) for a in state.pending) + Counter(state.marked)
    for seat in range(game.num_players):
        if seat == observer:
            continue
        bag = data["bags"][game.bag_of[seat]]
        rack = list(data["racks"][seat])
        keep = Counter(locked) if seat == state.current else Counter()
        free = []
        for k in rack:
            if keep[k]:
                keep[k] -= 1
            else:
                free.append(k)
        fixed = list((Counter(rack) - Counter(free)).elements())
        pool = free + bag
        order = rng.permutation(len(pool))
        pool = [pool[i] for i in order]
        data["racks"][seat] = sorted(fixed + pool[: len(free)])
        data["bags"][game.bag_of[seat]] = pool[len(free) :]
    for b in range(len(data["bags"])):
        data["bags"][b] = [data["bags"][b][i] for i in rng.permutation(len(data["bags"][b]))]
    try:
        return game.state_from_json(data)
    except InvalidStateError as error:  # the mover's redrawn tiles no longer allow the move or exchange begun
        if error.field.startswith(("pending", "marked")):
            return None
        raise


FACE_OPTIONS = {6: (6, 9), 9: (9, 6)}  # printed rank -> values it may show


@cache
def brute_hand(ranks: tuple[int, ...]) -> tuple[int, bool]:
    """(points, every tile contributes) by trying every subset of the tiles."""
    n = len(ranks)
    points, used = 0, [False] * n
    for size in range(2, n + 1):
        for idx in combinations(range(n), size):
            if sum(min(ranks[i], 10) for i in idx) == 15:
                points += 2
                for i in idx:
                    used[i] = True
    for i, j in combinations(range(n), 2):
        if ranks[i] == ranks[j]:
            points += 2
            used[i] = used[j] = True
    for size in (5, 4, 3):
        runs = [
            idx
            for idx in combinations(range(n), size)
            if sorted(ranks[i] for i in idx)
            == list(range(min(ranks[i] for i in idx), min(ranks[i] for i in idx) + size))
        ]
        if runs:
            points += size * len(runs)
            for idx in runs:
                for i in idx:
                    used[i] = True
            break
    return points, all(used)


def _line(occupied, cell, step, size):
    """Cells of the maximal line through `cell` along (dr, dc) over a set of occupied cells."""
    dr, dc = step
    r, c = cell
    while (r - dr, c - dc) in occupied:
        r, c = r - dr, c - dc
    cells = []
    while (r, c) in occupied:
        cells.append((r, c))
        r, c = r + dr, c + dc
    return cells


def brute_moves(values, colours, rack_kinds, size):
    """{((cell, face), ...) sorted by cell: points} for every legal move, by exhaustive search.

    Faces: colour * 15 + j, j = rank - 1, or 13 (6 shown as 9) / 14 (9 shown as 6)."""
    board = {(r, c): (int(values[r][c]), int(colours[r][c])) for r in range(size) for c in range(size) if values[r][c]}
    first = not board

    def empties(cells):
        return all(cell not in board and 0 <= cell[0] < size and 0 <= cell[1] < size for cell in cells)

    geometries = set()
    for r in range(size):
        for c in range(size):
            for dr, dc in ((0, 1), (1, 0)):
                for span in range(0, 5):
                    lo, hi = (r, c), (r + dr * span, c + dc * span)
                    if not empties([lo, hi]):
                        continue
                    inner = [(r + dr * i, c + dc * i) for i in range(1, span)]
                    free = [cell for cell in inner if cell not in board]
                    for k in range(len(free) + 1):
                        for chosen in combinations(free, k):
                            placed = tuple(sorted({lo, hi, *chosen}))
                            if set(inner) - set(chosen) - set(board):
                                continue  # a gap that nobody fills
                            geometries.add(placed)
    moves = {}
    tiles = [(kind // 13, kind % 13 + 1) for kind in rack_kinds]
    for placed in geometries:
        k = len(placed)
        if k > len(tiles) or (first and k < 2):
            continue
        if not first and not any(
            (r + dr, c + dc) in board for r, c in placed for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
        ):
            continue
        lines = _lines(board, placed, size)
        if lines is None:
            continue
        for order in set(permutations(range(len(tiles)), k)):
            options = [
                [(tiles[i][0], tiles[i][1], v) for v in FACE_OPTIONS.get(tiles[i][1], (tiles[i][1],))] for i in order
            ]
            for choice in product(*options):
                key = tuple(
                    (cell[0] * size + cell[1], colour * 15 + (rank - 1 if v == rank else (13 if rank == 6 else 14)))
                    for cell, (colour, rank, v) in zip(placed, choice)
                )
                if key in moves:
                    continue
                points = _score(board, placed, choice, lines, first)
                if points is not None:
                    moves[key] = points
    return moves


def _lines(board, placed, size):
    """The maximal lines of 2+ tiles through the placed cells, or None if the cells are not one line."""
    after = set(board) | set(placed)
    lines = set()
    for cell in placed:
        for step in ((0, 1), (1, 0)):
            line = tuple(_line(after, cell, step, size))
            if len(line) >= 2:
                lines.add(line)
    if len(placed) >= 2:
        horizontal = all(cell[0] == placed[0][0] for cell in placed)
        main = tuple(_line(after, placed[0], (0, 1) if horizontal else (1, 0), size))
        if not set(placed) <= set(main):
            return None  # not one contiguous line
    if not lines or any(len(line) > 5 for line in lines):
        return None
    return lines


def _score(board, placed, choice, lines, first):
    after = dict(board)
    for cell, (colour, _rank, v) in zip(placed, choice):
        after[cell] = (v, colour)
    total = 0
    for line in lines:
        points, ok = brute_hand(tuple(sorted(after[cell][0] for cell in line)))
        if not ok:
            return None
        total += points
        if len(line) == 5 and len({after[cell][1] for cell in line}) == 1:
            total += 10
    if first:
        total += 10
    if len(placed) == 5:
        total += 10
    return total

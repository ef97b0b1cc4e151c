"""The engine against independent oracles: brute-force hand scoring, exhaustive move search, exact masks.

The oracles are deliberately written without the engine's shortcuts (no hand keys or tables, no windows, no
count formulas): every combination of tiles is tried, every line of the finished board is read back cell by cell.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, combinations_with_replacement, permutations, product

import numpy as np
import pytest

from tabletop.envs.kings_cribbage.render import KingsCribbageRenderer
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.scoring import HAND_POINTS, INVALID, hand_key, is_valid_hand, score_crib_hand

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


def test_score_crib_hand_against_brute_force_on_every_rank_multiset():
    checked = 0
    for size in range(2, 6):
        for ranks in combinations_with_replacement(range(1, 14), size):
            points, ok = brute_hand(ranks)
            assert score_crib_hand(ranks) == points, ranks
            assert is_valid_hand(ranks) == ok, ranks
            assert HAND_POINTS[hand_key(ranks)] == (points if ok else INVALID), ranks
            checked += 1
    assert checked == 91 + 455 + 1820 + 6188


def _engine_moves(state) -> dict:
    cells = state.game.cells
    moves = state.moves
    return {
        tuple((int(a) % cells, int(a) // cells) for a in acts[:n]): int(p)
        for acts, n, p in zip(moves.actions, moves.lengths, moves.points)
    }


def _expected_mask(state, brute: dict) -> np.ndarray:
    """The mask from the oracle's move set (or, without moves, from every possible exchange)."""
    g = state.game
    cells = g.cells
    mask = np.zeros(g.num_actions, dtype=np.int8)
    if brute:
        prefix = tuple((a % cells, a // cells) for a in state.pending)
        depth = len(prefix)
        for move in brute:
            if move[:depth] == prefix:
                if len(move) == depth:
                    mask[g.commit_action] = 1
                else:
                    cell, face = move[depth]
                    mask[face * cells + cell] = 1
        return mask
    rack = state.racks[state.current]
    limit = min(5, len(rack), len(state.bags[g.bag_of[state.current]]))
    mask[g.exchange_action] = 1
    marked = tuple(state.marked)
    for size in range(len(marked) + 1, limit + 1):
        for chosen in set(combinations(sorted(rack), size)):
            if chosen[: len(marked)] == marked:
                mask[g.mark_base + chosen[len(marked)]] = 1
    return mask


def _play_and_check(game, seed: int, max_turns: int = 10_000) -> int:
    """Random play; at every turn start the move sets must agree, at every sub-step the masks."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    checked, turns, brute = 0, 0, None
    while not state.is_terminal() and turns < max_turns:
        if not state.pending and not state.marked:
            brute = brute_moves(state.values, state.colours, state.racks[state.current], game.board_size)
            assert _engine_moves(state) == brute, (
                f"seed {seed} turn {turns}\n{KingsCribbageRenderer(game).ansi(state)}"  # the table, on failure only
            )
            turns += 1
        mask = state.legal_action_mask()
        np.testing.assert_array_equal(mask, _expected_mask(state, brute), err_msg=f"seed {seed} turn {turns}")
        checked += 1
        legal = np.flatnonzero(mask)
        # Lean towards committing early so that many short and long moves are both visited.
        commit = game.commit_action
        action = commit if mask[commit] and rng.random() < 0.5 else int(rng.choice(legal))
        state.apply(int(action))
    return checked


@pytest.mark.slow
@pytest.mark.parametrize(
    "config, seeds",
    [
        ({"board_size": 7}, range(0, 10)),
        ({"board_size": 7, "num_players": 3}, range(100, 104)),
        ({"board_size": 7, "num_players": 4}, range(200, 204)),
        ({"board_size": 7, "variant": "solitaire"}, range(300, 304)),
        ({"board_size": 5}, range(400, 416)),
    ],
)
def test_moves_and_masks_match_exhaustive_search(config, seeds):
    game = KingsCribbageGame(**config)
    checked = sum(_play_and_check(game, seed) for seed in seeds)
    assert checked >= 250  # about 2,500 states over the five configurations


@pytest.mark.slow
def test_moves_match_exhaustive_search_on_the_full_board():
    game = KingsCribbageGame()
    assert _play_and_check(game, 7, max_turns=12) > 12

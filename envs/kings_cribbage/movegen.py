"""Every legal move of a turn, enumerated at once (the sub-step masks are derived from this set).

A move fills some empty cells of one row or column. After the move those cells and the board tiles between
them form one maximal line `[a, b]` (the cells just outside it stay empty), so a move of 2+ tiles is fully
described by its *window* `[a, b]` — the tiles fill exactly the window's empty cells — plus the faces laid
there. Windows are found with numpy; for each window the rack's face multisets that make the window a valid
hand are looked up once (cached by the board tiles' hand key), their distinct orderings are checked
against the perpendicular hands through each empty cell in one vectorised step. One-tile moves have no
direction and are enumerated separately, cell by cell.

A move is a sequence of place actions `face * cells + cell` in increasing cell order: one move, one sequence.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations, product
from typing import Sequence

import numpy as np

from envs.kings_cribbage.scoring import HAND_POINTS, INVALID, MAX_HAND, PRIMES
from envs.kings_cribbage.tiles import FACE_COLOUR, FACE_VALUE, FACES_OF_KIND, NUM_FACES, RACK_SIZE

FIRST_MOVE_BONUS = 10
FULL_RACK_BONUS = 10
ONE_COLOUR_BONUS = 10
MIXED, NO_TILES = -1, 2  # colour states of a set of tiles besides LIGHT (0) / DARK (1)


@dataclass(frozen=True)
class MoveSet:
    """All legal moves of one turn: `actions[i, :lengths[i]]` are move i's place actions, `points[i]` its score."""

    actions: np.ndarray
    lengths: np.ndarray
    points: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)


def _colour_state(colours: Sequence[int]) -> int:
    if not colours:
        return NO_TILES
    first = colours[0]
    return first if all(c == first for c in colours) else MIXED


def _one_colour_bonus(length: int, fixed_state: int, new_state: int) -> int:
    """+10 when the finished hand has exactly 5 tiles, all of one colour."""
    if length != MAX_HAND or new_state == MIXED or fixed_state == MIXED:
        return 0
    return ONE_COLOUR_BONUS if fixed_state in (NO_TILES, new_state) else 0


_PERMS: dict[tuple[int, ...], np.ndarray] = {}


def _orderings(faces: tuple[int, ...]) -> np.ndarray:
    """Distinct orderings of a face multiset as an (m, k) array (cached across turns)."""
    perms = _PERMS.get(faces)
    if perms is None:
        perms = np.array(sorted(set(permutations(faces))), dtype=np.int64)
        _PERMS[faces] = perms
    return perms


class _Rack:
    """The rack's face multisets by size, with their hand keys and colour states."""

    def __init__(self, rack: Sequence[int]):
        self.size = len(rack)
        self.faces = sorted({f for kind in rack for f in FACES_OF_KIND[kind]})
        self.combos: dict[int, list[tuple[tuple[int, ...], int, int]]] = {}
        ordered = sorted(rack)
        for k in range(2, min(MAX_HAND, self.size) + 1):
            seen = set()
            for kinds in set(combinations(ordered, k)):
                for faces in product(*(FACES_OF_KIND[kind] for kind in kinds)):
                    seen.add(tuple(sorted(faces)))
            combos = []
            for faces in sorted(seen):
                key = 1
                for f in faces:
                    key *= PRIMES[FACE_VALUE[f]]
                combos.append((faces, key, _colour_state([int(FACE_COLOUR[f]) for f in faces])))
            self.combos[k] = combos


class _Generator:
    """One turn's enumeration over a board (values 0 = empty, colours) and a rack of kinds."""

    def __init__(self, values: np.ndarray, colours: np.ndarray, rack: Sequence[int]):
        self.size = values.shape[0]
        self.cells = self.size * self.size
        self.first = not values.any()
        self.rack = _Rack(rack)
        self.grids = {0: (values.tolist(), colours.tolist()), 1: (values.T.tolist(), colours.T.tolist())}
        self.occupied = {0: values > 0, 1: values.T > 0}
        self.window_cache: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray] | None] = {}
        self.cross_cache: dict[tuple[int, int, int], np.ndarray | None] = {}
        self.blocks: list[tuple[np.ndarray, np.ndarray]] = []

    # --- hands across the line ------------------------------------------------------------------
    def cross(self, orient: int, i: int, j: int) -> np.ndarray | None:
        """Points per face of the hand made along axis 0 of `orient`'s grid through empty (i, j):
        None if no tile touches it there, INVALID for faces that make an invalid hand."""
        key = (orient, i, j)
        if key in self.cross_cache:
            return self.cross_cache[key]
        values, colours = self.grids[orient]
        line_key, tile_colours = 1, []
        for step in (-1, 1):
            r = i + step
            while 0 <= r < self.size and values[r][j]:
                line_key *= PRIMES[values[r][j]]
                tile_colours.append(colours[r][j])
                r += step
        table = None
        if tile_colours:
            length = len(tile_colours) + 1
            state = _colour_state(tile_colours)
            table = np.full(NUM_FACES, INVALID, dtype=np.int64)
            if length <= MAX_HAND:
                for f in self.rack.faces:
                    points = HAND_POINTS[line_key * PRIMES[FACE_VALUE[f]]]
                    if points != INVALID:
                        table[f] = points + _one_colour_bonus(length, state, int(FACE_COLOUR[f]))
        self.cross_cache[key] = table
        return table

    # --- moves of 2+ tiles ----------------------------------------------------------------------
    def candidate_windows(self, orient: int) -> list[tuple[int, int, int]]:
        """(line, start, length) of windows whose move would be contiguous, touching and fit the rack."""
        occ = self.occupied[orient].astype(np.int64)
        n = self.size
        padded = np.zeros((n, n + 2), dtype=np.int64)
        padded[:, 1:-1] = occ
        touching = np.zeros_like(occ)
        touching[1:] |= occ[:-1]
        touching[:-1] |= occ[1:]
        touching &= 1 - occ
        occ_sum = np.zeros((n, n + 1), dtype=np.int64)
        occ_sum[:, 1:] = occ.cumsum(1)
        touch_sum = np.zeros((n, n + 1), dtype=np.int64)
        touch_sum[:, 1:] = touching.cumsum(1)
        most = min(MAX_HAND, self.rack.size)
        found = []
        for length in range(2, MAX_HAND + 1):
            if length > n:
                break
            starts = np.arange(n - length + 1)
            tiles = occ_sum[:, starts + length] - occ_sum[:, starts]
            touches = touch_sum[:, starts + length] - touch_sum[:, starts]
            empties = length - tiles
            ok = (empties >= 2) & (empties <= most)
            ok &= (padded[:, starts] == 0) & (padded[:, starts + length + 1] == 0)
            if not self.first:
                ok &= (tiles > 0) | (touches > 0)
            lines, idx = np.nonzero(ok)
            found += [(int(r), int(starts[a]), length) for r, a in zip(lines, idx)]
        return found

    def window_faces(self, fixed_key: int, fixed_state: int, length: int, k: int):
        """Orderings of rack faces that make a valid hand with the window's board tiles, and its points."""
        key = (fixed_key, fixed_state, k)
        if key not in self.window_cache:
            blocks, points = [], []
            for faces, combo_key, state in self.rack.combos.get(k, ()):
                hand = HAND_POINTS[fixed_key * combo_key]
                if hand == INVALID:
                    continue
                perms = _orderings(faces)
                blocks.append(perms)
                points.append(np.full(len(perms), hand + _one_colour_bonus(length, fixed_state, state)))
            self.window_cache[key] = (np.concatenate(blocks), np.concatenate(points)) if blocks else None
        return self.window_cache[key]

    def add_window(self, orient: int, line: int, start: int, length: int) -> None:
        values, colours = self.grids[orient]
        row_values, row_colours = values[line], colours[line]
        fixed_key, fixed_colours, empty = 1, [], []
        for j in range(start, start + length):
            if row_values[j]:
                fixed_key *= PRIMES[row_values[j]]
                fixed_colours.append(row_colours[j])
            else:
                empty.append(j)
        k = len(empty)
        found = self.window_faces(fixed_key, _colour_state(fixed_colours), length, k)
        if found is None:
            return
        perms, points = found
        crosses = [self.cross(orient, line, j) for j in empty]
        if any(c is not None for c in crosses):
            table = np.zeros((k, NUM_FACES), dtype=np.int64)
            for pos, c in enumerate(crosses):
                if c is not None:
                    table[pos] = c
            gains = table[np.arange(k), perms]
            ok = (gains >= 0).all(1)
            if not ok.any():
                return
            perms, points = perms[ok], points[ok] + gains[ok].sum(1)
        cells = np.array([line * self.size + j if orient == 0 else j * self.size + line for j in empty])
        bonus = (FIRST_MOVE_BONUS if self.first else 0) + (FULL_RACK_BONUS if k == RACK_SIZE else 0)
        self.blocks.append((perms * self.cells + cells, points + bonus))

    # --- one-tile moves -------------------------------------------------------------------------
    def add_single_tiles(self) -> None:
        occ = self.occupied[0]
        near = np.zeros_like(occ)
        near[1:] |= occ[:-1]
        near[:-1] |= occ[1:]
        near[:, 1:] |= occ[:, :-1]
        near[:, :-1] |= occ[:, 1:]
        near &= ~occ
        faces = np.array(self.rack.faces, dtype=np.int64)
        actions, points = [], []
        for r, c in zip(*np.nonzero(near)):
            r, c = int(r), int(c)
            vertical = self.cross(0, r, c)  # the column through (r, c)
            horizontal = self.cross(1, c, r)  # the row through (r, c)
            total = np.zeros(len(faces), dtype=np.int64)
            ok = np.ones(len(faces), dtype=bool)
            for table in (vertical, horizontal):
                if table is not None:
                    gains = table[faces]
                    ok &= gains >= 0
                    total += gains
            if ok.any():
                actions.append(faces[ok] * self.cells + (r * self.size + c))
                points.append(total[ok])
        if actions:
            self.blocks.append((np.concatenate(actions)[:, None], np.concatenate(points)))

    def run(self) -> MoveSet:
        for orient in (0, 1):
            for line, start, length in self.candidate_windows(orient):
                self.add_window(orient, line, start, length)
        if not self.first and self.rack.size:
            self.add_single_tiles()
        if not self.blocks:
            empty = np.zeros((0, MAX_HAND), dtype=np.int64)
            return MoveSet(empty, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        total = sum(len(p) for _, p in self.blocks)
        actions = np.full((total, MAX_HAND), -1, dtype=np.int64)
        lengths = np.empty(total, dtype=np.int64)
        points = np.empty(total, dtype=np.int64)
        at = 0
        for acts, pts in self.blocks:
            n, k = acts.shape
            actions[at : at + n, :k] = acts
            lengths[at : at + n] = k
            points[at : at + n] = pts
            at += n
        return MoveSet(actions, lengths, points)


def generate_moves(values: np.ndarray, colours: np.ndarray, rack: Sequence[int]) -> MoveSet:
    """Every legal move for a player holding `rack` (tile kinds) on this board (values 0 = empty)."""
    return _Generator(np.asarray(values), np.asarray(colours), rack).run()

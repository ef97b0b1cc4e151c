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
_PRIME_ARRAY = np.array([1, *PRIMES[1:]], dtype=np.int64)  # empty cells (0) multiply by 1
_ARANGE = np.arange(MAX_HAND)


def _orderings(faces: tuple[int, ...]) -> np.ndarray:
    """Distinct orderings of a face multiset as an (m, k) array (cached across turns)."""
    perms = _PERMS.get(faces)
    if perms is None:
        perms = np.array(sorted(set(permutations(faces))), dtype=np.int64)
        _PERMS[faces] = perms
    return perms


class _Rack:
    """The rack's face multisets by size, as (distinct orderings, hand key, colour state)."""

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
                combos.append((_orderings(faces), key, _colour_state([int(FACE_COLOUR[f]) for f in faces])))
            self.combos[k] = combos


class _Generator:
    """One turn's enumeration over a board (values 0 = empty, colours) and a rack of kinds.

    Orientation 0 reads the board as it is (windows along rows); orientation 1 reads its transpose
    (windows along columns). In both, "across" means along axis 0 of that orientation's grid."""

    def __init__(self, values: np.ndarray, colours: np.ndarray, rack: Sequence[int]):
        self.size = values.shape[0]
        self.cells = self.size * self.size
        self.first = not values.any()
        self.rack = _Rack(rack)
        self.values = {0: values.astype(np.int64), 1: values.T.astype(np.int64)}
        self.colours = {0: colours.astype(np.int64), 1: colours.T.astype(np.int64)}
        self.window_cache: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray] | None] = {}
        self.blocks: list[tuple[np.ndarray, np.ndarray]] = []
        self.across = {o: self.across_table(o) for o in (0, 1)}

    # --- hands across the line ------------------------------------------------------------------
    def across_table(self, orient: int) -> np.ndarray:
        """(n, n, faces) points of the hand a face makes across each empty cell: 0 where no tile touches
        the cell across, INVALID where that face would make the hand invalid (or longer than 5)."""
        n = self.size
        table = np.zeros((n, n, NUM_FACES), dtype=np.int64)
        values, colours = self.values[orient].tolist(), self.colours[orient].tolist()
        occ = self.values[orient] > 0
        touching = np.zeros_like(occ)
        touching[1:] |= occ[:-1]
        touching[:-1] |= occ[1:]
        touching &= ~occ
        for i, j in zip(*np.nonzero(touching)):
            i, j = int(i), int(j)
            line_key, tile_colours = 1, []
            for step in (-1, 1):
                r = i + step
                while 0 <= r < n and values[r][j]:
                    line_key *= PRIMES[values[r][j]]
                    tile_colours.append(colours[r][j])
                    r += step
            row = table[i, j]
            row[:] = INVALID
            length = len(tile_colours) + 1
            if length > MAX_HAND:
                continue
            state = _colour_state(tile_colours)
            for f in self.rack.faces:
                points = HAND_POINTS[line_key * PRIMES[FACE_VALUE[f]]]
                if points != INVALID:
                    row[f] = points + _one_colour_bonus(length, state, int(FACE_COLOUR[f]))
        return table

    # --- moves of 2+ tiles ----------------------------------------------------------------------
    def window_faces(self, fixed_key: int, fixed_state: int, length: int, k: int):
        """Orderings of rack faces that make a valid hand with the window's board tiles, and its points."""
        key = (fixed_key, fixed_state, k)
        if key in self.window_cache:
            return self.window_cache[key]
        chosen, points = [], []
        for perms, combo_key, state in self.rack.combos.get(k, ()):
            hand = HAND_POINTS[fixed_key * combo_key]
            if hand != INVALID:
                chosen.append(perms)
                points.append(hand + _one_colour_bonus(length, fixed_state, state))
        result = None
        if chosen:
            sizes = [len(p) for p in chosen]
            perms = chosen[0] if len(chosen) == 1 else np.concatenate(chosen)
            result = (perms, np.repeat(np.array(points, dtype=np.int64), sizes))
        self.window_cache[key] = result
        return result

    def windows(self, orient: int) -> tuple[np.ndarray, ...]:
        """Candidate windows as flat arrays (lines, starts, lengths, codes): a code packs the board tiles'
        hand key, their colour state and the number of empty cells, which together fix the window's faces."""
        n = self.size
        values, colours = self.values[orient], self.colours[orient]
        occ = values > 0
        primes = _PRIME_ARRAY[values]
        light = (occ & (colours == 0)).astype(np.int64)
        touching = np.zeros_like(occ)
        touching[1:] |= occ[:-1]
        touching[:-1] |= occ[1:]
        touching &= ~occ
        padded = np.zeros((n, n + 2), dtype=bool)
        padded[:, 1:-1] = occ
        most = min(MAX_HAND, self.rack.size)
        found = []
        for length in range(2, min(MAX_HAND, n) + 1):
            width = n - length + 1
            key = primes[:, :width].copy()
            tiles = occ[:, :width].astype(np.int64)
            lights = light[:, :width].copy()
            touches = touching[:, :width].copy()
            for d in range(1, length):
                key *= primes[:, d : d + width]
                tiles += occ[:, d : d + width]
                lights += light[:, d : d + width]
                touches |= touching[:, d : d + width]
            empties = length - tiles
            ok = (empties >= 2) & (empties <= most) & ~padded[:, :width] & ~padded[:, length + 1 : length + 1 + width]
            if not self.first:
                ok &= (tiles > 0) | touches
            lines, starts = np.nonzero(ok)
            if not len(lines):
                continue
            t, li = tiles[lines, starts], lights[lines, starts]
            state = np.where(t == 0, NO_TILES, np.where(li == t, 0, np.where(li == 0, 1, MIXED)))
            code = (key[lines, starts] * 4 + state + 1) * 8 + empties[lines, starts]
            found.append((lines, starts, np.full(len(lines), length), code))
        if not found:
            return ()
        return tuple(np.concatenate(parts) for parts in zip(*found))

    def add_windows(self, orient: int) -> None:
        """Pair every candidate window with every ordering of rack faces that makes its main hand valid,
        then keep the pairs whose hands across are valid too; one batch per number of empty cells."""
        found = self.windows(orient)
        if not found:
            return
        lines, starts, lengths, codes = found
        unique, inverse = np.unique(codes, return_inverse=True)
        members = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[members], np.arange(len(unique) + 1))
        batches: dict[int, list] = {}
        for u, code in enumerate(unique.tolist()):
            rest, k = divmod(code, 8)
            fixed_key, state = divmod(rest, 4)
            windows = members[bounds[u] : bounds[u + 1]]
            faces = self.window_faces(fixed_key, state - 1, int(lengths[windows[0]]), k)
            if faces is not None:
                batches.setdefault(k, []).append((windows, *faces))
        occ = self.values[orient] > 0
        span = starts[:, None] + _ARANGE
        inside = _ARANGE[None, :] < lengths[:, None]
        empty = inside & ~occ[lines[:, None], np.minimum(span, self.size - 1)]
        for k, groups in batches.items():
            window_ids = np.concatenate([g[0] for g in groups])
            perms = np.concatenate([g[1] for g in groups])
            points = np.concatenate([g[2] for g in groups])
            n_windows = np.array([len(g[0]) for g in groups])
            n_perms = np.array([len(g[1]) for g in groups])
            pairs = n_windows * n_perms
            group = np.repeat(np.arange(len(groups)), pairs)
            local = np.arange(pairs.sum()) - np.repeat(np.cumsum(pairs) - pairs, pairs)
            window = window_ids[np.repeat(np.cumsum(n_windows) - n_windows, pairs) + local // n_perms[group]]
            perm = np.repeat(np.cumsum(n_perms) - n_perms, pairs) + local % n_perms[group]
            pos = span[window][empty[window]].reshape(len(window), k)  # each window's empty cells, in order
            faces = perms[perm]
            total = points[perm]
            if not self.first:
                gains = self.across[orient][lines[window][:, None], pos, faces]
                ok = (gains >= 0).all(1)
                window, pos, faces, total = window[ok], pos[ok], faces[ok], total[ok] + gains[ok].sum(1)
            line = lines[window][:, None]
            cell = line * self.size + pos if orient == 0 else pos * self.size + line
            bonus = (FIRST_MOVE_BONUS if self.first else 0) + (FULL_RACK_BONUS if k == RACK_SIZE else 0)
            self.blocks.append((faces * self.cells + cell, total + bonus))

    # --- one-tile moves -------------------------------------------------------------------------
    def add_single_tiles(self) -> None:
        occ = self.values[0] > 0
        near = np.zeros_like(occ)
        near[1:] |= occ[:-1]
        near[:-1] |= occ[1:]
        near[:, 1:] |= occ[:, :-1]
        near[:, :-1] |= occ[:, 1:]
        near &= ~occ
        rows, cols = np.nonzero(near)
        faces = np.array(self.rack.faces, dtype=np.int64)
        vertical = self.across[0][rows, cols][:, faces]  # the column through each cell
        horizontal = self.across[1][cols, rows][:, faces]  # the row through each cell
        ok = (vertical >= 0) & (horizontal >= 0)
        c, f = np.nonzero(ok)
        if len(c):
            actions = faces[f] * self.cells + rows[c] * self.size + cols[c]
            self.blocks.append((actions[:, None], vertical[c, f] + horizontal[c, f]))

    def run(self) -> MoveSet:
        if self.rack.size:
            for orient in (0, 1):
                self.add_windows(orient)
            if not self.first:
                self.add_single_tiles()
        if not self.blocks:
            return EMPTY_MOVES
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


EMPTY_MOVES = MoveSet(np.zeros((0, MAX_HAND), dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


def generate_moves(values: np.ndarray, colours: np.ndarray, rack: Sequence[int]) -> MoveSet:
    """Every legal move for a player holding `rack` (tile kinds) on this board (values 0 = empty)."""
    return _Generator(np.asarray(values), np.asarray(colours), rack).run()

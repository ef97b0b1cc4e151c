"""Chromino's placement search, laying of tiles, move rows and masks as they were written in numpy and
Python before the kernels (`envs/chromino/kernels.py`) took over their loops: the oracle the
differential test holds the engine to.

`Table` here builds the same arrays as `tabletop.envs.chromino.table.Table` (colours, tile ids, contacts,
acceptance bits, open ends, bounding box) by other means: shifted slices and `np.nonzero` for the search,
cell-by-cell Python for laying a tile, and rolled whole-grid arrays for a layout loaded in one pass.
`legal_moves` and `legal_action_mask` are `ChrominoState`'s, over such a table.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import table as engine
from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import CHOOSE, DRAWN, NUM_ORIENTATIONS, OVER, PLACE
from tabletop.envs.chromino.table import _NEIGHBOURS, _STEPS, HORIZONTAL, PAD, VERTICAL, Placement, start_placement

_BIT = {step: 1 << i for i, step in enumerate(_NEIGHBOURS)}  # open-end bits: the direction it points in
_BIT_OF = np.array(
    [[_BIT.get((dr, dc), 0) for dc in (-1, 0, 1)] for dr in (-1, 0, 1)], dtype=np.uint8
)  # by (dr+1, dc+1)
_CHAMELEON_ORIENTED = np.repeat(T.IS_CHAMELEON, 2)  # per oriented tile


class Table:
    """Colours, tile ids, contact counts and acceptance bits on a padded grid."""

    __slots__ = ("size", "colour", "tile_at", "contacts", "accept", "ends", "bbox")

    def __init__(self, size: int):
        empty = engine.Table(size)  # the empty table is plain array set-up, no kernel: share it
        self.size, self.bbox = size, None
        self.colour, self.tile_at, self.contacts, self.accept, self.ends = (
            empty.colour,
            empty.tile_at,
            empty.contacts,
            empty.accept,
            empty.ends,
        )

    def _freeze(self) -> None:
        for a in (self.colour, self.tile_at, self.contacts, self.accept, self.ends):
            a.flags.writeable = False

    def search(self, tiles, junior: bool = False) -> np.ndarray:
        """Every legal placement of `tiles` (by the junior rule if `junior`): int64 rows (tile, orientation,
        row, col, contacts)."""
        ks = T.oriented_tiles(tiles)
        if self.bbox is None or ks.size == 0:
            return np.empty((0, 5), dtype=np.int64)
        return np.concatenate([self._search_direction(ks, d, junior) for d in (HORIZONTAL, VERTICAL)])

    def _search_direction(self, ks: np.ndarray, direction: int, junior: bool) -> np.ndarray:
        r0, r1, c0, c1 = self.bbox
        dr, dc = _STEPS[direction]
        lo, hi = PAD, PAD + self.size - 1
        ra, rb = max(r0 - 1 - dr, lo), min(r1 + 1 + dr, hi) + 1  # centres whose tile can touch the box
        ca, cb = max(c0 - 1 - dc, lo), min(c1 + 1 + dc, hi) + 1
        acc, cnt = self.accept, self.contacts
        first = (slice(ra - dr, rb - dr), slice(ca - dc, cb - dc))
        centre = (slice(ra, rb), slice(ca, cb))
        last = (slice(ra + dr, rb + dr), slice(ca + dc, cb + dc))
        a0, a1, a2 = acc[first], acc[centre], acc[last]
        n = cnt[first] + cnt[centre] + cnt[last]
        if junior:  # one contact, at an open end: in line at either end, or crosswise at the centre
            in_line = ((self.ends[first] & _BIT[(dr, dc)]) | (self.ends[last] & _BIT[(-dr, -dc)])) != 0
            crosswise = (self.ends[centre] & (_BIT[(dc, dr)] | _BIT[(-dc, -dr)])) != 0
            rows, cols = np.nonzero((a0 != 0) & (a1 != 0) & (a2 != 0) & (n == 1) & (in_line | crosswise))
        else:
            rows, cols = np.nonzero((a0 != 0) & (a1 != 0) & (a2 != 0) & (n >= 2))
        if rows.size == 0:
            return np.empty((0, 5), dtype=np.int64)
        ok = T.FITS[0][a0[rows, cols]][:, ks] & T.FITS[1][a1[rows, cols]][:, ks] & T.FITS[2][a2[rows, cols]][:, ks]
        if junior:
            ok &= in_line[rows, cols][:, None] | (crosswise[rows, cols][:, None] & _CHAMELEON_ORIENTED[ks])
        at, which = np.nonzero(ok)
        k = ks[which]
        out = np.empty((at.size, 5), dtype=np.int64)
        out[:, 0] = k >> 1
        out[:, 1] = direction + (k & 1)
        out[:, 2] = rows[at] + ra - PAD
        out[:, 3] = cols[at] + ca - PAD
        out[:, 4] = n[rows[at], cols[at]]
        return out

    @classmethod
    def laid(cls, size: int, placements) -> Table:
        """The table with `placements` on it, built in one pass (how a saved layout is loaded): the same value
        that laying them one by one with `place` gives, in any order. No legality check beyond staying on
        empty grid cells."""
        new = cls(size)
        if not placements:
            return new
        tile, orientation, row, col = np.array(placements, dtype=np.int64).T
        step = np.array(_STEPS)[orientation]  # (n, 2)
        centre = np.stack([row, col], axis=1) + PAD
        cells = np.stack([centre - step, centre, centre + step], axis=1)  # (n, 3, 2) in reading order
        if not ((cells >= PAD) & (cells < PAD + size)).all() or len(np.unique(cells.reshape(-1, 2), axis=0)) != 3 * len(
            tile
        ):
            raise ValueError("a placement leaves the grid or overlaps a tile")
        colour, tile_at = new.colour.copy(), new.tile_at.copy()
        colour[cells[..., 0], cells[..., 1]] = T.ORIENTED_COLOURS[2 * tile + (orientation & 1)]
        tile_at[cells[..., 0], cells[..., 1]] = tile[:, None]
        empty = (new.accept != 0) & (colour == T.EMPTY)  # the grid's cells (the border is blocked) no tile covers
        contacts = np.zeros(colour.shape, dtype=np.int8)
        bits = np.zeros(colour.shape, dtype=np.uint8)  # bit k: a neighbour of colour k (wild centres match anything)
        for dr, dc in _NEIGHBOURS:
            other = np.roll(colour, (-dr, -dc), axis=(0, 1))  # the border is empty, so nothing wraps round
            contacts += other != T.EMPTY
            bits |= np.where((other != T.EMPTY) & (other != T.WILD), np.left_shift(1, other.clip(0)), 0).astype(
                np.uint8
            )
        one_colour = (bits & (bits - 1)) == 0
        accept = np.where(bits == 0, T.ACCEPT_ALL, np.where(one_colour, bits | (1 << T.WILD), 1 << T.WILD))
        new.colour, new.tile_at = colour, tile_at
        new.contacts = np.where(empty, contacts, 0).astype(np.int8)
        new.accept = np.where(empty, accept, 0).astype(np.uint8)
        new.ends = np.zeros(colour.shape, dtype=np.uint8)
        for end, outward in ((cells[:, 0], -step), (cells[:, 2], step)):  # every end square, outward along its tile
            target = end + outward
            bit = _BIT_OF[outward[:, 0] + 1, outward[:, 1] + 1]
            open_ = empty[target[:, 0], target[:, 1]]
            np.bitwise_or.at(new.ends, (target[open_, 0], target[open_, 1]), bit[open_])
        for i in np.flatnonzero(T.IS_CHAMELEON[tile]):
            p = placements[i]
            if new._crosswise(p):
                new._open_centre(*centre[i].tolist(), *step[i].tolist())
        rows, cols = np.nonzero(colour != T.EMPTY)
        new.bbox = (int(rows.min()), int(rows.max()), int(cols.min()), int(cols.max()))
        new._freeze()
        return new

    def place(self, p: Placement) -> Table:
        """A new table with `p` laid (no legality check beyond staying on empty grid cells)."""
        new = Table.__new__(Table)
        new.size = self.size
        new.colour, new.tile_at = self.colour.copy(), self.tile_at.copy()
        new.contacts, new.accept, new.ends = self.contacts.copy(), self.accept.copy(), self.ends.copy()
        cells = [(r + PAD, c + PAD) for r, c in p.cells()]
        for (r, c), colour in zip(cells, p.colours()):
            if not (PAD <= r < PAD + self.size and PAD <= c < PAD + self.size) or new.colour[r, c] != T.EMPTY:
                raise ValueError(f"{p} leaves the grid or overlaps a tile")
            new.colour[r, c] = colour
            new.tile_at[r, c] = p.tile
            new.contacts[r, c] = new.accept[r, c] = new.ends[r, c] = 0  # kept for empty cells only
        around = _around(p)
        for cell in around:
            new._refresh(*cell)
        new._open_ends_of(p, around)
        rows, cols = [r for r, _ in cells], [c for _, c in cells]
        box = (min(rows), max(rows), min(cols), max(cols))
        if self.bbox is not None:
            box = (
                min(box[0], self.bbox[0]),
                max(box[1], self.bbox[1]),
                min(box[2], self.bbox[2]),
                max(box[3], self.bbox[3]),
            )
        new.bbox = box
        new._freeze()
        return new

    def _open_ends_of(self, p: Placement, around: list[tuple[int, int]]) -> None:
        """Add the open ends of the newly laid `p`, and of a chameleon on a cell `around` it that `p` makes
        crosswise by touching its centre (that happens only when tiles are laid out of order)."""
        dr, dc = _STEPS[p.orientation]
        (r0, c0), (r, c), (r2, c2) = [(row + PAD, col + PAD) for row, col in p.cells()]
        self._open_end(r0, c0, -dr, -dc)
        self._open_end(r2, c2, dr, dc)
        if T.IS_CHAMELEON[p.tile] and self._crosswise(p):
            self._open_centre(r, c, dr, dc)
        colour, tile_at = self.colour, self.tile_at
        for nr, nc in around:
            if colour.item(nr, nc) == T.WILD:  # the centre of another chameleon, which `p` touches
                other = tile_at.item(nr, nc)
                self._open_centre(nr, nc, *((0, 1) if tile_at.item(nr, nc + 1) == other else (1, 0)))

    def _crosswise(self, p: Placement) -> bool:
        """Whether the chameleon `p` on the table lies crosswise: at the start position, or with a tile beside
        its centre."""
        dr, dc = _STEPS[p.orientation]
        r, c = p.row + PAD, p.col + PAD
        return (
            p == start_placement(self.size, p.tile)
            or self.colour.item(r + dc, c + dr) != T.EMPTY
            or self.colour.item(r - dc, c - dr) != T.EMPTY
        )

    def _open_centre(self, r: int, c: int, dr: int, dc: int) -> None:
        """Both sides of a crosswise chameleon's centre (r, c); the tile lies along (dr, dc)."""
        self._open_end(r, c, dc, dr)
        self._open_end(r, c, -dc, -dr)

    def _open_end(self, r: int, c: int, dr: int, dc: int) -> None:
        """The square on (r, c) is open towards (dr, dc) if that neighbour cell is empty and on the grid."""
        tr, tc = r + dr, c + dc
        if self.colour.item(tr, tc) == T.EMPTY and PAD <= tr < PAD + self.size and PAD <= tc < PAD + self.size:
            self.ends[tr, tc] |= _BIT[(dr, dc)]

    def _refresh(self, r: int, c: int) -> None:
        """Recompute contacts and acceptance of the empty cell (r, c) from its neighbours."""
        colour = self.colour
        if colour.item(r, c) != T.EMPTY or not (PAD <= r < PAD + self.size and PAD <= c < PAD + self.size):
            return
        count = bits = 0  # occupied neighbours; bit k: a neighbour of colour k (wild centres match anything)
        for dr, dc in _NEIGHBOURS:
            other = colour.item(r + dr, c + dc)
            if other != T.EMPTY:
                count += 1
                if other != T.WILD:
                    bits |= 1 << other
        self.contacts[r, c] = count
        if not bits:
            self.accept[r, c] = T.ACCEPT_ALL
        elif bits & (bits - 1) == 0:  # one colour
            self.accept[r, c] = bits | (1 << T.WILD)
        else:
            self.accept[r, c] = 1 << T.WILD


def _around(p: Placement) -> list[tuple[int, int]]:
    """The padded cells sharing an edge with `p`: three along each long side and one beyond each end."""
    dr, dc = _STEPS[p.orientation]
    r, c = p.row + PAD, p.col + PAD
    sides = [(r + k * dr + s * dc, c + k * dc + s * dr) for k in (-1, 0, 1) for s in (-1, 1)]
    return sides + [(r - 2 * dr, c - 2 * dc), (r + 2 * dr, c + 2 * dc)]


def legal_moves(state, table: Table) -> np.ndarray:
    """`state.legal_moves()`, searched on `table` (the oracle's copy of `state.table`)."""
    hand = state.hands[state.current]
    if state.phase == CHOOSE:
        return table.search([] if len(hand) == 1 and T.IS_CHAMELEON[hand[0]] else hand, state.game.junior)
    if state.phase == DRAWN:
        return table.search([state.drawn], state.game.junior)
    if state.phase == PLACE:
        moves = table.search([state.chosen], state.game.junior)
        return moves[moves[:, 1] == state.orientation]
    return np.empty((0, 5), dtype=np.int64)


def rows_of(moves: np.ndarray, tile: int, orientation: int) -> np.ndarray:
    """The rows of `moves` that lay `tile` in `orientation` (the moves left after choosing it)."""
    return moves[(moves[:, 0] == tile) & (moves[:, 1] == orientation)]


def legal_action_mask(state, moves: np.ndarray) -> np.ndarray:
    """`state.legal_action_mask()` from the stage's legal `moves`."""
    mask = np.zeros(state.game.num_actions, dtype=np.int8)
    if state.phase == OVER:
        pass
    elif state.phase == PLACE:
        a = state.game.actions
        mask[a.start("place") + moves[:, 2] * state.game.grid_size + moves[:, 3]] = 1
    else:
        if moves.size:
            mask[NUM_ORIENTATIONS * moves[:, 0] + moves[:, 1]] = 1
        if state.phase == DRAWN:
            mask[state.game.actions.start("pass")] = 1
        elif not moves.size:
            mask[state.game.actions.start("draw") if state.bag else state.game.actions.start("pass")] = 1
    return mask

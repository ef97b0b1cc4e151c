"""The table: tiles laid on a bounded grid, and the search for every legal placement.

A `Table` is an immutable value: `place` returns a new table and never touches the old arrays, so
states share tables on `clone` and views hand out the arrays without copying.

Per empty cell the table keeps the number of occupied neighbours (contacts a square there would make),
acceptance bits (which colours may lie there without a mismatched contact; a chameleon centre always
may) and the open ends that point into it (junior). A standard placement is legal when its three cells
are empty and inside the grid, every square is accepted by its cell, and there are at least two
contacts. A junior placement makes exactly one contact, at an open end: in line with it (an end square
of the new tile on the cell the open end points into), or, for a chameleon, crosswise (its centre
there). The search only scans the bounding box of the layout (plus a margin of two), so its cost does
not grow with the grid.

Open ends (junior) are a property of the tiles on the table, whatever the order they were laid in: each
end square of a tile whose outward neighbour cell (along the tile) is empty, and both sides of the
centre of a *crosswise* chameleon, one lying at the start position or with a tile touching its centre
(in a junior layout only crosswise chameleons are ever touched there), if that side is empty.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tabletop.envs.chromino import tiles as T

PAD = 2  # blocked border cells around the grid so shifted slices never leave the arrays
HORIZONTAL, HORIZONTAL_REVERSED, VERTICAL, VERTICAL_REVERSED = range(4)
ORIENTATION_WORDS = ("left to right", "right to left", "top to bottom", "bottom to top")
_STEPS = ((0, 1), (0, 1), (1, 0), (1, 0))
_NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))
_BIT = {step: 1 << i for i, step in enumerate(_NEIGHBOURS)}  # open-end bits: the direction it points in
_BIT_OF = np.array([[_BIT.get((dr, dc), 0) for dc in (-1, 0, 1)] for dr in (-1, 0, 1)], dtype=np.uint8)  # by (dr+1, dc+1)
_CHAMELEON_ORIENTED = np.repeat(T.IS_CHAMELEON, 2)  # per oriented tile


class Placement(NamedTuple):
    """Tile `tile` laid with its centre on (`row`, `col`); `orientation` as in `ORIENTATION_WORDS`:
    the canonical colour triple reads in that direction (reversed orientations read it backwards)."""

    tile: int
    orientation: int
    row: int
    col: int

    def cells(self) -> list[tuple[int, int]]:
        dr, dc = _STEPS[self.orientation]
        return [(self.row - dr, self.col - dc), (self.row, self.col), (self.row + dr, self.col + dc)]

    def colours(self) -> np.ndarray:
        return T.ORIENTED_COLOURS[2 * self.tile + (self.orientation & 1)]


def start_placement(size: int, tile: int) -> Placement:
    """The start chameleon lies horizontally with its centre on the middle cell of a `size` grid."""
    return Placement(tile, HORIZONTAL, size // 2, size // 2)


class Table:
    """Colours, tile ids, contact counts and acceptance bits on a padded grid."""

    __slots__ = ("size", "colour", "tile_at", "contacts", "accept", "ends", "bbox", "_grids", "_planes", "_open")

    def __init__(self, size: int):
        side = size + 2 * PAD
        self.size = size
        self.colour = np.full((side, side), T.EMPTY, dtype=np.int8)
        self.tile_at = np.full((side, side), -1, dtype=np.int16)
        self.contacts = np.zeros((side, side), dtype=np.int8)
        self.accept = np.zeros((side, side), dtype=np.uint8)
        self.accept[PAD:-PAD, PAD:-PAD] = T.ACCEPT_ALL
        self.ends = np.zeros((side, side), dtype=np.uint8)  # per empty cell: bits of the open ends pointing in
        self.bbox: tuple[int, int, int, int] | None = None  # padded rows/cols of the occupied cells
        self._grids = self._planes = self._open = None
        self._freeze()

    def _freeze(self) -> None:
        for a in (self.colour, self.tile_at, self.contacts, self.accept, self.ends):
            a.flags.writeable = False

    # --- reading --------------------------------------------------------------------------------
    def grid(self) -> tuple[np.ndarray, np.ndarray]:
        """(colours, tile ids) without the padding: read-only (size, size) arrays."""
        if self._grids is None:
            inner = slice(PAD, PAD + self.size)
            self._grids = (self.colour[inner, inner], self.tile_at[inner, inner])
        return self._grids

    def planes(self) -> np.ndarray:
        """float32 (6, size, size): one plane per colour and one for chameleon centres."""
        if self._planes is None:
            colours, _ = self.grid()
            self._planes = (colours[None] == np.arange(T.WILD + 1, dtype=np.int8)[:, None, None]).astype(np.float32)
        return self._planes

    def open_ends(self) -> np.ndarray:
        """float32 (size, size): 1 on each empty cell an open end points into (where junior play attaches)."""
        if self._open is None:
            inner = slice(PAD, PAD + self.size)
            self._open = (self.ends[inner, inner] != 0).astype(np.float32)
            self._open.flags.writeable = False
        return self._open

    def fits(self, p: Placement) -> tuple[bool, int]:
        """(legal by the contact rules alone, number of contacts) — a direct check, used by tests
        and as the reference the vectorised search must agree with."""
        contacts = 0
        for (r, c), colour in zip(p.cells(), p.colours()):
            if not (0 <= r < self.size and 0 <= c < self.size):
                return False, 0
            pr, pc = r + PAD, c + PAD
            if self.colour[pr, pc] != T.EMPTY:
                return False, 0
            for dr, dc in _NEIGHBOURS:
                other = int(self.colour[pr + dr, pc + dc])
                if other == T.EMPTY or (pr + dr - PAD, pc + dc - PAD) in p.cells():
                    continue
                contacts += 1
                if colour != T.WILD and other != T.WILD and other != colour:
                    return False, contacts
        return True, contacts

    def touched_tiles(self, p: Placement) -> set[int]:
        """Ids of the tiles the placement would touch (share an edge with)."""
        touched = set()
        for r, c in p.cells():
            for dr, dc in _NEIGHBOURS:
                t = int(self.tile_at[r + PAD + dr, c + PAD + dc])
                if t >= 0:
                    touched.add(t)
        return touched

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

    # --- changing (returns a new table) ------------------------------------------------------------
    @classmethod
    def laid(cls, size: int, placements) -> "Table":
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
        if not ((cells >= PAD) & (cells < PAD + size)).all() or len(np.unique(cells.reshape(-1, 2), axis=0)) != 3 * len(tile):
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
            bits |= np.where((other != T.EMPTY) & (other != T.WILD), np.left_shift(1, other.clip(0)), 0).astype(np.uint8)
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

    def place(self, p: Placement) -> "Table":
        """A new table with `p` laid (no legality check beyond staying on empty grid cells)."""
        new = Table.__new__(Table)
        new.size = self.size
        new.colour, new.tile_at = self.colour.copy(), self.tile_at.copy()
        new.contacts, new.accept, new.ends = self.contacts.copy(), self.accept.copy(), self.ends.copy()
        new._grids = new._planes = new._open = None
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
            box = (min(box[0], self.bbox[0]), max(box[1], self.bbox[1]), min(box[2], self.bbox[2]), max(box[3], self.bbox[3]))
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
        return p == start_placement(self.size, p.tile) or self.colour.item(r + dc, c + dr) != T.EMPTY or \
            self.colour.item(r - dc, c - dr) != T.EMPTY

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

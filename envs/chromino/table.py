"""The table: tiles laid on a bounded grid, and the search for every legal placement.

A `Table` is an immutable value: `place` returns a new table and never touches the old arrays, so
states share tables on `clone` and views hand out the arrays without copying.

Per empty cell the table keeps the number of occupied neighbours (contacts a square there would make)
and acceptance bits (which colours may lie there without a mismatched contact; a chameleon centre
always may). A placement is legal when its three cells are empty and inside the grid, every square is
accepted by its cell, and the contacts add up to the minimum. The search only scans the bounding box
of the layout (plus a margin of two), so its cost does not grow with the grid.
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


class Table:
    """Colours, tile ids, contact counts and acceptance bits on a padded grid."""

    __slots__ = ("size", "colour", "tile_at", "contacts", "accept", "bbox", "_grids", "_planes")

    def __init__(self, size: int):
        side = size + 2 * PAD
        self.size = size
        self.colour = np.full((side, side), T.EMPTY, dtype=np.int8)
        self.tile_at = np.full((side, side), -1, dtype=np.int16)
        self.contacts = np.zeros((side, side), dtype=np.int8)
        self.accept = np.zeros((side, side), dtype=np.uint8)
        self.accept[PAD:-PAD, PAD:-PAD] = T.ACCEPT_ALL
        self.bbox: tuple[int, int, int, int] | None = None  # padded rows/cols of the occupied cells
        self._grids = self._planes = None
        self._freeze()

    def _freeze(self) -> None:
        for a in (self.colour, self.tile_at, self.contacts, self.accept):
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

    def search(self, tiles, min_contacts: int) -> np.ndarray:
        """Every legal placement of `tiles`: int64 rows (tile, orientation, row, col, contacts)."""
        ks = T.oriented_tiles(tiles)
        if self.bbox is None or ks.size == 0:
            return np.empty((0, 5), dtype=np.int64)
        return np.concatenate([self._search_direction(ks, d, min_contacts) for d in (HORIZONTAL, VERTICAL)])

    def _search_direction(self, ks: np.ndarray, direction: int, min_contacts: int) -> np.ndarray:
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
        rows, cols = np.nonzero((a0 != 0) & (a1 != 0) & (a2 != 0) & (n >= min_contacts))
        if rows.size == 0:
            return np.empty((0, 5), dtype=np.int64)
        ok = T.FITS[0][a0[rows, cols]][:, ks] & T.FITS[1][a1[rows, cols]][:, ks] & T.FITS[2][a2[rows, cols]][:, ks]
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
    def place(self, p: Placement) -> "Table":
        """A new table with `p` laid (no legality check beyond staying on empty grid cells)."""
        new = Table.__new__(Table)
        new.size = self.size
        new.colour, new.tile_at = self.colour.copy(), self.tile_at.copy()
        new.contacts, new.accept = self.contacts.copy(), self.accept.copy()
        new._grids = new._planes = None
        cells = [(r + PAD, c + PAD) for r, c in p.cells()]
        for (r, c), colour in zip(cells, p.colours()):
            if not (PAD <= r < PAD + self.size and PAD <= c < PAD + self.size) or new.colour[r, c] != T.EMPTY:
                raise ValueError(f"{p} leaves the grid or overlaps a tile")
            new.colour[r, c] = colour
            new.tile_at[r, c] = p.tile
            new.accept[r, c] = 0
        for r, c in cells:
            for dr, dc in _NEIGHBOURS:
                new._refresh(r + dr, c + dc)
        rows, cols = [r for r, _ in cells], [c for _, c in cells]
        box = (min(rows), max(rows), min(cols), max(cols))
        if self.bbox is not None:
            box = (min(box[0], self.bbox[0]), max(box[1], self.bbox[1]), min(box[2], self.bbox[2]), max(box[3], self.bbox[3]))
        new.bbox = box
        new._freeze()
        return new

    def _refresh(self, r: int, c: int) -> None:
        """Recompute contacts and acceptance of the empty cell (r, c) from its neighbours."""
        if self.colour[r, c] != T.EMPTY or not (PAD <= r < PAD + self.size and PAD <= c < PAD + self.size):
            return
        count, colours = 0, set()
        for dr, dc in _NEIGHBOURS:
            other = int(self.colour[r + dr, c + dc])
            if other != T.EMPTY:
                count += 1
                if other != T.WILD:
                    colours.add(other)
        self.contacts[r, c] = count
        if not colours:
            self.accept[r, c] = T.ACCEPT_ALL
        elif len(colours) == 1:
            self.accept[r, c] = (1 << colours.pop()) | (1 << T.WILD)
        else:
            self.accept[r, c] = 1 << T.WILD

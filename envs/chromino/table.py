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
not grow with the grid. Its loops over cells, and those of laying a tile, run compiled (`kernels`).

Open ends (junior) are a property of the tiles on the table, whatever the order they were laid in: each
end square of a tile whose outward neighbour cell (along the tile) is empty, and both sides of the
centre of a *crosswise* chameleon, one lying at the start position or with a tile touching its centre
(in a junior layout only crosswise chameleons are ever touched there), if that side is empty.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tabletop.envs.chromino import kernels
from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.kernels import PAD

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
            a.setflags(write=False)

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
        and as the reference the search must agree with."""
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

    def search_marking(self, tiles: list[int], junior: bool, mask: np.ndarray) -> np.ndarray:
        """`search`, also marking in `mask` the choose actions (4 * tile + orientation) of the placements found."""
        if self.bbox is None:
            return np.empty((0, 5), dtype=np.int64)
        return kernels.search_marking(
            mask,
            self.accept,
            self.contacts,
            self.ends,
            self.size,
            self.bbox,
            np.array(tiles, dtype=np.int64),
            T.PALINDROME,
            junior,
            T.ORIENTED_COLOURS,
        )

    def search(self, tiles, junior: bool = False) -> np.ndarray:
        """Every legal placement of `tiles` (by the junior rule if `junior`): int64 rows (tile, orientation,
        row, col, contacts); horizontal before vertical, centres row-major, then the tiles' readings in order."""
        if self.bbox is None:
            return np.empty((0, 5), dtype=np.int64)
        return kernels.search(
            self.accept,
            self.contacts,
            self.ends,
            self.size,
            self.bbox,
            T.oriented_tiles(tiles),
            junior,
            T.ORIENTED_COLOURS,
        )

    def places_after(self, moves: np.ndarray, hand, unseen, rivals, junior: bool = False) -> tuple[np.ndarray, ...]:
        """A one-ply look-ahead in one compiled call: for each placement row of `moves` (tile, orientation, row,
        col, ...), on this table with it laid, (the places each tile of `hand` has, -1 in the laid tile's column;
        how many tiles of `unseen` have a place; whether any tile of `rivals` has one), by the junior rule if `junior`."""
        return kernels.places_after(
            self.colour,
            self.tile_at,
            self.contacts,
            self.accept,
            self.ends,
            self.size,
            self.bbox,
            moves,
            np.asarray(hand, dtype=np.int64),
            np.asarray(unseen, dtype=np.int64),
            np.asarray(rivals, dtype=np.int64),
            T.PALINDROME,
            junior,
            T.ORIENTED_COLOURS,
        )

    # --- changing (returns a new table) ------------------------------------------------------------
    @classmethod
    def laid(cls, size: int, placements) -> Table:
        """The table with `placements` on it (how a saved layout is loaded): the same value in whatever order
        they are listed. No legality check beyond staying on empty grid cells."""
        return cls(size)._with(placements)

    def place(self, p: Placement) -> Table:
        """A new table with `p` laid (no legality check beyond staying on empty grid cells)."""
        return self._with((p,))

    def writable(self) -> tuple[np.ndarray, ...]:
        """Copies of the five grids (colours, tile ids, contacts, acceptance bits, open ends) that a compiled loop
        may lay tiles on with `kernels.lay` (a heuristic's rollout); `adopt` makes a table of them again."""
        return self.colour.copy(), self.tile_at.copy(), self.contacts.copy(), self.accept.copy(), self.ends.copy()

    @classmethod
    def adopt(cls, size: int, grids: tuple[np.ndarray, ...], bbox: tuple[int, int, int, int] | None) -> Table:
        """The table of `grids` (as `writable` orders them, laid on since) and their padded bounding box, taken
        over without copying: nobody may write to them after."""
        new = cls.__new__(cls)
        new.size, new.bbox = size, bbox
        new.colour, new.tile_at, new.contacts, new.accept, new.ends = grids
        new._grids = new._planes = new._open = None
        new._freeze()
        return new

    def _with(self, placements) -> Table:
        """A new table: this one with `placements` laid in turn, each bringing the empty cells around it up
        to date (ValueError if one leaves the grid or covers a tile)."""
        grids = colour, tile_at, contacts, accept, ends = self.writable()
        box = self.bbox
        for p in placements:
            dr, dc = _STEPS[p.orientation]
            r, c = p.row + PAD, p.col + PAD
            if not kernels.lay(
                colour,
                tile_at,
                contacts,
                accept,
                ends,
                self.size,
                p.tile,
                p.colours(),
                r,
                c,
                dr,
                dc,
                p == start_placement(self.size, p.tile),
            ):
                raise ValueError(f"{p} leaves the grid or overlaps a tile")
            span = (r - dr, r + dr, c - dc, c + dc)  # the tile's padded rows and cols
            box = (
                span
                if box is None
                else (min(box[0], span[0]), max(box[1], span[1]), min(box[2], span[2]), max(box[3], span[3]))
            )
        return Table.adopt(self.size, grids, box)

"""Every legal move of a turn, enumerated at once (the sub-step masks are derived from this set).

A move fills some empty cells of one row or column. After the move those cells and the board tiles between
them form one maximal line `[a, b]` (the cells just outside it stay empty), so a move of 2+ tiles is fully
described by its *window* `[a, b]` — the tiles fill exactly the window's empty cells — plus the faces laid
there. Rows and columns are handled together as 2n lines (rows first, then the columns). Every window is
paired with the rack's combos of its number of empty cells (rack.py) and each pair's main hand is one
table lookup (its key is the board tiles' key plus the combo's). Pairs where some empty cell accepts none
of the combo's faces across are dropped (one bit test per cell); the rest are expanded to every ordering of
the combo and checked against the hands across each empty cell, read from a table built once at import
(by the tiles beside the cell, their colours and the face laid). One-tile moves have no direction and are
read cell by cell from the same cross-hand table. A tiles-mode turn keeps the pairs (`Pairs`): its first
mask needs only each pair's first faces, and its first place action writes out the few moves it begins.
On the empty board a combo scores the same on every line, so the opening is each valid ordering laid on
every line, kept as the orderings (`Opening`) until read whole. The loops over lines, windows, combos and
orderings are compiled (kernels.py): on boards and racks this small a numpy call costs more than the work
it does, so a mid-game turn in numpy was fifty small calls and ~0.6 ms, in the kernel about 20 us. This
module builds the tables the kernel reads, once at import.

A move is a sequence of place actions `face * cells + cell` in increasing cell order: one move, one sequence.
The rules need only the set of moves. `ordered=True` (what players get) lists them rows before columns, then
by group (board tiles' order key, colour state, empty cells; tile counts in the order their first group
comes), window, combo and ordering, one-tile moves last: the order of the earlier generator, kept because
heuristics break ties by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from itertools import combinations_with_replacement
from typing import cast

import numpy as np

from tabletop.envs.kings_cribbage import kernels
from tabletop.envs.kings_cribbage.kernels import BLOCKED, HASH_MULTIPLIER, NO_TILES
from tabletop.envs.kings_cribbage.rack import FACE_KEY, MIXED, rack_template
from tabletop.envs.kings_cribbage.scoring import (
    FIRST_MOVE_BONUS,
    FULL_RACK_BONUS,
    HAND_TABLE,
    INVALID,
    MAX_HAND,
    ONE_COLOUR_BONUS,
    TILE_KEY,
    TILE_OFFSET,
    hand_points,
)
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, NUM_FACES, NUM_RANKS

# a move scores its main hand and one hand across each placed tile, each at most the best hand plus the
# one-colour bonus, plus the opening and full-rack bonuses
MOVE_MOST = (MAX_HAND + 1) * (int(HAND_TABLE.max()) + ONE_COLOUR_BONUS) + FIRST_MOVE_BONUS + FULL_RACK_BONUS


class MoveSet:
    """All legal moves of one turn: `actions[i, :lengths[i]]` are move i's place actions, `points[i]` its score.
    Never changed once built (states share it). A plain class: a tiles-mode place step builds one."""

    __slots__ = ("actions", "lengths", "points", "depth", "points_at_depth")

    def __init__(
        self, actions: np.ndarray, lengths: np.ndarray, points: np.ndarray, depth: int = -1, points_at_depth: int = -1
    ) -> None:
        """`depth`, `points_at_depth`: where known, the points of the move of `depth` tiles (-1: none)."""
        self.actions, self.lengths, self.points = actions, lengths, points
        self.depth, self.points_at_depth = depth, points_at_depth

    def __len__(self) -> int:
        return len(self.lengths)

    def narrow(self, depth: int, action: int) -> MoveSet:
        """The moves whose place action at `depth` is `action`, in their order."""
        return MoveSet(*kernels.narrow(self.actions, self.lengths, self.points, depth, action))

    def mark(self, mask: np.ndarray, depth: int, commit: int) -> np.ndarray:
        """Into `mask` (cleared first): the moves' place actions at `depth`, and `commit` where a move is complete.
        Returns those actions, ascending."""
        return kernels.mark_legal(mask, self.actions, self.lengths, _EVERY, True, depth, commit)

    def place_step(self, depth: int, action: int, mask: np.ndarray, commit: int) -> tuple[Narrowed, np.ndarray]:
        """`narrow(depth, action)` (as rows of these moves), with its `mark(mask, depth + 1, commit)`."""
        out, listed, points = kernels.place_step(
            self.actions, self.lengths, self.points, _EVERY, 0, True, depth, action, mask, commit
        )
        return Narrowed(self, out, listed, depth + 1, points), out[:listed]

    def complete_points(self, depth: int) -> int:
        """The points of the move of `depth` tiles (these moves extend the same `depth` tiles), or -1 if none."""
        if depth == self.depth:
            return self.points_at_depth
        return kernels.complete_points(self.lengths, self.points, _EVERY, True, depth)


_EVERY = np.zeros(0, dtype=np.int64)  # the rows of a kernel that looks at every move


class _WrittenOnRead:
    """Moves kept in a compact form that writes them out as a `MoveSet` (`written`, once) when read whole."""

    __slots__ = ()

    @property
    def written(self) -> MoveSet:
        raise NotImplementedError

    @property
    def actions(self) -> np.ndarray:
        return self.written.actions

    @property
    def lengths(self) -> np.ndarray:
        return self.written.lengths

    @property
    def points(self) -> np.ndarray:
        return self.written.points


class Narrowed(_WrittenOnRead):
    """Some moves of a `MoveSet`, as its `rows` (ascending): what the place steps of a turn keep. A step
    narrows rows to rows, one array out of the kernel (`rows_in[rows_at:]`: its legal actions come first), and
    finds the points of the move its tiles complete (`depth` tiles; `points` -1 where none), which the commit
    reads."""

    __slots__ = ("base", "rows_in", "rows_at", "depth", "points_at_depth", "_written")

    def __init__(self, base: MoveSet, rows_in: np.ndarray, rows_at: int, depth: int, points: int) -> None:
        self.base, self.rows_in, self.rows_at, self.depth, self.points_at_depth = base, rows_in, rows_at, depth, points
        self._written: MoveSet | None = None

    @property
    def rows(self) -> np.ndarray:
        return self.rows_in[self.rows_at :]

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def written(self) -> MoveSet:
        """These moves written out, in their order."""
        if self._written is None:
            base, rows = self.base, self.rows
            self._written = MoveSet(base.actions[rows], base.lengths[rows], base.points[rows])
        return self._written

    def narrow(self, depth: int, action: int) -> MoveSet:
        """`MoveSet.narrow`."""
        return self.written.narrow(depth, action)

    def mark(self, mask: np.ndarray, depth: int, commit: int) -> np.ndarray:
        """`MoveSet.mark`."""
        return kernels.mark_legal(mask, self.base.actions, self.base.lengths, self.rows, False, depth, commit)

    def place_step(self, depth: int, action: int, mask: np.ndarray, commit: int) -> tuple[Narrowed, np.ndarray]:
        """`MoveSet.place_step`: rows of the same moves."""
        base = self.base
        out, listed, points = kernels.place_step(
            base.actions, base.lengths, base.points, self.rows_in, self.rows_at, False, depth, action, mask, commit
        )
        return Narrowed(base, out, listed, depth + 1, points), out[:listed]

    def complete_points(self, depth: int) -> int:
        """`MoveSet.complete_points`: found by the place step where `depth` is its own."""
        if depth == self.depth:
            return self.points_at_depth
        return kernels.complete_points(self.base.lengths, self.base.points, self.rows, False, depth)


class Opening(_WrittenOnRead):
    """The unordered moves of the first turn, kept as the rack's valid orderings: each ordering laid on every
    line is a move (35-42k on the 13x13 board, ~1.2 ms to write out, most of a random game's move generation).
    A tiles-mode turn never reads them whole: its first mask and its narrowing to a first tile read the
    orderings. Anything that reads `actions`, `lengths` or `points` gets the moves written out once, exactly as
    `kernels.opening_moves` lists them."""

    def __init__(self, faces: np.ndarray, sizes: np.ndarray, points: np.ndarray, board_size: int) -> None:
        self.faces, self.sizes, self.ordering_points, self.board_size = faces, sizes, points, board_size
        self._count = int((2 * board_size * (board_size - sizes + 1)).sum())

    def __len__(self) -> int:
        return self._count

    @cached_property
    def written(self) -> MoveSet:
        return MoveSet(*kernels.opening_moves(self.faces, self.sizes, self.ordering_points, self.board_size))

    def narrow(self, depth: int, action: int) -> MoveSet:
        """`MoveSet.narrow`: at depth 0 from the orderings, deeper from the moves written out."""
        if depth:
            return self.written.narrow(depth, action)
        return MoveSet(*kernels.opening_narrow(self.faces, self.sizes, self.ordering_points, self.board_size, action))

    def mark(self, mask: np.ndarray, depth: int, commit: int) -> np.ndarray | None:
        """`MoveSet.mark`: at depth 0 from the orderings, returning None (the opening's first actions are a few
        thousand, once a game: read them off the mask); deeper from the moves written out."""
        if depth:
            return self.written.mark(mask, depth, commit)
        kernels.opening_mask(mask, self.faces, self.sizes, self.board_size)
        return None

    def complete_points(self, depth: int) -> int:
        """`MoveSet.complete_points`, from the moves written out."""
        return self.written.complete_points(depth)

    def place_step(
        self, depth: int, action: int, mask: np.ndarray, commit: int
    ) -> tuple[MoveSet | Narrowed, np.ndarray]:
        """`MoveSet.place_step`: at depth 0 the narrowing from the orderings, deeper from the moves written out."""
        if depth:
            return self.written.place_step(depth, action, mask, commit)
        kept = self.narrow(0, action)
        return kept, kept.mark(mask, 1, commit)


class Pairs(_WrittenOnRead):
    """A tiles-mode turn's moves after the first move, kept as its windows' pairs with the rack's combos
    (`kernels.turn_pairs`), not written out: a turn reads its first mask from them, and its first place step
    writes only the moves that begin with that action (a few of ~450). Anything that reads `actions`,
    `lengths` or `points` gets the moves written out once (`kernels.write_moves`), in the order of `generate_moves`."""

    __slots__ = ("store", "template", "label", "board_size", "any_move", "_count", "_written")

    def __init__(self, store: np.ndarray, template, label: np.ndarray, board_size: int, any_move: bool) -> None:
        """`store`: what `kernels.turn_pairs` keeps of the turn; `template`, `label`: the rack's (rack.py)."""
        self.store, self.template, self.label, self.board_size, self.any_move = (
            store,
            template,
            label,
            board_size,
            any_move,
        )
        self._count = -1
        self._written: MoveSet | None = None

    def __bool__(self) -> bool:
        """Whether there is a move: known from the first mask, where the count needs every ordering checked."""
        return self.any_move

    def __len__(self) -> int:
        if self._count < 0:
            if self._written is not None:
                self._count = len(self._written)
            else:
                t = self.template
                self._count = kernels.count_moves(self.store, t.start, t.count, t.orderings)
        return self._count

    def _write(self, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = self.template
        return kernels.write_moves(self.store, t.start, t.count, t.orderings, self.label, self.board_size, action)

    @property
    def written(self) -> MoveSet:
        if self._written is None:
            self._written = MoveSet(*self._write(-1))
        return self._written

    def narrow(self, depth: int, action: int) -> MoveSet:
        """`MoveSet.narrow`: at depth 0 from the pairs, deeper from the moves written out."""
        if depth:
            return self.written.narrow(depth, action)
        return MoveSet(*self._write(action))

    def mark(self, mask: np.ndarray, depth: int, commit: int) -> np.ndarray:
        """`MoveSet.mark`, from the moves written out (a turn's first mask comes with the pairs)."""
        return self.written.mark(mask, depth, commit)

    def place_step(
        self, depth: int, action: int, mask: np.ndarray, commit: int
    ) -> tuple[MoveSet | Narrowed, np.ndarray]:
        """`MoveSet.place_step`: at depth 0 the moves that begin with `action`, written from the pairs."""
        if depth:
            return self.written.place_step(depth, action, mask, commit)
        out, listed, moves, complete = kernels.pairs_place_step(
            self.store, self.template.packed, self.label, self.board_size, action, mask, commit
        )
        at = listed + MAX_HAND * moves  # out: the legal actions, then the moves' actions, lengths and points
        actions = out[listed:at].reshape(moves, MAX_HAND)
        return MoveSet(actions, out[at : at + moves], out[at + moves :], 1, complete), out[:listed]

    def complete_points(self, depth: int) -> int:
        """`MoveSet.complete_points`, from the moves written out."""
        return self.written.complete_points(depth)


EMPTY_MOVES = MoveSet(np.zeros((0, MAX_HAND), dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


def _one_colour_bonus(length, fixed_state, new_state) -> np.ndarray:
    """+10 where the finished hand has exactly 5 tiles, all of one colour."""
    same = (new_state != MIXED) & ((fixed_state == NO_TILES) | (fixed_state == new_state))
    return np.where((length == MAX_HAND) & same, ONE_COLOUR_BONUS, 0)


TILE_KEYS = np.array(TILE_KEY, dtype=np.int64)  # by value; 0 (empty) unused
# by value, the prime whose product over a window's board tiles orders the players' moves (the earlier
# generator's order key); 0 (empty) counts 1
ORDER_PRIMES = np.array((1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41), dtype=np.int64)


def _window_bonuses() -> np.ndarray:
    """[window code, combo colour state]: the bonuses a window's hand adds besides its points, where the window
    code is (board tiles' colour state + 1) + 4 * (5 cells long) + 8 * (5 empty cells); combo states 0, 1, -1."""
    code = np.arange(16)[:, None]
    fixed, five_long, five_empty = code % 4 - 1, code // 4 % 2, code // 8
    bonus = _one_colour_bonus(np.where(five_long, MAX_HAND, 0), fixed, np.array([0, 1, MIXED]))
    return bonus + FULL_RACK_BONUS * five_empty


WINDOW_BONUS = _window_bonuses()


def _across_table() -> tuple[np.ndarray, np.ndarray]:
    """The hand across a cell, by the tiles beside it: their keys, sorted (every multiset of 1-4 ranks, and a
    last key standing for 5+ tiles), and per row 3 * key index + colour state (0 light, 1 dark, 2 mixed) the
    points of the hand each face makes, one-colour bonus included, or BLOCKED. One more row, for cells with no
    tile beside them, holds 0 points for every face."""
    keys = sorted(
        sum(TILE_KEY[r] for r in ranks)
        for size in range(1, MAX_HAND)
        for ranks in combinations_with_replacement(range(1, NUM_RANKS + 1), size)
    )
    keys = np.array(keys + [MAX_HAND * TILE_OFFSET], dtype=np.int64)
    points = hand_points(keys[:, None] + FACE_KEY)
    tiles = (keys // TILE_OFFSET)[:, None]
    table = np.zeros((3 * len(keys) + 1, NUM_FACES), dtype=np.int64)
    for state in (0, 1, MIXED):
        bonus = _one_colour_bonus(tiles + 1, state, FACE_COLOUR)
        table[state % 3 : -1 : 3] = np.where(points == INVALID, BLOCKED, points + bonus)
    return keys, table


ACROSS_KEYS, ACROSS_POINTS = _across_table()


def _across_hash(keys: np.ndarray, bits: int = 13) -> tuple[np.ndarray, np.ndarray]:
    """The across keys as a hash table for the move kernel (`kernels._across_row`), which looks up ~75 keys a
    turn: (per slot its key or -1, per slot the key's index in `keys`). A key starts at the top `bits` bits of
    its product with HASH_MULTIPLIER (mod 2**64) and takes the next free slot; 2,380 keys fill 8,192 slots."""
    slots, rows = np.full(1 << bits, -1, dtype=np.int64), np.zeros(1 << bits, dtype=np.int64)
    for row, key in enumerate(keys.tolist()):
        slot = (key * HASH_MULTIPLIER) % 2**64 >> (64 - bits)
        while slots[slot] >= 0:
            slot = (slot + 1) % (1 << bits)
        slots[slot], rows[slot] = key, row
    return slots, rows


# what the kernel reads of the cross-hand table: the hash table, the points as bytes (-1 for BLOCKED: a byte row
# is 30 bytes where an int64 one is 240) and the key standing for 5+ tiles
ACROSS_SLOTS, ACROSS_ROWS = _across_hash(ACROSS_KEYS)
ACROSS_BYTES = np.where(ACROSS_POINTS < 0, -1, ACROSS_POINTS).astype(np.int8)
ACROSS_CAP = int(ACROSS_KEYS[-1])


def generate_moves(
    values: np.ndarray, colours: np.ndarray, rack: Sequence[int], ordered: bool = True
) -> MoveSet | Opening:
    """Every legal move for a player holding `rack` (tile kinds) on this board (values 0 = empty); `ordered`:
    in the players' order (see the module's docstring), else in whatever order is cheapest (on the empty
    board an `Opening`, which writes its moves out only when they are read whole)."""
    return cast(MoveSet | Opening, turn_moves(values, colours, rack, ordered, _NO_MASK)[0])  # no mask: written out


_NO_MASK = np.zeros(0, dtype=np.int8)
# what `kernels.turn_pairs` reads of the tables, packed into two arrays (`kernels.pack`): the int64 tables, then
# the scalars (the across cap, and where the cross-hand points begin in the bytes); the hand table and the
# cross-hand points
_TURN_TABLES = kernels.pack(
    TILE_KEYS,
    ORDER_PRIMES,
    ACROSS_SLOTS,
    ACROSS_ROWS,
    WINDOW_BONUS,
    FACE_KEY,
    FACE_COLOUR,
    np.array([ACROSS_CAP, len(HAND_TABLE)]),
)
_TURN_BYTES = np.concatenate([HAND_TABLE, ACROSS_BYTES.ravel()])


def turn_moves(
    values: np.ndarray, colours: np.ndarray, rack: Sequence[int], ordered: bool, mask: np.ndarray
) -> tuple[MoveSet | Opening | Pairs, np.ndarray | None]:
    """`generate_moves`, and a tiles-mode turn's first mask from the same pass: given a `mask`, the moves'
    first place actions are marked in it and also returned ascending. None instead of them where the moves
    mark nothing: an empty `mask`, no move, or an `Opening` (its first actions are read from its orderings).
    Given a mask, the moves after the first are kept as `Pairs`."""
    if not len(rack):
        return EMPTY_MOVES, None
    values, colours = np.asarray(values), np.asarray(colours)
    template, label = rack_template(rack)
    store, legal_at, first = kernels.turn_pairs(
        values, colours, len(rack), template.packed, label, ordered, _TURN_TABLES, _TURN_BYTES, mask
    )
    if first and not ordered:
        n = values.shape[0]
        faces, sizes, points = kernels.opening_orderings(
            len(rack), *template.kernel_args, label, HAND_TABLE, WINDOW_BONUS, FACE_KEY, FACE_COLOUR
        )
        if n < MAX_HAND:  # a board narrower than a hand: only the orderings that fit on a line
            fits = sizes <= n
            faces, sizes, points = faces[fits], sizes[fits], points[fits]
        return Opening(faces, sizes, points, n), None
    legal = store[legal_at:]
    moves = Pairs(store, template, label, values.shape[0], len(legal) > 0)
    if not len(mask):
        return moves.written, None
    return moves, legal if len(legal) else None

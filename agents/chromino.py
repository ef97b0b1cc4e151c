"""Chromino heuristics. They read the seat's view (the table, the own hand and the turn's legal
placements with their contact counts, all things the player knows) and the action mask."""

from __future__ import annotations

from functools import cache
from typing import Any

import numba
import numpy as np

from tabletop.envs.chromino import kernels
from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import CHOOSE, OVER, PLACE
from tabletop.envs.chromino.actions import layout as action_layout
from tabletop.envs.chromino.kernels import PAD
from tabletop.envs.chromino.table import Placement, Table


class _PlacementHeuristic:
    """Shared turn handling: draw when forced, always lay a drawn tile that fits, and lay the move
    that `_score` ranks highest (ties broken at random)."""

    name = "placement"
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)
        self._plan: tuple[int, int, int, int] | None = None  # the placement picked at the last decision

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        layout = action_layout(view["grid_size"])
        moves = view["legal_moves"]
        if moves is None or len(moves) == 0:  # draw or pass: exactly one of them is open
            draw = layout.start("draw")
            return draw if action_mask[draw] else layout.start("pass")
        if view["phase"] == "place":
            moves = moves[(moves[:, 0] == view["chosen_tile"]) & (moves[:, 1] == view["chosen_orientation"])]
        scores = self._score(moves, view)
        best = np.flatnonzero(scores == scores.max())
        tile, orientation, row, col, _ = moves[best[self.rng.integers(best.size)]]
        self._plan = (int(tile), int(orientation), int(row), int(col))
        if view["phase"] == "place":
            return layout.encode("place", int(row), int(col))
        return layout.encode("choose", int(tile), int(orientation))

    def ranked(self, action_mask: np.ndarray, view: dict[str, Any]) -> list[int]:
        """The legal actions best first (a search player's candidates): at the choose step each tile and way
        round by its best placement's score, at the place step each place by its score; then the rest (draw,
        or passing on a drawn tile that fits) in action order."""
        layout = action_layout(view["grid_size"])
        moves = view["legal_moves"]
        if moves is None or len(moves) == 0:
            return np.flatnonzero(action_mask).tolist()
        place = view["phase"] == "place"
        if place:
            moves = moves[(moves[:, 0] == view["chosen_tile"]) & (moves[:, 1] == view["chosen_orientation"])]
        order = moves[np.argsort(-self._score(moves, view), kind="stable")].tolist()
        actions = (layout.encode("place", r, c) if place else layout.encode("choose", t, o) for t, o, r, c, _ in order)
        return list(dict.fromkeys([*actions, *np.flatnonzero(action_mask).tolist()]))  # each at its best place

    def _score(self, moves: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError


# Distinct colours of a tile; a chameleon's wild centre is no colour (its expert value is 3 all the same).
COLOURS = np.array([len(set(cols) - {T.WILD}) for cols in T.TILE_COLOURS.tolist()], dtype=np.int64)


class MostContacts(_PlacementHeuristic):
    """Lay the placement with the most contacts; among equals, the tile of most colours (a chameleon
    has two: ranking it by its expert value of 3 spent the most flexible tiles first)."""

    name = "most_contacts"

    def _score(self, moves, view):
        return moves[:, 4] * 10 + COLOURS[moves[:, 0]]


class ShedHardest(_PlacementHeuristic):
    """Get rid of the tile with the fewest places to go (it may not fit later) and keep chameleons,
    the most flexible tiles, for last — but never be left holding a lone chameleon."""

    name = "shed_hardest"

    def _score(self, moves, view):
        tiles = moves[:, 0]
        places = np.bincount(tiles, minlength=T.NUM_TILES)[tiles]
        chameleon = T.IS_CHAMELEON[tiles]
        hand = view["hand"]
        must_shed_chameleon = len(hand) == 2 and sum(T.IS_CHAMELEON[t] for t in hand) == 1
        keep = np.where(chameleon, 1 if must_shed_chameleon else -1, 0)
        return keep * 1_000_000 - places * 100 + moves[:, 4]


class MostPoints(_PlacementHeuristic):
    """Expert scoring: lay the placement worth most points (tile value + values of tiles touched)."""

    name = "most_points"

    def _score(self, moves, view):
        tiles_grid, g = view["tiles"], view["grid_size"]
        points = np.empty(len(moves))
        for i, (tile, orientation, row, col, _) in enumerate(moves.tolist()):
            dr, dc = (0, 1) if orientation < 2 else (1, 0)
            cells = [(row - dr, col - dc), (row, col), (row + dr, col + dc)]
            touched = set()
            for r, c in cells:
                for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= nr < g and 0 <= nc < g and tiles_grid[nr, nc] >= 0:
                        touched.add(int(tiles_grid[nr, nc]))
            points[i] = T.VALUE[tile] + sum(T.VALUE[t] for t in touched)
        return points * 10 + moves[:, 4]


# --- one-ply lookahead --------------------------------------------------------------------------


class BoardTracker:
    """The public table as an `envs.chromino.table.Table`, rebuilt from the view's board.

    Only the view is read: the tile-id and colour grids give every laid tile's cells and reading. The
    table is kept between calls and only the tiles laid since are added. It starts afresh when a tracked
    tile no longer lies where and as it was tracked: a new game, which on a small box may hold the same
    tiles elsewhere."""

    def __init__(self):
        self.table: Table | None = None
        self.known: set[int] = set()

    def update(self, view: dict[str, Any]) -> Table:
        tiles, colours = view["tiles"], view["board"]
        on_board = set(np.unique(tiles[tiles >= 0]).tolist())
        if (
            self.table is None
            or self.table.size != view["grid_size"]
            or not self._still_laid(self.table, tiles, colours)
        ):
            self.table, self.known = Table(view["grid_size"]), set()
        for tile in sorted(on_board - self.known):
            self.table = self.table.place(placement_on_board(tile, tiles, colours))
        self.known = on_board
        return self.table

    @staticmethod
    def _still_laid(table: Table, tiles: np.ndarray, colours: np.ndarray) -> bool:
        """Whether the board shows every tile of `table` on its cells, reading its colours the same way."""
        tracked_colours, tracked_tiles = table.grid()
        laid = tracked_tiles >= 0
        return np.array_equal(tiles[laid], tracked_tiles[laid]) and np.array_equal(colours[laid], tracked_colours[laid])


def placement_on_board(tile: int, tiles: np.ndarray, colours: np.ndarray) -> Placement:
    """How `tile` lies on the board: its cells (in reading order) and which way its colours read."""
    cells = np.argwhere(tiles == tile)  # row-major: along the tile from its top/left end
    (r0, _), (row, col), _ = cells.tolist()
    base = 0 if r0 == row else 2
    forwards = [int(colours[r, c]) for r, c in cells.tolist()] == T.TILE_COLOURS[tile].tolist()
    return Placement(tile, base if forwards else base + 1, row, col)


# How easily a tile finds a place: a palindrome (ABA, AAA) reads the same both ways, so it has half the
# orientations of the others and fits a random position about 0.35-0.45 of the time against 0.55-0.63;
# a chameleon's wild centre matches anything (about 0.95). Shed the hard ones while they still fit.
EASE = np.where(T.IS_CHAMELEON, 2, np.where(T.PALINDROME, 0, 1))


class KeepOptions(_PlacementHeuristic):
    """Shed the tiles that are hard to place first (palindromes, then the rest, chameleons last), and
    choose among their placements by a one-ply lookahead on the own hand: lay each one on a copy of the
    public table and prefer the one after which most remaining tiles can still be laid, with the most
    places, laying a tile with few places now first. Never leave a lone chameleon (it must draw first),
    and when an opponent's last tile is public prefer placements that leave it nowhere to go.

    The scores are weighted sums whose weights keep the criteria in that order of importance."""

    name = "keep_options"

    GO_OUT, BLOCK, LONE_CHAMELEON, CLASS, PLACEABLE, OPTIONS, SHED = 1e9, 1e7, 1e5, 1e4, 100.0, 10.0, 5.0
    SPOIL, WINDOW = 0.0, 0.0  # block_rivals' spoiling of the table for the unseen tiles (0: none)

    def __init__(self, seed: int | None = None):
        super().__init__(seed)
        self.tracker = BoardTracker()

    def act(self, observation, action_mask, view):
        """Lay the chosen tile where the choose step planned it (the lookahead is not repeated)."""
        plan = self._plan
        if (
            view["phase"] == "place"
            and plan is not None
            and plan[:2] == (view["chosen_tile"], view["chosen_orientation"])
        ):
            action = action_layout(view["grid_size"]).encode("place", plan[2], plan[3])
            if action_mask[action]:
                return action
        return super().act(observation, action_mask, view)

    @classmethod
    def play_out(cls, world: Any, seed: int, depth: int = 0) -> None:
        """Play this heuristic in every seat of `world` (a Chromino state) until the game ends or `depth` actions
        are played (0: no limit): the moves of `cls(seed=seed + seat)` acting in each seat through its view, in
        one compiled call on the state's arrays (a search player's rollout, agents/search/player.py)."""
        if world.is_terminal():
            return
        n = world.game.num_players
        rngs = tuple(np.random.default_rng(seed + p) for p in range(n))
        arrays = world.engine_arrays()
        weights = (cls.GO_OUT, cls.BLOCK, cls.LONE_CHAMELEON, cls.CLASS, cls.PLACEABLE, cls.OPTIONS, cls.SHED)
        tables = (log1p_table(world.game.grid_size), EASE, T.VALUE, T.IS_CHAMELEON, T.PALINDROME, T.ORIENTED_COLOURS)
        roll_out(depth, rngs, *arrays, weights, cls.SPOIL, cls.WINDOW, *tables)
        world.resume(*arrays)

    def _score(self, moves, view):
        table = self.tracker.update(view)
        junior, seat, hand = view["variant"] == "junior", view["seat"], view["hand"]
        places_now = np.bincount(moves[:, 0], minlength=T.NUM_TILES)
        rivals = [  # opponents one placement from going out (a lone chameleon must draw first)
            t
            for s, t in enumerate(view["public_tiles"])
            if s != seat and t is not None and not view["finished"][s] and not T.IS_CHAMELEON[t]
        ]
        scores = np.empty(len(moves))
        for i, (tile, orientation, row, col, _) in enumerate(moves.tolist()):
            rest = list(hand)
            rest.remove(tile)
            score = -self.CLASS * EASE[tile] - self.SHED * np.log1p(places_now[tile])
            if not rest:
                score += self.GO_OUT
            elif len(rest) == 1 and T.IS_CHAMELEON[rest[0]]:
                score -= self.LONE_CHAMELEON
            if rest or rivals:
                after = table.place(Placement(tile, orientation, row, col))
            if rest:
                counts = np.bincount(after.search(rest, junior)[:, 0], minlength=T.NUM_TILES)[rest]
                score += self.PLACEABLE * np.count_nonzero(counts) + self.OPTIONS * np.log1p(counts).sum()
            for rival in rivals:
                score -= self.BLOCK * (len(after.search([rival], junior)) > 0)
            scores[i] = score
        return scores


@cache
def log1p_table(size: int) -> np.ndarray:
    """np.log1p of every count of placements a tile can have on a `size` grid (at most 4 a cell), so that the
    compiled look-ahead adds exactly the numbers numpy's log1p gives."""
    return np.log1p(np.arange(4 * size * size + 1, dtype=np.int64))


@numba.njit(cache=True)
def numpy_sum(a):
    """a.sum() as numpy adds a float64 array of at most 128 numbers (8 running sums from 8 on), bit for bit."""
    n = a.size
    if n < 8:
        total = 0.0
        for i in range(n):
            total += a[i]
        return total
    r = a[:8].copy()
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += a[i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        total += a[i]
        i += 1
    return total


REACH = 3  # laying a tile changes cells at most this far (rows and cols) from its centre (`kernels.lay`)


@numba.njit(cache=True)
def _count(counts, accept, contacts, ends, size, box, oriented, junior, oriented_colours, sign):
    """Add `sign` to `counts[tile]` for each legal placement of `oriented` with its centre around `box`."""
    found = kernels.search(accept, contacts, ends, size, box, oriented, junior, oriented_colours)
    for f in range(found.shape[0]):
        counts[found[f, 0]] += sign


@numba.njit(cache=True)
def _counts_after(counts, base, arrays, scratch, size, move, oriented, junior, oriented_colours):
    """`counts[tile]`: the legal placements of each tile of `oriented` once `move` is laid, from `base`, the
    counts on the table `arrays`: only placements near the new tile change, so the search around it on the
    table after, less the same search before, corrects them. `scratch` (a copy of `arrays`) is laid on and
    put back."""
    colour, tile_at, contacts, accept, ends = scratch
    tile, orientation, r, c = move[0], move[1], move[2] + PAD, move[3] + PAD
    dr, dc = (0, 1) if orientation < 2 else (1, 0)
    colours = oriented_colours[2 * tile + (orientation & 1)]
    kernels.lay(colour, tile_at, contacts, accept, ends, size, tile, colours, r, c, dr, dc, False)
    last = colour.shape[0] - 1
    r0, r1, c0, c1 = max(r - REACH, 0), min(r + REACH, last), max(c - REACH, 0), min(c + REACH, last)
    near = (r0, r1, c0, c1)
    counts[:] = base
    _count(counts, accept, contacts, ends, size, near, oriented, junior, oriented_colours, 1)
    _count(counts, arrays[3], arrays[2], arrays[4], size, near, oriented, junior, oriented_colours, -1)
    rows, cols = slice(r0, r1 + 1), slice(c0, c1 + 1)
    colour[rows, cols], tile_at[rows, cols] = arrays[0][rows, cols], arrays[1][rows, cols]
    contacts[rows, cols], accept[rows, cols], ends[rows, cols] = (
        arrays[2][rows, cols], arrays[3][rows, cols], arrays[4][rows, cols]
    )  # fmt: skip


@numba.njit(cache=True)
def look_ahead(
    colour, tile_at, contacts, accept, ends, size, box, moves, hand, rivals, junior, weights, spoil, window, log1p,
    ease, chameleon, palindrome, oriented_colours,
):  # fmt: skip
    """`KeepOptions._score` (and `BlockRivals._score` when `spoil` is not 0) of `moves` for the hand `hand`, on
    the table of those arrays (`Table`'s, bounding box `box`), the opponents' public last tiles `rivals`, the
    weights in `KeepOptions`' order and `log1p_table(size)`: the same float operations on the same counts in
    the same order."""
    go_out, block, lone_chameleon, klass, placeable, options, shed = weights
    num_tiles = ease.shape[0]
    places_now = np.zeros(num_tiles, dtype=np.int64)
    for i in range(moves.shape[0]):
        places_now[moves[i, 0]] += 1
    arrays = (colour, tile_at, contacts, accept, ends)
    scratch = (colour.copy(), tile_at.copy(), contacts.copy(), accept.copy(), ends.copy())
    oriented = kernels.oriented(np.concatenate((hand, rivals)), palindrome)
    base, counts = np.zeros(num_tiles, dtype=np.int64), np.empty(num_tiles, dtype=np.int64)
    _count(base, accept, contacts, ends, size, box, oriented, junior, oriented_colours, 1)
    rest = np.empty(hand.size - 1, dtype=np.int64)
    gains = np.empty(rest.size)
    scores = np.empty(moves.shape[0])
    for i in range(moves.shape[0]):
        tile = moves[i, 0]
        k = 0
        for t in hand:
            if t != tile:
                rest[k] = t
                k += 1
        score = -klass * ease[tile] - shed * log1p[places_now[tile]]
        if rest.size == 0:
            score += go_out
        elif rest.size == 1 and chameleon[rest[0]]:
            score -= lone_chameleon
        if rest.size or rivals.size:
            _counts_after(counts, base, arrays, scratch, size, moves[i], oriented, junior, oriented_colours)
        if rest.size:
            placeable_tiles = 0
            for j in range(rest.size):
                placeable_tiles += counts[rest[j]] != 0
                gains[j] = log1p[counts[rest[j]]]
            score += placeable * placeable_tiles + options * numpy_sum(gains)
        for rival in rivals:
            score -= block * (counts[rival] > 0)
        scores[i] = score
    if spoil != 0:
        _spoil(scores, arrays, scratch, size, box, moves, hand, junior, spoil, window, palindrome, oriented_colours)
    return scores


@numba.njit(cache=True)
def _spoil(scores, arrays, scratch, size, box, moves, hand, junior, spoil, window, palindrome, oriented_colours):
    """`BlockRivals`' part of the scores, in place: less the share of the unseen tiles still fitting after each
    placement within `window` of the best."""
    unseen_mask = np.ones(oriented_colours.shape[0] // 2, dtype=np.bool_)
    tile_at = arrays[1]
    for r in range(tile_at.shape[0]):
        for c in range(tile_at.shape[1]):
            if tile_at[r, c] >= 0:
                unseen_mask[tile_at[r, c]] = False
    for t in hand:
        unseen_mask[t] = False
    unseen = np.flatnonzero(unseen_mask)
    if unseen.size == 0:
        return
    oriented = kernels.oriented(unseen, palindrome)
    base, counts = np.zeros(unseen_mask.size, dtype=np.int64), np.empty(unseen_mask.size, dtype=np.int64)
    _count(base, arrays[3], arrays[2], arrays[4], size, box, oriented, junior, oriented_colours, 1)
    top = scores.max() - window
    for i in range(moves.shape[0]):
        if scores[i] < top:
            continue
        _counts_after(counts, base, arrays, scratch, size, moves[i], oriented, junior, oriented_colours)
        still_fit = 0
        for t in unseen:
            still_fit += counts[t] != 0
        scores[i] -= spoil * still_fit / unseen.size


@numba.njit(cache=True)
def roll_out(
    depth, rngs, grids, box, hands, hand_sizes, bag, placements, finished, points, turn, rules, weights, spoil,
    window, log1p, ease, value, chameleon, palindrome, oriented_colours,
):  # fmt: skip
    """`KeepOptions.play_out`'s loop: `act_out` of the heuristic of `weights`, `spoil` and `window` on the arrays of
    `ChrominoState.engine_arrays` (played on in place), seat p drawing its ties from `rngs[p]`. Each seat keeps
    its plan (valid, tile, orientation, row, col) from its choose step to its place step, as `act` does."""
    colour, tile_at, contacts, accept, ends = grids
    size, junior, n = rules[0], rules[5] != 0, hand_sizes.shape[0]
    plans = np.zeros((n, 5), dtype=np.int64)
    rivals = np.empty(n, dtype=np.int64)
    steps = 0
    while turn[kernels.PHASE] != OVER and (depth == 0 or steps < depth):
        p, phase, bbox = turn[kernels.CURRENT], turn[kernels.PHASE], (box[0], box[1], box[2], box[3])
        moves = kernels.stage_moves(
            accept, contacts, ends, size, bbox, hands, hand_sizes, turn, junior, chameleon, palindrome, oriented_colours
        )
        plan = plans[p]
        if phase == PLACE and plan[0] and plan[1] == turn[kernels.CHOSEN] and plan[2] == turn[kernels.ORIENTATION]:
            planned = False
            for k in range(moves.shape[0]):
                planned |= moves[k, 2] == plan[3] and moves[k, 3] == plan[4]
            if planned:
                kernels.place(grids, box, hands, hand_sizes, placements, finished, points, turn, plan[3], plan[4], rules, value, oriented_colours)  # fmt: skip
                steps += 1
                continue
        if moves.shape[0] == 0:  # draw if the mask has it, else pass
            if phase == CHOOSE and turn[kernels.BAG_SIZE] > 0:
                kernels.draw(hands, hand_sizes, bag, turn, chameleon)
            else:
                kernels.end_turn(False, hand_sizes, finished, points, turn, rules)
            steps += 1
            continue
        k = 0
        for s in range(n):  # as `_score` has them
            if s != p and hand_sizes[s] == 1 and not finished[s] and not chameleon[hands[s, 0]]:
                rivals[k] = hands[s, 0]
                k += 1
        scores = look_ahead(
            colour, tile_at, contacts, accept, ends, size, bbox, moves, hands[p, : hand_sizes[p]], rivals[:k], junior,
            weights, spoil, window, log1p, ease, chameleon, palindrome, oriented_colours,
        )  # fmt: skip
        best = np.flatnonzero(scores == scores.max())
        move = moves[best[rngs[p].integers(0, best.size)]]
        plan[0], plan[1], plan[2], plan[3], plan[4] = 1, move[0], move[1], move[2], move[3]
        if phase == PLACE:
            kernels.place(grids, box, hands, hand_sizes, placements, finished, points, turn, move[2], move[3], rules, value, oriented_colours)  # fmt: skip
        else:
            kernels.choose(turn, move[0], move[1])
        steps += 1


class BlockRivals(KeepOptions):
    """`keep_options`, then spoil the table for the others: among its best-ranked placements (those within the
    weight of its own-hand criteria of the best), prefer the one after which the fewest of the tiles this
    player cannot see (all 80 less the table and the own hand: the rivals' hands and the bag) still fit. A
    rival without a fitting tile must draw, and that is a tile further from going out."""

    name = "block_rivals"

    SPOIL, WINDOW = 5000.0, 1000.0

    def _score(self, moves, view):
        scores = super()._score(moves, view)  # brings the tracker's table up to date
        unseen = sorted(set(range(T.NUM_TILES)) - self.tracker.known - set(view["hand"]))
        if not unseen:
            return scores
        table, junior = self.tracker.table, view["variant"] == "junior"
        for i in np.flatnonzero(scores >= scores.max() - self.WINDOW):
            after = table.place(Placement(*moves[i, :4].tolist()))
            still_fit = np.unique(after.search(unseen, junior)[:, 0]).size
            scores[i] -= self.SPOIL * still_fit / len(unseen)
        return scores


HEURISTICS = {cls.name: cls for cls in (MostContacts, ShedHardest, MostPoints, KeepOptions, BlockRivals)}

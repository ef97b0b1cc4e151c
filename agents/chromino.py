"""Chromino heuristics. They read the seat's view (the table, the own hand and the turn's legal
placements with their contact counts, all things the player knows) and the action mask."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import layout as action_layout
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
    table is kept between calls and only the tiles laid since are added (a new game starts afresh)."""

    def __init__(self):
        self.table: Table | None = None
        self.known: set[int] = set()

    def update(self, view: dict[str, Any]) -> Table:
        tiles, colours = view["tiles"], view["board"]
        on_board = set(np.unique(tiles[tiles >= 0]).tolist())
        if self.table is None or self.table.size != view["grid_size"] or not self.known <= on_board:
            self.table, self.known = Table(view["grid_size"]), set()
        for tile in sorted(on_board - self.known):
            self.table = self.table.place(placement_on_board(tile, tiles, colours))
        self.known = on_board
        return self.table


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

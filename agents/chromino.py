"""Chromino heuristics. They read the seat's view (the table, the own hand and the turn's legal
placements with their contact counts, all things the player knows) and the action mask."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.chromino import ActionLayout
from envs.chromino import tiles as T


class _PlacementHeuristic:
    """Shared turn handling: draw when forced, always lay a drawn tile that fits, and lay the move
    that `_score` ranks highest (ties broken at random)."""

    name = "placement"
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)
        self._layouts: dict[int, ActionLayout] = {}

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        layout = self._layouts.setdefault(view["grid_size"], ActionLayout(view["grid_size"]))
        moves = view["legal_moves"]
        if moves is None or len(moves) == 0:  # draw or pass: exactly one of them is open
            return layout.draw if action_mask[layout.draw] else layout.pass_
        if view["phase"] == "place":
            moves = moves[(moves[:, 0] == view["chosen_tile"]) & (moves[:, 1] == view["chosen_orientation"])]
        scores = self._score(moves, view)
        best = np.flatnonzero(scores == scores.max())
        tile, orientation, row, col, _ = moves[best[self.rng.integers(best.size)]]
        if view["phase"] == "place":
            return layout.place(int(row), int(col))
        return layout.choose(int(tile), int(orientation))

    def _score(self, moves: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError


class MostContacts(_PlacementHeuristic):
    """Lay the placement with the most contacts; among equals, the tile of most colours."""

    name = "most_contacts"

    def _score(self, moves, view):
        return moves[:, 4] * 10 + T.VALUE[moves[:, 0]]


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


HEURISTICS = {cls.name: cls for cls in (MostContacts, ShedHardest, MostPoints)}

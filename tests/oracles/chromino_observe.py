"""Chromino's one-ply look-ahead as it was computed before `Table.places_after` (`kernels.places_after`): a new
table per legal placement and three searches on it, in Python. The oracle the observer's differential test
holds the compiled look-ahead to, bit for bit."""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import NUM_ORIENTATIONS
from tabletop.envs.chromino.observe import ChrominoObserver
from tabletop.envs.chromino.rules import ChrominoState
from tabletop.envs.chromino.table import Placement


class OracleObserver(ChrominoObserver):
    """The observer with the look-ahead written out placement by placement."""

    def _lookahead(self, state: ChrominoState, mover: int, moves: np.ndarray) -> tuple[np.ndarray, ...]:
        junior, hand = self.game.junior, state.hands[mover]
        rivals = [h[0] for s, h in enumerate(state.hands) if s != mover and len(h) == 1 and not state.finished[s]]
        known = set(hand) | {p.tile for p in state.placements}
        unseen = [t for t in range(T.NUM_TILES) if t not in known]
        scale = np.log1p(NUM_ORIENTATIONS * self.game.grid_size**2)
        after, (options, blocks, shuts, lone_chameleon) = np.ones(len(moves)), np.zeros((4, len(moves)))
        for i, (tile, orientation, row, col, _) in enumerate(moves.tolist()):
            rest = list(hand)
            rest.remove(tile)
            lone_chameleon[i] = len(rest) == 1 and T.IS_CHAMELEON[rest[0]]
            table = state.table.place(Placement(tile, orientation, row, col))
            if unseen:
                shuts[i] = 1 - np.unique(table.search(unseen, junior)[:, 0]).size / len(unseen)
            if rest:
                counts = np.bincount(table.search(rest, junior)[:, 0], minlength=T.NUM_TILES)[rest]
                after[i] = np.count_nonzero(counts) / len(rest)
                options[i] = np.log1p(counts).mean() / scale
            blocks[i] = float(bool(rivals) and len(table.search(rivals, junior)) == 0)
        return after, options, blocks, shuts, lone_chameleon

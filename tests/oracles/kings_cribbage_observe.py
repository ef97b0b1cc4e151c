"""Kings Cribbage's observation as it was encoded before the board planes were written by a kernel
(`kernels.board_planes`, envs/kings_cribbage/observe.py): the oracle the differential test holds the encoder
to, bit for bit.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.kings_cribbage.observe import _QUARTER, KingsCribbageObserver
from tabletop.envs.kings_cribbage.rules import KingsCribbageState
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, FACE_KIND, FACE_VALUE, NUM_KINDS


class OracleObserver(KingsCribbageObserver):
    """The observer with its former `encode` (the board planes by numpy gathers; the moves-mode rows shared)."""

    def encode(self, state: KingsCribbageState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        g, at = self.game, self._at
        n, cells = g.num_players, g.cells
        obs = self.layout.zeros() if out is None else out
        if out is not None:
            obs.fill(0)  # what follows writes only the nonzero entries
        order = [(player + i) % n for i in range(n)]
        flat = state.values.reshape(-1)
        occupied = flat.nonzero()[0]
        obs[self._rank_at.take(flat.take(occupied)) + occupied] = 1
        obs[self._colour_at.take(state.colours.reshape(-1).take(occupied)) + occupied] = 1
        mover = state.current_player
        rack = at["rack"]
        for kind in state.racks[player]:
            obs[rack + kind] += _QUARTER
        for action in state.pending:  # tiles mode: the move being built
            face, cell = divmod(action, cells)
            obs[at["board_rank"] + (FACE_VALUE[face] - 1) * cells + cell] = 1
            obs[at["board_colour"] + FACE_COLOUR[face] * cells + cell] = 1
            obs[at["pending"] + cell] = 1
            if player == mover:
                obs[rack + FACE_KIND[face]] -= _QUARTER
        if player == mover:
            for kind in state.marked:
                obs[at["exchange_chosen"] + kind] += _QUARTER
        counts = [state.score[s] for s in order] + [len(state.racks[s]) for s in order]
        counts += [len(state.bags[g.bag_of[s]]) for s in order]
        obs[at["scores"] : at["scores"] + 3 * n] = np.array(counts, dtype=np.float32) / self._scales
        if mover >= 0:
            obs[at["to_move"] + (mover - player) % n] = 1
        if mover >= 0 and (player == mover or self.omniscient):
            can_move = len(state.moves) > 0
            obs[at["phase"] + (0 if can_move and not len(occupied) else (1 if can_move else 2))] = 1
            if g.moves_mode:
                self._encode_options(state, obs)
        obs[at["passes"]] = state.passes / (g.stall_rounds * n)
        if self.omniscient:
            for i, seat in enumerate(order):
                for kind in state.racks[seat]:
                    obs[at["all_racks"] + i * NUM_KINDS + kind] += _QUARTER
                start = at["bag_contents"] + i * NUM_KINDS
                obs[start : start + NUM_KINDS] = np.bincount(state.bags[g.bag_of[seat]], minlength=NUM_KINDS) * _QUARTER
            for kind in state.marked:
                obs[at["all_exchange_chosen"] + kind] += _QUARTER
        return obs

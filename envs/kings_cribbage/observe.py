"""Kings Cribbage observations: the seat's private view (omniscient: every rack and bag too) as a float32 vector.

Seat-indexed blocks list the observer first, then the players after it in turn order. The board planes
show committed tiles and the tiles of the move being built (marked in `pending`).
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.core import Layout
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame, KingsCribbageState
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, FACE_KIND, FACE_VALUE, NUM_KINDS, NUM_RANKS, NUM_TILES, RACK_SIZE

PHASES = ("first move", "place", "exchange")


def private_layout(game: KingsCribbageGame) -> Layout:
    n, s = game.num_players, game.board_size
    return Layout.of(
        ("board_rank", (NUM_RANKS, s, s), "1 at [v-1, row, col] where a tile showing value v lies (A=1 .. K=13)"),
        ("board_colour", (2, s, s), "1 at [0, row, col] for a light tile, [1, row, col] for a dark one"),
        ("pending", (s, s), "1 where a tile of the move being built lies (not yet committed)"),
        ("rack", NUM_KINDS, "own tiles still in hand, by kind (colour * 13 + rank - 1), count / 4"),
        ("exchange_chosen", NUM_KINDS, "own tiles chosen for the exchange so far, by kind, count / 4"),
        ("scores", n, "each seat's score / 100"),
        ("rack_sizes", n, "tiles on each seat's rack / 5"),
        ("bag_sizes", n, "tiles left in the bag each seat draws from / 104"),
        ("to_move", n, "1 for the seat to move"),
        ("phase", len(PHASES), "mover only (zeros for the others): first move of the game, placing, exchanging (no move)"),
        ("passes", 1, "consecutive turns without a move / (stall_rounds * players)"),
    )


def omniscient_layout(game: KingsCribbageGame) -> Layout:
    n = game.num_players
    return private_layout(game) + Layout.of(
        ("all_racks", (n, NUM_KINDS), "every seat's rack by kind, count / 4 (pending tiles included)"),
        ("all_exchange_chosen", NUM_KINDS, "the mover's tiles chosen for the exchange, count / 4"),
        ("bag_contents", (n, NUM_KINDS), "the bag each seat draws from, by kind, count / 4 (order not encoded)"),
    )


def _kind_counts(kinds) -> np.ndarray:
    return np.bincount(np.asarray(kinds, dtype=np.int64), minlength=NUM_KINDS).astype(np.float32) / 4.0


class KingsCribbageObserver:
    """Builds observation vectors for one game configuration: the private view, or everything."""

    def __init__(self, game: KingsCribbageGame, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        self.layout = omniscient_layout(game) if omniscient else private_layout(game)

    def encode(self, state: KingsCribbageState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        g, layout = self.game, self.layout
        n, cells = g.num_players, g.cells
        obs = layout.zeros() if out is None else out
        if out is not None:
            obs.fill(0)  # the blocks below write only the ones
        order = (player + np.arange(n)) % n
        board = layout.block(obs, "board_rank").reshape(NUM_RANKS, cells)
        colour = layout.block(obs, "board_colour").reshape(2, cells)
        flat_values = state.values.reshape(-1)
        occupied = np.flatnonzero(flat_values)
        board[flat_values[occupied].astype(np.int64) - 1, occupied] = 1
        colour[state.colours.reshape(-1)[occupied].astype(np.int64), occupied] = 1
        pending = np.asarray(state.pending, dtype=np.int64)
        placed_kinds = []
        if len(pending):
            faces, pcells = np.divmod(pending, cells)
            board[FACE_VALUE[faces] - 1, pcells] = 1
            colour[FACE_COLOUR[faces], pcells] = 1
            layout.block(obs, "pending").reshape(-1)[pcells] = 1
            placed_kinds = FACE_KIND[faces]
        rack = _kind_counts(state.racks[player])
        mover = state.current_player
        if player == mover and len(placed_kinds):
            rack -= _kind_counts(placed_kinds)
        layout.block(obs, "rack")[:] = rack
        if player == mover and state.marked:
            layout.block(obs, "exchange_chosen")[:] = _kind_counts(state.marked)
        layout.block(obs, "scores")[:] = np.asarray(state.score, dtype=np.float32)[order] / 100.0
        sizes = np.array([len(r) for r in state.racks], dtype=np.float32)
        layout.block(obs, "rack_sizes")[:] = sizes[order] / RACK_SIZE
        bags = np.array([len(state.bags[g.bag_of[s]]) for s in range(n)], dtype=np.float32)
        layout.block(obs, "bag_sizes")[:] = bags[order] / NUM_TILES
        if mover >= 0:
            layout.block(obs, "to_move")[(mover - player) % n] = 1
        if mover >= 0 and (player == mover or self.omniscient):
            can_move = len(state.moves) > 0
            phase = 0 if can_move and not len(occupied) else (1 if can_move else 2)
            layout.block(obs, "phase")[phase] = 1
        layout.block(obs, "passes")[0] = state.passes / (g.stall_rounds * n)
        if self.omniscient:
            all_racks = layout.block(obs, "all_racks")
            for i, seat in enumerate(order):
                all_racks[i] = _kind_counts(state.racks[seat])
            layout.block(obs, "all_exchange_chosen")[:] = _kind_counts(state.marked)
            bag_block = layout.block(obs, "bag_contents")
            for i, seat in enumerate(order):
                bag_block[i] = _kind_counts(state.bags[g.bag_of[seat]])
        return obs

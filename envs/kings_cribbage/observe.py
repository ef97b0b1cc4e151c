"""Kings Cribbage observations: the seat's private view (omniscient: every rack and bag too) as a float32 vector.

Seat-indexed blocks list the observer first, then the players after it in turn order. The board planes
show committed tiles and the tiles of the move being built (marked in `pending`). With
`action_mode="moves"` nothing is ever built or chosen piece by piece, so `pending` and the exchange choices
are left out, and the mover's offered moves and exchanges come instead, one row each.

`encode` runs at every step, so it writes by flat index into the vector instead of through named blocks, the
board planes, the seat's own tiles and the seats' counts in one kernel call (`kernels.encode_table`; the
plain numpy encoding is the oracle tests/oracles/kings_cribbage_observe.py).
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.core import Layout
from tabletop.envs.core.structures import board_structure, indices, require_segments
from tabletop.envs.kings_cribbage import kernels
from tabletop.envs.kings_cribbage.actions import EXCHANGE_CHOICES
from tabletop.envs.kings_cribbage.move_features import NUM_FEATURES, encode_exchanges, encode_moves
from tabletop.envs.kings_cribbage.movegen import FIRST_MOVE_BONUS, FULL_RACK_BONUS, ONE_COLOUR_BONUS
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame, KingsCribbageState
from tabletop.envs.kings_cribbage.scoring import HAND_TABLE
from tabletop.envs.kings_cribbage.tiles import (
    FACE_COLOUR,
    FACE_KIND,
    FACE_VALUE,
    NUM_KINDS,
    NUM_RANKS,
    NUM_TILES,
    RACK_SIZE,
    TILES_PER_KIND,
    face_value,
)

PHASES = ("first move", "place", "exchange")
_QUARTER = 1 / TILES_PER_KIND  # one tile of a kind
_FACES = np.stack([FACE_VALUE, FACE_COLOUR, FACE_KIND]).astype(np.int64)  # `kernels.own_tiles`' rows


def score_range(game: KingsCribbageGame) -> tuple[int, int]:
    """Bounds the rules guarantee. A move of k tiles scores at most k + 1 hands (its line and one across
    each tile, two for a single tile), each at most the best hand plus the one-colour bonus, plus the
    full-rack bonus when k = 5 and the opening bonus once; a seat lays at most its bag's tiles (and no
    more than the board holds). The leftover deduction takes at most a full rack of tens."""
    tiles = min(max(map(len, game.bag_tiles())), game.cells)
    best_hand = int(HAND_TABLE.max()) + ONE_COLOUR_BONUS
    most = 2 * tiles * best_hand + (tiles // RACK_SIZE) * FULL_RACK_BONUS + FIRST_MOVE_BONUS
    return -game.rack_size * face_value(NUM_RANKS), most


def private_layout(game: KingsCribbageGame) -> Layout:
    n, s = game.num_players, game.board_size
    low, high = score_range(game)
    blocks = [
        ("board_rank", (NUM_RANKS, s, s), "1 at [v-1, row, col] where a tile showing value v lies (A=1 .. K=13)"),
        ("board_colour", (2, s, s), "1 at [0, row, col] for a light tile, [1, row, col] for a dark one"),
        ("pending", (s, s), "1 where a tile of the move being built lies (not yet committed)"),
        ("rack", NUM_KINDS, "own tiles still in hand, by kind (colour * 13 + rank - 1), count / 4"),
        ("exchange_chosen", NUM_KINDS, "own tiles chosen for the exchange so far, by kind, count / 4"),
        ("scores", n, "each seat's score / 100", (low / 100, high / 100)),
        ("rack_sizes", n, "tiles on each seat's rack / 5"),
        ("bag_sizes", n, "tiles left in the bag each seat draws from / 104"),
        ("to_move", n, "1 for the seat to move"),
        (
            "phase",
            len(PHASES),
            "mover only (zeros for the others): first move of the game, placing, exchanging (no move)",
        ),
        ("passes", 1, "consecutive turns without a move / (stall_rounds * players)"),
    ]
    if game.moves_mode:
        blocks = [block for block in blocks if block[0] not in ("pending", "exchange_chosen")]
        blocks += [
            (
                "moves",
                (game.max_moves, NUM_FEATURES),
                "mover only: one row per offered move, in slot order "
                "(columns: docs/kings_cribbage.md); zeros past the last",
            ),
            (
                "exchanges",
                (EXCHANGE_CHOICES, NUM_KINDS),
                "mover only: per exchange action allowed now, the tiles it returns to the bag, by kind, count / 4",
            ),
        ]
    return Layout.of(*blocks)


def omniscient_layout(game: KingsCribbageGame) -> Layout:
    n = game.num_players
    blocks = [
        ("all_racks", (n, NUM_KINDS), "every seat's rack by kind, count / 4 (pending tiles included)"),
        ("all_exchange_chosen", NUM_KINDS, "the mover's tiles chosen for the exchange, count / 4"),
        ("bag_contents", (n, NUM_KINDS), "the bag each seat draws from, by kind, count / 4 (order not encoded)"),
    ]
    if game.moves_mode:
        blocks = [block for block in blocks if block[0] != "all_exchange_chosen"]
    return private_layout(game) + Layout.of(*blocks)


MOVE_GLOBALS = ("rack", "scores", "rack_sizes", "bag_sizes", "to_move", "phase", "passes")
BOARD_PLANES = ("board_rank", "board_colour")  # side by side in the layout: the board's channels


def board_network_structure(table) -> dict:
    """What the `board` network reads in `action_mode="tiles"`: rank, colour and pending planes; "place face f
    on cell c"."""
    from tabletop.envs.kings_cribbage.tiles import NUM_FACES

    game, layout = table.game, table.observer.layout
    if game.action_mode != "tiles":
        raise ValueError(
            f"network.kind 'board' reads kings_cribbage_v0 with action_mode='tiles' (cells are actions); "
            f"action_mode={game.action_mode!r} offers whole moves: use network.kind 'moves'"
        )
    return board_structure(layout, game.board_size, [*BOARD_PLANES, "pending"], 0, NUM_FACES, game.num_actions)


def moves_network_structure(table) -> dict:
    """What the `moves` network reads in `action_mode="moves"`: the board's planes, the globals, one row per
    offered move (its `tiles` and `placed` columns) and the exchanges."""
    from tabletop.envs.kings_cribbage.move_features import COLUMNS
    from tabletop.envs.kings_cribbage.scoring import MAX_HAND

    game, layout = table.game, table.observer.layout
    require_segments(layout, ["moves"], "moves", "add action_mode: moves to env_kwargs (it scores the offered moves)")
    rank, colour = (layout.slice(name) for name in BOARD_PLANES)
    assert rank.stop == colour.start, "the board's planes must lie side by side"
    moves = layout.slice("moves")
    return {
        "board_offset": rank.start,
        "board_channels": (colour.stop - rank.start) // game.board_size**2,
        "board_size": game.board_size,
        "global_index": indices(layout, MOVE_GLOBALS),
        "moves_offset": moves.start,
        "max_moves": (moves.stop - moves.start) // NUM_FEATURES,
        "features": NUM_FEATURES,
        "tiles_column": COLUMNS["tiles"].start,
        "placed_column": COLUMNS["placed"].start,
        "max_hand": MAX_HAND,
        "exchanges_offset": layout.slice("exchanges").start,
        "exchange_choices": EXCHANGE_CHOICES,
        "kinds": NUM_KINDS,
    }


class KingsCribbageObserver:
    """Builds observation vectors for one game configuration: the private view, or everything."""

    network_structures = {  # network kinds besides `mlp`, and what they read
        "board": board_network_structure,
        "moves": moves_network_structure,
    }

    def __init__(self, game: KingsCribbageGame, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        self.layout = omniscient_layout(game) if omniscient else private_layout(game)
        at = self._at = {segment.name: self.layout.slice(segment.name).start for segment in self.layout.segments}
        n, cells = game.num_players, game.cells
        self._rank_at = at["board_rank"] + (np.arange(NUM_RANKS + 1) - 1) * cells  # by value shown
        self._colour_at = at["board_colour"] + np.arange(2) * cells
        # scores, rack sizes and bag sizes lie side by side: one division by their scales (in float32, as before)
        assert at["rack_sizes"] == at["scores"] + n and at["bag_sizes"] == at["rack_sizes"] + n
        self._counts_at = at["scores"]
        self._orders = [[(player + i) % n for i in range(n)] for player in range(n)]  # seats from `player` on
        own = ("board_rank", "board_colour", "pending", "rack", "exchange_chosen")  # -1: not in moves mode
        self._own_at = np.array([at.get(name, -1) for name in own], dtype=np.int64)
        self._scales = np.repeat(np.array([100.0, RACK_SIZE, NUM_TILES], dtype=np.float32), n)

    def encode(self, state: KingsCribbageState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        g, at = self.game, self._at
        n, cells = g.num_players, g.cells
        obs = self.layout.zeros() if out is None else out
        if out is not None:
            obs.fill(0)  # what follows writes only the nonzero entries
        order = self._orders[player]
        rack, mover = state.racks[player], state.current_player
        facts = rack + state.pending + state.marked  # tiles mode: pending and marked too; then the seats' counts
        facts += [state.score[s] for s in order] + [len(state.racks[s]) for s in order]
        facts += [len(state.bags[g.bag_of[s]]) for s in order]
        tiles = kernels.encode_table(
            obs,
            state.values,
            state.colours,
            self._rank_at,
            self._colour_at,
            np.array(facts, dtype=np.int64),
            len(rack),
            len(state.pending),
            _FACES,
            self._own_at,
            cells,
            _QUARTER,
            player == mover,
            self._counts_at,
            self._scales,
        )
        if mover >= 0:
            obs[at["to_move"] + (mover - player) % n] = 1
        if mover >= 0 and (player == mover or self.omniscient):
            can_move = bool(state.moves)
            obs[at["phase"] + (0 if can_move and not tiles else (1 if can_move else 2))] = 1
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

    def _encode_options(self, state: KingsCribbageState, obs: np.ndarray) -> None:
        """Moves mode: the mover's offered moves, or (with none) the exchanges allowed."""
        layout, rack = self.layout, state.racks[state.current]
        if len(state.offered):
            encode_moves(state.values, state.offered, rack, layout.block(obs, "moves"))
        else:
            encode_exchanges(rack, state.exchange_choices(), layout.block(obs, "exchanges"))

"""Chromino observations: a state as one seat sees it, as a float32 vector.

Seats are listed relative to the observer (index 0 = the observer, 1 = the next seat to play, ...), so
one policy can play every seat.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame, ChrominoState
from tabletop.envs.core import Layout

PLACEMENT_NEIGHBOURS = 8  # cells sharing an edge with a 1x3 tile: three on each long side, one at each end


def most_tiles_held(game: ChrominoGame) -> int:
    """The largest hand a seat can reach: its deal plus every tile of the bag (the start tile stays out)."""
    return T.NUM_TILES - 1 - (game.num_players - 1) * game.hand_size


def score_range(game: ChrominoGame) -> tuple[float, float]:
    """Expert points: at most 27 per placement (a tile's 3 plus 3 for each of the 8 cells beside it) and
    the bonus for going out; at least the penalty for the largest hand. Zero in other variants."""
    if game.variant != "expert":
        return 0.0, 0.0
    held = most_tiles_held(game)
    per_placement = int(T.VALUE.max()) * (1 + PLACEMENT_NEIGHBOURS)
    return -game.tile_penalty * held, per_placement * held + game.out_bonus


def private_layout(game: ChrominoGame) -> Layout:
    n, g = game.num_players, game.grid_size
    low, high = score_range(game)
    layout = Layout.of(
        ("board", (6, g, g), "1 where a square of that colour lies: red, yellow, green, blue, purple, chameleon centre"),
        ("hand", T.NUM_TILES, "own hand, multi-hot over the 80 tile ids"),
        ("public_tiles", (n, T.NUM_TILES), "one-hot lone tile of each seat holding exactly one tile (public), relative seats"),
        ("hand_sizes", n, "tiles in hand / hand_size, relative seats", (0, most_tiles_held(game) / game.hand_size)),
        ("bag_size", 1, "tiles in the bag / 80"),
        ("scores", n, "expert points / 100, relative seats (0 in other variants)", (low / 100, high / 100)),
        ("finished", n, "1 for seats that went out, relative seats"),
        ("to_move", n, "one-hot seat to move, relative seats"),
        ("phase", 3, "one-hot sub-step: choose a tile (or draw/pass), after a draw, lay the chosen tile"),
        ("turn_tile", T.NUM_TILES, "the tile being laid or just drawn (only the mover sees it)"),
        ("turn_orientation", 4, "one-hot way the chosen tile will lie (only the mover sees it)"),
        ("final_round", 1, "1 once someone went out: the round is being finished"),
        ("idle_turns", 1, "consecutive turns without a placement or a draw / players (the game is blocked at 1)"),
    )
    if game.junior:  # where a tile may attach: the colour planes do not show where one tile ends and the next begins
        layout += Layout.of(("open_ends", (g, g), "junior: 1 on each empty cell an open end points into (a tile may attach there)"))
    return layout


def omniscient_layout(game: ChrominoGame) -> Layout:
    return private_layout(game) + Layout.of(
        ("all_hands", (game.num_players, T.NUM_TILES), "every hand, multi-hot, relative seats"),
        ("bag", T.NUM_TILES, "bag contents, multi-hot"),
        ("next_draw", T.NUM_TILES, "one-hot tile that the next draw will bring"),
    )


class ChrominoObserver:
    """Builds observation vectors for one game configuration: private (what the seat knows) or omniscient."""

    def __init__(self, game: ChrominoGame, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        layout = omniscient_layout if omniscient else private_layout
        self.layout = layout(game)

    def encode(self, state: ChrominoState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        layout, n = self.layout, self.game.num_players
        seats = [(seat + k) % n for k in range(n)]
        if out is None:
            obs = layout.zeros()
        else:
            obs = out
            obs.fill(0.0)
        obs[layout.slice("board")] = state.table.planes().ravel()
        obs[layout.slice("hand")][state.hands[seat]] = 1.0
        public = layout.block(obs, "public_tiles")
        for i, s in enumerate(seats):
            hand = state.hands[s]
            if len(hand) == 1:
                public[i, hand[0]] = 1.0
        obs[layout.slice("hand_sizes")] = [len(state.hands[s]) / self.game.hand_size for s in seats]
        obs[layout.slice("bag_size")] = len(state.bag) / T.NUM_TILES
        obs[layout.slice("scores")] = [state.points[s] / 100.0 for s in seats]
        obs[layout.slice("finished")] = [float(state.finished[s]) for s in seats]
        mover = state.current_player
        if mover >= 0:
            obs[layout.slice("to_move")][(mover - seat) % n] = 1.0
            obs[layout.slice("phase")][state.phase] = 1.0
            tile = state.chosen if state.chosen >= 0 else state.drawn
            if tile >= 0 and (self.omniscient or mover == seat):
                obs[layout.slice("turn_tile")][tile] = 1.0
                if state.orientation >= 0:
                    obs[layout.slice("turn_orientation")][state.orientation] = 1.0
        obs[layout.slice("final_round")] = float(any(state.finished))
        obs[layout.slice("idle_turns")] = state.idle_turns / n
        if self.game.junior:
            obs[layout.slice("open_ends")] = state.table.open_ends().ravel()
        if self.omniscient:
            hands = layout.block(obs, "all_hands")
            for i, s in enumerate(seats):
                hands[i, state.hands[s]] = 1.0
            obs[layout.slice("bag")][state.bag] = 1.0
            if state.bag:
                obs[layout.slice("next_draw")][state.bag[-1]] = 1.0
        return obs

"""Chromino observations: a state as one seat sees it, as a float32 vector.

Seats are listed relative to the observer (index 0 = the observer, 1 = the next seat to play, ...), so
one policy can play every seat.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame, ChrominoState
from tabletop.envs.core import Layout


def private_layout(num_players: int, grid_size: int) -> Layout:
    n, g = num_players, grid_size
    return Layout.of(
        ("board", (6, g, g), "1 where a square of that colour lies: red, yellow, green, blue, purple, chameleon centre"),
        ("hand", T.NUM_TILES, "own hand, multi-hot over the 80 tile ids"),
        ("public_tiles", (n, T.NUM_TILES), "one-hot lone tile of each seat holding exactly one tile (public), relative seats"),
        ("hand_sizes", n, "tiles in hand / hand_size, relative seats"),
        ("bag_size", 1, "tiles in the bag / 80"),
        ("scores", n, "expert points / 100, relative seats (0 in other variants)"),
        ("finished", n, "1 for seats that went out, relative seats"),
        ("to_move", n, "one-hot seat to move, relative seats"),
        ("phase", 3, "one-hot sub-step: choose a tile (or draw/pass), after a draw, lay the chosen tile"),
        ("turn_tile", T.NUM_TILES, "the tile being laid or just drawn (only the mover sees it)"),
        ("turn_orientation", 4, "one-hot way the chosen tile will lie (only the mover sees it)"),
        ("final_round", 1, "1 once someone went out: the round is being finished"),
        ("idle_turns", 1, "consecutive turns without a placement or a draw / players (the game is blocked at 1)"),
    )


def omniscient_layout(num_players: int, grid_size: int) -> Layout:
    return private_layout(num_players, grid_size) + Layout.of(
        ("all_hands", (num_players, T.NUM_TILES), "every hand, multi-hot, relative seats"),
        ("bag", T.NUM_TILES, "bag contents, multi-hot"),
        ("next_draw", T.NUM_TILES, "one-hot tile that the next draw will bring"),
    )


class ChrominoObserver:
    """Builds observation vectors for one game configuration: private (what the seat knows) or omniscient."""

    def __init__(self, game: ChrominoGame, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        layout = omniscient_layout if omniscient else private_layout
        self.layout = layout(game.num_players, game.grid_size)

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
        if self.omniscient:
            hands = layout.block(obs, "all_hands")
            for i, s in enumerate(seats):
                hands[i, state.hands[s]] = 1.0
            obs[layout.slice("bag")][state.bag] = 1.0
            if state.bag:
                obs[layout.slice("next_draw")][state.bag[-1]] = 1.0
        return obs

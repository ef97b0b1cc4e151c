"""Chromino observations: a state as one seat sees it, as a float32 vector.

Seats are listed relative to the observer (index 0 = the observer, 1 = the next seat to play, ...), so
one policy can play every seat. The default observation is lean; the `lookahead` feature group (the
per-cell planes and per-choice rows a `board` network reads, a one-ply search over the mover's hand)
costs most of a step and is computed only when asked for (`features=["lookahead"]`).
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import NUM_ORIENTATIONS, OVER
from tabletop.envs.chromino.rules import ChrominoGame, ChrominoState
from tabletop.envs.core import Layout, Parameters
from tabletop.envs.core.params import feature_groups
from tabletop.envs.core.structures import board_structure, require_segments

PLACEMENT_NEIGHBOURS = 8  # cells sharing an edge with a 1x3 tile: three on each long side, one at each end
CHOICE_FEATURES = (  # a row per choose action, so a network can score every tile and orientation with shared weights
    "mover only: its legal cells this sub-step, log(1 + count) / log(1 + cells)",
    "mover only: the most contacts one of them makes / 8",
    "mover only: after its best placement, the fraction of the rest of the own hand that still has a place",
    "mover only: after that placement, the mean log(1 + places) of the rest of the hand / log(1 + 4 * cells)",
    "mover only: 1 if one of its placements leaves no place for any opponent's public last tile",
    "mover only: after its placement that shuts most, the fraction of the unseen tiles left without a place",
    "mover only: 1 if laying it leaves the own hand a lone chameleon (which must draw before it may be laid)",
    "the tile is in the own hand and a palindrome (reads the same both ways: hard to place)",
    "the tile is in the own hand and a chameleon (its wild centre fits almost anywhere)",
)


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


LOOKAHEAD = "lookahead"
FEATURE_GROUPS = {
    LOOKAHEAD: "mover only: per-cell planes and per-choose-action rows of this sub-step's legal "
    "placements and a one-ply look-ahead over the own hand (what the `board` network reads)"
}


def private_layout(game: ChrominoGame, features: tuple[str, ...] = ()) -> Layout:
    n, g = game.num_players, game.grid_size
    low, high = score_range(game)
    layout = Layout.of(
        (
            "board",
            (6, g, g),
            "1 where a square of that colour lies: red, yellow, green, blue, purple, chameleon centre",
        ),
        ("hand", T.NUM_TILES, "own hand, multi-hot over the 80 tile ids"),
        (
            "public_tiles",
            (n, T.NUM_TILES),
            "one-hot lone tile of each seat holding exactly one tile (public), relative seats",
        ),
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
    if LOOKAHEAD in features:
        layout += lookahead_layout(game)
    if game.junior:  # where a tile may attach: the colour planes do not show where one tile ends and the next begins
        layout += Layout.of(
            ("open_ends", (g, g), "junior: 1 on each empty cell an open end points into (a tile may attach there)")
        )
    return layout


def lookahead_layout(game: ChrominoGame) -> Layout:
    g = game.grid_size
    return Layout.of(
        (
            "cell_moves",
            (g, g),
            "mover only: legal placements of this sub-step centred on the cell, log(1 + count) / log(321)",
        ),
        ("cell_contacts", (g, g), "mover only: the most contacts a legal placement centred on the cell makes / 8"),
        (
            "cell_after",
            (g, g),
            "mover only: after the best legal placement centred on the cell, the fraction of the "
            "rest of the own hand that still has a place (1 when it lays the last tile)",
        ),
        (
            "cell_blocks",
            (g, g),
            "mover only: 1 if a legal placement centred on the cell leaves no place for any "
            "opponent's public last tile (there is one)",
        ),
        (
            "cell_shuts",
            (g, g),
            "mover only: after the legal placement centred on the cell that shuts most, the "
            "fraction of the unseen tiles (in no known place: other hands, the bag) left without a place",
        ),
        (
            "choices",
            (NUM_ORIENTATIONS * T.NUM_TILES, len(CHOICE_FEATURES)),
            "per choose action (4 * tile + orientation): " + ", ".join(CHOICE_FEATURES),
        ),
    )


def omniscient_layout(game: ChrominoGame, features: tuple[str, ...] = ()) -> Layout:
    return private_layout(game, features) + Layout.of(
        ("all_hands", (game.num_players, T.NUM_TILES), "every hand, multi-hot, relative seats"),
        ("bag", T.NUM_TILES, "bag contents, multi-hot"),
        ("next_draw", T.NUM_TILES, "one-hot tile that the next draw will bring"),
    )


BOARD_WINDOW = 27  # 20 measured keep_options games spanned at most 21 cells, +2 each side for placements


def board_network_structure(table) -> dict:
    """What the `board` network reads: colour, legal-cell and contact planes (the `lookahead` feature group);
    "lay on cell c" per cell; a row per choose action. Cropped to a BOARD_WINDOW square around the tiles."""
    game, layout = table.game, table.observer.layout
    planes = ["board", "cell_moves", "cell_contacts", "cell_after", "cell_blocks", "cell_shuts"] + (
        ["open_ends"] if game.junior else []
    )
    require_segments(layout, planes, "board", f"add features: [{LOOKAHEAD}] to env_kwargs")
    return board_structure(
        layout, game.grid_size, planes, game.actions.start("place"), 1, game.num_actions, BOARD_WINDOW, ("choices", 0)
    )


class ChrominoObserver:
    """Builds observation vectors for one game configuration: private (what the seat knows) or omniscient."""

    parameters = Parameters(feature_groups(FEATURE_GROUPS))
    feature_groups = FEATURE_GROUPS
    network_structures = {"board": board_network_structure}  # network kinds besides `mlp`, and what they read

    def __init__(self, game: ChrominoGame, omniscient: bool, features: tuple[str, ...] = ()):
        self.game = game
        self.omniscient = omniscient
        self.lookahead = LOOKAHEAD in features
        layout = omniscient_layout if omniscient else private_layout
        self.layout = layout(game, features)

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
        if self.lookahead:
            hand = np.asarray(state.hands[seat], dtype=np.intp)
            choices = layout.block(obs, "choices").reshape(T.NUM_TILES, NUM_ORIENTATIONS, -1)
            choices[hand, :, 7] = T.PALINDROME[hand, None]
            choices[hand, :, 8] = T.IS_CHAMELEON[hand, None]
            if mover >= 0 and state.phase != OVER and (self.omniscient or mover == seat):
                self._encode_moves(state, mover, obs)
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

    def _encode_moves(self, state: ChrominoState, mover: int, obs: np.ndarray) -> None:
        """Where this sub-step's legal placements lie (rows tile, orientation, row, col, contacts): per cell
        and per choose action, how many, the most contacts, and a one-ply lookahead on the own hand (what
        `keep_options` ranks by): after each placement, how much of the rest of the hand still fits, whether
        it leaves an opponent's public last tile nowhere to go, and how many unseen tiles it shuts out (what
        it leaves the opponents). Only the mover's own hand and the public table and tiles are read."""
        moves = state.legal_moves()
        if not len(moves):
            return
        layout, g = self.layout, self.game.grid_size
        cells = moves[:, 2] * g + moves[:, 3]
        choice = moves[:, 0] * NUM_ORIENTATIONS + moves[:, 1]
        obs[layout.slice("cell_moves")] = np.log1p(np.bincount(cells, minlength=g * g)) / np.log1p(
            NUM_ORIENTATIONS * T.NUM_TILES
        )
        choices = layout.block(obs, "choices")
        choices[:, 0] = np.log1p(np.bincount(choice, minlength=len(choices))) / np.log1p(g * g)
        after, options, blocks, shuts, lone_chameleon = self._lookahead(state, mover, moves)
        for plane, column, values in (
            ("cell_contacts", 1, moves[:, 4] / PLACEMENT_NEIGHBOURS),
            ("cell_after", 2, after),
            (None, 3, options),
            ("cell_blocks", 4, blocks),
            ("cell_shuts", 5, shuts),
            (None, 6, lone_chameleon),
        ):
            if plane is not None:
                best = np.zeros(g * g)
                np.maximum.at(best, cells, values)
                obs[layout.slice(plane)] = best
            np.maximum.at(choices[:, column], choice, values)

    def _lookahead(self, state: ChrominoState, mover: int, moves: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per legal placement: (fraction of the rest of the hand that still has a place, their mean
        log(1 + places) / log(1 + 4 * cells), 1 if no opponent's public last tile has a place after it,
        fraction of the unseen tiles without a place after it, 1 if it leaves the hand a lone chameleon)."""
        hand = np.asarray(state.hands[mover], dtype=np.int64)
        rivals = [h[0] for s, h in enumerate(state.hands) if s != mover and len(h) == 1 and not state.finished[s]]
        seen = np.ones(T.NUM_TILES, dtype=bool)
        seen[self.game.tiles_in_play(state.placements[0].tile)] = False  # a tile out of the box is no unseen one
        seen[hand] = True
        seen[[p.tile for p in state.placements]] = True
        unseen = np.flatnonzero(~seen)
        places, fits, rival_fits = state.table.places_after(moves, hand, unseen, rivals, self.game.junior)
        n, rest = len(moves), len(hand) - 1
        after, options, shuts = np.ones(n), np.zeros(n), np.zeros(n)
        if rest:
            counts = places[places >= 0].reshape(n, rest)  # each row: the rest of the hand, in the hand's order
            after = np.count_nonzero(counts, axis=1) / rest
            options = np.log1p(counts).mean(axis=1) / np.log1p(NUM_ORIENTATIONS * self.game.grid_size**2)
        if len(unseen):
            shuts = 1 - fits / len(unseen)
        blocks = (~rival_fits).astype(float) if rivals else np.zeros(n)
        lone_chameleon = np.zeros(n)
        if rest == 1:
            lone_chameleon = T.IS_CHAMELEON[np.where(moves[:, 0] == hand[0], hand[1], hand[0])].astype(float)
        return after, options, blocks, shuts, lone_chameleon

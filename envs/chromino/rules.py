"""Chromino's rules: the game configuration and the state it plays on.

A turn is one to four agent steps: choose a tile, then lay it (`actions.layout`); when no tile
fits, draw, then choose-and-lay the drawn tile or pass. Masks come from one placement search per turn
stage (`Table.search`), cached until the hand or the table changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.chromino import kernels, saved
from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import CHOOSE, DRAWN, NUM_ORIENTATIONS, OVER, PHASES, PLACE, layout
from tabletop.envs.chromino.table import Placement, Table, start_placement
from tabletop.envs.core import (
    BaseState,
    Param,
    ParameterError,
    Parameters,
    win_loss_returns,
    winners_returns,
)
from tabletop.envs.core.chance import IN_ORDER, Chance, as_chance
from tabletop.envs.core.params import int_range, int_words, is_int, per_player_count
from tabletop.envs.core.state import ILLEGAL, UNNAMED
from tabletop.envs.core.validate import check_playable

VARIANTS = ("standard", "junior", "expert", "solo")
PLAYER_COUNTS = {variant: tuple(range(2, 9)) for variant in ("standard", "junior", "expert")} | {"solo": (1,)}
DEFAULT_GRID_SIZE = 45
MAX_GRID_SIZE = 101  # 10,203 actions; the observation and mask grow with its square
MAX_POINTS = 1000  # expert scoring's bonus and penalty
_NO_MOVES = np.empty((0, 5), dtype=np.int64)
_NO_MOVES.flags.writeable = False

PARAMETERS = Parameters(
    Param("num_players", 2, "players at the table: 2-8, or 1 for the `solo` variant", choices=tuple(range(1, 9))),
    Param(
        "variant",
        "standard",
        "`standard`; `junior`: a branching domino line, end-to-end contacts only; `expert`: "
        "placements score points; `solo`: one player empties the hand",
        choices=VARIANTS,
    ),
    Param(
        "grid_size",
        DEFAULT_GRID_SIZE,
        "cells per side of the bounded table (45 holds 99.6% of measured games)",
        **int_range(5, MAX_GRID_SIZE),
    ),
    Param(
        "hand_size",
        8,
        "tiles dealt to each player",
        **int_range(1, T.NUM_TILES - 1, per_player_count(1, {n: (T.NUM_TILES - 1) // n for n in range(1, 9)})),
    ),
    Param("out_bonus", 10, "expert: points for going out", **int_range(0, MAX_POINTS)),
    Param(
        "tile_penalty",
        10,
        "expert: points lost per tile left in hand at the end",
        **int_range(0, MAX_POINTS),
    ),
    Param(
        "box",
        None,
        "the bag's tiles: by default every tile but the start chameleon; or a list of normal tiles (ids 0-74 as "
        "tiles.py numbers them) for a smaller game, with the start chameleon the only chameleon",
        check=lambda v: v is None or _is_box(v),
        convert=tuple,
        allowed="every tile (the default), or a list of distinct tile ids from 0 to 74, hand_size * num_players or "
        "more, e.g. [7, 30, 52, 66]",
    ),
)


def _is_box(tiles: Any) -> bool:
    return all(is_int(t) and 0 <= t < T.NUM_NORMAL for t in tiles) and len(set(tiles)) == len(tiles) > 0


class ChrominoGame:
    """Chromino for 2-8 players (`standard`, `junior`, `expert`) or one (`solo`)."""

    name = "chromino_v1"
    parameters = PARAMETERS

    def __init__(self, **params: Any):
        self.params = PARAMETERS.resolve(params, self.name)
        num_players, variant, hand_size = self.params["num_players"], self.params["variant"], self.params["hand_size"]
        if num_players not in PLAYER_COUNTS[variant]:
            hint = " (one player needs variant='solo')" if num_players == 1 else ""
            raise ParameterError(
                f"{self.name}: num_players={num_players} is not allowed with variant={variant!r}{hint}; "
                f"allowed: {', '.join(map(str, PLAYER_COUNTS[variant]))}"
            )
        self.box = self.params["box"]
        most = (T.NUM_TILES - 1 if self.box is None else len(self.box)) // num_players
        if hand_size > most:
            raise ParameterError(
                f"{self.name}: hand_size={hand_size} is not allowed for {num_players} players; "
                f"allowed: {int_words(1, most)}"
            )
        self.num_players = num_players
        self.variant = variant
        self.grid_size = self.params["grid_size"]
        self.hand_size = hand_size
        self.out_bonus = self.params["out_bonus"]
        self.tile_penalty = self.params["tile_penalty"]
        self.junior = variant == "junior"
        self.actions = layout(self.grid_size)
        self.num_actions = self.actions.num_actions

    def config(self) -> dict[str, Any]:
        """The parameters, as written into every state's JSON (`box` only when there is one: saved states of the
        whole set stay what they were)."""
        config = dict(self.params)
        if self.box is None:
            del config["box"]
        else:
            config["box"] = list(self.box)
        return config

    def tiles_in_play(self, start: int) -> list[int]:
        """Every tile of a game that starts with `start`: the whole set, or the box and the start chameleon."""
        return list(range(T.NUM_TILES)) if self.box is None else sorted({*self.box, start})

    def new_initial_state(self, rng: np.random.Generator | Chance) -> ChrominoState:
        chance = as_chance(rng)
        start = T.NUM_NORMAL + chance.integers(T.NUM_COLOURS)
        bag = [int(t) for t in chance.shuffled(T.NUM_TILES if self.box is None else self.box) if t != start]
        hands = [sorted(chance.draw(bag) for _ in range(self.hand_size)) for _ in range(self.num_players)]
        first = chance.integers(self.num_players)
        state = ChrominoState(self, hands, bag, [start_placement(self.grid_size, start)], first)
        state.chance = chance
        return state

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> ChrominoState:
        return ChrominoState.from_json(self, data)


class ChrominoState(BaseState):
    """One position. Hands are sorted tile-id lists; the bag is drawn from its end."""

    chance: Chance = IN_ORDER  # the source of each draw (`envs/core/chance.py`); a new game's is its own

    def __init__(
        self,
        game: ChrominoGame,
        hands: list[list[int]],
        bag: list[int],
        placements: list[Placement],
        first: int,
        table: Table | None = None,
    ):
        self.game = game
        self.hands = hands
        self.bag = bag
        self.placements = list(placements)
        self.table = Table.laid(game.grid_size, self.placements) if table is None else table
        self.first_player = first
        self.current = first
        self.phase = CHOOSE
        self.chosen = -1  # tile chosen for laying (PLACE)
        self.orientation = -1  # and the way it will lie
        self.drawn = -1  # tile drawn this turn (DRAWN)
        self.drew = False  # a tile was drawn this turn: the turn is not idle
        self.idle_turns = 0  # consecutive turns with neither a placement nor a draw
        self.finished = [False] * game.num_players
        self.points = [0] * game.num_players  # expert scoring
        self._moves: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    # --- protocol ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return -1 if self.phase == OVER else self.current

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_moves(self) -> np.ndarray:
        """Legal placements of this turn stage: read-only rows (tile, orientation, row, col, contacts)."""
        if self._moves is None:
            self._moves = self._search()
        return self._moves

    def _refusal(self, action: Any, why: str) -> str:
        if why == ILLEGAL:
            return f"action {action} ({self.action_to_string(action)}) is illegal for {self._who()}"
        if why == UNNAMED:
            return f"{action!r} is not a Chromino action; actions are ints in [0, {self.game.num_actions})"
        return f"{action!r} is not an action for {self._who()}; actions are ints in [0, {self.game.num_actions})"

    def _apply_action(self, action: int) -> None:
        kind, *args = self.game.actions.decode(action)
        if kind == "choose":
            moves = self.legal_moves()
            self.phase, (self.chosen, self.orientation) = PLACE, args
            self._moves = _read_only(kernels.rows_of(moves, self.chosen, self.orientation))
            self._mask = None
        elif kind == "place":
            self._place(Placement(self.chosen, self.orientation, *args))
        elif kind == "draw":
            self._draw()
        else:
            self._end_turn(placed=False)

    def scores(self) -> np.ndarray:
        if self.game.variant == "expert":
            return np.array(self.points, dtype=np.float64)
        return np.array([-len(h) for h in self.hands], dtype=np.float64)  # an empty hand scores 0, not -0

    def returns(self) -> np.ndarray:
        if self.phase != OVER:
            return np.zeros(self.game.num_players)
        if self.game.variant == "solo":
            return np.array([float(-len(self.hands[0]))])
        if self.game.variant == "expert":
            return win_loss_returns(self.scores())
        return winners_returns(self.winners())

    def winners(self) -> list[bool]:
        """Who went out; in a blocked game (nobody did) whoever holds the fewest tiles."""
        if any(self.finished):
            return list(self.finished)
        fewest = min(len(h) for h in self.hands)
        return [len(h) == fewest for h in self.hands]

    def view(self, player: int | None) -> dict[str, Any]:
        mover = player is None or player == self.current_player
        colours, tile_ids = self.table.grid()
        sizes = [len(h) for h in self.hands]
        view = {
            "seat": player,
            "num_players": self.game.num_players,
            "variant": self.game.variant,
            "grid_size": self.game.grid_size,
            "current_player": self.current_player,
            "first_player": self.first_player,
            "phase": PHASES[self.phase],
            "board": colours,
            "tiles": tile_ids,
            "hand": None if player is None else tuple(self.hands[player]),
            "hand_sizes": sizes,
            "public_tiles": [h[0] if len(h) == 1 else None for h in self.hands],
            "bag_size": len(self.bag),
            "scores": list(self.points),
            "finished": list(self.finished),
            "final_round": any(self.finished),
            "drew_this_turn": self.drew,
            "idle_turns": self.idle_turns,
            "chosen_tile": self.chosen if mover and self.chosen >= 0 else None,
            "chosen_orientation": self.orientation if mover and self.chosen >= 0 else None,
            "drawn_tile": self.drawn if mover and self.drawn >= 0 else None,
            "legal_moves": self.legal_moves() if mover and self.phase != OVER else None,
        }
        if player is None:
            view["hands"] = [tuple(h) for h in self.hands]
            view["bag"] = tuple(self.bag)
        return view

    def _describe(self, action: int) -> str:
        kind, *args = self.game.actions.decode(action)
        if kind == "choose":
            tile, orientation = args
            colours = T.ORIENTED_COLOURS[2 * tile + (orientation & 1)]
            direction = "left to right" if orientation < 2 else "top to bottom"
            return f"take {T.tile_name(tile)} to lay it {T.colour_words(colours)} {direction}"
        if kind == "draw":
            return "draw a tile from the bag"
        if kind == "pass":
            return "keep the drawn tile and pass" if self.drawn >= 0 else "pass"
        row, col = args
        if self.chosen < 0:
            return f"lay the chosen tile centred on row {row}, col {col}"
        p = Placement(self.chosen, self.orientation, row, col)
        direction = "left to right" if self.orientation < 2 else "top to bottom"
        return (
            f"place {T.tile_name(self.chosen)} as {T.colour_words(p.colours())} {direction}, "
            f"centred on row {row}, col {col}"
        )

    def resample(self, seat: int, rng: np.random.Generator) -> ChrominoState:
        """A full state consistent with what `seat` knows, the hidden parts drawn at random (see `resample`)."""
        from tabletop.envs.chromino.resample import resample

        return resample(self, seat, rng)

    def clone(self) -> ChrominoState:
        new = ChrominoState.__new__(ChrominoState)
        new.__dict__.update(self.__dict__)  # tables and caches are immutable: share them
        new.hands = [list(h) for h in self.hands]
        new.bag = list(self.bag)
        new.placements = list(self.placements)
        new.finished = list(self.finished)
        new.points = list(self.points)
        return new

    def engine_arrays(self) -> tuple:
        """The position as fresh arrays for a compiled loop that plays many actions in one call (a heuristic's
        rollout, agents/chromino.py) with the engine steps of `kernels` (`choose`, `place`, `draw`, `end_turn`):
        the table's grids (`Table.writable`) and padded bounding box, the hands (a sorted row each, 80 wide)
        and their sizes, the bag, room for the placements laid from now on (80 rows, the next one at row
        `turn[kernels.PLACED]`; the earlier rows are left unfilled, nothing reads them), finished, points, the
        turn's counters (`kernels.CURRENT`...) and the rules (grid size, first player, expert, out bonus, tile
        penalty, junior). `resume` takes the position back from them."""
        g, n = self.game, self.game.num_players
        hands = np.zeros((n, T.NUM_TILES), dtype=np.int64)
        for p, hand in enumerate(self.hands):
            hands[p, : len(hand)] = hand
        bag, placements = np.zeros(T.NUM_TILES, dtype=np.int64), np.zeros((T.NUM_TILES, 4), dtype=np.int64)
        bag[: len(self.bag)] = self.bag
        turn = [self.current, self.phase, self.chosen, self.orientation, self.drawn, self.drew, self.idle_turns]
        rules = (g.grid_size, self.first_player, g.variant == "expert", g.out_bonus, g.tile_penalty, g.junior)
        return (
            self.table.writable(),
            np.array(self.table.bbox, dtype=np.int64),
            hands,
            np.array([len(h) for h in self.hands], dtype=np.int64),
            bag,
            placements,
            np.array(self.finished, dtype=np.bool_),
            np.array(self.points, dtype=np.int64),
            np.array([*turn, len(self.bag), len(self.placements)], dtype=np.int64),
            np.array(rules, dtype=np.int64),
        )

    def resume(self, grids, box, hands, hand_sizes, bag, placements, finished, points, turn, rules) -> None:
        """Take up the position from `engine_arrays` after a compiled loop played actions on them."""
        self.table = Table.adopt(self.game.grid_size, grids, tuple(box.tolist()))
        self.hands = [hand[:size].tolist() for hand, size in zip(hands, hand_sizes.tolist())]
        self.bag = bag[: turn[kernels.BAG_SIZE]].tolist()
        laid = placements[len(self.placements) : turn[kernels.PLACED]].tolist()
        self.placements = self.placements + [Placement(*p) for p in laid]
        self.finished, self.points = finished.tolist(), points.tolist()
        self.current, self.phase, self.chosen, self.orientation, self.drawn, drew, self.idle_turns = turn[:7].tolist()
        self.drew = bool(drew)
        self._moves = self._mask = None

    def to_json(self) -> dict[str, Any]:
        return saved.write(self)

    @classmethod
    def from_json(cls, game: ChrominoGame, data: dict[str, Any]) -> ChrominoState:
        """Rebuild a saved state; `InvalidStateError` for anything the rules cannot reach (see `saved`)."""
        position = saved.read(game, data)
        state = cls(game, position.hands, position.bag, position.placements, position.first, position.table)
        state.current, state.phase = position.current, position.phase
        state.chosen, state.orientation, state.drawn = position.chosen, position.orientation, position.drawn
        state.drew, state.idle_turns = position.drew, position.idle_turns
        state.finished, state.points = position.finished, position.points
        check_playable(state)
        return state

    # --- the turn ---------------------------------------------------------------------------------
    def _who(self) -> str:
        return "nobody (the game is over)" if self.phase == OVER else f"player {self.current}"

    def _lone_chameleon(self) -> bool:
        hand = self.hands[self.current]
        return len(hand) == 1 and bool(T.IS_CHAMELEON[hand[0]])

    def _choices(self) -> list[int]:
        """The tiles a choose stage may lay: the hand (none for a lone chameleon, which must draw first), or
        the tile just drawn."""
        if self.phase == DRAWN:
            return [self.drawn]
        return [] if self._lone_chameleon() else self.hands[self.current]

    def _search(self) -> np.ndarray:
        if self.phase in (CHOOSE, DRAWN):
            tiles = self._choices()
        elif self.phase == PLACE:
            moves = self.table.search([self.chosen], self.game.junior)
            return _read_only(moves[moves[:, 1] == self.orientation])
        else:
            return _NO_MOVES
        return _read_only(self.table.search(tiles, self.game.junior))

    def _compute_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        a = self.game.actions
        if self.phase == OVER:
            pass
        elif self.phase == PLACE:  # lay the chosen tile with its centre on (row, col)
            kernels.mark(mask, self.legal_moves(), a.start("place"), 2, self.game.grid_size, 3)
        else:  # choose a (tile, orientation), or draw or pass
            if self._moves is None:  # the stage's search marks the mask as it goes
                self._moves = _read_only(self.table.search_marking(self._choices(), self.game.junior, mask))
            else:
                kernels.mark(mask, self._moves, 0, 0, NUM_ORIENTATIONS, 1)
            moves = self._moves
            if self.phase == DRAWN:
                mask[a.start("pass")] = 1
            elif not moves.size:
                mask[a.start("draw") if self.bag else a.start("pass")] = 1
        return _read_only(mask)

    def _place(self, p: Placement) -> None:
        if self.game.variant == "expert":
            touched = self.table.touched_tiles(p)
            self.points[self.current] += int(T.VALUE[p.tile] + sum(T.VALUE[t] for t in touched))
        self.table = self.table.place(p)
        self.placements.append(p)
        self.hands[self.current].remove(p.tile)
        if not self.hands[self.current]:
            self.finished[self.current] = True
        self._end_turn(placed=True)

    def _draw(self) -> None:
        lone_chameleon = self._lone_chameleon()
        tile = self.chance.draw(self.bag)
        hand = self.hands[self.current]
        hand.append(tile)
        hand.sort()
        self.drew = True
        if lone_chameleon:  # the compulsory draw: the turn then goes on as a normal turn
            self.phase = CHOOSE
        else:
            self.phase, self.drawn = DRAWN, tile
        self._moves = self._mask = None

    def _end_turn(self, placed: bool) -> None:
        n = self.game.num_players
        self.idle_turns = 0 if placed or self.drew else self.idle_turns + 1
        following = (self.current + 1) % n
        self.chosen = self.drawn = self.orientation = -1
        self.drew = False
        self._moves = self._mask = None
        if (any(self.finished) and following == self.first_player) or self.idle_turns >= n:
            self._finish()
        else:
            self.current, self.phase = following, CHOOSE

    def _finish(self) -> None:
        """The round is complete after someone went out, or a full round passed idle: score it."""
        self.phase = OVER
        if self.game.variant == "expert":
            for seat, hand in enumerate(self.hands):
                if self.finished[seat]:
                    self.points[seat] += self.game.out_bonus
                else:
                    self.points[seat] -= self.game.tile_penalty * len(hand)


def _read_only(array: np.ndarray) -> np.ndarray:
    """Cached arrays are handed out without copying, so nobody may write to them."""
    array.setflags(write=False)
    return array

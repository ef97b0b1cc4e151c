"""Kings Cribbage: Scrabble's move structure with cribbage's scoring.

The action layouts, one per `action_mode`, are in `actions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from tabletop.envs.core import (
    BaseState,
    InvalidStateError,
    Param,
    ParameterError,
    Parameters,
    win_loss_returns,
)
from tabletop.envs.core.chance import Chance, SeededChance, as_chance
from tabletop.envs.core.params import int_range, is_int
from tabletop.envs.core.state import NOT_AN_INT, UNNAMED
from tabletop.envs.core.validate import check_playable, require
from tabletop.envs.kings_cribbage import movegen, saved
from tabletop.envs.kings_cribbage.actions import EXCHANGE_CHOICES, moves_layout, tiles_layout  # noqa: F401 (re-exported)
from tabletop.envs.kings_cribbage.movegen import MoveSet, Narrowed, Opening, Pairs, generate_moves, turn_moves
from tabletop.envs.kings_cribbage.offer import offered_moves
from tabletop.envs.kings_cribbage.tiles import (
    FACE_COLOUR,
    FACE_KIND,
    FACE_VALUE,
    NUM_KINDS,
    RACK_SIZE,
    TILES_PER_KIND,
    cell_name,
    face_name,
    face_value,
    kind_colour,
    kind_name,
    kind_rank,
)

# per face (value, colour, printed rank, kind) as Python ints: laying a tile reads one tuple (a numpy scalar
# costs more to read than a tuple's item)
_FACE_TILE = tuple(
    (value, colour, kind_rank(kind), kind)
    for value, colour, kind in zip(FACE_VALUE.tolist(), FACE_COLOUR.tolist(), FACE_KIND.tolist(), strict=True)
)
_NO_MASK = np.zeros(0, dtype=np.int8)  # moves mode: a turn's moves mark no mask

VARIANTS = ("standard", "solitaire")
PLAYER_COUNTS = (2, 3, 4)
MIN_BOARD, MAX_BOARD = 3, 26
ACTION_MODES = ("tiles", "moves")
DEFAULT_MAX_MOVES, MOST_MOVES = 64, 1024
MAX_STALL_ROUNDS = 20  # each one lengthens a stalled game by a full round of exchanges
MIN_RACK = 2  # the opening lays 2-5 tiles: a rack of one could never open

PARAMETERS = Parameters(
    Param("num_players", 2, "players at the table", choices=PLAYER_COUNTS),
    Param(
        "board_size",
        13,
        "side of the square board (one description of the real game says 15)",
        **int_range(MIN_BOARD, MAX_BOARD),
    ),
    Param(
        "variant",
        "standard",
        "`solitaire`: dark against light, 2 seats only (seat 0 draws light tiles, seat 1 dark ones)",
        choices=VARIANTS,
    ),
    Param(
        "stall_rounds",
        3,
        "full rounds without any move that end the game (the guard against endless exchanging)",
        **int_range(1, MAX_STALL_ROUNDS),
    ),
    Param(
        "action_mode",
        "tiles",
        "`tiles`: a move is laid tile by tile, then committed; `moves`: one action "
        "plays a whole move, one of at most `max_moves` offered, or passes with one of 32 exchanges",
        choices=ACTION_MODES,
    ),
    Param(
        "max_moves",
        DEFAULT_MAX_MOVES,
        "`action_mode='moves'` only: the most moves a turn offers",
        **int_range(1, MOST_MOVES),
    ),
    Param(
        "rack_size",
        RACK_SIZE,
        "tiles on a rack, drawn at the start and refilled after every move (the rulebook's 5); fewer make a "
        "smaller game",
        **int_range(MIN_RACK, RACK_SIZE),
    ),
    Param(
        "box",
        None,
        "the tiles in the bag: by default all 104, four of each kind; or a list of kinds (colour * 13 + rank - 1, "
        "as the exchange actions number them) for a smaller game",
        check=lambda v: v is None or _is_box(v),
        convert=lambda v: tuple(sorted(v)),
        allowed="all 104 tiles (the default), or a list of kinds from 0 to 25, each at most 4 times, enough to "
        "fill every rack, e.g. [4, 8, 17, 21]",
    ),
)


def _is_box(kinds: Any) -> bool:
    return all(is_int(k) and 0 <= k < NUM_KINDS for k in kinds) and all(
        kinds.count(k) <= TILES_PER_KIND for k in set(kinds)
    )


class KingsCribbageGame:
    """Kings Cribbage for 2-4 players on a square board; `solitaire`: light tiles against dark."""

    name = "kings_cribbage_v0"
    parameters = PARAMETERS

    def __init__(self, **params: Any):
        self.params = PARAMETERS.resolve(params, self.name)
        num_players, variant = self.params["num_players"], self.params["variant"]
        if variant == "solitaire" and num_players != 2:
            raise ParameterError(
                f"{self.name}: variant='solitaire' is dark against light and needs num_players=2; got "
                f"num_players={num_players} (allowed with 3 or 4 players: variant='standard')"
            )
        self.action_mode, self.max_moves = self.params["action_mode"], self.params["max_moves"]
        if self.action_mode == "tiles" and self.max_moves != DEFAULT_MAX_MOVES:
            raise ParameterError(
                f"{self.name}: max_moves={self.max_moves} sets how many moves action_mode='moves' offers; with "
                f"action_mode='tiles' it is not allowed (allowed: the default {DEFAULT_MAX_MOVES})"
            )
        self.num_players = num_players
        self.board_size = self.params["board_size"]
        self.variant = variant
        self.stall_rounds = self.params["stall_rounds"]
        self.rack_size, self.box = self.params["rack_size"], self.params["box"]
        self.cells = self.board_size * self.board_size
        self.moves_mode = self.action_mode == "moves"
        # the layout's offsets as attributes: the step path reads them on every action
        if self.moves_mode:
            self.actions = moves_layout(self.max_moves)
            self.exchange_base = self.actions.start("exchange")
            self.place_end = 0
        else:
            self.actions = tiles_layout(self.board_size)
            self.commit_action = self.actions.start("commit")
            self.place_end = self.commit_action  # the place actions are [0, place_end); moves mode has none
            self.mark_base = self.actions.start("mark")
            self.exchange_action = self.actions.start("exchange")
        self.num_actions = self.actions.num_actions
        # Solitaire: seat 0 draws light tiles from bag 0, seat 1 dark tiles from bag 1.
        self.bag_of = tuple(range(num_players)) if variant == "solitaire" else (0,) * num_players
        self._check_box()
        # what a deal shuffles: arrays, which `Generator.permutation` takes without converting a list
        self._unshuffled = tuple(cast(Sequence[int], np.array(tiles, dtype=np.int64)) for tiles in self.bag_tiles())

    def _check_box(self) -> None:
        """Every bag must fill the racks that draw from it at the start."""
        for bag, tiles in enumerate(self.bag_tiles()):
            racks = self.bag_of.count(bag)
            if len(tiles) < racks * self.rack_size:
                what = f"{('light', 'dark')[bag]} tiles" if self.variant == "solitaire" else "tiles"
                raise ParameterError(
                    f"{self.name}: box has too few {what} to fill {racks} rack{'s' * (racks > 1)} of {self.rack_size} "
                    f"({len(tiles)}); allowed: a box with at least {racks * self.rack_size} {what}"
                )

    def bag_tiles(self) -> list[list[int]]:
        """Each bag's tiles before the shuffle, kinds ascending: the whole set or the box; in solitaire the light
        ones, then the dark ones."""
        tiles = [k for k in range(NUM_KINDS) for _ in range(TILES_PER_KIND)] if self.box is None else list(self.box)
        if self.variant == "solitaire":
            return [[k for k in tiles if kind_colour(k) == colour] for colour in (0, 1)]
        return [tiles]

    def config(self) -> dict[str, Any]:
        """The configuration as saved states record it: every parameter, in declaration order, except that tiles
        mode (the default, and the only mode before there were two) leaves `action_mode` and `max_moves` out, and
        the full rack and tile set leave `rack_size` and `box` out, so saved states of the full game are what
        they were."""
        config = dict(self.params)
        if not self.moves_mode:
            del config["action_mode"], config["max_moves"]
        if self.rack_size == RACK_SIZE:
            del config["rack_size"]
        if self.box is None:
            del config["box"]
        else:
            config["box"] = list(self.box)
        return config

    def new_initial_state(self, rng: np.random.Generator | Chance) -> KingsCribbageState:
        chance = as_chance(rng).spawn()
        state = KingsCribbageState(self, chance)
        state.bags = [chance.shuffled(bag).tolist() for bag in self._unshuffled]
        for seat in range(self.num_players):
            state.draw(seat, self.rack_size)
        state.current = chance.integers(self.num_players)  # the low draw starts
        state.begin_turn()
        return state

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> KingsCribbageState:
        return KingsCribbageState.from_json(self, data)


class KingsCribbageState(BaseState):
    """One position. The board holds committed tiles only; the move being built lives in `pending`."""

    def __init__(self, game: KingsCribbageGame, chance: Chance):
        g = game
        self.game = g
        self.chance = chance  # the source of every draw and reshuffle (`envs/core/chance.py`)
        n = g.board_size
        self.values = np.zeros((n, n), dtype=np.int8)  # value shown (6 as 9 shows 9); 0 = empty
        self.colours = np.zeros((n, n), dtype=np.int8)
        self.printed = np.zeros((n, n), dtype=np.int8)  # printed rank, for the tile count
        self.racks: list[list[int]] = [[] for _ in range(g.num_players)]
        self.bags: list[list[int]] = []
        self.score = [0] * g.num_players
        self.deductions = [0] * g.num_players
        self.current = 0
        self.passes = 0  # consecutive turns without a move
        self.terminal = False
        self.pending: list[int] = []  # place actions of the move being built
        self.marked: list[int] = []  # kinds chosen for the exchange
        self.moves: MoveSet | Opening | Pairs | None = None
        self.alive: MoveSet | Narrowed | Opening | Pairs = (
            movegen.EMPTY_MOVES
        )  # tiles mode: the moves extending `pending`
        self.offered = movegen.EMPTY_MOVES  # moves mode: the moves this turn offers, in slot order
        # whether later turns list `moves` in the players' order (what a heuristic generates from the view, so
        # a search rollout that picks from `moves` breaks ties as `act` does); the rules need only the set
        self.players_order = False
        self._mask: np.ndarray | None = None

    # --- protocol ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return -1 if self.terminal else self.current

    def is_terminal(self) -> bool:
        return self.terminal

    def scores(self) -> np.ndarray:
        return np.array(self.score, dtype=np.float64)

    def returns(self) -> np.ndarray:
        if not self.terminal:
            return np.zeros(self.game.num_players)
        return win_loss_returns(self.scores())

    def _refusal(self, action: Any, why: str) -> str:
        if why in (NOT_AN_INT, UNNAMED):
            return f"action {action!r} is not an action: actions are ints in [0, {self.game.num_actions})"
        return f"action {action} ({self._describe(action)}) is illegal here"  # out of range, or illegal

    def apply(self, action: int) -> None:
        """`BaseState.apply`. A Python int that the kept mask allows skips its checks: the mask (num_actions
        long, all zeros once the game is over) already says it is in range and legal. Any other action gets
        every check and its refusal."""
        mask = self._mask
        if type(action) is int and mask is not None and 0 <= action < len(mask) and mask[action]:
            if action < self.game.place_end:
                self._place(action)
            else:
                self._mask = None
                self._apply_action(action)
        else:
            BaseState.apply(self, action)

    def legal_actions(self) -> np.ndarray:
        """`BaseState.legal_actions`, read straight from the kept list where the kept mask is this position's."""
        mask, legal = self._mask, self._legal
        if mask is not None and self._legal_of is mask and legal is not None:
            return legal
        return BaseState.legal_actions(self)

    def _apply_action(self, action: int) -> None:
        g = self.game
        if g.moves_mode:
            if action < g.exchange_base:
                offered = self.offered
                self._lay(offered.actions[action, : offered.lengths[action]].tolist(), int(offered.points[action]))
            else:
                self._exchange(self._exchange_kinds(action - g.exchange_base))
        elif action < g.commit_action:
            self._place(action)
        elif action == g.commit_action:
            self._commit()
        elif action < g.exchange_action:
            self.marked.append(action - g.mark_base)
        else:
            self._exchange(self.marked)

    def _place(self, action: int) -> None:
        """Tiles mode: lay a place action the mask allows. The moves are narrowed, the next mask marked and its
        legal actions listed in one kernel call; the next action reads them."""
        g = self.game
        mask = np.empty(g.num_actions, np.int8)  # the kernel clears it
        self.alive, legal = self.alive.place_step(len(self.pending), action, mask, g.commit_action)
        self.pending.append(action)
        legal.setflags(False)  # type: ignore[call-arg]  # read-only: handed out without a copy
        self._mask, self._legal, self._legal_of = mask, legal, mask

    # --- turns ------------------------------------------------------------------------------------
    def begin_turn(self) -> None:
        """Enumerate the mover's legal moves; end the game if the bag is empty and nobody can move."""
        self.pending, self.marked, self._mask = [], [], None
        g = self.game
        mask = _NO_MASK if g.moves_mode else np.empty(g.num_actions, np.int8)  # cleared and marked as moves are found
        self.moves, legal = turn_moves(self.values, self.colours, self.racks[self.current], self.players_order, mask)
        self.alive = self.moves
        if legal is not None:
            self._keep(mask, legal)
        if g.moves_mode:
            moves = cast(MoveSet, self.moves)  # moves mode: written out
            self.offered = offered_moves(moves, self.racks[self.current], g.board_size, g.max_moves)
        # listed first actions mean a move, known without a call; the bags and the others' moves are asked last
        if legal is None and not self.moves and not any(self.bags) and self._nobody_can_move():
            self._finish()

    def moves_for(self, seat: int) -> MoveSet | Opening:
        """`seat`'s legal moves, in the cheapest order, or in the players' order where `players_order` is set."""
        return generate_moves(self.values, self.colours, self.racks[seat], ordered=self.players_order)

    def _nobody_can_move(self) -> bool:
        return all(not len(self.moves_for(s)) for s in range(self.game.num_players) if s != self.current)

    def _commit(self) -> None:
        self._lay(self.pending, self.pending_points())

    def lay(self, move: int) -> None:
        """Play the mover's legal move `moves[move]` whole, at the start of the turn: what its place actions and
        the commit do one at a time, without narrowing the moves or making a mask between them. A heuristic's
        search rollout lays its choice this way in tiles mode (agents/kings_cribbage.py)."""
        if self.terminal or self.pending or self.marked or not 0 <= move < len(self.moves):
            raise ValueError(
                f"lay({move}) plays one of this turn's {len(self.moves)} moves before any action of the turn "
                f"(terminal={self.terminal}, pending={self.pending}, marked={self.marked})"
            )
        self._mask = None
        self._lay(self.moves.actions[move, : self.moves.lengths[move]].tolist(), int(self.moves.points[move]))

    def _lay(self, actions: list[int], points: int) -> None:
        """Put a legal move's tiles on the board (place actions), score it, refill; the game may end."""
        cells, size = self.game.cells, self.game.board_size
        rack = self.racks[self.current]
        values, colours, printed = self.values, self.colours, self.printed
        for action in actions:
            face, cell = divmod(action, cells)
            at = divmod(cell, size)
            values[at], colours[at], printed[at], kind = _FACE_TILE[face]
            rack.remove(kind)
        self.score[self.current] += points
        self.draw(self.current, self.game.rack_size - len(rack))
        self.passes = 0
        if not rack:
            self._finish()
        else:
            self._next_turn()

    def _exchange(self, kinds: list[int]) -> None:
        """Pass, exchanging these tiles (kinds in non-decreasing order; none: a plain pass)."""
        seat = self.current
        bag = self.bags[self.game.bag_of[seat]]
        rack = self.racks[seat]
        if kinds:
            drawn = [self.chance.draw(bag) for _ in kinds]
            for kind in kinds:
                rack.remove(kind)
            rack.extend(drawn)
            rack.sort()
            bag.extend(kinds)
            self.chance.shuffle(bag)
        self.passes += 1
        if self.passes >= self.game.stall_rounds * self.game.num_players:
            self._finish()
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.current = (self.current + 1) % self.game.num_players
        self.begin_turn()

    def _finish(self) -> None:
        """Each player loses the face value of the tiles left on the rack."""
        for seat, rack in enumerate(self.racks):
            self.deductions[seat] = sum(face_value(kind_rank(k)) for k in rack)
            self.score[seat] -= self.deductions[seat]
        self.terminal = True
        self.pending, self.marked = [], []
        self.moves = self.offered = self.alive = movegen.EMPTY_MOVES
        self._mask = None

    def draw(self, seat: int, count: int) -> None:
        bag = self.bags[self.game.bag_of[seat]]
        rack = self.racks[seat]
        for _ in range(min(count, len(bag))):
            rack.append(self.chance.draw(bag))
        rack.sort()

    # --- masks ------------------------------------------------------------------------------------
    def _compute_mask(self) -> np.ndarray:
        g = self.game
        mask = np.zeros(g.num_actions, dtype=np.int8)
        if self.terminal:
            return mask
        if g.moves_mode:
            if len(self.offered):
                mask[: len(self.offered)] = 1
            else:
                mask[g.exchange_base + np.array(self.exchange_choices())] = 1
            return mask
        if self.moves:  # the moves that extend `pending`: their next tile, or commit where one is complete
            legal = self.alive.mark(mask, len(self.pending), g.commit_action)
            if legal is not None:
                self._keep(mask, legal)
            return mask
        mask[g.exchange_action] = 1
        rack = self.racks[self.current]
        limit = min(len(rack), len(self.bags[g.bag_of[self.current]]))
        if len(self.marked) < limit:
            lowest = self.marked[-1] if self.marked else 0
            for kind in set(rack):
                if kind >= lowest and rack.count(kind) > self.marked.count(kind):
                    mask[g.mark_base + kind] = 1
        return mask

    def _keep(self, mask: np.ndarray, legal: np.ndarray) -> None:
        """Tiles mode with a move to build: keep the mask and its legal actions, read off the moves that extend
        `pending` as the mask was made (the mask has 5,098 entries), so `legal_actions` scans nothing."""
        legal.setflags(False)  # type: ignore[call-arg]  # read-only: handed out without a copy
        self._mask, self._legal, self._legal_of = mask, legal, mask

    # --- exchanges at move level ------------------------------------------------------------------
    def exchange_choices(self) -> list[int]:
        """Moves mode, no move: the exchanges allowed, as bit sets over the positions of the sorted rack. At most
        as many tiles as the bag holds, and of equal tiles always the first ones (one action per choice of kinds)."""
        rack = self.racks[self.current]
        limit = min(len(rack), len(self.bags[self.game.bag_of[self.current]]))
        return [
            choice
            for choice in range(1 << len(rack))
            if choice.bit_count() <= limit
            and not any(
                choice >> i & 1 and not choice >> (i - 1) & 1 for i in range(1, len(rack)) if rack[i] == rack[i - 1]
            )
        ]

    def _exchange_kinds(self, choice: int) -> list[int]:
        rack = self.racks[self.current]
        return [kind for i, kind in enumerate(rack) if choice >> i & 1]

    # --- what the current partial move is worth ----------------------------------------------------
    def pending_points(self) -> int | None:
        """Points the pending tiles would score if committed now, or None if they are not a legal move."""
        if self.moves is None or not self.pending:
            return None
        points = self.alive.complete_points(len(self.pending))
        return None if points < 0 else points

    # --- words ------------------------------------------------------------------------------------
    def _describe(self, action: int) -> str:
        """The action in words; "out of range" outside the layout (an illegal action's message reads it)."""
        g = self.game
        if not 0 <= action < g.num_actions:
            return "out of range"
        if g.moves_mode:
            return self._describe_move_level(action)
        if action < g.commit_action:
            face, cell = divmod(action, g.cells)
            return f"place {face_name(face)} at {cell_name(cell, g.board_size)}"
        if action == g.commit_action:
            points = self.pending_points()
            return "commit" if points is None else f"commit: {points} points"
        if action < g.exchange_action:
            return f"choose {kind_name(action - g.mark_base)} for the exchange"
        return exchange_words(len(self.marked))

    def _describe_move_level(self, action: int) -> str:
        g, offered = self.game, self.offered
        if action < g.exchange_base:
            if action >= len(offered):
                return f"offered move {action} (this turn offers {len(offered)})"
            tiles = [divmod(int(a), g.cells) for a in offered.actions[action, : offered.lengths[action]]]
            laid = ", ".join(f"{face_name(face)} at {cell_name(cell, g.board_size)}" for face, cell in tiles)
            return f"play {laid}: {int(offered.points[action])} points"
        choice, rack = action - g.exchange_base, self.racks[self.current]
        if choice >> len(rack):
            return f"exchange choice {choice} (bits over rack positions; the rack holds {len(rack)} tiles)"
        if not choice:
            return "pass without exchanging"
        return "pass and exchange " + ", ".join(kind_name(kind) for kind in self._exchange_kinds(choice))

    # --- views, copies, JSON -------------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        """Public table plus `player`'s rack; `None` adds every rack and the bags in draw order.

        `values` / `colours` hold committed tiles only; `pending` lists the place actions of the move
        being built (its tiles are still counted in the mover's `rack`). `can_move` (whether any legal move
        exists this turn) is given to the mover only, and with `action_mode="moves"` the offered moves too:
        `offered[i]` (move i's place actions, numbered as in tiles mode) and `offered_points[i]`."""
        g = self.game
        v: dict[str, Any] = {
            "player": player,
            "num_players": g.num_players,
            "board_size": g.board_size,
            "variant": g.variant,
            "current_player": self.current_player,
            "values": self.values.copy(),
            "colours": self.colours.copy(),
            "pending": list(self.pending),
            "marked_count": len(self.marked),
            "scores": list(self.score),
            "rack_sizes": [len(r) for r in self.racks],
            "bag_sizes": [len(self.bags[g.bag_of[s]]) for s in range(g.num_players)],
            "passes": self.passes,
            "first_move": not self.values.any(),
            "action_mode": g.action_mode,
        }
        if g.moves_mode:
            v["max_moves"] = g.max_moves
        if player is None or player == self.current_player:
            v["can_move"] = bool(self.moves) and not self.terminal
            if g.moves_mode:
                v["offered"] = [
                    row[:length].tolist() for row, length in zip(self.offered.actions, self.offered.lengths)
                ]
                v["offered_points"] = self.offered.points.tolist()
        if player is not None:
            v["rack"] = list(self.racks[player])
            v["marked"] = list(self.marked) if player == self.current else []
        else:
            v["racks"] = [list(r) for r in self.racks]
            v["bags"] = [list(b) for b in self.bags]
            v["marked"] = list(self.marked)
        return v

    def resample(self, seat: int, rng: np.random.Generator) -> KingsCribbageState:
        """A full state consistent with what `seat` knows, the hidden parts drawn at random (see `resample`)."""
        from tabletop.envs.kings_cribbage.resample import resample

        return resample(self, seat, rng)

    def clone(self) -> KingsCribbageState:
        other = KingsCribbageState.__new__(KingsCribbageState)
        other.__dict__.update(self.__dict__)
        other.chance = self.chance.clone()
        other.values, other.colours, other.printed = self.values.copy(), self.colours.copy(), self.printed.copy()
        other.racks = [list(r) for r in self.racks]
        other.bags = [list(b) for b in self.bags]
        other.score, other.deductions = list(self.score), list(self.deductions)
        other.pending, other.marked = list(self.pending), list(self.marked)
        return other  # `moves`, `alive` and `offered` are never mutated in place, so they are shared

    def to_json(self) -> dict[str, Any]:
        return self.position_json(self.chance.rng.bit_generator.state)

    def position_json(self, generator: Mapping[str, Any] | None) -> dict[str, Any]:
        """`to_json` with `generator` standing for the generator's state: resampling draws a new one, and a state
        that OpenSpiel deals (its chance explicit) has none."""
        return {
            "game": "kings_cribbage",
            "config": self.game.config(),
            "values": self.values.tolist(),
            "colours": self.colours.tolist(),
            "printed": self.printed.tolist(),
            "racks": [list(r) for r in self.racks],
            "bags": [list(b) for b in self.bags],
            "scores": list(self.score),
            "deductions": list(self.deductions),
            "current": self.current,
            "passes": self.passes,
            "terminal": self.terminal,
            "pending": list(self.pending),
            "marked": list(self.marked),
            "rng": generator,
        }

    @classmethod
    def from_json(cls, game: KingsCribbageGame, data: dict[str, Any]) -> KingsCribbageState:
        """Rebuild a saved state, or raise `InvalidStateError` for a position the rules cannot reach (the
        checks: saved.py). The move being built and the exchange choices are replayed as actions."""
        position = saved.read(game, data)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = position.rng
        state = cls(game, SeededChance(rng))
        state.values, state.colours, state.printed = position.values, position.colours, position.printed
        state.racks, state.bags = position.racks, position.bags
        state.score, state.deductions = position.scores, position.deductions
        state.current, state.passes = position.current, position.passes
        if position.terminal:
            state.terminal = True
            state.moves = movegen.EMPTY_MOVES
            return state
        state.begin_turn()
        require(not state.terminal, "terminal", "false, but the bags are empty and nobody can move: the game is over")
        if game.moves_mode:
            for name in ("pending", "marked"):
                require(
                    not getattr(position, name),
                    name,
                    "must be empty with action_mode='moves' (one action plays a whole move or exchange)",
                )
        for i, action in enumerate(position.pending):
            state._replay(action, f"pending[{i}]")
        for i, kind in enumerate(position.marked):
            state._replay(game.mark_base + kind, f"marked[{i}]")
        check_playable(state)
        return state

    def _replay(self, action: int, field: str) -> None:
        if not self.legal_action_mask()[action]:
            raise InvalidStateError(
                field,
                f"{self._describe(action)} is not legal here (a saved move is replayed as "
                "placements in increasing cell order, an exchange as kinds in non-decreasing order)",
            )
        self.apply(action)


def exchange_words(count: int) -> str:
    """A pass as everyone at the table sees it: how many tiles go back to the bag."""
    if count == 0:
        return "pass without exchanging"
    return f"pass and exchange {count} tile{'s' if count > 1 else ''}"

"""Kings Cribbage: Scrabble's move structure with cribbage's scoring.

Action layout (C = board_size**2 cells, N = 30 * C + 28; 5098 on the default 13x13 board):
    [0, 30*C)          place face f at cell c: action f * C + c (faces: tiles.FACE_KIND / FACE_VALUE)
    30*C               commit the placed tiles (legal only when they form a complete legal move)
    30*C + 1 + k       choose a tile of kind k (colour * 13 + rank - 1) for the exchange
    30*C + 27          pass, exchanging the chosen tiles (0-5) with the bag
A move's tiles are placed in increasing cell order (row by row), so one move has one action sequence.
Pass and exchange exist only when the player has no legal move; the chosen kinds are non-decreasing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.core import IllegalActionError, Param, ParameterError, Parameters, int_in, win_loss_returns
from tabletop.envs.kings_cribbage import movegen
from tabletop.envs.kings_cribbage.movegen import MoveSet, generate_moves
from tabletop.envs.kings_cribbage.tiles import (
    FACE_COLOUR,
    FACE_KIND,
    FACE_VALUE,
    NUM_FACES,
    NUM_KINDS,
    NUM_RANKS,
    RACK_SIZE,
    TILES_PER_KIND,
    cell_name,
    face_name,
    face_value,
    kind_name,
    kind_rank,
)

VARIANTS = ("standard", "solitaire")
PLAYER_COUNTS = (2, 3, 4)
MIN_BOARD, MAX_BOARD = 5, 26

PARAMETERS = Parameters(
    Param("num_players", 2, "players at the table", choices=PLAYER_COUNTS),
    Param("board_size", 13, "side of the square board (one description of the real game says 15)",
          check=int_in(MIN_BOARD, MAX_BOARD), allowed=f"an int in [{MIN_BOARD}, {MAX_BOARD}]"),
    Param("variant", "standard", "`solitaire`: dark against light, 2 seats only (seat 0 draws light tiles, "
          "seat 1 dark ones)", choices=VARIANTS),
    Param("stall_rounds", 3, "full rounds without any move that end the game (the guard against endless "
          "exchanging)", check=int_in(1), allowed="an int >= 1"),
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
        self.num_players = num_players
        self.board_size = self.params["board_size"]
        self.variant = variant
        self.stall_rounds = self.params["stall_rounds"]
        self.cells = self.board_size * self.board_size
        self.commit_action = NUM_FACES * self.cells
        self.mark_base = self.commit_action + 1
        self.exchange_action = self.mark_base + NUM_KINDS
        self.num_actions = self.exchange_action + 1
        # Solitaire: seat 0 draws light tiles from bag 0, seat 1 dark tiles from bag 1.
        self.bag_of = tuple(range(num_players)) if variant == "solitaire" else (0,) * num_players

    def config(self) -> dict[str, Any]:
        """The configuration as saved states record it (every parameter, in declaration order)."""
        return dict(self.params)

    def new_initial_state(self, rng: np.random.Generator) -> "KingsCribbageState":
        own_rng = np.random.Generator(np.random.PCG64(int(rng.integers(2**63))))
        if self.variant == "solitaire":
            bags = [[k for k in range(c * NUM_RANKS, (c + 1) * NUM_RANKS) for _ in range(TILES_PER_KIND)] for c in (0, 1)]
        else:
            bags = [[k for k in range(NUM_KINDS) for _ in range(TILES_PER_KIND)]]
        bags = [[int(k) for k in own_rng.permutation(bag)] for bag in bags]
        state = KingsCribbageState(self, own_rng)
        state.bags = bags
        for seat in range(self.num_players):
            state.draw(seat, RACK_SIZE)
        state.current = int(own_rng.integers(self.num_players))  # the low draw starts
        state.begin_turn()
        return state

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> "KingsCribbageState":
        return KingsCribbageState.from_json(self, data)


class KingsCribbageState:
    """One position. The board holds committed tiles only; the move being built lives in `pending`."""

    def __init__(self, game: KingsCribbageGame, rng: np.random.Generator):
        g = game
        self.game = g
        self.rng = rng
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
        self.moves: MoveSet | None = None
        self.alive = np.zeros(0, dtype=np.int64)  # moves still consistent with `pending`
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

    def legal_action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask

    def apply(self, action: int) -> None:
        action = int(action)
        if not 0 <= action < self.game.num_actions or not self.legal_action_mask()[action]:
            raise IllegalActionError(f"action {action} ({self._describe(action)}) is illegal here")
        g = self.game
        self._mask = None
        if action < g.commit_action:
            depth = len(self.pending)
            self.alive = self.alive[self.moves.actions[self.alive, depth] == action]
            self.pending.append(action)
        elif action == g.commit_action:
            self._commit()
        elif action < g.exchange_action:
            self.marked.append(action - g.mark_base)
        else:
            self._exchange()

    # --- turns ------------------------------------------------------------------------------------
    def begin_turn(self) -> None:
        """Enumerate the mover's legal moves; end the game if the bag is empty and nobody can move."""
        self.pending, self.marked, self._mask = [], [], None
        self.moves = self.moves_for(self.current)
        self.alive = np.arange(len(self.moves))
        if not len(self.moves) and not any(self.bags) and self._nobody_can_move():
            self._finish()

    def moves_for(self, seat: int) -> MoveSet:
        return generate_moves(self.values, self.colours, self.racks[seat])

    def _nobody_can_move(self) -> bool:
        return all(not len(self.moves_for(s)) for s in range(self.game.num_players) if s != self.current)

    def _commit(self) -> None:
        index = int(self.alive[self.moves.lengths[self.alive] == len(self.pending)][0])
        cells = self.game.cells
        rack = self.racks[self.current]
        for action in self.pending:
            face, cell = divmod(action, cells)
            row, col = divmod(cell, self.game.board_size)
            self.values[row, col] = FACE_VALUE[face]
            self.colours[row, col] = FACE_COLOUR[face]
            self.printed[row, col] = kind_rank(int(FACE_KIND[face]))
            rack.remove(int(FACE_KIND[face]))
        self.score[self.current] += int(self.moves.points[index])
        self.draw(self.current, RACK_SIZE - len(rack))
        self.passes = 0
        if not rack:
            self._finish()
        else:
            self._next_turn()

    def _exchange(self) -> None:
        seat = self.current
        bag = self.bags[self.game.bag_of[seat]]
        rack = self.racks[seat]
        if self.marked:
            drawn = [bag.pop() for _ in self.marked]
            for kind in self.marked:
                rack.remove(kind)
            rack.extend(drawn)
            rack.sort()
            bag.extend(self.marked)
            self.rng.shuffle(bag)
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
        self.moves = movegen.EMPTY_MOVES
        self.alive = np.zeros(0, dtype=np.int64)
        self._mask = None

    def draw(self, seat: int, count: int) -> None:
        bag = self.bags[self.game.bag_of[seat]]
        rack = self.racks[seat]
        for _ in range(min(count, len(bag))):
            rack.append(bag.pop())
        rack.sort()

    # --- masks ------------------------------------------------------------------------------------
    def _compute_mask(self) -> np.ndarray:
        g = self.game
        mask = np.zeros(g.num_actions, dtype=np.int8)
        if self.terminal:
            return mask
        if len(self.moves):
            depth = len(self.pending)
            if depth < movegen.MAX_HAND:
                nxt = self.moves.actions[self.alive, depth]
                mask[nxt[nxt >= 0]] = 1
            if depth and (self.moves.lengths[self.alive] == depth).any():
                mask[g.commit_action] = 1
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

    # --- what the current partial move is worth ----------------------------------------------------
    def pending_points(self) -> int | None:
        """Points the pending tiles would score if committed now, or None if they are not a legal move."""
        if self.moves is None or not self.pending:
            return None
        done = self.alive[self.moves.lengths[self.alive] == len(self.pending)]
        return int(self.moves.points[done[0]]) if len(done) else None

    # --- words ------------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        action = int(action)
        if not 0 <= action < self.game.num_actions:
            raise ValueError(f"action {action} is out of range [0, {self.game.num_actions})")
        return self._describe(action)

    def _describe(self, action: int) -> str:
        g = self.game
        if not 0 <= action < g.num_actions:
            return "out of range"
        if action < g.commit_action:
            face, cell = divmod(action, g.cells)
            return f"place {face_name(face)} at {cell_name(cell, g.board_size)}"
        if action == g.commit_action:
            points = self.pending_points()
            return "commit" if points is None else f"commit: {points} points"
        if action < g.exchange_action:
            return f"choose {kind_name(action - g.mark_base)} for the exchange"
        count = len(self.marked)
        if count == 0:
            return "pass without exchanging"
        return f"pass and exchange {count} tile{'s' if count > 1 else ''}"

    # --- views, copies, JSON -------------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        """Public table plus `player`'s rack; `None` adds every rack and the bags in draw order.

        `values` / `colours` hold committed tiles only; `pending` lists the place actions of the move
        being built (its tiles are still counted in the mover's `rack`). `can_move` (whether any legal move
        exists this turn) is given to the mover only."""
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
        }
        if player is None or player == self.current_player:
            v["can_move"] = bool(len(self.moves)) and not self.terminal
        if player is not None:
            v["rack"] = list(self.racks[player])
            v["marked"] = list(self.marked) if player == self.current else []
        else:
            v["racks"] = [list(r) for r in self.racks]
            v["bags"] = [list(b) for b in self.bags]
            v["marked"] = list(self.marked)
        return v

    def clone(self) -> "KingsCribbageState":
        other = KingsCribbageState.__new__(KingsCribbageState)
        other.__dict__.update(self.__dict__)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.rng.bit_generator.state
        other.rng = rng
        other.values, other.colours, other.printed = self.values.copy(), self.colours.copy(), self.printed.copy()
        other.racks = [list(r) for r in self.racks]
        other.bags = [list(b) for b in self.bags]
        other.score, other.deductions = list(self.score), list(self.deductions)
        other.pending, other.marked = list(self.pending), list(self.marked)
        return other  # `moves` and `alive` are never mutated in place, so they are shared

    def to_json(self) -> dict[str, Any]:
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
            "rng": self.rng.bit_generator.state,
        }

    @classmethod
    def from_json(cls, game: KingsCribbageGame, data: dict[str, Any]) -> "KingsCribbageState":
        """Rebuild a state; the move being built and the exchange choices are replayed as actions."""
        if data.get("config", game.config()) != game.config():
            raise ValueError(f"state was saved for {data['config']}, this game is {game.config()}")
        rng = np.random.Generator(np.random.PCG64())
        if "rng" in data:
            rng.bit_generator.state = data["rng"]
        state = cls(game, rng)
        n = game.board_size
        for name in ("values", "colours", "printed"):
            grid = np.array(data[name], dtype=np.int8)
            if grid.shape != (n, n):
                raise ValueError(f"{name} must be {n}x{n}, got shape {grid.shape}")
            setattr(state, name, grid)
        state.racks = [sorted(int(k) for k in r) for r in data["racks"]]
        state.bags = [[int(k) for k in b] for b in data["bags"]]
        state.score = [int(s) for s in data["scores"]]
        state.deductions = [int(d) for d in data.get("deductions", [0] * game.num_players)]
        state.current = int(data["current"])
        state.passes = int(data.get("passes", 0))
        if data.get("terminal", False):
            state.terminal = True
            state.moves = movegen.EMPTY_MOVES
            return state
        state.begin_turn()
        g = game
        for action in data.get("pending", []):
            state.apply(int(action))
        for kind in data.get("marked", []):
            state.apply(g.mark_base + int(kind))
        return state

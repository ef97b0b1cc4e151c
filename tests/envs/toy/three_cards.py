"""A toy fifth game that lives only in the tests: the proof that a game needs nothing outside its own files.

Three Cards: two players are dealt three cards each from a deck valued 1 to 7 (the last card is never seen).
The leader plays a card face up, the other answers; the higher card takes the trick and leads the next. After
three tricks, more tricks wins. Hands are hidden; played cards are public.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.core import (
    ActionLayout,
    BaseState,
    GameDefinition,
    InvalidStateError,
    Layout,
    Param,
    Parameters,
    win_loss_returns,
)
from tabletop.envs.core.canvas import Canvas

CARDS, HAND = 7, 3
ACTIONS = ActionLayout.of(("play", CARDS, "play card c + 1 from your hand"))


class ThreeCardsGame:
    name = "three_cards_v0"
    parameters = Parameters(Param("num_players", 2, "players at the table", choices=(2,)))
    actions = ACTIONS
    num_actions = ACTIONS.num_actions
    num_players = 2

    def __init__(self, **params: Any):
        self.params = self.parameters.resolve(params, self.name)

    def new_initial_state(self, rng: np.random.Generator) -> ThreeCardsState:
        deck = [int(c) for c in rng.permutation(CARDS)]
        return ThreeCardsState(self, [sorted(deck[:HAND]), sorted(deck[HAND : 2 * HAND])], [], [0, 0], 0)

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> ThreeCardsState:
        try:
            state = ThreeCardsState(
                self, [list(h) for h in data["hands"]], list(data["table"]), list(data["tricks"]), data["leader"]
            )
        except (KeyError, TypeError) as err:
            raise InvalidStateError(
                f"three_cards_v0: a saved state needs hands, table, tricks and leader ({err})"
            ) from None
        if state.to_json() != data:
            raise InvalidStateError("three_cards_v0: the saved state is not one the rules reach")
        return state


class ThreeCardsState(BaseState):
    def __init__(self, game, hands, table, tricks, leader):
        self.game, self.hands, self.table, self.tricks, self.leader = game, hands, table, tricks, leader

    @property
    def current_player(self) -> int:
        return -1 if self.is_terminal() else (self.leader + len(self.table)) % 2

    def is_terminal(self) -> bool:
        return not self.hands[0] and not self.hands[1]

    def _compute_mask(self) -> np.ndarray:
        mask = np.zeros(CARDS, dtype=np.int8)
        if not self.is_terminal():
            mask[self.hands[self.current_player]] = 1
        return mask

    def _apply_action(self, action: int) -> None:
        self.hands[self.current_player].remove(action)
        self.table.append(action)
        if len(self.table) == 2:
            self.leader = (self.leader + int(self.table[1] > self.table[0])) % 2
            self.tricks[self.leader] += 1
            self.table = []

    def _describe(self, action: int) -> str:
        return f"play {ACTIONS.decode(action)[1] + 1}"

    def scores(self) -> np.ndarray:
        return np.array(self.tricks, dtype=np.float64)

    def returns(self) -> np.ndarray:
        return win_loss_returns(self.scores()) if self.is_terminal() else np.zeros(2)

    def view(self, player: int | None) -> dict[str, Any]:
        seen = {"table": list(self.table), "tricks": list(self.tricks), "hand_sizes": [len(h) for h in self.hands]}
        return (
            {**seen, "hands": [list(h) for h in self.hands]}
            if player is None
            else {**seen, "hand": list(self.hands[player])}
        )

    def clone(self) -> ThreeCardsState:
        return ThreeCardsState(
            self.game, [list(h) for h in self.hands], list(self.table), list(self.tricks), self.leader
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands],
            "table": list(self.table),
            "tricks": list(self.tricks),
            "leader": self.leader,
        }


class ThreeCardsObserver:
    def __init__(self, game: ThreeCardsGame, omniscient: bool = False):
        self.omniscient = omniscient
        self.layout = Layout.of(
            ("hand", CARDS, "my cards"),
            ("table", CARDS, "the card led"),
            ("tricks", 2, "tricks taken, mine first, / 3"),
            *([("other_hand", CARDS, "the other hand")] if omniscient else []),
        )

    def encode(self, state: ThreeCardsState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        out = self.layout.zeros() if out is None else out
        out[:] = 0
        self.layout.block(out, "hand")[state.hands[seat]] = 1
        self.layout.block(out, "table")[state.table] = 1
        self.layout.block(out, "tricks")[:] = [state.tricks[seat] / 3, state.tricks[1 - seat] / 3]
        if self.omniscient:
            self.layout.block(out, "other_hand")[state.hands[1 - seat]] = 1
        return out


class ThreeCardsRenderer:
    def __init__(self, game: ThreeCardsGame):
        self.game = game

    def ansi(self, state: ThreeCardsState, seat: int | None = None) -> str:
        hands = [f"player_{p}: {state.hands[p] if seat in (None, p) else len(state.hands[p])}" for p in (0, 1)]
        return "\n".join([*hands, f"table: {state.table}", f"tricks: {state.tricks}"])

    def rgb(self, state: ThreeCardsState) -> np.ndarray:
        canvas = Canvas(40, 160)
        canvas.text(12, 8, f"table {state.table} tricks {state.tricks}")
        return canvas.pixels

    def describe(self, state: ThreeCardsState, action: int, seat: int | None = None) -> str:
        return state.action_to_string(action)


DEFINITION = GameDefinition(
    "three_cards_v0", ThreeCardsGame, ThreeCardsObserver, ThreeCardsRenderer, "Three Cards: a toy trick game."
)

"""The two protocols every game implements: a `Game` (fixed configuration) and its `State`.

The rules engine knows nothing of PettingZoo; `envs.core.aec.TabletopEnv` adapts any `Game` to an
AEC environment. The split follows OpenSpiel: the game holds what never changes (player count, action
count, observation layout), the state holds one position and mutates in place as actions are applied.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from tabletop.envs.core.encoding import Layout


@runtime_checkable
class State(Protocol):
    """One position of a game. `apply` mutates it; `clone` gives an independent copy."""

    @property
    def current_player(self) -> int:
        """Seat to act (0-based), or -1 once the game is over."""

    def is_terminal(self) -> bool:
        """True once the game is over."""

    def legal_action_mask(self) -> np.ndarray:
        """int8 array of length `Game.num_actions`: 1 where the action is legal now."""

    def apply(self, action: int) -> None:
        """Play `action` for the current player; raise `IllegalActionError` if it is not legal."""

    def scores(self) -> np.ndarray:
        """float64 per seat: the running score (team members share their team's score).

        `reward="score"` pays the change of this vector after every step.
        """

    def returns(self) -> np.ndarray:
        """float64 per seat at the end: +1 win, -1 loss, 0 when everyone ties (zero before the end)."""

    def view(self, player: int | None) -> dict[str, Any]:
        """What `player` may know, as plain Python data; `None` gives the full state."""

    def action_to_string(self, action: int) -> str:
        """The action in the rulebook's words."""

    def clone(self) -> "State":
        """An independent copy, cheap enough for search."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict that `Game.state_from_json` turns back into an equal state."""


@runtime_checkable
class Game(Protocol):
    """A game under one configuration (player count, variant, ...)."""

    name: str
    num_players: int
    num_actions: int
    observation_layout: Layout
    """Layout of the private observation (what `encode(..., omniscient=False)` returns)."""
    omniscient_layout: Layout
    """Layout of the omniscient observation and of `state()`."""

    def new_initial_state(self, rng: np.random.Generator) -> State:
        """A fresh game; every random choice, now and later, comes from `rng`."""

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> State:
        """Rebuild a state written by `State.to_json`."""

    def encode(self, state: State, player: int, omniscient: bool = False) -> np.ndarray:
        """float32 observation of `state` as `player` sees it (everything, if `omniscient`)."""

    def render_ansi(self, state: State, seat: int | None = None) -> str:
        """The table as terminal text: everything for `None`, else only what `seat` may know (as `State.view(seat)`)."""

    def render_rgb(self, state: State) -> np.ndarray:
        """The table as an H×W×3 uint8 picture."""

"""The layers every game implements: `Game` and `State` (rules), `Observer` (arrays), `Renderer` (pictures).

The split follows OpenSpiel: the game holds what never changes (its parameters, player and action
counts), the state holds one position and mutates in place as actions are applied. Rules know
nothing of encodings, drawings or PettingZoo; an Observer turns a state into the arrays a seat may
see, a Renderer into text and pictures, and `tabletop.envs.core.aec.TabletopEnv` composes the three.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from tabletop.envs.core.actions import ActionLayout
from tabletop.envs.core.encoding import Layout
from tabletop.envs.core.params import Parameters


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

    def legal_actions(self) -> np.ndarray:
        """int64 array of the legal actions now, ascending: the mask's nonzero indices (OpenSpiel's
        `legal_actions`), which a driver that draws among them reads without scanning the whole mask."""

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

    def clone(self) -> State:
        """An independent copy, cheap enough for search."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict that `Game.state_from_json` turns back into an equal state."""


@runtime_checkable
class Game(Protocol):
    """A game under one configuration. Built as `GameClass(**params)`, validated by `parameters`.

    Optional: a class attribute `shared_reward = True` marks a cooperative game (one team, one reward),
    so the adapter's `illegal_action="penalize"` gives every seat the -1; absent, it is False. A game
    played in teams has `team_of` (seat -> team, an int array), and the offender's teammates share the -1.
    """

    name: str
    parameters: Parameters
    """The declaration of every constructor argument: default, allowed values, meaning."""
    params: dict[str, Any]
    """This configuration's value of every parameter (defaults filled in)."""
    num_players: int
    num_actions: int
    actions: ActionLayout
    """What each of the `num_actions` indices means (`envs/core/actions.py`)."""

    def new_initial_state(self, rng: np.random.Generator) -> State:
        """A fresh game; every random choice, now and later, comes from `rng`."""

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> State:
        """Rebuild a state written by `State.to_json`."""


S = TypeVar("S", bound=State, contravariant=True)
"""The state type an observer or renderer reads: its own game's."""


@runtime_checkable
class Observer(Protocol[S]):
    """State + seat -> float32 arrays, for one game configuration and one mode.

    Built as `ObserverClass(game, omniscient)`. `layout` names the segments of the flat vector; a
    segment with a multi-dimensional shape (board planes, one row per circle or picture) is the
    structured form a network reads through `layout.block(vector, name)`. A private observer reads only
    what the seat may know; an omniscient one reads everything.
    """

    layout: Layout

    def __init__(self, game: Any, omniscient: bool, /, **options: Any) -> None: ...

    def encode(self, state: S, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of `state` as `seat` sees it; written into `out` (and returned) when given."""


@runtime_checkable
class Renderer(Protocol[S]):
    """State -> text and pictures, for one game configuration. Built as `RendererClass(game)`."""

    def __init__(self, game: Any, /) -> None: ...

    def ansi(self, state: S, seat: int | None = None) -> str:
        """The table as terminal text: everything for `None`, else only what `seat` may know."""

    def rgb(self, state: S) -> np.ndarray:
        """The table as an H×W×3 uint8 picture (a spectator's view)."""

    def describe(self, state: S, action: int, seat: int | None = None) -> str | None:
        """`action`, about to be played in `state`, as `seat` may learn of it: for the mover, for `None` and for
        a public move the rulebook's words (`state.action_to_string`, plus any public detail they leave out);
        for a private move what an onlooker at the table sees; None when an onlooker sees nothing of it."""

"""One OpenSpiel Python game over any of our games' rules: the same `Game`/`State` the PettingZoo env plays.

The OpenSpiel state keeps a settled rules state and, while chance is to move, the player action (or the deal)
that wants it. Each step replays that action on a copy of the settled state with `ExplicitChance` holding the
outcomes chosen so far: it settles, or it asks for the next card (`ChanceNeeded`), which becomes a chance
node. So every shuffle, deal and draw is a chance node at the moment the rules take the card, with the rules'
own code deciding what is taken.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from tabletop.envs import registry
from tabletop.envs.core.chance import ChanceNeeded, ExplicitChance
from tabletop.envs.core.params import Param, ParameterError
from tabletop.envs.openspiel.bounds import BOUNDS

ADAPTER_ONLY = ("reward", "render_mode", "illegal_action")
"""The PettingZoo adapter's parameters that mean nothing here: OpenSpiel pays the returns at the end, draws
nothing and refuses an illegal action itself."""
PREFIX = "tabletop_"
SHORT = 64  # games of at most this many decisions keep what their steps settle to (exact tools revisit them)
SETTLED = 50_000  # how many: a small variant's whole tree
RECALL = "information_state_tensor"
"""The game parameter that asks for the information-state tensor. Off by default: OpenSpiel's `TabularPolicy`
(which CFR builds) keeps the tensor of every information state, 20-50 times the observation's size."""
RECALL_LIMIT = 1 << 18
"""The most values an information-state tensor may hold (1 MiB of float32): every small variant's fits, while the
full games at their defaults would need 2.3 to 119 MB per state, too much for a learner's buffer of them."""
_UTILITY = {
    "zero_sum": pyspiel.GameType.Utility.ZERO_SUM,
    "general_sum": pyspiel.GameType.Utility.GENERAL_SUM,
    "identical": pyspiel.GameType.Utility.IDENTICAL,
}


def game_parameters(env_id: str) -> list[Param]:
    """The env's declared parameters that are OpenSpiel game parameters (all but `ADAPTER_ONLY`)."""
    return [p for p in registry.definition(env_id).parameters if p.name not in ADAPTER_ONLY]


def _allows(param: Param, value: Any) -> bool:
    try:
        param.validate(value, "")
    except ParameterError:
        return False
    return True


def spelling(param: Param) -> str:
    """How OpenSpiel holds the parameter: its parameters are ints, floats, strings or bools, and its game strings
    split on commas and read digits as ints. `plain`: as declared; `zero`: an int that may be None is an int, 0
    standing for None; `words`: a list is its items separated by spaces (a default of None is `none`)."""
    if param.default is None and not _allows(param, 0) and _allows(param, 2):
        return "zero"
    return "words" if param.default is None or isinstance(param.default, (tuple, list)) else "plain"


def spell(param: Param, value: Any) -> Any:
    """`value` of `param` as OpenSpiel holds it."""
    kind = spelling(param)
    if kind == "plain":
        return value
    if value is None:
        return 0 if kind == "zero" else "none"
    return " ".join(map(str, value)) if isinstance(value, (tuple, list)) else value


def read(param: Param, value: Any) -> Any:
    """The env's value of `param` from OpenSpiel's."""
    kind = spelling(param)
    if kind == "zero":
        return None if value == 0 else value
    if kind == "plain" or not isinstance(value, str):
        return value
    items = [int(w) if w.lstrip("-").isdigit() else w for w in value.split()]
    readings = [None] if value == "none" else [items, *items[:1], value]  # the first the env allows; else the text
    return next((r for r in readings if _allows(param, r)), value)


def openspiel_params(env_id: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The env's arguments `kwargs` as OpenSpiel game parameters (spelled as `spelling` says, the adapter's out)."""
    params = {p.name: p for p in game_parameters(env_id)}
    return {k: spell(params[k], v) for k, v in kwargs.items() if k in params}


def env_kwargs(env_id: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The env's arguments for OpenSpiel `params` (spelled values read back), validated as the env validates them:
    a bad value is the env's one-line `ParameterError`."""
    kwargs = {}
    for param in game_parameters(env_id):
        if param.name not in params:
            continue
        value = read(param, params[param.name])
        if value != param.default and not (isinstance(param.default, tuple) and tuple(value) == param.default):
            kwargs[param.name] = value
    registry.definition(env_id).resolve(kwargs)
    return kwargs


def game_type(env_id: str, utility: str = "general_sum", recall_tensor: bool = False) -> pyspiel.GameType:
    """The game type of `env_id`; a configuration's own says its utility and whether it has an information-state
    tensor (`Configuration.recall_tensor`). The parameters: the env's, and `RECALL`."""
    players = next(p for p in game_parameters(env_id) if p.name == "num_players").choices
    return pyspiel.GameType(
        short_name=PREFIX + env_id,
        long_name=f"tabletop-rl {env_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=_UTILITY[utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=recall_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={**{p.name: spell(p, p.default) for p in game_parameters(env_id)}, RECALL: False},
    )


@dataclass(frozen=True)
class Configuration:
    """Our side of one OpenSpiel game: the rules, the observer and the renderer of `env_id` under `kwargs`."""

    env_id: str
    kwargs: dict[str, Any]
    rules: Any
    observer: Any
    renderer: Any
    max_steps: int
    """The most settled steps a game has: the deal and every decision (`max_game_length` + 1)."""
    keep: int = 0
    """How many settled steps to keep: `SETTLED` for a game short enough for exact tools, else none."""
    recall_tensor: bool = False
    """Whether the game gives the information-state tensor (asked for with `RECALL`, within `RECALL_LIMIT`)."""
    settled: OrderedDict = field(default_factory=OrderedDict, compare=False, repr=False)
    """What each step settled to, by history (`TabletopState._settle`), the `keep` most recent."""

    @property
    def recall_size(self) -> int:
        """The size of the information-state tensor: the seat, and per settled step a flag, the seat to move, the
        seat's action and its observation."""
        players = self.rules.num_players
        return players + self.max_steps * (1 + players + self.rules.num_actions + self.observer.layout.size)

    def no_recall_tensor(self) -> str:
        """Why this configuration has no information-state tensor, and what to do instead (one line)."""
        if self.recall_size <= RECALL_LIMIT:
            return f"{PREFIX}{self.env_id}: no information_state_tensor unless the game is loaded with {RECALL}=True"
        return (
            f"{PREFIX}{self.env_id}: no information_state_tensor: perfect recall of {self.max_steps} settled steps "
            f"would take {self.recall_size:,} values, over the limit of {RECALL_LIMIT:,}; use "
            "information_state_string (perfect recall) or observation_tensor (the seat's view now)"
        )

    def remember(self, key: tuple, value: tuple) -> None:
        if self.keep:
            self.settled[key] = value
            if len(self.settled) > self.keep:
                self.settled.popitem(last=False)

    def __reduce__(self) -> tuple:
        """Pickled as its name and arguments (OpenSpiel's `serialize` pickles a state's attributes)."""
        return _configuration, (self.env_id, json.dumps(self.kwargs, sort_keys=True), self.recall_tensor)


@cache
def _configuration(env_id: str, spelled: str, recall: bool = False) -> Configuration:
    kwargs = json.loads(spelled)
    definition = registry.definition(env_id)
    rules = definition.new_game(**kwargs)
    omniscient = definition.resolve(kwargs)["observation_mode"] == "omniscient"
    observer = definition.observer(rules, omniscient, **definition.observer_options(kwargs))
    length = BOUNDS[type(rules)](rules).max_game_length
    renderer = definition.renderer(rules)
    keep = SETTLED if length <= SHORT else 0
    ours = Configuration(env_id, kwargs, rules, observer, renderer, length + 1, keep, recall_tensor=recall)
    if recall and ours.recall_size > RECALL_LIMIT:
        raise ValueError(ours.no_recall_tensor())
    return ours


def configuration(game: pyspiel.Game) -> Configuration:
    """The configuration of `game`, one of ours, from its name and parameters alone: OpenSpiel may hand back a
    game it rebuilt in C++ (a deserialised one), whose Python attributes are gone."""
    return _configuration_named(str(game))


@cache
def _configuration_named(name: str) -> Configuration:
    game = pyspiel.load_game(name)
    env_id = game.get_type().short_name.removeprefix(PREFIX)
    params = game.get_parameters()
    return _configuration(env_id, json.dumps(env_kwargs(env_id, params), sort_keys=True), bool(params.get(RECALL)))


class TabletopGame(pyspiel.Game):
    """One of our games behind OpenSpiel's API; `game_class` makes the subclass of each env id (`env_id` set)."""

    env_id: str

    def __init__(self, params: Mapping[str, Any] | None = None):
        params = dict(params or {})
        kwargs = env_kwargs(self.env_id, params)
        ours = _configuration(self.env_id, json.dumps(kwargs, sort_keys=True), bool(params.get(RECALL, False)))
        rules = ours.rules
        bounds = BOUNDS[type(rules)](rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.num_actions,
            max_chance_outcomes=bounds.max_chance_outcomes,
            num_players=rules.num_players,
            min_utility=bounds.min_utility,
            max_utility=bounds.max_utility,
            utility_sum=0.0 if bounds.utility == "zero_sum" else None,
            max_game_length=bounds.max_game_length,
        )
        super().__init__(game_type(self.env_id, bounds.utility, ours.recall_tensor), info, params)

    def new_initial_state(self) -> TabletopState:
        return TabletopState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if params:
            raise ValueError(f"{self.get_type().short_name}: observation parameters are game parameters; got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return InformationStateObserver(configuration(self))
        return SeatObserver(configuration(self))


def game_class(env_id: str) -> type[TabletopGame]:
    """The game class OpenSpiel registers for `env_id` (a class, as OpenSpiel's own Python games register)."""
    return type(f"TabletopGame_{env_id}", (TabletopGame,), {"env_id": env_id, "__module__": __name__})


class TabletopState(pyspiel.State):
    """A position: the settled rules state, and the step (a player action, or the deal) waiting for chance."""

    def __init__(self, game: TabletopGame):
        super().__init__(game)
        self._game = Shared(configuration(game))
        self._rules = Shared(None)  # the settled rules state (None before the deal settles)
        self.waiting: int | None = None  # the player action being played; None: the deal
        self.outcomes: list[int] = []  # the chance outcomes chosen for that step so far
        self.chance_node: list[tuple[int, float]] | None = None
        # per seat: the digest of every view it had and every action it took
        self.trails = [b""] * self.tabletop.rules.num_players
        # every settled step, where the configuration has an information-state tensor
        self.steps: Shared = Shared(())
        self._settle()

    @property
    def tabletop(self) -> Configuration:
        return self._game.value

    @property
    def rules(self) -> Any:
        """The settled rules state: never changed in place (a step plays on a copy), so clones share it."""
        return self._rules.value

    # --- stepping ----------------------------------------------------------------------------------
    def _settle(self) -> None:
        """Play the waiting step with the outcomes chosen so far; a wanted outcome makes a chance node. What a
        history settles to is kept (exact tools walk the same tree again and again): settled states never change."""
        key = (tuple(self.history()), self.waiting, tuple(self.outcomes))
        known = self.tabletop.settled.get(key)
        if known is None:
            self._play()
            # lists as tuples: this state goes on to change its own lists in place
            settled = (
                self._rules,
                self.waiting,
                tuple(self.outcomes),
                self.chance_node,
                tuple(self.trails),
                self.steps,
            )
            self.tabletop.remember(key, settled)
        else:
            self._rules, self.waiting, outcomes, self.chance_node, trails, self.steps = known
            self.outcomes, self.trails = list(outcomes), list(trails)

    def _play(self) -> None:
        chance = ExplicitChance(self.outcomes)
        try:
            if self.rules is None:
                state = self.tabletop.rules.new_initial_state(chance)
            else:
                state = self.rules.clone()
                state.chance = chance
                state.apply(self.waiting)
        except ChanceNeeded as wanted:
            self.chance_node = wanted.outcomes
            return
        mover = None if self.rules is None else self.rules.current_player
        self._remember(state, mover, self.waiting)
        self._rules, self.waiting, self.outcomes, self.chance_node = Shared(state), None, [], None

    def _remember(self, state: Any, mover: int | None, action: int | None) -> None:
        """Each seat's trail takes in its view of the settled position `state`, the mover's also its own action;
        the step joins `steps` where the information-state tensor needs it."""
        if self.tabletop.recall_tensor:
            self.steps = Shared((*self.steps.value, Step(state, mover, action)))
        for seat in range(len(self.trails)):
            digest = hashlib.sha256(self.trails[seat])
            if seat == mover:
                digest.update(f"action {action};".encode())
            _feed(digest, state.view(seat))
            self.trails[seat] = digest.digest()

    def current_player(self) -> int:
        if self.chance_node is not None:
            return pyspiel.PlayerId.CHANCE
        if self.rules.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.rules.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return self.rules.legal_actions().tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.chance_node or [])

    def _apply_action(self, action: int) -> None:
        if self.chance_node is not None:
            self.outcomes.append(int(action))
        else:
            self.waiting = int(action)
        self._settle()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        return self.rules.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.chance_node is None and self.rules.is_terminal()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * len(self.trails)
        return self.rules.returns().tolist()

    def __reduce__(self) -> tuple:
        """Pickled as its game and history (the rules state holds compiled caches that do not pickle)."""
        return replay, (str(self.get_game()), self.history())

    def __str__(self) -> str:
        table = self.tabletop.renderer.ansi(self.rules, None) if self.rules is not None else "(the deal)"
        if self.chance_node is not None:
            return f"{table}\nchance to move: outcomes {[o for o, _ in self.chance_node]}"
        return table


def replay(game: str, history: list[int]) -> TabletopState:
    """The state after `history` in the game named by `game` (OpenSpiel's game string)."""
    state = pyspiel.load_game(game).new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


class Step(NamedTuple):
    """One settled step: the position it settled to, and who moved (None: the deal) with which action."""

    rules: Any
    mover: int | None
    action: int | None


class Shared:
    """A value that OpenSpiel's `clone` (a deep copy of each attribute) shares instead of copying."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __deepcopy__(self, memo: dict) -> Shared:
        return self


class SeatObserver:
    """The env's observation of the settled position for a seat (the PettingZoo observation, same layout);
    its string is the env's text table for that seat."""

    def __init__(self, game: Configuration):
        self.game = game
        self.tensor = np.zeros(game.observer.layout.size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TabletopState, player: int) -> None:
        if state.rules is None:
            self.tensor.fill(0.0)
        else:
            self.game.observer.encode(state.rules, player, out=self.tensor)

    def string_from(self, state: TabletopState, player: int) -> str:
        return "" if state.rules is None else self.game.renderer.ansi(state.rules, player)


class InformationStateObserver:
    """Perfect recall: everything the seat saw after each settled step (the deal and every decision), and each
    action it took. The string is the SHA-256 digest of that trail, so two trails a seat can tell apart never
    share a string. The tensor, where the configuration allows it (`Configuration.recall_tensor`), is the seat
    (one-hot, as the string names it) and one row per step up to `max_steps` in four pieces: `step` (1 for a
    step taken), `to_move` (the seat to act after that step, one-hot: not every observation shows it), `action`
    (the seat's own action, one-hot) and `observation` (the env's observation for the seat after that step)."""

    def __init__(self, game: Configuration):
        self.game = game
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        if game.recall_tensor:
            rows = game.max_steps
            pieces = {
                "seat": (game.rules.num_players,),
                "step": (rows,),
                "to_move": (rows, game.rules.num_players),
                "action": (rows, game.rules.num_actions),
                "observation": (rows, game.observer.layout.size),
            }
            self.tensor = np.zeros(game.recall_size, dtype=np.float32)
            start = 0
            for name, shape in pieces.items():
                size = int(np.prod(shape))
                self.dict[name] = self.tensor[start : start + size].reshape(shape)
                start += size

    def set_from(self, state: TabletopState, player: int) -> None:
        if self.tensor is None:
            raise ValueError(self.game.no_recall_tensor())
        self.tensor.fill(0.0)
        if player < 0:  # OpenSpiel asks for the tensor's shape with no player
            return
        self.dict["seat"][player] = 1.0
        for row, step in enumerate(state.steps.value):
            self.dict["step"][row] = 1.0
            if not step.rules.is_terminal():
                self.dict["to_move"][row, step.rules.current_player] = 1.0
            if step.mover == player:
                self.dict["action"][row, step.action] = 1.0
            self.game.observer.encode(step.rules, player, out=self.dict["observation"][row])

    def string_from(self, state: TabletopState, player: int) -> str:
        return f"p{player} {state.trails[player].hex()}"


def _feed(digest: Any, value: Any) -> None:
    """Everything in a view, in a fixed order, with its type and shape, so unequal views feed unequal bytes."""
    if isinstance(value, Mapping):
        digest.update(b"{")
        for key in sorted(value):
            digest.update(f"{key}:".encode())
            _feed(digest, value[key])
        digest.update(b"}")
    elif isinstance(value, (list, tuple)):
        digest.update(f"[{len(value)}".encode())
        for item in value:
            _feed(digest, item)
        digest.update(b"]")
    elif isinstance(value, np.ndarray):
        digest.update(f"<{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    else:
        digest.update(f"{type(value).__name__}={value!r};".encode())

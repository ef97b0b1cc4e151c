"""The registry: every environment by id, and `EnvSpec`, the one way to say "this game with these arguments"."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pettingzoo import AECEnv

from tabletop.envs.core import GameDefinition, ParameterError, TabletopEnv
from tabletop.envs.core.protocol import Game

SHIPPED_IDS = ("cromlet_v0", "chromino_v1", "kings_cribbage_v0", "krz_grtn_v1")
ENV_IDS: list[str] = list(SHIPPED_IDS)
"""Every game that can be made: the shipped ones, then those `register`ed (one list, kept up to date in place, so
every module that imported it sees a registration)."""
RETIRED_IDS = ("chromino_v0", "krz_grtn_v0")
"""Earlier versions, each still built as it always was (its docs page's version history says how), so saved
runs and exported policies keep their meaning; new work names the current id."""
_REGISTERED: dict[str, GameDefinition] = {}


def definition(env_id: str) -> GameDefinition:
    """The `GameDefinition` of `env_id`: a registered one, or the one held by the entry module `tabletop.envs.<env_id>`."""
    if env_id in _REGISTERED:
        return _REGISTERED[env_id]
    if env_id not in (*SHIPPED_IDS, *RETIRED_IDS):
        raise ParameterError(f"unknown env_id {env_id!r}; registered: {', '.join(ENV_IDS)}")
    return importlib.import_module(f"tabletop.envs.{env_id}").DEFINITION


def register(game: GameDefinition) -> None:
    """Make a game defined outside this package (your own, a test's) a registered one: `make`, `EnvSpec`,
    training configs, tournaments, export and `tabletop serve` then take its id like a shipped game's."""
    if not isinstance(game, GameDefinition):
        raise ParameterError(f"register takes a GameDefinition, got {type(game).__name__}")
    if game.env_id in ENV_IDS or game.env_id in RETIRED_IDS:
        raise ParameterError(f"env_id {game.env_id!r} is registered already; registered: {', '.join(ENV_IDS)}")
    _REGISTERED[game.env_id] = game
    ENV_IDS.append(game.env_id)


def unregister(env_id: str) -> None:
    """Forget a game `register` added (the shipped games stay)."""
    if env_id not in _REGISTERED:
        raise ParameterError(f"env_id {env_id!r} was not added by register; added: {', '.join(_REGISTERED) or 'none'}")
    del _REGISTERED[env_id]
    ENV_IDS.remove(env_id)


def make(env_id: str, **kwargs: Any) -> AECEnv:
    """A wrapped AEC environment, as `tabletop.envs.<env_id>.env(**kwargs)` builds it."""
    return definition(env_id).env(**kwargs)


def make_raw(env_id: str, **kwargs: Any) -> TabletopEnv:
    """The unwrapped `TabletopEnv` (no order-enforcing wrapper), for speed-critical loops."""
    return definition(env_id).raw_env(**kwargs)


@dataclass(frozen=True)
class EnvSpec:
    """A registered game and the arguments it is built with, validated when the spec is made.

    `kwargs` holds only the arguments given (defaults stay implicit, so a spec means the same game however a
    default is documented); `resolved()` fills in every default.
    """

    env_id: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.kwargs, Mapping):
            raise ParameterError(
                f"{self.env_id}: arguments must be a mapping of names to values, got {type(self.kwargs).__name__}"
            )
        object.__setattr__(self, "kwargs", dict(self.kwargs))
        self.definition.resolve(self.kwargs)  # fail now, naming the argument, not deep inside a run

    @property
    def definition(self) -> GameDefinition:
        return definition(self.env_id)

    @property
    def current_id(self) -> str:
        """The env id of this game's current version (a retired id names its successor)."""
        return self.definition.successor or self.env_id

    def resolved(self) -> dict[str, Any]:
        """Every argument's value, defaults filled in."""
        return self.definition.resolve(self.kwargs)

    def same_game(self, other: EnvSpec) -> bool:
        """Whether `other` builds the same game: the same env id and every argument's value, a default spelled out
        or left implicit alike."""
        return (self.env_id, self.resolved()) == (other.env_id, other.resolved())

    def with_kwargs(self, **overrides: Any) -> EnvSpec:
        return EnvSpec(self.env_id, {**self.kwargs, **overrides})

    def make(self, **overrides: Any) -> AECEnv:
        return self.definition.env(**{**self.kwargs, **overrides})

    def make_raw(self, **overrides: Any) -> TabletopEnv:
        return self.definition.raw_env(**{**self.kwargs, **overrides})

    def new_game(self) -> Game:
        """The rules alone, configured by this spec."""
        return self.definition.new_game(**self.kwargs)

    def to_dict(self) -> dict[str, Any]:
        return {"env_id": self.env_id, "env_kwargs": dict(self.kwargs)}

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.env_id}({args})"

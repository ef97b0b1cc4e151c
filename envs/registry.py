"""The registry: every environment by id, and `EnvSpec`, the one way to say "this game with these arguments"."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pettingzoo import AECEnv

from tabletop.envs.core import GameDefinition, ParameterError, TabletopEnv
from tabletop.envs.core.protocol import Game

ENV_IDS = ("cromlet_v0", "chromino_v1", "kings_cribbage_v0", "krz_grtn_v1")
RETIRED_IDS = ("chromino_v0", "krz_grtn_v0")
"""Earlier versions, each still built as it always was (its docs page's version history says how), so saved
runs and exported policies keep their meaning; new work names the current id."""


def definition(env_id: str) -> GameDefinition:
    """The `GameDefinition` held by the versioned entry module `tabletop.envs.<env_id>`."""
    if env_id not in ENV_IDS + RETIRED_IDS:
        raise ParameterError(f"unknown env_id {env_id!r}; registered: {', '.join(ENV_IDS)}")
    return importlib.import_module(f"tabletop.envs.{env_id}").DEFINITION


def make(env_id: str, **kwargs: Any) -> AECEnv:
    """A wrapped AEC environment, as `tabletop.envs.<env_id>.env(**kwargs)` builds it."""
    return definition(env_id).env(**kwargs)


def make_raw(env_id: str, **kwargs: Any) -> TabletopEnv:
    """The unwrapped `TabletopEnv` (no order-enforcing wrapper), for speed-critical loops."""
    return definition(env_id).raw_env(**kwargs)


@dataclass(frozen=True)
class EnvSpec:
    """A registered game and the arguments it is built with, validated when the spec is made.

    `kwargs` holds only the arguments given (defaults stay implicit, so a spec written today still means
    the same game if a default is documented differently); `resolved()` fills in every default.
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
        """The env id of today's version of this game (a retired id names its successor)."""
        return self.definition.successor or self.env_id

    def resolved(self) -> dict[str, Any]:
        """Every argument's value, defaults filled in."""
        return self.definition.resolve(self.kwargs)

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

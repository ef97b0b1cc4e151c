"""A game's definition: its rules, observer and renderer, and the entry points built from them.

Each versioned entry module (`tabletop.envs.cromlet_v0`, ...) holds one `GameDefinition` and exposes
the PettingZoo-style `raw_env(**kwargs)` / `env(**kwargs)` that `entry_points` builds. Their
signatures, defaults and error messages all come from the declared parameters.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tabletop.envs.core.aec import ADAPTER_PARAMETERS, TabletopEnv
from tabletop.envs.core.params import Parameters
from tabletop.envs.core.protocol import Game, Observer, Renderer


@dataclass(frozen=True)
class GameDefinition:
    """Everything the registry needs to build one environment."""

    env_id: str
    game: type[Game]
    observer: type[Observer]
    renderer: type[Renderer]
    summary: str

    @property
    def parameters(self) -> Parameters:
        """The game's parameters, then the adapter's (reward, observation mode, ...)."""
        return self.game.parameters + ADAPTER_PARAMETERS

    def resolve(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Every argument's value, validated (unknown names and bad values raise `ParameterError`)."""
        return self.parameters.resolve(kwargs, self.env_id)

    def new_game(self, **kwargs: Any) -> Game:
        """The rules alone, for loops that need no AEC env (tournaments, search)."""
        self.resolve(kwargs)  # unknown names and bad adapter values fail too, listing every argument
        return self.game(**self.game.parameters.split(kwargs)[0])

    def raw_env(self, **kwargs: Any) -> TabletopEnv:
        self.resolve(kwargs)
        mine, adapter = self.game.parameters.split(kwargs)
        return TabletopEnv(self.game(**mine), self.observer, self.renderer, **adapter)

    def env(self, **kwargs: Any) -> AECEnv:
        """The raw env inside PettingZoo's standard order check, as the classic environments apply it."""
        return wrappers.OrderEnforcingWrapper(self.raw_env(**kwargs))


def entry_points(definition: GameDefinition) -> tuple[Callable[..., TabletopEnv], Callable[..., AECEnv]]:
    """`raw_env` and `env` functions whose signatures show every declared argument and its default."""
    signature = inspect.Signature(
        [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default) for p in definition.parameters]
    )
    arguments = "\n".join(f"    {p.name}: {p.doc} (allowed: {p.describe_allowed()})" for p in definition.parameters)

    def raw_env(**kwargs: Any) -> TabletopEnv:
        return definition.raw_env(**kwargs)

    def env(**kwargs: Any) -> AECEnv:
        return definition.env(**kwargs)

    for function, what in ((raw_env, "The unwrapped `TabletopEnv`"), (env, "The env in PettingZoo's order check")):
        function.__signature__ = signature
        function.__doc__ = f"{what}: {definition.summary}\n\nArguments:\n{arguments}\n"
        function.__qualname__ = function.__name__
    return raw_env, env

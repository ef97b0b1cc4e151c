"""A game's definition: its rules, observer and renderer, and the entry points built from them.

Each versioned entry module (`tabletop.envs.cromlet_v0`, ...) holds one `GameDefinition` and exposes
the PettingZoo-style `raw_env(**kwargs)` / `env(**kwargs)` that `entry_points` builds. Their
signatures, defaults and error messages all come from the declared parameters.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pettingzoo import AECEnv

from tabletop.envs.core.aec import ADAPTER_PARAMETERS, OrderEnforcing, TabletopEnv
from tabletop.envs.core.params import Parameters
from tabletop.envs.core.protocol import Game, Observer, Renderer


@dataclass(frozen=True)
class GameDefinition:
    """Everything the registry needs to build one environment."""

    env_id: str
    game: type[Game]
    observer: type[Observer[Any]]
    renderer: type[Renderer[Any]]
    summary: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Defaults that differ from the declared ones: a retired id keeps the meaning it was released with this way."""
    successor: str | None = None
    """For a retired id, the current one (a retired id builds the same env it always did)."""
    public_constants: Callable[[Game], Mapping[str, Any]] | None = None
    """What a drawing of one configuration reads besides a seat's view (the printed board, the tile set; public
    only); `frontend_constants` adds the action layout's offsets. None: the offsets alone."""
    view_names: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    """Names for the ids a seat's view holds, for a page to print (KRZ GRTN's pictures); None: no names."""

    @property
    def parameters(self) -> Parameters:
        """The game's parameters, the observer's (opt-in feature groups), then the adapter's (reward, ...)."""
        declared = self.game.parameters + observer_parameters(self.observer) + ADAPTER_PARAMETERS
        return declared.with_defaults(self.defaults) if self.defaults else declared

    @property
    def network_structures(self) -> Mapping[str, Callable[[TabletopEnv], dict[str, Any]]]:
        """The network kinds besides `mlp` that read this game's observation, each with the function that says
        where a table's observation keeps what the kind reads (declared by the observer; envs/core/structures.py)."""
        return getattr(self.observer, "network_structures", {})

    def resolve(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Every argument's value, validated (unknown names and bad values raise `ParameterError`)."""
        return self.parameters.resolve(kwargs, self.env_id)

    def new_game(self, **kwargs: Any) -> Game:
        """The rules alone, for loops that need no AEC env (tournaments, search)."""
        self.resolve(kwargs)  # unknown names and bad adapter values fail too, listing every argument
        return self.game(**self.game.parameters.split(kwargs)[0])

    def observer_options(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The observer's arguments among `kwargs`, validated, defaults filled in."""
        values = self.resolve(kwargs)
        return {name: values[name] for name in observer_parameters(self.observer).names}

    def raw_env(self, **kwargs: Any) -> TabletopEnv:
        options = self.observer_options(kwargs)
        mine, rest = self.game.parameters.split(kwargs)
        adapter = {k: v for k, v in rest.items() if k not in options}
        return TabletopEnv(self.game(**mine), self.observer, self.renderer, observer_options=options, **adapter)

    def env(self, **kwargs: Any) -> AECEnv:
        """The raw env inside PettingZoo's standard order check, as the classic environments apply it."""
        return OrderEnforcing(self.raw_env(**kwargs))

    def frontend_constants(self, game: Game) -> dict[str, Any]:
        """The public constants a frontend's drawing of `game` reads: the game's own, and under `actions` the
        first action of every block of its action layout (`ActionLayout.constants`)."""
        own = dict(self.public_constants(game)) if self.public_constants else {}
        return {**own, "actions": game.actions.constants()}

    def names_in_view(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """Names for the ids `view` holds (`view_names`); empty for a game that declares none."""
        return dict(self.view_names(view)) if self.view_names else {}


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

    entries: tuple[tuple[Any, str], ...] = (
        (raw_env, "The unwrapped `TabletopEnv`"),
        (env, "The env in PettingZoo's order check"),
    )
    for function, what in entries:  # Any: mypy knows no `__signature__` on a function
        function.__signature__ = signature
        function.__doc__ = f"{what}: {definition.summary}\n\nArguments:\n{arguments}\n"
        function.__qualname__ = function.__name__
    return raw_env, env


def observer_parameters(observer: type[Observer[Any]]) -> Parameters:
    """What an observer class declares (`parameters`, e.g. opt-in feature groups); none if it declares nothing."""
    return getattr(observer, "parameters", Parameters())

"""Every registered game as an OpenSpiel game too: importing this module registers `tabletop_<env id>` for each.

    import pyspiel
    import tabletop.envs.openspiel
    game = pyspiel.load_game("tabletop_cromlet_v0", {"num_players": 2})

The game parameters are the env's declared parameters (a parameter that may be None or a list is written as a
JSON string) less `reward`, `render_mode` and `illegal_action`, which belong to the PettingZoo adapter. `GAMES`
names the registered games; `SMALL` names the small variants whose whole tree OpenSpiel's exact tools walk.
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError:
    raise ImportError('tabletop.envs.openspiel needs OpenSpiel: pip install "tabletop-rl[openspiel]"') from None

from typing import Any

from tabletop.envs import registry
from tabletop.envs.openspiel.bounds import BOUNDS
from tabletop.envs.openspiel.game import PREFIX, TabletopGame, TabletopState, game_class, game_type

__all__ = ["GAMES", "PREFIX", "SMALL", "TabletopGame", "TabletopState", "load", "register"]

GAMES: list[str] = []
"""The OpenSpiel names registered so far, `tabletop_<env id>` for every registered env id."""

SMALL: dict[str, tuple[str, dict[str, Any]]] = {
    "chromino_small": ("tabletop_chromino_v1", {"num_players": 2, "box": "7 30 52 66", "hand_size": 2, "grid_size": 5}),
    "cromlet_small": (
        "tabletop_cromlet_v0",
        {"num_players": 2, "cromlets": "A D", "wilds": 0, "claim_limit": 1, "hand_size": 1},
    ),
    "kings_cribbage_small": (
        "tabletop_kings_cribbage_v0",
        {
            "num_players": 2,
            "board_size": 3,
            "rack_size": 2,
            "box": "3 4 9 9 10",
            "stall_rounds": 1,
            "action_mode": "moves",
            "max_moves": 26,
        },
    ),
}
"""Each small variant's name -> (OpenSpiel game name, parameters): 2-player configurations whose whole tree
OpenSpiel's exact tools walk (docs/openspiel.md gives their sizes)."""


def register(env_id: str) -> str:
    """Register `env_id` with OpenSpiel (once); its OpenSpiel name."""
    name = PREFIX + env_id
    if name not in GAMES:
        definition = registry.definition(env_id)
        if definition.game not in BOUNDS:
            raise ValueError(f"{env_id}: OpenSpiel needs its game's bounds; known: {', '.join(map(str, BOUNDS))}")
        pyspiel.register_game(game_type(env_id), game_class(env_id))
        GAMES.append(name)
    return name


def load(name: str, params: dict[str, Any] | None = None) -> TabletopGame:
    """`pyspiel.load_game` for one of `GAMES` or one of `SMALL` (whose parameters `params` may extend)."""
    if name in SMALL:
        name, fixed = SMALL[name]
        params = {**fixed, **(params or {})}
    return pyspiel.load_game(name, params or {})


for _env_id in registry.ENV_IDS:
    register(_env_id)

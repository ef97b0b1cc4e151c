"""Kings Cribbage as a PettingZoo AEC environment (docs/kings_cribbage.md has rules, layouts and rewards)."""

from tabletop.envs.core import GameDefinition, entry_points
from tabletop.envs.kings_cribbage import actions
from tabletop.envs.kings_cribbage.observe import KingsCribbageObserver
from tabletop.envs.kings_cribbage.render import KingsCribbageRenderer
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame

DEFINITION = GameDefinition(
    "kings_cribbage_v0",
    KingsCribbageGame,
    KingsCribbageObserver,
    KingsCribbageRenderer,
    "Kings Cribbage for 2-4 players, or light against dark (solitaire).",
    public_constants=actions.public_constants,
)
raw_env, env = entry_points(DEFINITION)

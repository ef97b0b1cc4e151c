"""Chromino as a PettingZoo AEC environment (docs/chromino.md has rules, layouts and rewards)."""

from tabletop.envs.chromino import actions
from tabletop.envs.chromino.observe import ChrominoObserver
from tabletop.envs.chromino.render import ChrominoRenderer
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.core import GameDefinition, entry_points

DEFINITION = GameDefinition(
    "chromino_v1",
    ChrominoGame,
    ChrominoObserver,
    ChrominoRenderer,
    "Chromino for 2-8 players (standard, junior, expert) or one (solo).",
    public_constants=actions.public_constants,
)
raw_env, env = entry_points(DEFINITION)

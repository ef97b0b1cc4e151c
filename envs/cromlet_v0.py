"""Cromlet as a PettingZoo AEC environment (docs/cromlet.md has rules, layouts and rewards)."""

from tabletop.envs.core import GameDefinition, entry_points
from tabletop.envs.cromlet import actions
from tabletop.envs.cromlet.observe import CromletObserver
from tabletop.envs.cromlet.render import CromletRenderer
from tabletop.envs.cromlet.rules import CromletGame

DEFINITION = GameDefinition(
    "cromlet_v0",
    CromletGame,
    CromletObserver,
    CromletRenderer,
    "Cromlet for 2-6 players or 2-3 teams.",
    public_constants=actions.public_constants,
)
raw_env, env = entry_points(DEFINITION)

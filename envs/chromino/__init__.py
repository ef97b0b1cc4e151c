"""Chromino: lay 1×3 colour tiles so that every touching square matches; first to empty the hand wins."""

from tabletop.envs.chromino.actions import ActionLayout
from tabletop.envs.chromino.rules import DEFAULT_GRID_SIZE, VARIANTS, ChrominoGame, ChrominoState
from tabletop.envs.chromino.table import Placement, Table
from tabletop.envs.chromino.tiles import tile_id, tile_name

__all__ = [
    "DEFAULT_GRID_SIZE",
    "VARIANTS",
    "ActionLayout",
    "ChrominoGame",
    "ChrominoState",
    "Placement",
    "Table",
    "tile_id",
    "tile_name",
]

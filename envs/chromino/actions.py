"""The action layout for a grid of side G (N = 320 + G² + 2):

    [0, 320)            choose tile t from the hand and the way it will lie: 4·t + orientation, the
                        orientation being left to right, right to left, top to bottom, bottom to top
                        (the direction in which the tile's canonical colour triple reads)
    [320, 320 + G²)     lay the chosen tile with its centre square on cell (row, col): 320 + row·G + col
    320 + G²            draw a tile from the bag
    320 + G² + 1        pass (keep the drawn tile, or nothing at all is possible)

Choosing the orientation with the tile keeps the second sub-step at G² cells, so N stays in the low
thousands for the grid the layout measurement asks for.
"""

from __future__ import annotations

from functools import cache

from tabletop.envs.chromino import tiles
from tabletop.envs.core.actions import ActionLayout

NUM_ORIENTATIONS = 4
PHASES = ("choose", "drawn", "place", "over")  # a turn's sub-steps: choose (or draw/pass), after a draw, lay
CHOOSE, DRAWN, PLACE, OVER = range(4)


@cache
def layout(grid_size: int) -> ActionLayout:
    """The actions of a grid of side `grid_size`; heuristics use it too (it is public knowledge)."""
    return ActionLayout.of(
        ("choose", (tiles.NUM_TILES, NUM_ORIENTATIONS), "choose tile t from the hand, to lie in orientation o"),
        ("place", (grid_size, grid_size), "lay the chosen tile with its centre square on cell (row, col)"),
        ("draw", (), "draw a tile from the bag"),
        ("pass", (), "pass (keep the drawn tile, or nothing at all is possible)"),
    )


def public_constants(game) -> dict:
    """What a drawing of this configuration reads besides a seat's view: the tile set and the grid."""
    return {
        "tile_colours": tiles.TILE_COLOURS.tolist(),
        "colour_names": list(tiles.COLOUR_NAMES),
        "wild": tiles.WILD,
        "grid_size": game.grid_size,
    }

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

from tabletop.envs.chromino.tiles import NUM_TILES

NUM_ORIENTATIONS = 4
PHASES = ("choose", "drawn", "place", "over")  # a turn's sub-steps: choose (or draw/pass), after a draw, lay
CHOOSE, DRAWN, PLACE, OVER = range(4)


class ActionLayout:
    """Index arithmetic for one grid size; heuristics use it too (it is public knowledge)."""

    def __init__(self, grid_size: int):
        self.grid_size = grid_size
        self.cells = grid_size * grid_size
        self.place_base = NUM_ORIENTATIONS * NUM_TILES
        self.draw = self.place_base + self.cells
        self.pass_ = self.draw + 1
        self.num_actions = self.pass_ + 1

    def choose(self, tile: int, orientation: int) -> int:
        return NUM_ORIENTATIONS * tile + orientation

    def place(self, row: int, col: int) -> int:
        return self.place_base + row * self.grid_size + col

    def decode(self, action: int) -> tuple:
        """('choose', tile, orientation) | ('place', row, col) | ('draw',) | ('pass',)."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside [0, {self.num_actions})")
        if action < self.place_base:
            return ("choose", *divmod(action, NUM_ORIENTATIONS))
        if action == self.draw:
            return ("draw",)
        if action == self.pass_:
            return ("pass",)
        return ("place", *divmod(action - self.place_base, self.grid_size))

"""Plain JSON for pages; the constants a drawing reads come from each game's definition.

The drawings in `static/boards/` decode actions and views with `GameDefinition.frontend_constants` (the action
layout's offsets, the printed board, the tile set) and `names_in_view` instead of repeating the games' layouts in
JavaScript. A game with no drawing of its own is drawn by `boards/text.js` from its renderer's text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

BOARDS = Path(__file__).parent / "static" / "boards"


def plain(value: Any) -> Any:
    """`value` as plain JSON data: numpy arrays and numbers become lists and Python numbers, tuples lists,
    mapping keys strings."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def drawing(env_id: str) -> str:
    """The module in `static/boards/` that draws this game: its own (named after the game), else `text`."""
    name = env_id.rsplit("_v", 1)[0]
    return name if (BOARDS / f"{name}.js").is_file() and name != "text" else "text"

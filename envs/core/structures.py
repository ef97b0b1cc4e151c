"""Helpers for an observer's `network_structures`: where its flat observation keeps what a network kind reads.

A structure is plain data (ints, lists, dicts), saved with a trained policy, so the network that reads the
observation never imports the game. An observer declares `network_structures = {kind: function(table) -> dict}`;
a function raises ValueError when the table's arguments lack what the kind reads (a feature group, an action mode).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.core.encoding import Layout


def indices(layout: Layout, names: tuple[str, ...] | list[str]) -> list[int]:
    """Every position of the named segments, in order."""
    found: list[int] = []
    for name in names:
        found += list(range(layout.slice(name).start, layout.slice(name).stop))
    return found


def shape(layout: Layout, name: str) -> tuple[int, ...]:
    """A segment's shape."""
    return layout.block(np.zeros(layout.size), name).shape


def require_segments(layout: Layout, names: tuple[str, ...] | list[str], kind: str, advice: str) -> None:
    """A ValueError (`advice` says what to add) unless the observation has every named segment."""
    present = {segment.name for segment in layout.segments}
    if not set(names) <= present:
        raise ValueError(f"network.kind {kind!r} reads the segment {sorted(set(names) - present)[0]!r}: {advice}")


def board_structure(
    layout: Layout,
    side: int,
    planes: list[str],
    cell_base: int,
    cell_kinds: int,
    num_actions: int,
    window: int | None = None,
    rows: tuple[str, int] | None = None,
) -> dict[str, Any]:
    """What the `board` network reads: `planes`, segments shaped (side, side) or (channels, side, side); actions
    `cell_base + k * side**2 + c` ("do kind k on cell c"); `rows`: (segment, first action) of a segment shaped
    (actions, features) describing the actions first .. first + actions - 1; the rest of the observation is global."""
    plane_slices = []
    for name in planes:
        planes_shape = shape(layout, name)
        if planes_shape[-2:] != (side, side):
            raise ValueError(f"segment {name!r} has shape {planes_shape}; a board plane ends in ({side}, {side})")
        plane_slices.append([layout.slice(name).start, int(np.prod(planes_shape[:-2], dtype=np.int64))])
    used = set(indices(layout, planes + ([rows[0]] if rows else [])))
    structure = {
        "side": side,
        "window": min(side, window or side),
        "planes": plane_slices,
        "cell_base": cell_base,
        "cell_kinds": cell_kinds,
        "num_actions": num_actions,
        "rows": None,
        "global_index": [i for i in range(layout.size) if i not in used],
    }
    if rows is not None:
        name, first = rows
        count, features = shape(layout, name)
        structure["rows"] = {
            "offset": layout.slice(name).start,
            "first_action": first,
            "count": count,
            "features": features,
        }
    return structure

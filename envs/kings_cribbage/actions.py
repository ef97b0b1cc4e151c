"""The action layouts, one per `action_mode`; the rules, the heuristics, the docs and the web page read them.

`action_mode="tiles"` (C = board_size**2 cells, N = 30 * C + 28; 5098 on the default 13x13 board):
    [0, 30*C)          place face f at cell c: action f * C + c (faces: tiles.FACE_KIND / FACE_VALUE)
    30*C               commit the placed tiles (legal only when they form a complete legal move)
    30*C + 1 + k       choose a tile of kind k (colour * 13 + rank - 1) for the exchange
    30*C + 27          pass, exchanging the chosen tiles (0-5) with the bag
A move's tiles are placed in increasing cell order (row by row), so one move has one action sequence.
Pass and exchange exist only when the player has no legal move; the chosen kinds are non-decreasing.

`action_mode="moves"` (K = max_moves, N = K + 32):
    [0, K)             play offered move i (offer.py: which moves, in which order)
    K + b              pass, exchanging the rack tiles at the positions whose bits are set in b (the rack is
                       sorted; of equal tiles the first ones, so one action per choice; b = 0 passes)
"""

from __future__ import annotations

from functools import cache

from tabletop.envs.core.actions import ActionLayout
from tabletop.envs.kings_cribbage import tiles

EXCHANGE_CHOICES = 1 << tiles.RACK_SIZE  # moves mode: one exchange action per subset of the rack's positions


@cache
def tiles_layout(board_size: int) -> ActionLayout:
    """`action_mode="tiles"`: a move laid tile by tile, then committed; an exchange chosen kind by kind."""
    return ActionLayout.of(
        ("place", (tiles.NUM_FACES, board_size * board_size), "place face f at cell c (cells row by row)"),
        ("commit", (), "commit the placed tiles (legal only when they form a complete legal move)"),
        ("mark", tiles.NUM_KINDS, "choose a tile of kind k (colour * 13 + rank - 1) for the exchange"),
        ("exchange", (), "pass, exchanging the chosen tiles (0-5) with the bag"),
    )


@cache
def moves_layout(max_moves: int) -> ActionLayout:
    """`action_mode="moves"`: one action plays an offered move or passes with one exchange."""
    return ActionLayout.of(
        ("play", max_moves, "play offered move i (offer.py: which moves, in which order)"),
        ("exchange", EXCHANGE_CHOICES, "pass, exchanging the rack tiles at the positions whose bits are set in b"),
    )


def view_layout(view: dict) -> ActionLayout:
    """The layout of the configuration a seat's view comes from (its board size or its offer size)."""
    if view["action_mode"] == "moves":
        return moves_layout(view["max_moves"])
    return tiles_layout(view["board_size"])


def public_constants(game) -> dict:
    """What a drawing of this configuration reads besides a seat's view: the board and the tile faces."""
    constants = {
        "board_size": game.board_size,
        "cells": game.cells,
        "face_kind": tiles.FACE_KIND.tolist(),
        "face_value": tiles.FACE_VALUE.tolist(),
        "ranks": tiles.NUM_RANKS,
        "short_rank": list(tiles.SHORT_RANK),
        "action_mode": game.action_mode,
    }
    return {**constants, "max_moves": game.max_moves} if game.moves_mode else constants

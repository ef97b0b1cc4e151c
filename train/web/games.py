"""What a page needs to draw each game, beyond a seat's view: public constants and picture names.

The drawings in `static/boards/` decode actions and views with these numbers instead of repeating the
games' layouts in JavaScript. Everything here is public: the printed board, the tile set, the action
layout of the configuration. A picture's name is looked up only for the picture ids a view already
holds, so a page never receives the deck (or a target its seat may not know).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop.envs.chromino import tiles as chromino_tiles
from tabletop.envs.cromlet import board as cromlet_board
from tabletop.envs.kings_cribbage import tiles as kc_tiles
from tabletop.envs.krz_grtn import actions as krz_actions
from tabletop.envs.krz_grtn import tiles as krz_tiles
from tabletop.envs.krz_grtn.pictures import CONCEPTS


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


def _cromlet(game) -> dict[str, Any]:
    return {
        "letters": list(cromlet_board.LETTERS),
        "values": [list(v) for v in cromlet_board.VALUES_BY_CROMLET],
        "circles": cromlet_board.NUM_CIRCLES,
        "wild": cromlet_board.WILD,
        "claim_limit": int(game.claim_limit),
        "teams": game.teams,
    }


def _chromino(game) -> dict[str, Any]:
    a = game.actions
    return {
        "tile_colours": chromino_tiles.TILE_COLOURS.tolist(),
        "colour_names": list(chromino_tiles.COLOUR_NAMES),
        "wild": chromino_tiles.WILD,
        "grid_size": game.grid_size,
        "place_base": a.place_base,
        "draw": a.draw,
        "pass": a.pass_,
    }


def _kings_cribbage(game) -> dict[str, Any]:
    tiles = {
        "board_size": game.board_size,
        "cells": game.cells,
        "face_kind": kc_tiles.FACE_KIND.tolist(),
        "face_value": kc_tiles.FACE_VALUE.tolist(),
        "ranks": kc_tiles.NUM_RANKS,
        "short_rank": list(kc_tiles.SHORT_RANK),
        "action_mode": game.action_mode,
    }
    if game.moves_mode:  # actions 0..max_moves-1 play the seat's offered moves (its view's `offered`)
        return {**tiles, "max_moves": game.max_moves}
    return {**tiles, "commit": game.commit_action, "mark_base": game.mark_base, "exchange": game.exchange_action}


def _krz_grtn(game) -> dict[str, Any]:
    return {
        "letters": krz_tiles.LETTERS,
        "blank": krz_tiles.BLANK,
        "vote_no": krz_actions.VOTE_NO,
        "vote_yes": krz_actions.VOTE_YES,
        "add_tile": krz_actions.ADD_TILE,
        "finish_clue": krz_actions.FINISH_CLUE,
        "return_letter": krz_actions.RETURN_LETTER,
        "guess": krz_actions.GUESS,
        "levels": list(game.levels),
        "max_lives": int(game.lives),
    }


STATIC: dict[str, Callable[[Any], dict[str, Any]]] = {
    "cromlet_v0": _cromlet,
    "chromino_v1": _chromino,
    "kings_cribbage_v0": _kings_cribbage,
    "krz_grtn_v1": _krz_grtn,
}


def static_info(env_id: str, game) -> dict[str, Any]:
    """The public constants a drawing of this configuration reads."""
    return STATIC[env_id](game)


def picture_names(env_id: str, view: dict[str, Any]) -> dict[str, Any]:
    """KRZ GRTN: {id: [name, keywords]} for every picture id in the view (target, table, last attempt);
    nothing for the other games."""
    if env_id != "krz_grtn_v1":
        return {}
    ids = set(view.get("candidates") or [])
    for key in ("target",):
        if view.get(key) is not None:
            ids.add(view[key])
    last = view.get("last_attempt")
    if last:
        ids.update(last[k] for k in ("target", "guess") if last.get(k) is not None)
    return {str(i): [CONCEPTS[i].name, list(CONCEPTS[i].keywords)] for i in sorted(int(i) for i in ids)}

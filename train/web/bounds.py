"""The game arguments a web table may take, where the game's own upper end is far for a server.

A table is built from the request's arguments, so an argument that grows the board or the game grows
what one request costs the server: Chromino's grid is G² cells in every mask, observation and frame (45:
a 2,347-action game and an 18 KB frame; 200: 40,322 actions and a 322 KB frame on every move), and Kings
Cribbage's `stall_rounds` lengthens a stalled game by a round each. These bounds are checked before anything is
built, and named in `/api/games`, so the form shows them. Every other argument is bounded by its game alone.
"""

from __future__ import annotations

from typing import Any

from tabletop.envs.core.params import int_words

WEB_BOUNDS: dict[str, dict[str, tuple[int, int]]] = {  # by game, whatever its version
    "chromino": {
        "grid_size": (5, 61),  # 61: the largest grid measured in docs/chromino.md, 99.99% of games stay inside
    },
    "kings_cribbage": {
        "stall_rounds": (1, 10),
    },
}


def _bounds(env_id: str) -> dict[str, tuple[int, int]]:
    return WEB_BOUNDS.get(env_id.rsplit("_v", 1)[0], {})


def web_allowed(env_id: str, name: str) -> str | None:
    """What a web table allows for this argument in words, where this module bounds it."""
    bound = _bounds(env_id).get(name)
    return None if bound is None else f"{int_words(*bound)} on a web table"


def web_bound_problem(env_id: str, args: dict[str, Any]) -> str | None:
    """The first argument outside its web bound, named with the allowed range; None when all fit. A value
    that is not a whole number is left to the game, whose message says what it takes."""
    for name, (low, high) in _bounds(env_id).items():
        value = args.get(name)
        if type(value) is int and not low <= value <= high:
            return f"args: {name} is {_short(value)}; {web_allowed(env_id, name)}"
    return None


def _short(value: int) -> str:
    return str(value) if abs(value) < 10**18 else f"a {value.bit_length()}-bit number"

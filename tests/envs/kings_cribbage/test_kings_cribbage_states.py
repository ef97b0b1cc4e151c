"""Kings Cribbage saved states: `from_json` takes exactly the positions the rules can reach.

Every state visited in seeded random games loads and round-trips; each kind of impossible state, built by
tampering with a valid saved state, is refused with an `InvalidStateError` naming the field; hypothesis
mutates valid states field by field and every result either loads (and round-trips) or is refused.
Actions that are not ints are refused by `apply` and `action_to_string`.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.envs import EnvSpec
from tabletop.envs.core import IllegalActionError, InvalidStateError
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.scoring import is_valid_hand
from tabletop.envs.kings_cribbage.tiles import (
    FACES_OF_KIND,
    NUM_FACES,
    NUM_RANKS,
    face_value,
    kind_rank,
)
from tabletop.envs.testing import random_game


def _random_states(config: dict, seed: int):
    """Every state of one seeded random game, the final one included."""
    return random_game(EnvSpec("kings_cribbage_v0", config), seed)


def _ending(state) -> str:
    g = state.game
    if not all(state.racks):
        return "out"
    return "stall" if state.passes == g.stall_rounds * g.num_players else "blocked"


# --- every reachable state loads ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "config",
    [
        {},
        {"num_players": 4},
        {"variant": "solitaire"},
        {"board_size": 5, "stall_rounds": 1},
        {"num_players": 3, "board_size": 9},
    ],
    ids=str,
)
def test_every_visited_state_loads_and_round_trips(config):
    visited = 0
    for state in _random_states(config, seed=11):
        data = json.loads(json.dumps(state.to_json()))
        back = state.game.state_from_json(data)
        assert back.to_json() == data
        np.testing.assert_array_equal(back.legal_action_mask(), state.legal_action_mask())
        visited += 1
    assert visited > 25


# --- the valid states tampered with ----------------------------------------------------------------------------
def _midgame(s) -> bool:
    return (
        not s.is_terminal()
        and np.count_nonzero(s.values) >= 8
        and bool(s.bags[0])
        and bool(len(s.moves))
        and not s.pending
    )


BASES: dict[str, tuple[dict, Callable]] = {
    "opening": ({}, lambda s: True),
    "mid": ({}, _midgame),
    "pending": ({}, lambda s: len(s.pending) >= 2 and s.values.any()),
    "marked": ({"board_size": 5}, lambda s: len(s.marked) >= 2 and s.marked[0] != s.marked[-1]),
    "late": ({}, lambda s: not s.is_terminal() and not any(s.bags) and len(s.moves) and not s.pending),
    "out": ({}, lambda s: s.is_terminal() and _ending(s) == "out"),
    "stall": ({"board_size": 5}, lambda s: s.is_terminal()),
    "blocked": ({}, lambda s: s.is_terminal() and _ending(s) == "blocked"),
    "solitaire": ({"variant": "solitaire"}, _midgame),
    "stall_rounds_1": ({"board_size": 5, "stall_rounds": 1}, lambda s: True),
}


@cache
def _base_json(name: str) -> tuple[KingsCribbageGame, str]:
    """The first state of seeded random games that fits the base's description, as JSON text."""
    config, fits = BASES[name]
    for seed in range(30):
        for state in _random_states(config, seed):
            if fits(state):
                return state.game, json.dumps(state.to_json())
    raise AssertionError(f"no state for base {name!r} in 30 games")


def _base(name: str) -> tuple[KingsCribbageGame, dict]:
    game, text = _base_json(name)
    return game, json.loads(text)


@pytest.mark.parametrize("name", BASES)
def test_every_base_state_is_valid(name):
    game, data = _base(name)
    assert game.state_from_json(data).to_json() == data


def _board_tile(d: dict, lonely: bool = False) -> tuple[int, int]:
    """The first occupied cell (with `lonely`: the last empty cell with no tile beside it)."""
    values = np.array(d["values"])
    if not lonely:
        return tuple(int(x) for x in np.argwhere(values)[0])
    padded = np.pad(values, 1)
    near = padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:] + values
    return tuple(int(x) for x in np.argwhere(near == 0)[-1])


def _move_tile(d: dict, source: str, target: str, count: int = 1) -> None:
    """Move `count` tiles from the end of one list (e.g. 'bags.0') to another (conserving every tile)."""
    (a, i), (b, j) = (s.split(".") for s in (source, target))
    for _ in range(count):
        d[b][int(j)].append(d[a][int(i)].pop())


def _move_board_tile_apart(d: dict) -> None:
    r, c = _board_tile(d)
    nr, nc = _board_tile(d, lonely=True)
    for grid in ("values", "colours", "printed"):
        d[grid][nr][nc], d[grid][r][c] = d[grid][r][c], 0


def _lay_bag_tile(d: dict) -> None:
    """A tile from the bag onto the empty board (one tile alone: no opening lays that)."""
    kind = d["bags"][0].pop()
    d["values"][3][3] = d["printed"][3][3] = kind_rank(kind)
    d["colours"][3][3] = kind // NUM_RANKS


def _dead_line(d: dict) -> None:
    """Swap a board tile inside a line with a bag tile so that a line through it stops being a crib hand."""
    values = np.array(d["values"])
    for r, c in np.argwhere(values):
        for index, kind in enumerate(d["bags"][0]):
            trial = values.copy()
            trial[r, c] = kind_rank(kind)
            lines = [_line(trial[r], c), _line(trial[:, c], r)]
            if any(len(line) >= 2 and not is_valid_hand(line) for line in lines):
                old = d["colours"][r][c] * NUM_RANKS + d["printed"][r][c] - 1
                d["bags"][0][index] = old
                d["values"][r][c] = d["printed"][r][c] = kind_rank(kind)
                d["colours"][r][c] = kind // NUM_RANKS
                return
    raise AssertionError("no swap makes a dead line")


def _line(cells: np.ndarray, at: int) -> list[int]:
    lo, hi = at, at
    while lo > 0 and cells[lo - 1]:
        lo -= 1
    while hi + 1 < len(cells) and cells[hi + 1]:
        hi += 1
    return [int(v) for v in cells[lo : hi + 1]]


def _end_now(d: dict) -> None:
    """Mark a running game over with a consistent deduction (so only the reason to end is wrong)."""
    d["terminal"] = True
    d["deductions"] = [sum(face_value(kind_rank(k)) for k in rack) for rack in d["racks"]]
    d["scores"] = [s - x for s, x in zip(d["scores"], d["deductions"])]


def _unfinish(d: dict) -> None:
    """Mark a finished game as running, the deduction undone (so only the end itself is wrong)."""
    d["terminal"] = False
    d["scores"] = [s + x for s, x in zip(d["scores"], d["deductions"])]
    d["deductions"] = [0] * len(d["deductions"])


def _mover_rack(d: dict) -> list[int]:
    return d["racks"][d["current"]]


def _absent_kind(rack: list[int]) -> int:
    return next(k for k in range(26) if k not in rack)


def _pending_face_not_on_rack(d: dict, cells: int) -> None:
    last = d["pending"][-1]
    d["pending"][-1] = FACES_OF_KIND[_absent_kind(_mover_rack(d))][0] * cells + last % cells


def _set(path: str, value: Any) -> Callable[[dict], None]:
    """A mutation writing `value` (or `value(old)` if callable) at a dotted path ('racks.0.1', 'rng.state.inc')."""

    def mutate(d: dict) -> None:
        *head, last = (int(key) if key.isdigit() else key for key in path.split("."))
        target = _at(d, head)
        target[last] = value(target[last]) if callable(value) else value

    return mutate


def _drop(key: str) -> Callable[[dict], None]:
    return lambda d: d.pop(key) and None


def _swap(first: str, second: str) -> Callable[[dict], None]:
    """A mutation swapping the items at two dotted paths (tiles change owners, nothing is lost)."""

    def mutate(d: dict) -> None:
        a, b = ([int(key) if key.isdigit() else key for key in path.split(".")] for path in (first, second))
        _at(d, a[:-1])[a[-1]], _at(d, b[:-1])[b[-1]] = _at(d, b), _at(d, a)

    return mutate


@dataclass(frozen=True)
class Tamper:
    kind: str
    name: str
    base: str
    mutate: Callable[[dict], Any]  # changes the state in place
    field: str
    whole: Any = None  # or: the whole state replaced by this


CELLS = 13 * 13
OCCUPIED = "{r}][{c}"  # marks a field at the first board tile, filled in per state
TAMPERS = [
    # the header: game and configuration
    Tamper("header", "game named chromino", "mid", _set("game", "chromino"), "game"),
    Tamper("header", "config for 4 players in a 2-player env", "mid", _set("config.num_players", 4), "config"),
    Tamper("header", "config stall_rounds true for 1", "stall_rounds_1", _set("config.stall_rounds", True), "config"),
    Tamper("header", "config without board_size", "mid", lambda d: d["config"].pop("board_size"), "config"),
    Tamper("header", "state is a string", "mid", None, "state", whole="not a state"),
    Tamper("header", "state is an empty object", "mid", None, "game", whole={}),
    # missing and unknown keys
    *(
        Tamper("keys", f"no {key}", "pending", _drop(key), key)
        for key in (
            "game",
            "config",
            "values",
            "colours",
            "printed",
            "racks",
            "bags",
            "scores",
            "deductions",
            "current",
            "passes",
            "terminal",
            "pending",
            "marked",
            "rng",
        )
    ),
    Tamper("keys", "an unknown key", "mid", _set("colour", 1), "colour"),
    # wrong types
    Tamper("types", "values a string", "mid", _set("values", "board"), "values"),
    Tamper("types", "a row of values a number", "mid", _set("values.0", 0), "values[0]"),
    Tamper("types", "a cell 1.0", "mid", _set("values.0.0", 1.0), "values[0][0]"),
    Tamper("types", "a cell true", "mid", _set("colours.0.0", True), "colours[0][0]"),
    Tamper("types", "racks an object", "mid", _set("racks", {"0": []}), "racks"),
    Tamper("types", "a rack a string", "mid", _set("racks.0", "l5 dK"), "racks[0]"),
    Tamper("types", "a rack tile '3'", "mid", _set("racks.0.0", "3"), "racks[0][0]"),
    Tamper("types", "a score 2.5", "mid", _set("scores.0", 2.5), "scores[0]"),
    Tamper("types", "current '0'", "mid", _set("current", "0"), "current"),
    Tamper("types", "current true", "mid", _set("current", True), "current"),
    Tamper("types", "terminal 0", "mid", _set("terminal", 0), "terminal"),
    Tamper("types", "passes null", "mid", _set("passes", None), "passes"),
    Tamper("types", "pending an object", "mid", _set("pending", {}), "pending"),
    Tamper("types", "a pending action '3'", "pending", _set("pending.0", lambda a: str(a)), "pending[0]"),
    Tamper("types", "marked null", "mid", _set("marked", None), "marked"),
    # values out of range
    Tamper("ranges", "rack kind 99", "mid", _set("racks.0.0", 99), "racks[0][0]"),
    Tamper("ranges", "rack kind -1", "mid", _set("racks.1.4", -1), "racks[1][4]"),
    Tamper("ranges", "bag kind 26", "mid", _set("bags.0.0", 26), "bags[0][0]"),
    Tamper("ranges", "board value 99", "mid", lambda d: d["values"][6].__setitem__(6, 99), "values[6][6]"),
    Tamper("ranges", "board value -1", "mid", _set("values.0.0", -1), "values[0][0]"),
    Tamper("ranges", "colour 2", "mid", _set("colours.12.12", 2), "colours[12][12]"),
    Tamper("ranges", "printed rank 14", "mid", _set("printed.12.0", 14), "printed[12][0]"),
    Tamper("ranges", "current 2 of 2 seats", "mid", _set("current", 2), "current"),
    Tamper("ranges", "current -1", "mid", _set("current", -1), "current"),
    Tamper("ranges", "passes -1", "mid", _set("passes", -1), "passes"),
    Tamper("ranges", "passes at the stall limit, game running", "mid", _set("passes", 6), "passes"),
    Tamper("ranges", "score 2**40", "mid", _set("scores.0", 2**40), "scores[0]"),
    Tamper("ranges", "pending action = commit", "pending", _set("pending.0", NUM_FACES * CELLS), "pending[0]"),
    Tamper("ranges", "marked kind 26", "marked", _set("marked.0", 26), "marked[0]"),
    Tamper("ranges", "12 rows for a 13x13 board", "mid", lambda d: d["values"].pop(), "values"),
    Tamper("ranges", "a row of 14", "mid", lambda d: d["printed"][5].append(0), "printed[5]"),
    Tamper("ranges", "three racks for two seats", "mid", lambda d: d["racks"].append([]), "racks"),
    Tamper("ranges", "two bags in the standard game", "mid", lambda d: d["bags"].append([]), "bags"),
    Tamper("ranges", "three scores for two seats", "mid", lambda d: d["scores"].append(0), "scores"),
    # board cells: empty is 0 everywhere, a tile shows its printed rank (6 and 9 may turn)
    Tamper("cells", "colour on an empty cell", "opening", _set("colours.4.4", 1), "colours[4][4]"),
    Tamper("cells", "printed rank on an empty cell", "opening", _set("printed.4.4", 7), "printed[4][4]"),
    Tamper("cells", "a value without a printed rank", "opening", _set("values.4.4", 7), "printed[4][4]"),
    Tamper(
        "cells",
        "a 5 showing 7",
        "mid",
        lambda d: (
            _set(f"printed.{_board_tile(d)[0]}.{_board_tile(d)[1]}", 5)(d),
            _set(f"values.{_board_tile(d)[0]}.{_board_tile(d)[1]}", 7)(d),
        ),
        OCCUPIED,
    ),
    # board shape
    Tamper("board", "one tile on the board", "opening", _lay_bag_tile, "values"),
    Tamper("board", "a tile apart from the others", "mid", _move_board_tile_apart, "values"),
    Tamper("board", "a line that is no crib hand", "mid", _dead_line, "values"),
    # conservation: each of the 104 tiles exactly once
    Tamper("tiles", "a rack tile also in the bag", "mid", lambda d: d["bags"][0].append(d["racks"][0][0]), "tiles"),
    Tamper("tiles", "a tile in two racks", "mid", lambda d: _set("racks.1.0", d["racks"][0][0])(d), "tiles"),
    Tamper("tiles", "a tile missing", "mid", lambda d: d["bags"][0].pop(), "tiles"),
    Tamper("tiles", "ten extra bag tiles", "mid", lambda d: d["bags"][0].extend(d["bags"][0][:10]), "tiles"),
    Tamper(
        "tiles",
        "a bag tile changed kind",
        "mid",
        lambda d: d["bags"][0].__setitem__(0, (d["bags"][0][0] + 1) % 26),
        "tiles",
    ),
    Tamper("tiles", "a tile missing at the end", "out", lambda d: d["racks"][(d["current"] + 1) % 2].pop(), "tiles"),
    # solitaire: each seat holds and draws its own colour
    Tamper("solitaire", "a light tile on the dark rack", "solitaire", _swap("racks.1.0", "bags.0.0"), "racks[1]"),
    Tamper(
        "solitaire",
        "racks swapped between the colours",
        "solitaire",
        lambda d: d.__setitem__("racks", d["racks"][::-1]),
        "racks[0]",
    ),
    Tamper("solitaire", "a dark tile in the light bag", "solitaire", _swap("bags.0.0", "bags.1.0"), "bags[0]"),
    Tamper("solitaire", "one bag in solitaire", "solitaire", lambda d: d["bags"].pop(), "bags"),
    # rack limits
    Tamper("racks", "a 12-tile rack", "mid", lambda d: _move_tile(d, "bags.0", "racks.0", 7), "racks[0]"),
    Tamper("racks", "a 6-tile rack", "mid", lambda d: _move_tile(d, "bags.0", "racks.1"), "racks[1]"),
    Tamper(
        "racks",
        "a 4-tile rack while the bag holds tiles",
        "mid",
        lambda d: _move_tile(d, "racks.0", "bags.0"),
        "racks[0]",
    ),
    # scores and deductions
    Tamper("scores", "points before any tile lies", "opening", _set("scores.0", 3), "scores"),
    Tamper("scores", "fewer points than the opening's 12", "mid", _set("scores", [5, 4]), "scores"),
    Tamper("scores", "more points than the board can hold", "mid", _set("scores.1", 10**6), "scores"),
    Tamper("scores", "a negative score while running", "mid", _set("scores.0", -1), "scores[0]"),
    Tamper("scores", "a deduction while running", "mid", _set("deductions.1", 4), "deductions"),
    Tamper(
        "scores",
        "a deduction that is not the rack's count",
        "out",
        lambda d: d["deductions"].__setitem__(1 - d["current"], d["deductions"][1 - d["current"]] + 1),
        "deductions[{other}]",
    ),
    Tamper(
        "scores",
        "a final score below minus the deduction",
        "out",
        lambda d: d["scores"].__setitem__(1 - d["current"], -d["deductions"][1 - d["current"]] - 1),
        "scores[{other}]",
    ),
    # the end and the phase
    Tamper("end", "over with tiles in the bag, nobody out, no stall", "mid", _end_now, "terminal"),
    Tamper("end", "over with empty bags while the mover can move", "late", _end_now, "terminal"),
    Tamper("end", "running after going out", "out", _unfinish, "racks[{current}]"),
    Tamper("end", "running after the stall limit", "stall", _unfinish, "passes"),
    Tamper("end", "running with empty bags and nobody able to move", "blocked", _unfinish, "terminal"),
    Tamper(
        "end",
        "gone out, but another seat moved last",
        "out",
        lambda d: d.__setitem__("current", 1 - d["current"]),
        "current",
    ),
    Tamper("end", "gone out after a pass", "out", _set("passes", 1), "passes"),
    Tamper("end", "a move being built after the end", "out", _set("pending", [0]), "pending"),
    Tamper("end", "an exchange being chosen after the end", "stall", _set("marked", [0]), "marked"),
    # the move being built (replayed)
    Tamper(
        "pending",
        "a tile on an occupied cell",
        "pending",
        lambda d: d["pending"].__setitem__(
            0, d["pending"][0] // CELLS * CELLS + _board_tile(d)[0] * 13 + _board_tile(d)[1]
        ),
        "pending[0]",
    ),
    Tamper(
        "pending",
        "the same placement twice",
        "pending",
        lambda d: d["pending"].append(d["pending"][0]),
        "pending[{n_pending}]",
    ),
    Tamper(
        "pending",
        "a tile the mover does not hold",
        "pending",
        lambda d: _pending_face_not_on_rack(d, CELLS),
        "pending[{last_pending}]",
    ),
    Tamper(
        "pending", "a placement while the mover has no move", "marked", lambda d: d["pending"].append(0), "pending[0]"
    ),
    Tamper(
        "pending",
        "a move and an exchange at once",
        "pending",
        lambda d: d["marked"].append(_mover_rack(d)[0]),
        "marked[0]",
    ),
    # the exchange being chosen (replayed)
    Tamper(
        "marked",
        "an exchange while the mover can move",
        "mid",
        lambda d: d["marked"].append(_mover_rack(d)[0]),
        "marked[0]",
    ),
    Tamper(
        "marked",
        "kinds in decreasing order",
        "marked",
        lambda d: d.__setitem__("marked", [max(d["marked"]), min(d["marked"])]),
        "marked[1]",
    ),
    Tamper(
        "marked",
        "a kind not on the rack",
        "marked",
        lambda d: d.__setitem__("marked", [_absent_kind(_mover_rack(d))]),
        "marked[0]",
    ),
    Tamper(
        "marked",
        "more of a kind than the rack holds",
        "marked",
        lambda d: d.__setitem__("marked", [_mover_rack(d)[0]] * (_mover_rack(d).count(_mover_rack(d)[0]) + 1)),
        "marked[{n_first}]",
    ),
    # the random generator
    Tamper("rng", "rng a list", "mid", _set("rng", [1, 2]), "rng"),
    Tamper("rng", "rng without uinteger", "mid", lambda d: d["rng"].pop("uinteger"), "rng"),
    Tamper("rng", "another generator", "mid", _set("rng.bit_generator", "MT19937"), "rng.bit_generator"),
    Tamper("rng", "an even increment", "mid", _set("rng.state.inc", lambda inc: inc + 1), "rng.state.inc"),
    Tamper("rng", "a 129-bit state", "mid", _set("rng.state.state", 2**128), "rng.state.state"),
    Tamper("rng", "has_uint32 2", "mid", _set("rng.has_uint32", 2), "rng.has_uint32"),
]


def _expected_field(case: Tamper, original: dict) -> str:
    """The field, with the placeholders that depend on the base state filled in."""
    if case.field == OCCUPIED:
        r, c = _board_tile(original)
        return f"values[{r}][{c}]"
    pending = original["pending"]
    rack = _mover_rack(original)
    return case.field.format(
        other=1 - original["current"],
        current=original["current"],
        n_pending=len(pending),
        last_pending=len(pending) - 1,
        n_first=rack.count(rack[0]) if rack else 0,
    )


@pytest.mark.parametrize("case", TAMPERS, ids=lambda c: f"{c.kind}: {c.name}")
def test_tampered_state_is_refused_naming_the_field(case):
    game, data = _base(case.base)
    original = copy.deepcopy(data)
    if case.whole is not None:
        data = case.whole
    else:
        case.mutate(data)
    assert json.dumps(data) != json.dumps(original)  # text, so that true is not 1
    with pytest.raises(InvalidStateError) as error:
        game.state_from_json(data)
    assert error.value.field == _expected_field(case, original), str(error.value)
    assert isinstance(error.value, ValueError) and str(error.value).startswith(f"invalid state: {error.value.field}: ")


def test_tamper_kinds_cover_every_part_of_a_state():
    """Every kind of impossible Kings Cribbage state, from the header to the generator, has at least one case."""
    counts = Counter(case.kind for case in TAMPERS)
    assert set(counts) >= {
        "header",
        "keys",
        "types",
        "ranges",
        "cells",
        "board",
        "tiles",
        "solitaire",
        "racks",
        "scores",
        "end",
        "pending",
        "marked",
        "rng",
    }
    assert len({(c.kind, c.name) for c in TAMPERS}) == len(TAMPERS)


def test_env_load_json_refuses_the_same_way():
    env = EnvSpec("kings_cribbage_v0").make_raw()
    _, data = _base("mid")
    data["racks"][0][0] = 99
    with pytest.raises(InvalidStateError, match=r"racks\[0\]\[0\]: 99 is out of range \[0, 25\]"):
        env.load_json(data)


def test_the_same_position_written_otherwise_loads():
    """A rack is a set of tiles: any order loads as the same position; a turned 6 or 9 on the board is valid."""
    game, data = _base("mid")
    data["racks"][0] = data["racks"][0][::-1]
    assert game.state_from_json(data).to_json() == _base("mid")[1]
    game, data = _base("out")
    turned = [
        (r, c)
        for r, row in enumerate(data["printed"])
        for c, rank in enumerate(row)
        if rank in (6, 9) and data["values"][r][c] != rank
    ]
    assert turned, "the finished game shows a turned 6 or 9"
    game.state_from_json(data)


# --- hypothesis: one field changed at a time ------------------------------------------------------------------
PROPERTY_CONFIGS = [{}, {"num_players": 3}, {"variant": "solitaire"}, {"board_size": 5, "stall_rounds": 1}]


@cache
def _pool() -> tuple[tuple[int, str], ...]:
    """Valid saved states (config index, JSON text): every 9th state of two games per config, plus every
    state with a move or an exchange under way and every final state."""
    pool = []
    for index, config in enumerate(PROPERTY_CONFIGS):
        for seed in range(2):
            for step, state in enumerate(_random_states(config, seed)):
                if step % 9 == 0 or state.pending or state.marked or state.is_terminal():
                    pool.append((index, json.dumps(state.to_json())))
    return tuple(pool)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON tree (dict keys and list indices), the root excluded."""
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    found = []
    for key, child in children:
        found.append(prefix + (key,))
        found += _paths(child, prefix + (key,))
    return found


def _at(tree: Any, path: tuple) -> Any:
    for key in path:
        tree = tree[key]
    return tree


OTHER_VALUES = [None, "x", 1.5, True, False, [], {}, -1, 0, 2**70]


@st.composite
def mutated_states(draw):
    """A valid state with one change in one field (the field drawn first, so that the boards' many cells
    do not crowd out the rest): a key dropped, a value of another type, a number shifted, a list item
    duplicated or removed, or a tile moved to another rack or bag."""
    index, text = draw(st.sampled_from(_pool()))
    data = json.loads(text)
    field = draw(st.sampled_from(sorted(data)))
    paths = [(field,), *_paths(data[field], (field,))]
    how = draw(st.sampled_from(["drop", "retype", "shift", "duplicate", "remove", "swap owners"]))
    ints = [p for p in paths if type(_at(data, p)) is int] or [p for p in _paths(data) if type(_at(data, p)) is int]
    lists = [p for p in paths if isinstance(_at(data, p), list) and _at(data, p)] or [("bags",), ("racks",)]
    if how == "swap owners":
        holders = [("racks", i) for i in range(len(data["racks"]))] + [("bags", i) for i in range(len(data["bags"]))]
        source = draw(st.sampled_from([h for h in holders if _at(data, h)]))
        items = _at(data, source)
        _at(data, draw(st.sampled_from(holders))).append(items.pop(draw(st.integers(0, len(items) - 1))))
    elif how in ("duplicate", "remove"):
        items = _at(data, draw(st.sampled_from(lists)))
        position = draw(st.integers(0, len(items) - 1))
        if how == "duplicate":
            items.insert(position, copy.deepcopy(items[position]))
        else:
            items.pop(position)
    else:
        path = draw(st.sampled_from(ints if how == "shift" else paths))
        parent, key = _at(data, path[:-1]), path[-1]
        if how == "drop":
            del parent[key]
        elif how == "retype":
            parent[key] = draw(st.sampled_from(OTHER_VALUES))
        else:
            parent[key] += draw(st.sampled_from([-3, -2, -1, 1, 2, 3, 13, -13, 2**33]))
    return index, data


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_states())
def test_a_mutated_state_loads_and_round_trips_or_is_refused(case):
    index, data = case
    game = KingsCribbageGame(**PROPERTY_CONFIGS[index])
    try:
        state = game.state_from_json(data)
    except InvalidStateError as error:
        assert error.field and error.problem
        return
    saved = json.loads(json.dumps(state.to_json()))
    again = game.state_from_json(saved)
    assert again.to_json() == saved
    np.testing.assert_array_equal(again.legal_action_mask(), state.legal_action_mask())


# --- actions that are not ints ----------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [5.0, "3", True, np.bool_(True), None, [1]], ids=repr)
def test_apply_refuses_what_is_not_an_int(action):
    state = KingsCribbageGame().new_initial_state(np.random.default_rng(0))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match=r"not an action: actions are ints in \[0, 5098\)"):
        state.apply(action)
    assert state.to_json() == before


def test_apply_takes_numpy_ints():
    state = KingsCribbageGame().new_initial_state(np.random.default_rng(0))
    state.apply(np.int64(np.flatnonzero(state.legal_action_mask())[0]))
    assert state.pending


@pytest.mark.parametrize("action", [-1, 5098, 530000, 1.0, True, "7"], ids=repr)
def test_action_to_string_names_the_allowed_range(action):
    state = KingsCribbageGame().new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"actions are ints in \[0, 5098\)"):
        state.action_to_string(action)
    assert state.action_to_string(np.int64(5097)).startswith("pass")

"""Chromino saved states (docs/chromino.md, "Saved states"): `from_json` takes exactly what the rules can reach
and refuses anything else with an `InvalidStateError` naming the field.

Every state of seeded random games, in configurations that reach the rare positions too (a lone chameleon's
draw, idle turns, blocked ends), round-trips and validates; each kind of impossible state, built by tampering
with a valid one, is refused naming its field; hypothesis mutates valid states one field at a time; a table
loaded in one pass equals the one laid tile by tile; the saved-layout check agrees with the move search; and
actions are ints in range.
"""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.envs import EnvSpec, IllegalActionError, InvalidStateError
from tabletop.envs.chromino import saved
from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.chromino.table import Placement, Table
from tabletop.envs.cromlet.rules import CromletGame
from tabletop.envs.testing import random_game

# (configuration, seeds): small hands make lone chameleons, big ones empty the bag (idle turns, blocked ends)
ROUND_TRIPS = [
    ({}, (0, 1)),
    ({"variant": "junior"}, (0, 53)),  # seed 53: a lone chameleon's draw
    ({"variant": "expert", "num_players": 3}, (0,)),
    ({"variant": "solo", "num_players": 1}, (0,)),
    ({"hand_size": 39}, (0, 1)),  # blocked
    ({"variant": "junior", "hand_size": 30}, (1,)),  # blocked
    ({"grid_size": 7, "hand_size": 20, "num_players": 3}, (0,)),
    ({"hand_size": 2, "num_players": 3}, (30, 34)),  # a lone chameleon's draw, then a second draw
    ({"variant": "expert", "hand_size": 2, "num_players": 4}, (6,)),
]


def random_states(config: dict, seed: int):
    """Every state of one seeded random game, the final one included."""
    return random_game(EnvSpec("chromino_v1", config), seed)


def kinds_of(state) -> set[str]:
    """The rare kinds of position a state is, so the round-trip test can show it met them."""
    n, hand = state.game.num_players, state.hands[state.current]
    kinds = {f"phase {state.phase}"}
    if state.phase == 0 and state.drew:
        kinds.add("turn going on after a lone chameleon's draw")
    if state.phase == 1 and len(hand) == 3 and T.IS_CHAMELEON[[t for t in hand if t != state.drawn]].any():
        kinds.add("drawn after a lone chameleon's draw")
    if state.is_terminal():
        kinds.add("blocked" if state.idle_turns == n else "went out")
    elif any(state.finished):
        kinds.add("final round")
    elif state.idle_turns:
        kinds.add("idle turns")
    return kinds


def test_every_visited_state_round_trips_and_validates():
    met = set()
    for config, seeds in ROUND_TRIPS:
        for seed in seeds:
            for state in random_states(config, seed):
                data = state.to_json()
                back = state.game.state_from_json(json.loads(json.dumps(data)))
                assert back.to_json() == data
                np.testing.assert_array_equal(back.legal_action_mask(), state.legal_action_mask())
                met |= kinds_of(state)
    assert met == {
        "phase 0",
        "phase 1",
        "phase 2",
        "phase 3",
        "turn going on after a lone chameleon's draw",
        "drawn after a lone chameleon's draw",
        "blocked",
        "went out",
        "final round",
        "idle turns",
    }


# --- tampered states: every kind of impossible state, refused naming its field -----------------------------
def first_state(config: dict, wanted, seeds=range(40)):
    """The first state of seeded random games in `config` for which `wanted(state)` holds (cloned)."""
    for seed in seeds:
        for state in random_states(config, seed):
            if wanted(state):
                return state.clone()
    raise AssertionError(f"no state in {config} is what the test wants")


def mid_game(state) -> bool:
    return state.phase == 0 and len(state.placements) >= 6 and not state.drew and state.legal_moves().size > 0


BASES = {
    "start": lambda: ChrominoGame().new_initial_state(np.random.default_rng(0)),
    "mid": lambda: first_state({}, mid_game),
    "place": lambda: first_state(
        {},
        lambda s: (
            s.phase == 2
            and len(s.placements) >= 4
            and s.drawn < 0
            and len(set(s.table.search([s.chosen])[:, 1].tolist())) < (2 if T.PALINDROME[s.chosen] else 4)
        ),
    ),  # some orientation fits nowhere
    "place_drawn": lambda: first_state({}, lambda s: s.phase == 2 and s.drawn >= 0),
    "drawn": lambda: first_state({}, lambda s: s.phase == 1),
    "over": lambda: first_state({}, lambda s: s.is_terminal()),
    "final_round": lambda: first_state(
        {"num_players": 3},
        lambda s: s.phase == 0 and not s.drew and any(s.finished) and (s.finished.index(True) - s.first_player) % 3 > 0,
    ),  # a seat before the one that went out can be made the mover
    "blocked": lambda: first_state({"hand_size": 39}, lambda s: s.is_terminal() and s.idle_turns == 2),
    "idle": lambda: first_state(
        {"hand_size": 39}, lambda s: s.phase == 0 and s.idle_turns == 1 and s.legal_moves().size
    ),
    "expert": lambda: first_state({"variant": "expert"}, lambda s: mid_game(s) and min(s.points) > 0),
    "expert_over": lambda: first_state({"variant": "expert"}, lambda s: s.is_terminal()),
    "junior": lambda: first_state({"variant": "junior"}, mid_game),
}
_CACHE: dict[str, object] = {}


def base(name: str):
    if name not in _CACHE:
        _CACHE[name] = BASES[name]()
    return _CACHE[name].clone()


def move_tile(data, tile: str, source: str, target: str) -> None:
    """Move `tile` from one tile list ('bag' or 'hands.S') to another."""

    def tiles(where):
        return data["bag"] if where == "bag" else data["hands"][int(where.split(".")[1])]

    tiles(source).remove(tile)
    tiles(target).append(tile)


def other_tile(data, exclude=()) -> str:
    return next(t for t in data["bag"] if t not in exclude)


def fitting(state, tiles) -> list[str]:
    return sorted({T.tile_name(int(t)) for t in state.table.search(tiles, state.game.junior)[:, 0]})


def _header_config(d, s):
    d["config"]["num_players"] = 4


def _config_variant(d, s):
    d["config"]["variant"] = "junior"


def _cromlet_state(d, s):
    d.clear()
    d.update(CromletGame().new_initial_state(np.random.default_rng(0)).to_json())


def _three_hands(d, s):
    d["hands"].append([])


def _second_owner(d, s):
    d["hands"][1].append(d["hands"][0][0])


def _hand_tile_in_bag(d, s):
    d["bag"].append(d["hands"][0][0])


def _table_tile_in_hand(d, s):
    d["hands"][0].append(d["placements"][1][0])


def _start_tile_twice(d, s):
    d["hands"][0] += [d["placements"][0][0]] * 5  # five more chameleons than the tile set holds


def _missing_tile(d, s):
    d["bag"].pop()


def _hand_beyond_deal_and_draws(d, s):
    for tile in d["hands"][1][:5]:
        move_tile(d, tile, "hands.1", "hands.0")


def _bag_beyond_deal(d, s):
    move_tile(d, d["hands"][0][0], "hands.0", "bag")


def _draw_without_a_turn(d, s):
    move_tile(d, d["bag"][0], "bag", f"hands.{s.current}")


def _start_not_a_chameleon(d, s):
    i = next(i for i, t in enumerate(d["hands"][0]) if not T.IS_CHAMELEON[T.tile_id(t)])
    d["placements"][0][0], d["hands"][0][i] = d["hands"][0][i], d["placements"][0][0]


def _start_moved(d, s):
    d["placements"][0][2] += 1


def _leaves_grid(d, s):
    d["placements"][1][1:] = [2, 0, 10]  # upright on row 0: its top square is on row -1


def _overlap(d, s):
    d["placements"][2][1:] = d["placements"][1][1:]


def _laid_apart(d, s):
    d["placements"][-1][1:] = [0, 1, 1]  # in the corner, touching nothing


def _palindrome_reversed(d, s):
    i = next(i for i, p in enumerate(s.placements[1:], 1) if T.PALINDROME[p.tile])
    d["placements"][i][1] ^= 1
    return f"placements\\[{i}\\]"


def _standard_layout_in_junior(d, s):
    """A standard game's table, loaded into a junior env: side-by-side contacts no domino line makes."""
    d["config"]["variant"] = "junior"


def _child_before_parent(d, s):
    """Swap a junior tile with the tile it attached to (laid just before it): it had nothing to attach to."""
    p = s.placements
    i = next(
        i
        for i in range(2, len(p))
        if s.table.touched_tiles(p[i]) & {p[i - 1].tile}
        and not Table.laid(s.game.grid_size, p[: i - 1]).touched_tiles(p[i])
    )
    d["placements"][i - 1], d["placements"][i] = d["placements"][i], d["placements"][i - 1]
    return f"placements\\[{i - 1}\\]"


def _chosen_in_choose(d, s):
    d["chosen"] = d["hands"][s.current][0]


def _orientation_in_choose(d, s):
    d["orientation"] = 2


def _drawn_in_choose(d, s):
    d["drawn"] = d["hands"][s.current][0]


def _drew_without_lone_chameleon(d, s):
    d["drew"] = True


def _drew_when_over(d, s):
    d["drew"] = True


def _drawn_phase_without_tile(d, s):
    d["drawn"] = None


def _drawn_not_in_hand(d, s):
    d["drawn"] = d["bag"][0]


def _drawn_without_drew(d, s):
    d["drew"] = False


def _drawn_although_a_tile_fits(d, s):
    fits = fitting(s, s.hands[s.current])
    hand = d["hands"][s.current]
    d["phase"], d["drew"], d["drawn"] = "drawn", True, next(t for t in hand if [f for f in fits if f != t])


def _chosen_not_in_hand(d, s):
    d["chosen"] = d["bag"][0]


def _place_without_orientation(d, s):
    d["orientation"] = -1


def _orientation_that_fits_nowhere(d, s):
    fits = {int(o) for o in s.table.search([s.chosen], s.game.junior)[:, 1]}
    forward = (0, 2) if T.PALINDROME[s.chosen] else (0, 1, 2, 3)
    d["orientation"] = next(o for o in forward if o not in fits)


def _lone_chameleon_chosen(d, s):
    seat_ = s.current
    chameleon = next(T.tile_name(t) for t in range(T.NUM_NORMAL, T.NUM_TILES) if T.tile_name(t) in d["bag"])
    for tile in list(d["hands"][seat_]):
        move_tile(d, tile, f"hands.{seat_}", "bag")
    move_tile(d, chameleon, "bag", f"hands.{seat_}")
    d["phase"], d["chosen"], d["orientation"], d["drawn"] = "place", chameleon, 2, None


def _chosen_other_than_drawn(d, s):
    d["chosen"] = next(t for t in d["hands"][s.current] if t != d["drawn"])


def _finished_seat_moves(d, s):
    d["current_player"] = s.finished.index(True)


def _finished_with_tiles(d, s):
    d["finished"][0] = True


def _not_finished_with_empty_hand(d, s):
    d["finished"][s.finished.index(True)] = False


def _over_wrong_last_mover(d, s):
    d["current_player"] = (d["current_player"] + 1) % s.game.num_players


def _blocked_too_soon(d, s):
    d["idle_turns"] -= 1


def _idle_round_not_over(d, s):
    d["idle_turns"] = s.game.num_players


def _went_out_and_blocked(d, s):
    d["idle_turns"] = s.game.num_players


def _finisher_after_mover(d, s):
    n, out = s.game.num_players, s.finished.index(True)
    d["current_player"] = next(
        x for x in range(n) if not s.finished[x] and (x - s.first_player) % n < (out - s.first_player) % n
    )
    return f"finished\\[{out}\\]"


def _idle_with_bag(d, s):
    d["idle_turns"] = 1


def _idle_seat_could_lay(d, s):
    idle_seat = (s.current - 1) % s.game.num_players
    tile = fitting(s, s.hands[s.current])[0]
    move_tile(d, tile, f"hands.{s.current}", f"hands.{idle_seat}")
    move_tile(d, d["hands"][idle_seat][0], f"hands.{idle_seat}", f"hands.{s.current}")


def _points_outside_expert(d, s):
    d["points"][0] = 3


def _points_do_not_add_up(d, s):
    d["points"][0] += 1


def _points_no_placements_make(d, s):
    total = sum(d["points"])
    d["points"] = [1, total - 1]  # every placement is worth 2 or more: 1 is no sum of them


def _negative_points(d, s):
    d["points"] = [-5, sum(d["points"]) + 5]


def _points_without_end_bonus(d, s):
    winner = s.finished.index(True)
    d["points"][winner] -= s.game.out_bonus


def _set(key, value):
    def mutate(d, s):
        d[key] = value

    mutate.__name__ = f"{key}={value!r}"
    return mutate


def _set_in(path, value):
    def mutate(d, s):
        target = d
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value

    mutate.__name__ = f"{'.'.join(map(str, path))}={value!r}"
    return mutate


def _drop(key):
    def mutate(d, s):
        del d[key]

    mutate.__name__ = f"no {key}"
    return mutate


# (kind, base, mutation, field: a regex of InvalidStateError.field; a mutation may return the field itself)
TAMPERED = [
    ("header", "mid", _set("game", "cromlet"), "game"),
    ("header", "mid", _set("game", {"num_players": 2}), "game"),
    ("header", "mid", _header_config, "config"),
    ("header", "mid", _config_variant, "config"),
    ("header", "mid", _drop("config"), "config"),
    ("header", "mid", _cromlet_state, "game"),
    *[("missing key", "mid", _drop(key), key) for key in saved.KEYS if key not in ("game", "config")],
    ("unknown key", "mid", _set("score", 3), "score"),
    ("type", "mid", _set("first_player", "0"), "first_player"),
    ("type", "mid", _set("current_player", 1.0), "current_player"),
    ("type", "mid", _set("phase", 0), "phase"),
    ("type", "mid", _set("hands", "RGB"), "hands"),
    ("type", "mid", _set("bag", {}), "bag"),
    ("type", "mid", _set("placements", None), "placements"),
    ("type", "mid", _set("finished", [1, 0]), r"finished\[0\]"),
    ("type", "mid", _set("points", [0.5, 0]), r"points\[0\]"),
    ("type", "mid", _set("drew", 1), "drew"),
    ("type", "mid", _set("idle_turns", True), "idle_turns"),
    ("type", "mid", _set("chosen", 5), "chosen"),
    ("type", "mid", _set("orientation", None), "orientation"),
    ("type", "mid", _set("drawn", ["RGB"]), "drawn"),
    ("type", "mid", _set_in(["hands", 0, 0], 7), r"hands\[0\]\[0\]"),
    ("type", "mid", _set_in(["placements", 1], "RRR"), r"placements\[1\]"),
    ("type", "mid", _set_in(["placements", 1, 2], "3"), r"placements\[1\]\[2\]"),
    ("type", "mid", _set_in(["hands", 1], "RGB"), r"hands\[1\]"),
    ("range", "mid", _set("first_player", 2), "first_player"),
    ("range", "mid", _set("first_player", -1), "first_player"),
    ("range", "mid", _set("current_player", 7), "current_player"),
    ("range", "mid", _set("phase", "deal"), "phase"),
    ("range", "mid", _set("orientation", 4), "orientation"),
    ("range", "mid", _set("idle_turns", 3), "idle_turns"),
    ("range", "mid", _set("idle_turns", -1), "idle_turns"),
    ("range", "mid", _set_in(["placements", 1, 1], 5), r"placements\[1\]\[1\]"),
    ("range", "mid", _set_in(["placements", 1, 2], 45), r"placements\[1\]\[2\]"),
    ("range", "mid", _set_in(["hands", 0, 0], "RGX"), r"hands\[0\]\[0\]"),
    ("range", "mid", _set_in(["bag", 0], ""), r"bag\[0\]"),
    ("conservation", "mid", _second_owner, r"hands\[1\]"),
    ("conservation", "mid", _hand_tile_in_bag, "bag"),
    ("conservation", "mid", _table_tile_in_hand, "placements"),
    ("conservation", "mid", _start_tile_twice, r"hands\[0\]"),
    ("conservation", "mid", _missing_tile, "tiles"),
    ("conservation", "mid", _three_hands, "hands"),
    ("limit", "start", _hand_beyond_deal_and_draws, r"hands\[0\]"),
    ("limit", "start", _bag_beyond_deal, "bag"),
    ("limit", "start", _draw_without_a_turn, "hands"),
    ("table", "mid", _start_not_a_chameleon, r"placements\[0\]"),
    ("table", "mid", _start_moved, r"placements\[0\]"),
    ("table", "mid", _leaves_grid, r"placements\[1\]"),
    ("table", "mid", _overlap, r"placements\[2\]"),
    ("table", "mid", _laid_apart, r"placements\[\d+\]"),
    ("table", "over", _palindrome_reversed, None),
    ("table", "mid", _standard_layout_in_junior, r"placements\[\d+\]"),
    ("table", "junior", _child_before_parent, None),
    ("turn stage", "mid", _chosen_in_choose, "chosen"),
    ("turn stage", "mid", _orientation_in_choose, "orientation"),
    ("turn stage", "mid", _drawn_in_choose, "drawn"),
    ("turn stage", "mid", _drew_without_lone_chameleon, "drew"),
    ("turn stage", "over", _drew_when_over, "drew"),
    ("turn stage", "drawn", _drawn_phase_without_tile, "drawn"),
    ("turn stage", "drawn", _drawn_not_in_hand, "drawn"),
    ("turn stage", "drawn", _drawn_without_drew, "drew"),
    ("turn stage", "mid", _drawn_although_a_tile_fits, "drawn"),
    ("turn stage", "place", _chosen_not_in_hand, "chosen"),
    ("turn stage", "place", _place_without_orientation, "orientation"),
    ("turn stage", "place", _orientation_that_fits_nowhere, "orientation"),
    ("turn stage", "mid", _lone_chameleon_chosen, "chosen"),
    ("turn stage", "place_drawn", _chosen_other_than_drawn, "chosen"),
    ("turn stage", "final_round", _finished_seat_moves, "current_player"),
    ("round", "mid", _finished_with_tiles, r"finished\[0\]"),
    ("round", "over", _not_finished_with_empty_hand, r"finished\[\d\]"),
    ("round", "over", _over_wrong_last_mover, "current_player"),
    ("round", "blocked", _blocked_too_soon, "idle_turns"),
    ("round", "idle", _idle_round_not_over, "idle_turns"),
    ("round", "over", _went_out_and_blocked, "idle_turns"),
    ("round", "final_round", _finisher_after_mover, None),
    ("idle turns", "mid", _idle_with_bag, "idle_turns"),
    ("idle turns", "idle", _idle_seat_could_lay, "idle_turns"),
    ("points", "mid", _points_outside_expert, r"points\[0\]"),
    ("points", "expert", _points_do_not_add_up, "points"),
    ("points", "expert", _points_no_placements_make, r"points\[0\]"),
    ("points", "expert", _negative_points, r"points\[0\]"),
    ("points", "expert_over", _points_without_end_bonus, "points"),
]


@pytest.mark.parametrize(
    "kind,base_name,mutate,field",
    TAMPERED,
    ids=[f"{kind}:{base_name}:{mutate.__name__.strip('_')}" for kind, base_name, mutate, _ in TAMPERED],
)
def test_a_tampered_state_is_refused_naming_its_field(kind, base_name, mutate, field):
    state = base(base_name)
    game = state.game
    data = json.loads(json.dumps(state.to_json()))
    game.state_from_json(copy.deepcopy(data))  # the untouched state loads
    field = mutate(data, state) or field
    if mutate is _standard_layout_in_junior:
        game = ChrominoGame(variant="junior")
    with pytest.raises(InvalidStateError) as refused:
        game.state_from_json(data)
    assert refused.value.field and refused.value.problem
    assert re.fullmatch(field, refused.value.field), f"{refused.value}"


def test_the_tampered_kinds_are_counted():
    """The closing note's figures: how many tampered states of each kind are refused (all of them, above)."""
    counts: dict[str, int] = {}
    for kind, *_ in TAMPERED:
        counts[kind] = counts.get(kind, 0) + 1
    assert counts == {
        "header": 6,
        "missing key": 13,
        "unknown key": 1,
        "type": 17,
        "range": 11,
        "conservation": 6,
        "limit": 3,
        "table": 8,
        "turn stage": 15,
        "round": 7,
        "idle turns": 2,
        "points": 5,
    }


# --- one field mutated at a time ------------------------------------------------------------------------
def _sample_states() -> list[tuple[ChrominoGame, dict]]:
    out = []
    for config, seeds in ROUND_TRIPS:
        states = list(random_states(config, seeds[0]))
        for i in np.linspace(0, len(states) - 1, num=5).astype(int):
            out.append((states[i].game, states[i].to_json()))
    return out


SAMPLES = _sample_states()
ODD_VALUES = (None, "x", 1.5, [], {}, True, -1, 10**6)


def _slots(value, path=()):
    """Every (path) to a value inside the JSON."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path + (k,)
            yield from _slots(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield path + (i,)
            yield from _slots(v, path + (i,))


def _at(data, path):
    for k in path:
        data = data[k]
    return data


@st.composite
def mutated(draw):
    game, original = draw(st.sampled_from(SAMPLES))
    data = copy.deepcopy(original)
    how = draw(st.sampled_from(["drop", "retype", "shift", "duplicate", "swap owners", "swap items"]))
    path = draw(st.sampled_from(list(_slots(data))))
    parent, key = _at(data, path[:-1]), path[-1]
    if how == "drop":
        del parent[key]
    elif how == "retype":
        parent[key] = draw(st.sampled_from([v for v in ODD_VALUES if type(v) is not type(parent[key])]))
    elif how == "shift" and isinstance(parent[key], int) and not isinstance(parent[key], bool):
        parent[key] += draw(st.sampled_from([-3, -2, -1, 1, 2, 3]))
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(draw(st.integers(0, len(parent))), copy.deepcopy(parent[key]))
    elif how == "swap items" and isinstance(parent, list) and len(parent) > 1:
        other = draw(st.integers(0, len(parent) - 1))
        parent[key], parent[other] = parent[other], parent[key]
    else:  # swap owners: a tile changes hands (or goes to or from the bag)
        piles = [data["bag"], *data["hands"]]
        source = draw(st.sampled_from([p for p in piles if p]))
        target = draw(st.sampled_from(piles))
        target.append(source.pop(draw(st.integers(0, len(source) - 1))))
    return game, data


@settings(max_examples=150, deadline=None)
@given(mutated())
def test_one_mutated_field_loads_to_a_state_that_round_trips_or_is_refused(case):
    game, data = case
    try:
        state = game.state_from_json(data)
    except InvalidStateError as refused:
        assert refused.field and refused.problem
        return
    again = game.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()


# --- loading the table --------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["standard", "junior"])
def test_a_table_laid_in_one_pass_equals_one_laid_tile_by_tile_in_any_order(variant):
    rng = np.random.default_rng(4)
    for state in random_states({"variant": variant, "num_players": 4}, seed=4):
        if state.is_terminal():
            placements = state.placements
    for order in (placements, [placements[i] for i in rng.permutation(len(placements))]):
        one_by_one = Table(45)
        for p in order:
            one_by_one = one_by_one.place(p)
        at_once = Table.laid(45, order)
        for name in ("colour", "tile_at", "contacts", "accept", "ends"):
            np.testing.assert_array_equal(getattr(at_once, name), getattr(one_by_one, name), err_msg=name)
        assert at_once.bbox == one_by_one.bbox
    assert Table.laid(45, placements).open_ends().sum() > 0


@pytest.mark.parametrize("variant", ["standard", "junior"])
def test_the_saved_layout_check_accepts_exactly_the_placements_the_search_finds(variant):
    """Appending a placement to a saved layout is accepted exactly when the move search offers it: tried for up to
    three tiles of the mover's hand in every orientation on every cell where the tile would touch the layout
    (elsewhere it touches nothing, so neither accepts it)."""
    game = ChrominoGame(variant=variant, grid_size=15)
    checked = accepted = 0
    for number, state in enumerate(random_states({"variant": variant, "grid_size": 15}, seed=2)):
        if state.phase != 0 or number % 10 or state.is_terminal():
            continue
        hand = state.hands[state.current]
        fit = sorted(set(state.table.search(hand, game.junior)[:, 0].tolist()))
        tiles = fit[:2] + [t for t in hand if t not in fit][:1]  # two tiles that fit somewhere, one that does not
        found = {tuple(m[:4]) for m in state.table.search(tiles, game.junior).tolist()}
        near = np.argwhere(state.table.contacts[2:-2, 2:-2] > 0).tolist()  # empty cells beside the layout
        for tile in tiles:
            for o in range(4):
                step = (0, 1) if o < 2 else (1, 0)
                centres = {(r - k * step[0], c - k * step[1]) for r, c in near for k in (-1, 0, 1)}
                for row, col in sorted(centres):
                    p = Placement(tile, o, row, col)
                    try:
                        saved._check_layout(state.placements + [p], game)
                        ok = True
                    except InvalidStateError:
                        ok = False
                    assert ok == (tuple(p) in found), p
                    checked += 1
                    accepted += ok
    assert checked > 2000 and accepted >= 10


# --- actions ------------------------------------------------------------------------------------------------
def test_an_action_is_an_int_in_range():
    game = ChrominoGame()
    state = game.new_initial_state(np.random.default_rng(0))
    n = game.num_actions
    before = state.to_json()
    for bad in (-1, n, 5.0, "3", True, np.bool_(True), None):
        with pytest.raises(ValueError, match=rf"\[0, {n}\)"):
            state.action_to_string(bad)
        with pytest.raises(IllegalActionError, match=rf"\[0, {n}\)"):
            state.apply(bad)
    assert state.to_json() == before
    legal = np.flatnonzero(state.legal_action_mask())[0]
    assert state.action_to_string(np.int32(legal)).startswith("take ")
    state.apply(np.int64(legal))
    assert state.phase == 2

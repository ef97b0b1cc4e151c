"""KRZ GRTN saved states: every reachable position loads, every tampered one is refused with its field named.

Valid states come from seeded games (the skeleton team with some random moves, so that every phase, both
drawing rounds and all three endings occur); each tamper changes one thing of one such state. The property
tests mutate states field by field and accept only two results: a state that loads and round-trips, or
`InvalidStateError`.
"""

from __future__ import annotations

import copy
import json
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.agents.krz_grtn import SkeletonTeammate
from tabletop.envs.core import IllegalActionError, InvalidStateError
from tabletop.envs.krz_grtn.pictures import CONCEPT_ID, CONCEPTS
from tabletop.envs.krz_grtn.rules import KrzGrtnGame
from tabletop.envs.krz_grtn.saved import CARD_FIELDS, KEYS, LETTER_FIELDS
from tabletop.envs.krz_grtn.tiles import LETTERS, counts_string, parse_counts
from tabletop.envs.krz_grtn_v1 import raw_env

GAME = KrzGrtnGame(num_players=4)
CONFIGS = (
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 6},
    {"num_players": 2, "blanks_per_player": 0, "levels": (3, 4, 5, 5, 6, 6), "lives": 2},
    {"num_players": 6, "blanks_per_player": 1, "lives": 0, "tile_limit": 9, "start_letters": 2, "life_letters": 4},
    {"num_players": 3, "level_candidates": (12,) * 6, "level_draws": (8,) * 6, "tile_limit": 16, "start_letters": 16},
)


def play(game: KrzGrtnGame, seed: int, explore: float = 0.15):
    """Yield the JSON of every state of one seeded game: skeleton team, a random legal move with odds `explore`."""
    rng = np.random.default_rng(seed)
    team = SkeletonTeammate(seed=seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    while True:
        yield json.loads(json.dumps(state.to_json()))
        if state.is_terminal():
            return
        mask = state.legal_action_mask()
        if rng.random() < explore:
            legal = np.flatnonzero(mask)
            action = int(legal[rng.integers(legal.size)])
        else:
            action = team.act(None, mask, state.view(state.current_player))
        state.apply(action)


def kind_of(data: dict) -> str | None:
    """The kinds of base state the tampers start from (4 players, default configuration)."""
    phase, last = data["phase"], data["last_attempt"]
    if phase == "vote" and last is not None and not last["passed"] and data["votes"] == 1:
        return "vote"  # X has moved on after a failed attempt; one giver has said Life!
    if phase == "clue" and data["clues_done"] == 1 and data["clues"][data["current_player"]] and last is not None:
        return "clue"  # one clue finished, the next giver has laid some tiles
    if phase == "guess" and last is not None and last["passed"]:
        return "guess"
    if phase == "return":
        return f"return_{data['after_draws']}"
    if phase == "over":
        return {"all six levels passed": "won", "a level failed with no life card left": "failed"}.get(
            data["end_reason"], "short"
        )
    return None


KINDS = ("vote", "clue", "guess", "return_vote", "return_level", "won", "failed", "short")


@cache
def bases() -> dict[str, str]:
    found: dict[str, str] = {}
    for seed in range(300):
        for data in play(GAME, seed):
            kind = kind_of(data)
            if kind is not None and kind not in found:
                found[kind] = json.dumps(data)
        if len(found) == len(KINDS):
            return found
    raise AssertionError(f"no base state of kinds {set(KINDS) - set(found)} in 300 games")


def base(kind: str) -> dict:
    return json.loads(bases()[kind])


def load(data: dict, game: KrzGrtnGame = GAME):
    return game.state_from_json(data)


def refused(data: dict, game: KrzGrtnGame = GAME) -> InvalidStateError:
    with pytest.raises(InvalidStateError) as caught:
        load(data, game)
    return caught.value


# --- edits that keep every tile accounted for ------------------------------------------------------------------
def move_letters(data: dict, source: str, target: str, count: int) -> None:
    """Move `count` letters from one letter string (`"bag"` or `"supplies[i]"`) to another."""

    def text(path):
        return data["bag"] if path == "bag" else data["supplies"][int(path[9:-1])]

    def put(path, value):
        if path == "bag":
            data["bag"] = value
        else:
            data["supplies"][int(path[9:-1])] = value

    src, dst = parse_counts(text(source)), parse_counts(text(target))
    for _ in range(count):
        k = int(np.flatnonzero(src)[0])
        src[k] -= 1
        dst[k] += 1
    put(source, counts_string(src))
    put(target, counts_string(dst))


def givers(data: dict) -> list[int]:
    n, x = data["num_players"], data["x"]
    return [(x + k) % n for k in range(1, n)]


def set_owned(data: dict, seat: int, letters: int) -> None:
    """Give `seat` exactly `letters` behind its screen, to or from the bag."""
    held = len(data["supplies"][seat])
    if held < letters:
        move_letters(data, "bag", f"supplies[{seat}]", letters - held)
    else:
        move_letters(data, f"supplies[{seat}]", "bag", held - letters)


def deck_concept(data: dict) -> str:
    """A picture whose card lies in the deck."""
    return CONCEPTS[2 * data["deck"][0]].name


# --- the tampers: (kind, base state, edit, the field the error names) ------------------------------------------
# A field may name seats of the base state: {x} (X), {current} (the mover), {g0}, {g1}, {g2} (the givers in turn).
def _wrong_type(value):
    return "3" if isinstance(value, (int, list, dict)) or value is None else 3


def _tamper_cases():
    cases = []

    def case(kind, start, field, edit):
        cases.append(pytest.param(start, edit, field, id=f"{kind}:{field}:{len(cases)}"))

    def assign(**fields):
        return lambda d: d.update(fields)

    # the header: game, configuration, keys and types
    case("header", "vote", "game", assign(game="chromino"))
    case("header", "vote", "config", lambda d: d["config"].update(num_players=2))
    case("header", "vote", "config", lambda d: d["config"].update(lives=4))
    case("header", "vote", "config", lambda d: d["config"].update(levels=[3, 4, 5, 5, 6, 6]))
    case("header", "vote", "config", lambda d: d["config"].update(lives=True))
    case("header", "vote", "config", lambda d: d["config"].pop("tile_limit"))
    case("header", "vote", "num_players", assign(num_players=2))
    case("header", "vote", "bogus", assign(bogus=1))
    for key in KEYS:
        case("missing key", "vote", key, lambda d, key=key: d.pop(key))
        case("wrong type", "vote", key, lambda d, key=key: d.update({key: _wrong_type(d[key])}))
    for key in ("current_player", "x", "level_index", "lives", "votes"):
        case("wrong type", "vote", key, lambda d, key=key: d.update({key: True}))
        case("wrong type", "vote", key, lambda d, key=key: d.update({key: float(d[key])}))
    # ranges
    case("range", "vote", "x", assign(x=-1))
    case("range", "vote", "x", assign(x=4))
    case("range", "vote", "current_player", assign(current_player=-1))
    case("range", "vote", "lives", assign(lives=-3))
    case("range", "vote", "lives", assign(lives=6))
    case("range", "vote", "level_index", assign(level_index=40))
    case("range", "vote", "level_index", assign(level_index=-1))
    case("range", "vote", "phase", assign(phase="lunch"))
    case("range", "vote", "deck[0]", lambda d: d["deck"].__setitem__(0, 167))
    case("range", "vote", "discard[0]", lambda d: d["discard"].__setitem__(0, -1))
    case("range", "vote", "blanks[1]", lambda d: d["blanks"].__setitem__(1, 7))
    case("range", "vote", "blanks[1]", lambda d: d["blanks"].__setitem__(1, -1))
    case("range", "vote", "bag", lambda d: d.update(bag=d["bag"] + "A"))
    case("range", "vote", "bag", lambda d: d.update(bag=d["bag"].lower()))
    case("range", "vote", "supplies[1]", lambda d: d["supplies"].__setitem__(1, d["supplies"][1] + "_"))
    case("range", "vote", "supplies", lambda d: d["supplies"].pop())
    case("range", "clue", "clues", lambda d: d["clues"].append(""))
    case("range", "clue", "clues[2]", lambda d: d["clues"].__setitem__(2, "e"))
    case("range", "vote", "target", assign(target="unicorn on a bicycle"))
    case("range", "guess", "candidates[1]", lambda d: d["candidates"].__setitem__(1, "Cat"))
    case("range", "guess", "candidates", lambda d: d.update(candidates=d["candidates"] * 3))
    case("range", "guess", "target_position", assign(target_position=40))
    case("range", "vote", "votes", assign(votes=9))
    case("range", "clue", "clues_done", assign(clues_done=9))
    case("range", "return_vote", "draw_queue[0]", lambda d: d.update(draw_queue=[9]))
    case("range", "return_vote", "draw_amount", assign(draw_amount=99))
    case("range", "return_vote", "after_draws", assign(after_draws="later"))
    case("range", "vote", "outcome", assign(outcome=2))
    case("range", "vote", "end_reason", assign(end_reason="bored"))
    # conservation: every letter, blank and picture card exactly once
    case(
        "letters",
        "vote",
        LETTER_FIELDS,  # a letter in two hands
        lambda d: d["supplies"].__setitem__(1, d["supplies"][1] + d["supplies"][2][0]),
    )
    case("letters", "vote", LETTER_FIELDS, lambda d: d.update(bag=d["bag"][1:]))
    case("letters", "vote", LETTER_FIELDS, lambda d: d.update(bag=d["bag"] + "Q"))
    case(
        "letters",
        "clue",
        LETTER_FIELDS,
        lambda d: d["clues"].__setitem__(d["current_player"], d["clues"][d["current_player"]] + d["bag"][0]),
    )
    case("blanks", "vote", "blanks[2]", lambda d: d["blanks"].__setitem__(2, 1))
    case(
        "blanks",
        "clue",
        "blanks[{g1}]",
        lambda d: d["clues"].__setitem__(d["current_player"], d["clues"][d["current_player"]] + "_____"),
    )
    case("cards", "vote", CARD_FIELDS, lambda d: d["discard"].append(d["deck"][0]))
    case("cards", "vote", CARD_FIELDS, lambda d: d["deck"].pop())
    case("cards", "vote", CARD_FIELDS, lambda d: d["deck"].__setitem__(0, CONCEPT_ID[d["target"]] // 2))
    case(
        "cards",
        "guess",
        CARD_FIELDS,
        lambda d: d["candidates"].__setitem__(
            (d["target_position"] + 1) % len(d["candidates"]), CONCEPTS[CONCEPT_ID[d["target"]] ^ 1].name
        ),
    )
    # the tile limit
    case("tile limit", "vote", "supplies[1]", lambda d: set_owned(d, 1, 9))
    case("tile limit", "vote", "supplies[0]", lambda d: set_owned(d, 0, len(d["supplies"][0]) + len(d["bag"])))
    case("tile limit", "return_vote", "supplies[{current}]", lambda d: set_owned(d, d["current_player"], 8))
    case("tile limit", "return_vote", "supplies[{current}]", lambda d: set_owned(d, d["current_player"], 11))
    # the phase: who acts, the table, the clues, drawing rounds, the end
    case("phase", "vote", "lives", assign(lives=0))
    case("phase", "vote", "current_player", lambda d: d.update(current_player=d["x"]))
    case("phase", "clue", "votes", assign(votes=1))
    case("phase", "clue", "current_player", lambda d: d.update(current_player=givers(d)[2]))
    case("phase", "guess", "clues_done", assign(clues_done=2))
    case("phase", "guess", "current_player", lambda d: d.update(current_player=givers(d)[0]))
    case(
        "phase",
        "vote",
        "target",
        lambda d: (d["deck"].append(CONCEPT_ID[d["target"]] // 2), d.update(target=None, candidates=[])),
    )
    case("phase", "vote", "candidates", lambda d: (d["candidates"].append(deck_concept(d)), d["deck"].pop(0)))
    case("phase", "vote", "target_position", assign(target_position=0))
    case(
        "phase",
        "guess",
        "target_position",
        lambda d: d.update(target_position=(d["target_position"] + 1) % len(d["candidates"])),
    )
    case("phase", "guess", "candidates", lambda d: d.update(target=deck_concept(d)))
    case(
        "phase",
        "vote",
        "clues[{g0}]",
        lambda d: (
            d["clues"].__setitem__(givers(d)[0], d["supplies"][givers(d)[0]][:2]),
            d["supplies"].__setitem__(givers(d)[0], d["supplies"][givers(d)[0]][2:]),
        ),
    )
    case(
        "phase",
        "clue",
        "clues[{x}]",
        lambda d: (
            d["clues"].__setitem__(d["x"], d["supplies"][d["x"]][:2]),
            d["supplies"].__setitem__(d["x"], d["supplies"][d["x"]][2:]),
        ),
    )
    case(
        "phase",
        "clue",
        "clues[{g2}]",
        lambda d: (
            d["clues"].__setitem__(givers(d)[2], d["supplies"][givers(d)[2]][:1]),
            d["supplies"].__setitem__(givers(d)[2], d["supplies"][givers(d)[2]][1:]),
        ),
    )
    case("phase", "guess", "clues[{g0}]", lambda d: _shorten_clue(d, givers(d)[0]))
    case("phase", "clue", "supplies[{g2}]", lambda d: set_owned(d, givers(d)[2], 1))
    case("phase", "vote", "draw_queue", lambda d: d.update(draw_queue=[givers(d)[0]]))
    case("phase", "vote", "draw_amount", assign(draw_amount=2))
    case("phase", "vote", "after_draws", assign(after_draws="vote"))
    case("phase", "return_vote", "after_draws", assign(after_draws=""))
    case("phase", "return_vote", "draw_queue", lambda d: d.update(draw_queue=d["draw_queue"][::-1] + [d["x"]]))
    case("phase", "return_vote", "draw_amount", assign(draw_amount=3))
    case("phase", "return_vote", "current_player", _x_returns)
    case("phase", "return_vote", "lives", lambda d: d.update(lives=5))
    case("phase", "return_level", "level_index", assign(level_index=0, last_attempt=None))
    case("phase", "vote", "outcome", assign(outcome=1))
    case("phase", "vote", "end_reason", assign(end_reason="all six levels passed"))
    case("phase", "won", "outcome", assign(outcome=0))
    case("phase", "won", "level_index", assign(level_index=5))
    case("phase", "failed", "lives", assign(lives=1))
    case("phase", "failed", "end_reason", assign(end_reason=""))
    case("phase", "short", "end_reason", lambda d: [set_owned(d, g, 4) for g in givers(d)])
    case("phase", "guess", "level_index", assign(level_index=6))
    # history: the last attempt's record and the box
    case("history", "guess", "last_attempt", assign(last_attempt=None))
    case("history", "vote", "last_attempt.x", _last_x_is_x)
    case(
        "history",
        "vote",
        "last_attempt.level",
        lambda d: d["last_attempt"].update(level=d["last_attempt"]["level"] % 6 + 1),
    )
    case("history", "vote", "last_attempt.passed", lambda d: d["last_attempt"].update(passed=True))
    case("history", "guess", "last_attempt.passed", lambda d: d["last_attempt"].update(passed=False))
    case("history", "vote", "last_attempt.target", lambda d: d["last_attempt"].update(target=deck_concept(d)))
    case("history", "vote", "last_attempt.clues", lambda d: d["last_attempt"].update(clues={}))
    case("history", "vote", "last_attempt.bogus", lambda d: d["last_attempt"].update(bogus=1))
    case(
        "history",
        "vote",
        "last_attempt.clues.{x}",  # a one-letter clue on record
        lambda d: d["last_attempt"]["clues"].update({str(d["x"]): "K"}),
    )
    case("history", "vote", "lives", lambda d: d.update(lives=5, votes=0, current_player=givers(d)[0]))
    case("history", "vote", "deck", lambda d: (d["discard"].extend(d["deck"][:130]), d.update(deck=d["deck"][130:])))
    # the generator
    case("rng", "vote", "rng.bit_generator", lambda d: d["rng"].update(bit_generator="MT19937"))
    case("rng", "vote", "rng.state.inc", lambda d: d["rng"]["state"].update(inc=d["rng"]["state"]["inc"] - 1))
    case("rng", "vote", "rng", lambda d: d["rng"].pop("uinteger"))
    case("rng", "vote", "rng.uinteger", lambda d: d["rng"].update(uinteger=-1))
    return cases


def _last_x_is_x(data: dict) -> None:
    """The last attempt recorded as today's X's, its clues handed to that X's givers."""
    last = data["last_attempt"]
    last["x"] = data["x"]
    last["clues"] = {str(g): clue for g, clue in zip(givers(data), last["clues"].values())}


def _x_returns(data: dict) -> None:
    """X, who draws nothing, holds the returning giver's letters and is named as the returner."""
    supplies, x, returner = data["supplies"], data["x"], data["current_player"]
    supplies[x], supplies[returner] = supplies[returner], supplies[x]
    data["current_player"] = x


def _shorten_clue(data: dict, seat: int) -> None:
    """Leave one letter in `seat`'s finished clue; the others go back to the bag."""
    clue = data["clues"][seat]
    letters = [ch for ch in clue if ch != "_"]
    data["clues"][seat] = letters[0]
    data["blanks"][seat] += clue.count("_")
    data["bag"] = counts_string(parse_counts(data["bag"] + "".join(letters[1:])))


TAMPERS = _tamper_cases()


@pytest.mark.parametrize("start, edit, field", TAMPERS)
def test_a_tampered_state_is_refused_with_its_field_named(start, edit, field):
    data = base(start)
    load(copy.deepcopy(data))  # the untampered state loads
    seats = {"x": data["x"], "current": data["current_player"], **{f"g{i}": g for i, g in enumerate(givers(data))}}
    edit(data)
    assert refused(data).field == field.format(**seats)


def test_the_base_states_cover_every_phase_drawing_round_and_ending():
    assert set(bases()) == set(KINDS)


def test_every_visited_state_of_seeded_games_loads_and_round_trips():
    checked = 0
    for config in CONFIGS:
        game = KrzGrtnGame(**config)
        for seed in range(3):
            for data in play(game, seed):
                back = game.state_from_json(data)
                assert back.to_json() == data
                checked += 1
    assert checked > 1500


def test_non_objects_and_empty_states_are_refused():
    assert refused([]).field == "state"
    assert refused({}).field == "game"
    assert refused("state").field == "state"


def test_a_null_generator_takes_the_one_the_loader_is_given():
    data = base("vote")
    data["rng"] = None
    a = GAME.state_from_json(data, np.random.default_rng(5))
    b = GAME.state_from_json(data, np.random.default_rng(5))
    a.apply(1)
    b.apply(1)
    assert a.to_json() == b.to_json()


def test_the_env_refuses_an_impossible_state_and_keeps_its_game():
    env = raw_env(num_players=4)
    env.reset(seed=0)
    before = env.game_state.to_json()
    data = base("vote")
    data["lives"] = -3
    with pytest.raises(InvalidStateError, match="lives"):
        env.load_json(data)
    assert env.game_state.to_json() == before


def test_a_state_for_another_player_count_is_refused_by_its_config():
    data = next(play(KrzGrtnGame(num_players=2), 0))
    assert refused(data).field == "config"


# --- actions must be ints --------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [5.0, "3", True, False, None, 1.5, [1], np.float64(1.0), np.bool_(True)])
def test_apply_refuses_what_is_not_an_int(action):
    state = load(base("vote"))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match=r"not an action; actions are ints in \[0, 54\)"):
        state.apply(action)
    assert state.to_json() == before


def test_apply_takes_python_and_numpy_ints():
    for action in (1, np.int64(1), np.int8(1)):
        state = load(base("vote"))
        state.apply(action)
        assert state.votes == 2


@pytest.mark.parametrize("action", [-1, 54, 530, 5.0, "3", True, None])
def test_action_to_string_names_the_allowed_range(action):
    state = load(base("guess"))
    with pytest.raises(ValueError, match=r"actions are ints in \[0, 54\)"):
        state.action_to_string(action)


def test_action_to_string_names_every_action_in_range():
    state = load(base("guess"))
    names = [state.action_to_string(a) for a in range(GAME.num_actions)]
    assert names[0] == 'keep your hand down (no "Life!")' and names[-1].startswith("point at picture 8")
    assert state.action_to_string(np.int64(46)).startswith("point at picture 1 (")


# --- property tests: one mutation of one field ----------------------------------------------------------------
@cache
def pool() -> tuple[tuple[int, str], ...]:
    """(config index, state JSON): a spread of states from seeded games of every configuration."""
    states = []
    for index, config in enumerate(CONFIGS):
        for seed in range(3):
            visited = list(play(KrzGrtnGame(**config), 100 + seed))
            rare = [d for d in visited if d["phase"] in ("return", "guess", "over", "vote")]
            states += [(index, json.dumps(d)) for d in visited[::25] + rare[::3]]
    return tuple(states)


def _paths(node, prefix=()):
    """Every (container path, key) in a JSON tree, the root's keys included."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix, key
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield prefix, i
            yield from _paths(value, prefix + (i,))


def _at(data, path):
    for step in path:
        data = data[step]
    return data


OTHER_VALUES = (None, True, False, 0, -1, 1, 7, 2**70, 1.5, float("nan"), "", "R", "pedestrian light", [], {}, [0])


@st.composite
def mutated(draw):
    index, text = draw(st.sampled_from(pool()))
    data = json.loads(text)
    top = draw(st.sampled_from(sorted(data)))  # a field first, so the 167 deck entries do not crowd out the rest
    spots = [((), top)] + list(_paths(data[top], (top,)))
    container_path, key = draw(st.sampled_from(spots))
    container = _at(data, container_path)
    value = container[key]
    how = draw(st.sampled_from(("drop", "retype", "shift", "duplicate", "remove", "swap", "text", "owner")))
    if how == "drop":
        del container[key]
    elif how == "shift" and isinstance(value, int) and not isinstance(value, bool):
        container[key] = value + draw(st.sampled_from((-2, -1, 1, 2)))
    elif how in ("duplicate", "remove") and isinstance(value, list) and value:
        i = draw(st.integers(0, len(value) - 1))
        if how == "duplicate":
            value.insert(i, copy.deepcopy(value[i]))
        else:
            value.pop(i)
    elif how == "swap" and isinstance(value, list) and len(value) > 1:
        i, j = draw(st.lists(st.integers(0, len(value) - 1), min_size=2, max_size=2, unique=True))
        value[i], value[j] = value[j], value[i]
    elif how == "text" and isinstance(value, str) and value:
        i = draw(st.integers(0, len(value) - 1))
        change = draw(st.sampled_from(("double", "drop", "other")))
        if change == "double":
            container[key] = value[: i + 1] + value[i:]
        elif change == "drop":
            container[key] = value[:i] + value[i + 1 :]
        else:
            container[key] = value[:i] + draw(st.sampled_from(LETTERS + "_aE ")) + value[i + 1 :]
    elif how == "owner" and data["bag"]:
        # a letter changes owner: from the bag to a screen
        seat = draw(st.integers(0, len(data["supplies"]) - 1))
        i = draw(st.integers(0, len(data["bag"]) - 1))
        data["supplies"][seat] += data["bag"][i]
        data["bag"] = data["bag"][:i] + data["bag"][i + 1 :]
    else:
        container[key] = draw(st.sampled_from(OTHER_VALUES))
    return index, data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_mutated_state_loads_and_round_trips_or_is_refused(case):
    index, data = case
    game = KrzGrtnGame(**CONFIGS[index])
    try:
        state = game.state_from_json(data)
    except InvalidStateError:
        return
    saved = state.to_json()
    assert game.state_from_json(json.loads(json.dumps(saved))).to_json() == saved
    rng = np.random.default_rng(0)
    for _ in range(400):  # a position that loads plays on to the end without a crash
        state.check_conservation()
        if state.is_terminal():
            break
        legal = np.flatnonzero(state.legal_action_mask())
        assert legal.size
        state.apply(int(legal[rng.integers(legal.size)]))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(KEYS), st.sampled_from(OTHER_VALUES))
def test_any_value_of_any_key_loads_or_is_refused(key, value):
    data = base("clue")
    data[key] = value
    try:
        GAME.state_from_json(data)
    except InvalidStateError as error:
        assert error.field

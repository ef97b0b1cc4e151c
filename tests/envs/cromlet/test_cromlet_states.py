"""Saved Cromlet states: every reachable position loads and round-trips; anything the rules cannot reach is
refused with an `InvalidStateError` naming the field (`envs/cromlet/saved.py`). Also: actions that are not
actions, given to `apply` and `action_to_string`."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tabletop import envs
from tabletop.envs.core import IllegalActionError, InvalidStateError
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.rules import NUM_ACTIONS, CromletGame

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4, "teams": 2},
    {"num_players": 6, "teams": 3},
    {"num_players": 2, "claim_limit": 1},
    {"num_players": 3, "hand_size": 1},
    {"num_players": 6, "hand_size": 23},  # the whole deck dealt: the deck is empty from the start
]


def play(config: dict, seed: int, games: int):
    """Every position along `games` seeded random games, the final ones included."""
    game = CromletGame(**config)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state(rng)
        yield state
        while not state.is_terminal():
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
            yield state


def saved(config: dict, where=lambda state: True, seed: int = 0) -> dict:
    """The first position of seeded random games that `where` accepts, saved and read back as JSON."""
    state = next(s for s in play(config, seed, games=30) if where(s))
    return json.loads(json.dumps(state.to_json()))


def refused(config: dict, data: dict) -> InvalidStateError:
    with pytest.raises(InvalidStateError) as caught:
        CromletGame(**config).state_from_json(data)
    return caught.value


# --- every reachable position -------------------------------------------------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_every_visited_state_validates_and_round_trips(config):
    game = CromletGame(**config)
    visited = ends = 0
    for state in play(config, seed=4, games=2):
        data = json.loads(json.dumps(state.to_json()))
        back = game.state_from_json(data)
        assert back.to_json() == data and back.is_terminal() == state.is_terminal()
        np.testing.assert_array_equal(back.legal_action_mask(), state.legal_action_mask())
        visited += 1
        ends += state.is_terminal()
    assert ends == 2 and visited > 2 * 20


# --- tampered states: one kind of impossibility each ---------------------------------------------------------
TWO = {"num_players": 2}
LIMIT_ONE = {"num_players": 2, "claim_limit": 1}
THREE_LIMIT_ONE = {"num_players": 3, "claim_limit": 1}


def _opening(state) -> bool:
    """Early, no cards traded yet: every move so far covered a circle, so the turn order is exact."""
    return 4 <= len(state.cover[state.cover >= 0]) and sum(map(len, state.discards)) == np.count_nonzero(
        state.cover >= 0
    )


def _claimed_high(state) -> bool:
    """A cromlet claimed above its lowest circle, with a card (not a wild) on the lowest."""
    return any(
        state.claimed_by[k] >= 0 and state.claim_circle[k] > B.CROMLET_START[k] and not state.wild[B.CROMLET_START[k]]
        for k in range(B.NUM_CROMLETS)
    )


def _closed_at_limit(state) -> bool:
    """A cromlet closed without a claim, and a seat that has not claimed yet."""
    return any(_limit_closed_letter(state, k) for k in range(B.NUM_CROMLETS)) and state.team_claims.min() == 0


def _limit_closed_letter(state, k: int) -> bool:
    return bool(state.closed[k] and state.claimed_by[k] < 0)


def _a_claim(data: dict) -> tuple[str, dict]:
    return next(iter(data["claims"].items()))


def _played(data: dict) -> tuple[str, int]:
    """A circle covered with its own card, and its coverer."""
    return next((c, p) for c, p in data["covered"].items() if c not in data["wild_covered"])


def _move_card(source: list, target: list) -> None:
    target.append(source.pop(0))


def _deck_circle_card(data: dict) -> int:
    """The index of the first circle card (not a wild) in the deck."""
    return next(i for i, card in enumerate(data["deck"]) if card != "wild")


def _case(kind, config, where, tamper, field, match=""):
    return pytest.param(config, where, tamper, field, match, id=f"{kind}: {tamper.__doc__ or tamper.__name__}")


def _with(**changes):
    def tamper(data):
        data.update(changes)

    tamper.__doc__ = ", ".join(f"{k}={v!r}" for k, v in changes.items())
    return tamper


def _without(key):
    def tamper(data):
        del data[key]

    tamper.__doc__ = f"no {key!r}"
    return tamper


def t_config_players(data):
    """config.num_players 4 in a 2-player env"""
    data["config"]["num_players"] = 4


def t_config_limit(data):
    """config.claim_limit 5 in a limit-12 env"""
    data["config"]["claim_limit"] = 5


def t_config_extra(data):
    """an unknown config key"""
    data["config"]["speed"] = 2


def t_unknown_key(data):
    """an unknown top-level key"""
    data["covred"] = {}


def t_card_two_hands(data):
    """a card in two hands"""
    data["hands"][0][0] = data["hands"][1][0]


def t_card_hand_and_deck(data):
    """a hand card also in the deck"""
    data["deck"][-1] = data["hands"][0][0]


def t_played_card_in_hand(data):
    """a played card back in the deck as well"""
    data["deck"][-1] = _played(data)[0]


def t_missing_card(data):
    """a deck card missing"""
    data["deck"].pop()


def t_missing_wild(data):
    """a wild missing"""
    pile = next(p for p in data["hands"] + [data["deck"]] if "wild" in p)
    pile[pile.index("wild")] = data["deck"][-1]
    data["deck"].pop()


def t_extra_wilds(data):
    """five extra wilds"""
    data["deck"] += ["wild"] * 5


def t_unknown_card(data):
    """a card that does not exist"""
    data["hands"][0][0] = "Z9"


def t_30_card_hand(data):
    """a 30-card hand"""
    data["hands"][0] += data["deck"][:23]
    del data["deck"][:23]


def t_short_hand(data):
    """a short hand while the deck lasts"""
    _move_card(data["hands"][1], data["deck"])


def t_grown_hand(data):
    """the deck empty, and the player who moved last holds more than the one to move"""
    _move_card(data["hands"][data["current_player"]], data["hands"][data["current_player"] - 1])


def t_seat_out_of_range(data):
    """a crown of seat 2 in a 2-player game"""
    circle = next(iter(data["covered"]))
    data["covered"][circle] = 2


def t_seat_bool(data):
    """a crown of seat True"""
    circle = next(iter(data["covered"]))
    data["covered"][circle] = True


def t_unknown_circle(data):
    """a crown on circle Q9"""
    data["covered"]["Q9"] = 0


def t_wild_circle(data):
    """a crown on 'wild'"""
    data["covered"]["wild"] = 0


def t_wild_not_covered(data):
    """a wild on a circle without a crown"""
    data["wild_covered"].append(next(c for c in B.CIRCLE_NAMES if c not in data["covered"]))


def t_wild_twice(data):
    """a circle listed twice as wild-covered"""
    data["wild_covered"].append(data["wild_covered"][0])


def t_claim_letter(data):
    """a claim of cromlet Y"""
    data["claims"]["Y"] = {"by": 0, "circle": "A2"}


def t_claim_shape(data):
    """a claim that is not an object"""
    letter, _ = _a_claim(data)
    data["claims"][letter] = [0, "A2"]


def t_claim_extra(data):
    """a claim with an unknown key"""
    _a_claim(data)[1]["points"] = 3


def t_claim_no_by(data):
    """a claim without 'by'"""
    del _a_claim(data)[1]["by"]


def t_claim_wrong_cromlet(data):
    """a claim on another cromlet's circle"""
    letter, claim = _a_claim(data)
    claim["circle"] = next(c for c in B.CIRCLE_NAMES if not c.startswith(letter))


def t_claim_other_crown(data):
    """a claim by the seat whose crown is not on the circle"""
    claim = _a_claim(data)[1]
    claim["by"] = 1 - claim["by"]


def t_claim_open_below(data):
    """a claim while a lower circle is open"""
    k = next(
        k
        for k in range(B.NUM_CROMLETS)
        if B.LETTERS[k] in data["claims"]
        and B.card_type(data["claims"][B.LETTERS[k]]["circle"]) > B.CROMLET_START[k]
        and B.CIRCLE_NAMES[B.CROMLET_START[k]] not in data["wild_covered"]
    )
    del data["covered"][B.CIRCLE_NAMES[B.CROMLET_START[k]]]


def t_over_limit(data):
    """a second claim for a seat at claim limit 1"""
    mine = _a_claim(data)[1]["by"]
    claim = next(c for c in data["claims"].values() if c["by"] != mine)
    claim["by"] = mine
    data["covered"][claim["circle"]] = mine


def t_claimed_open(data):
    """a claimed cromlet not listed as closed"""
    data["closed"].remove(_a_claim(data)[0])


def t_closed_open(data):
    """an unclaimed cromlet with open circles listed as closed"""
    data["closed"].append(next(L for L in B.LETTERS if L not in data["closed"]))


def t_closed_twice(data):
    """a cromlet listed twice as closed"""
    data["closed"].append(data["closed"][0])


def t_full_not_closed(data):
    """a fully covered cromlet not listed as closed"""
    state = CromletGame(**data["config"]).state_from_json(copy.deepcopy(data))
    k = next(k for k in range(B.NUM_CROMLETS) if _limit_closed_letter(state, k))
    data["closed"].remove(B.LETTERS[k])


def t_closed_nobody_at_limit(data):
    """closed without a claim, though no crown on it is of a player at the claim limit"""
    state = CromletGame(**data["config"]).state_from_json(copy.deepcopy(data))
    k = next(k for k in range(B.NUM_CROMLETS) if _limit_closed_letter(state, k))
    low = int(np.argmin(state.team_claims))
    for c in B.circles_of(k):
        data["covered"][B.CIRCLE_NAMES[c]] = low


def t_score(data):
    """team_scores[0] off by one"""
    data["team_scores"][0] += 1


def t_claim_count(data):
    """team_claims[0] off by one"""
    data["team_claims"][0] += 1


def t_score_nan(data):
    """team_scores[0] NaN"""
    data["team_scores"][0] = float("nan")


def t_scores_length(data):
    """three team scores for two teams"""
    data["team_scores"].append(0.0)


def t_pile_lacks_played_card(data):
    """a played card swapped off its coverer's pile for a deck card"""
    circle, seat = _played(data)
    pile, i = data["discards"][seat], _deck_circle_card(data)
    pile[pile.index(circle)], data["deck"][i] = data["deck"][i], circle


def t_pile_wilds(data):
    """a wild played but no wild on the pile"""
    seat = data["covered"][data["wild_covered"][0]]
    pile, i = data["discards"][seat], _deck_circle_card(data)
    pile[pile.index("wild")], data["deck"][i] = data["deck"][i], "wild"


def t_pile_live_card(data):
    """a live card traded in"""
    live = next(c for c in data["deck"] if c != "wild" and c not in data["covered"] and c[0] not in data["closed"])
    data["deck"].remove(live)
    data["discards"][0].append(live)


def t_swap_piles(data):
    """the two discard piles swapped"""
    data["discards"].reverse()


def t_current(data):
    """the other seat to move"""
    data["current_player"] = 1 - data["current_player"]


def t_dealer(data):
    """the other seat dealt"""
    data["dealer"] = 1 - data["dealer"]


def t_terminal_early(data):
    """terminal: true in a game not over"""
    data["terminal"] = True


def t_terminal_late(data):
    """terminal: false after every cromlet closed"""
    data["terminal"] = False


def t_stuck(data):
    """terminal: false with the player to move unable to play"""
    data["terminal"] = False


def _over_all_closed(state) -> bool:
    """Over because every cromlet is closed, though the next player could still trade a dead card."""
    return state.is_terminal() and state.closed.all() and bool(state.deck) and len(state.dead_cards(state._current)) > 0


def _stuck(state) -> bool:
    return state.is_terminal() and not state.closed.all()


def anywhere(state) -> bool:
    """The first position will do."""
    return True


def mid_game(state) -> bool:
    """Mid-game: a claim made, a wild played, the deck still long."""
    return len(state.deck) > 30 and state.claimed_by.max() >= 0 and state.wild.any()


def deck_gone(state) -> bool:
    """The deck gone, and the player who moved last has played a card since."""
    return not state.deck and not state.is_terminal() and state.hand_sizes[state.current_player - 1] < 7


TAMPERS = [
    # the header: game and configuration
    _case("header", TWO, anywhere, _with(game="chromino"), "game", "this env plays 'cromlet'"),
    _case("header", TWO, anywhere, _with(game=7), "game", "must be str"),
    _case("header", TWO, anywhere, t_config_players, "config", "saved for"),
    _case("header", TWO, anywhere, t_config_limit, "config"),
    _case("header", TWO, anywhere, t_config_extra, "config"),
    _case("header", TWO, anywhere, t_unknown_key, "covred", "unknown key"),
    # every key a saved state has
    *[
        _case("missing key", TWO, mid_game, _without(key), key, "missing")
        for key in (
            "game",
            "config",
            "dealer",
            "current_player",
            "terminal",
            "covered",
            "wild_covered",
            "claims",
            "closed",
            "hands",
            "deck",
            "discards",
            "team_scores",
            "team_claims",
        )
    ],
    # wrong types
    _case("type", TWO, anywhere, _with(dealer="0"), "dealer", "must be int"),
    _case("type", TWO, anywhere, _with(current_player=1.0), "current_player", "must be int"),
    _case("type", TWO, anywhere, _with(current_player=True), "current_player", "must be int"),
    _case("type", TWO, anywhere, _with(terminal=0), "terminal", "must be bool"),
    _case("type", TWO, anywhere, _with(covered=[]), "covered", "must be dict"),
    _case("type", TWO, anywhere, _with(wild_covered={}), "wild_covered", "must be list"),
    _case("type", TWO, anywhere, _with(claims=[]), "claims", "must be dict"),
    _case("type", TWO, anywhere, _with(closed="A"), "closed", "must be list"),
    _case("type", TWO, anywhere, _with(hands={}), "hands", "must be list"),
    _case("type", TWO, anywhere, _with(hands=["Q8", "A2"]), "hands[0]", "must be a list of cards"),
    _case("type", TWO, anywhere, _with(deck="X24"), "deck", "must be list"),
    _case("type", TWO, anywhere, _with(discards=None), "discards", "must be list"),
    _case("type", TWO, anywhere, _with(team_scores=0), "team_scores", "must be list"),
    _case("type", TWO, anywhere, _with(team_claims=[0, "0"]), "team_claims[1]", "must be a number"),
    _case("type", TWO, mid_game, t_seat_bool, "covered.", "must be an int"),
    _case("type", TWO, mid_game, t_claim_shape, "claims.", "must be a JSON object"),
    # values out of range, names that do not exist
    _case("range", TWO, anywhere, _with(dealer=2), "dealer", "out of range"),
    _case("range", TWO, anywhere, _with(dealer=-1), "dealer", "out of range"),
    _case("range", TWO, anywhere, _with(current_player=5), "current_player", "out of range"),
    _case("range", TWO, mid_game, t_seat_out_of_range, "covered.", "out of range"),
    _case("range", TWO, anywhere, t_unknown_card, "hands[0][0]", "unknown Cromlet card"),
    _case("range", TWO, anywhere, t_unknown_circle, "covered.Q9", "unknown Cromlet card"),
    _case("range", TWO, anywhere, t_wild_circle, "covered.wild", "not a circle"),
    _case("range", TWO, mid_game, t_claim_letter, "claims", "unknown cromlet"),
    _case("range", TWO, mid_game, t_claim_extra, "claims.", "unknown key"),
    _case("range", TWO, mid_game, t_claim_no_by, "claims.", "missing"),
    _case("range", TWO, mid_game, _with(closed=["Z"]), "closed[0]", "unknown cromlet"),
    # every card exactly once
    _case("conservation", TWO, anywhere, t_card_two_hands, "hands[1]", "here again"),
    _case("conservation", TWO, anywhere, t_card_hand_and_deck, "deck", "here again"),
    _case("conservation", TWO, mid_game, t_played_card_in_hand, "discards[", "here again"),
    _case("conservation", TWO, anywhere, t_missing_card, "cards", "missing"),
    _case("conservation", TWO, anywhere, t_missing_wild, "cards", "5 of the 6 wilds"),
    _case("conservation", TWO, anywhere, t_extra_wilds, "deck", "a wild too many"),
    # hand limits
    _case("hand limit", TWO, anywhere, t_30_card_hand, "hands[0]", "holds 30 cards; a full hand is 7"),
    _case("hand limit", TWO, anywhere, t_short_hand, "hands[1]", "while the deck still has"),
    _case("hand limit", TWO, deck_gone, t_grown_hand, "hands", "with the deck empty"),
    # crowns, wilds, claims and closed cromlets that agree
    _case("board", TWO, mid_game, t_wild_not_covered, "wild_covered[", "has no crown"),
    _case("board", TWO, mid_game, t_wild_twice, "wild_covered[", "listed twice"),
    _case("board", TWO, mid_game, t_claim_wrong_cromlet, "claims.", "is not a circle of cromlet"),
    _case("board", TWO, mid_game, t_claim_other_crown, "claims.", "crown must be on it"),
    _case("board", TWO, _claimed_high, t_claim_open_below, "claims.", "below it is open"),
    _case("board", LIMIT_ONE, lambda s: s.team_claims.min() == 1, t_over_limit, "claims", "the claim limit is 1"),
    _case("board", TWO, mid_game, t_claimed_open, "closed", "is claimed, so it is closed"),
    _case("board", TWO, anywhere, t_closed_open, "closed", "only once every circle"),
    _case("board", TWO, mid_game, t_closed_twice, "closed[", "listed twice"),
    _case("board", THREE_LIMIT_ONE, _closed_at_limit, t_full_not_closed, "closed", "is covered, so"),
    _case("board", THREE_LIMIT_ONE, _closed_at_limit, t_closed_nobody_at_limit, "closed", "at the claim limit"),
    # totals the claims imply
    _case("totals", TWO, mid_game, t_score, "team_scores[0]", "but the claims give"),
    _case("totals", TWO, mid_game, t_claim_count, "team_claims[0]", "but the claims give"),
    _case("totals", TWO, mid_game, t_score_nan, "team_scores[0]", "but the claims give"),
    _case("totals", TWO, mid_game, t_scores_length, "team_scores", "must list 2 numbers"),
    # discard piles: the cards each seat played, and dead cards it traded
    _case("discards", TWO, mid_game, t_pile_lacks_played_card, "discards[", "with its card"),
    _case("discards", TWO, mid_game, t_pile_wilds, "discards[", "wild"),
    _case("discards", TWO, mid_game, t_pile_live_card, "discards[0]", "neither a card seat 0 played nor a dead card"),
    _case("discards", TWO, _opening, t_swap_piles, "discards[0]", ""),
    # whose turn it is, and whether the game is over
    _case("turn", TWO, _opening, t_current, "current_player", "do not leave seat"),
    _case("turn", TWO, _opening, t_dealer, "current_player", "do not leave seat"),
    _case("phase", TWO, mid_game, t_terminal_early, "terminal", "can play"),
    _case("phase", TWO, _over_all_closed, t_terminal_late, "terminal", "every cromlet is closed"),
    _case("phase", TWO, _stuck, t_stuck, "current_player", "no legal action"),
]


@pytest.mark.parametrize("config,where,tamper,field,match", TAMPERS)
def test_a_tampered_state_is_refused_naming_the_field(config, where, tamper, field, match):
    data = saved(config, where)
    CromletGame(**config).state_from_json(copy.deepcopy(data))  # the untouched state loads
    tamper(data)
    error = refused(config, data)
    assert error.field == field or (field.endswith((".", "[")) and error.field.startswith(field)), str(error)
    assert match in error.problem, str(error)


def test_a_state_that_is_not_an_object_is_refused():
    for data in ([], "cromlet", None, 7):
        assert refused(TWO, data).field == "state"


def test_env_load_json_and_the_agent_protocol_refuse_the_same_way():
    env = envs.make_raw("cromlet_v0")
    env.reset(seed=0)
    data = saved(TWO)
    data["hands"][0][0] = data["hands"][1][0]
    with pytest.raises(InvalidStateError, match="hands"):
        env.load_json(data)


# --- property: mutate one field of a valid state --------------------------------------------------------------
POOL = [
    (config, json.loads(json.dumps(state.to_json())))
    for config in ({"num_players": 2}, {"num_players": 3}, {"num_players": 4, "teams": 2}, LIMIT_ONE)
    for i, state in enumerate(play(config, seed=8, games=1))
    if i % 9 == 0 or state.is_terminal()
]
ODD_VALUES = [None, True, False, 0, 1, -1, 2, 1.5, "", "A", "Q8", "wild", [], {}, [0], {"by": 0}]


def _locations(node, path=()):
    """Every place in a JSON tree, as a path of keys and indices."""
    yield path
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield from _locations(child, (*path, key))


def _at(data, path):
    for key in path:
        data = data[key]
    return data


@st.composite
def mutated(draw, how: str):
    config, data = draw(st.sampled_from(POOL))
    data = copy.deepcopy(data)
    places = [p for p in _locations(data) if p]
    if how == "drop":  # a key of an object or an item of a list
        path = draw(st.sampled_from(places))
        del _at(data, path[:-1])[path[-1]]
    elif how == "retype":
        path = draw(st.sampled_from(places))
        _at(data, path[:-1])[path[-1]] = draw(st.sampled_from(ODD_VALUES))
    elif how == "shift":  # a number moved
        numbers = [p for p in places if isinstance(_at(data, p), (int, float)) and not isinstance(_at(data, p), bool)]
        path = draw(st.sampled_from(numbers))
        _at(data, path[:-1])[path[-1]] += draw(st.sampled_from([-50, -2, -1, 1, 2, 50]))
    elif how == "duplicate":  # an item of a list repeated elsewhere in it
        lists = [p for p in places if isinstance(_at(data, p), list) and _at(data, p)]
        items = _at(data, draw(st.sampled_from(lists)))
        item = draw(st.sampled_from(items))
        items.insert(draw(st.integers(0, len(items))), copy.deepcopy(item))
    else:  # "swap": two values of one kind trade places (cards between piles, seats between crowns, two piles)
        leaves = [p for p in places if not isinstance(_at(data, p), (dict, list))]
        path = draw(st.sampled_from(leaves))
        other = draw(st.sampled_from([p for p in leaves if type(_at(data, p)) is type(_at(data, path))]))
        a, b = _at(data, path), _at(data, other)
        _at(data, path[:-1])[path[-1]], _at(data, other[:-1])[other[-1]] = b, a
    return config, data


@pytest.mark.parametrize("how", ["drop", "retype", "shift", "duplicate", "swap"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(draw=st.data())
def test_a_mutated_state_either_loads_and_round_trips_or_is_refused(how, draw):
    config, data = draw.draw(mutated(how))
    game = CromletGame(**config)
    try:
        state = game.state_from_json(data)
    except InvalidStateError as error:
        event(f"refused ({error.field.split('[')[0].split('.')[0]})")
        return
    event("loaded")
    again = json.loads(json.dumps(state.to_json()))
    assert game.state_from_json(again).to_json() == again


# --- actions that are not actions --------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 10**6, 5.0, "3", True, None, np.float64(3)])
def test_action_to_string_names_the_allowed_range(action):
    state = CromletGame().new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match=rf"not a Cromlet action; actions are ints in \[0, {NUM_ACTIONS}\)"):
        state.action_to_string(action)


@pytest.mark.parametrize("action", [5.0, "3", True, False, None, -1, NUM_ACTIONS, np.bool_(True), 3.7])
def test_apply_refuses_what_is_not_an_action(action):
    state = CromletGame().new_initial_state(np.random.default_rng(0))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match=r"not an action|not legal"):
        state.apply(action)
    assert state.to_json() == before


def test_numpy_ints_are_actions():
    state = CromletGame().new_initial_state(np.random.default_rng(0))
    action = np.flatnonzero(state.legal_action_mask())[0]
    assert state.action_to_string(action) == state.action_to_string(int(action))
    state.apply(action)

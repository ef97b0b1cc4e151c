"""Cromlet on a chosen part of the printed board (`cromlets`) with fewer wilds (`wilds`): the same rules on a
smaller table, and the defaults exactly the printed game."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_cromlet_states import play as positions

from tabletop import envs
from tabletop.envs.core import InvalidStateError, ParameterError
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.observe import CromletObserver
from tabletop.envs.cromlet.rules import CromletGame

SMALL = {"num_players": 2, "cromlets": ["A", "D"], "wilds": 1, "hand_size": 2, "claim_limit": 1}
IN_PLAY = np.isin(B.CIRCLE_CROMLET, [B.cromlet_index("A"), B.cromlet_index("D")])


# --- the defaults are the printed game ----------------------------------------------------------------------
def test_by_default_the_deck_is_the_printed_one_and_saved_states_keep_their_keys():
    game = CromletGame()
    assert game.cards.tolist() == list(range(B.NUM_CIRCLES)) + [B.WILD] * B.NUM_WILDS
    assert game.in_play.all() and set(game.config()) == {"num_players", "teams", "claim_limit", "hand_size"}
    explicit = CromletGame(cromlets=list(B.LETTERS), wilds=B.NUM_WILDS)
    a, b = game.new_initial_state(np.random.default_rng(5)), explicit.new_initial_state(np.random.default_rng(5))
    assert a.deck == b.deck and (a.hands == b.hands).all() and a.dealer == b.dealer


# --- the smaller table ----------------------------------------------------------------------------------------
def test_the_deck_holds_the_chosen_cromlets_cards_and_the_wilds_and_the_rest_stay_closed():
    game = CromletGame(**SMALL)
    state = game.new_initial_state(np.random.default_rng(0))
    cards = np.bincount(np.asarray(state.deck), minlength=B.WILD + 1) + state.hands.sum(axis=0)
    assert cards[: B.NUM_CIRCLES].tolist() == IN_PLAY.astype(int).tolist() and cards[B.WILD] == 1
    assert state.closed.tolist() == [letter not in "AD" for letter in B.LETTERS]
    assert not state.open_circles()[~IN_PLAY].any() and state.open_circles()[IN_PLAY].all()
    assert state.to_json()["closed"] == [] and state.to_json()["config"]["cromlets"] == ["A", "D"]


def test_random_games_play_only_the_chosen_cromlets_and_end_when_they_are_closed():
    ends = 0
    for state in positions(SMALL, 3, games=200):
        mask = state.legal_action_mask()
        circles = np.flatnonzero(mask[:528]) % B.NUM_CIRCLES
        assert IN_PLAY[circles].all()
        assert (state.cover[~IN_PLAY] < 0).all() and (state.claimed_by[~state.game.in_play] < 0).all()
        assert (state.team_claims <= 1).all() and state.team_scores.sum() <= 9 + 15
        if state.is_terminal():
            ends += 1
            assert state.closed.all() or not mask.any()
    assert ends == 200


def test_the_private_observation_shows_cards_out_of_play_as_neither_held_nor_unseen():
    game = CromletGame(**SMALL)
    observer = CromletObserver(game, False)
    state = game.new_initial_state(np.random.default_rng(1))
    circles = observer.layout.block(observer.encode(state, 0), "circles")
    unseen = circles[:, 5]  # "its card is unseen", `circle_channels`
    assert not unseen[~IN_PLAY].any() and unseen[IN_PLAY].sum() == IN_PLAY.sum() - state.hands[0, :132].sum()
    assert observer.layout.block(observer.encode(state, 0), "cromlet_closed").sum() == B.NUM_CROMLETS - 2


def test_resampling_deals_only_the_games_cards():
    rng = np.random.default_rng(2)
    for state in positions(SMALL, 2, games=20):
        if state.is_terminal():
            continue
        other = state.resample(state.current_player, rng)
        cards = other.hands.sum(axis=0) + other.discard_counts.sum(axis=0)
        cards += np.bincount(np.asarray(other.deck, dtype=np.int64), minlength=B.WILD + 1)
        assert cards.tolist() == state.game.copies.tolist()


# --- saved states ---------------------------------------------------------------------------------------------
def test_every_position_round_trips_and_the_printed_games_config_refuses_it():
    game = CromletGame(**SMALL)
    for state in positions(SMALL, 4, games=10):
        data = json.loads(json.dumps(state.to_json()))
        back = game.state_from_json(data)
        assert back.to_json() == data and (back.closed == state.closed).all()
        np.testing.assert_array_equal(back.legal_action_mask(), state.legal_action_mask())
    with pytest.raises(InvalidStateError, match="config"):
        CromletGame().state_from_json(data)


def _refusal(tamper) -> InvalidStateError:
    data = json.loads(json.dumps(CromletGame(**SMALL).new_initial_state(np.random.default_rng(0)).to_json()))
    tamper(data)
    with pytest.raises(InvalidStateError) as caught:
        CromletGame(**SMALL).state_from_json(data)
    return caught.value


def test_a_saved_state_that_uses_a_cromlet_out_of_play_is_refused():
    error = _refusal(lambda d: d["deck"].__setitem__(0, "Q8"))
    assert error.field == "deck" and "Q8 is not in this game's deck" in error.problem and "A, D" in error.problem
    error = _refusal(lambda d: d["covered"].__setitem__("Q8", 0))
    assert error.field == "covered.Q8" and "not in play" in error.problem
    error = _refusal(lambda d: d["closed"].append("Q"))
    assert error.field == "closed[0]" and "Q is not in play" in error.problem
    error = _refusal(lambda d: d["deck"].append("wild"))
    assert error.field == "deck" and "a wild too many: there are 1" in error.problem


# --- bad arguments ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cromlets", ["A D", ["A", "A"], ["Z"], [], [1], "none"])
def test_a_bad_choice_of_cromlets_is_one_line_naming_what_is_allowed(cromlets):
    with pytest.raises(ParameterError) as refused:
        envs.make("cromlet_v0", cromlets=cromlets)
    message = str(refused.value)
    assert message.startswith(f"cromlet_v0: cromlets={cromlets!r} is not allowed; allowed: all 24 (the default)")
    assert "\n" not in message


def test_a_hand_size_too_big_for_the_smaller_deck_names_the_cards():
    with pytest.raises(
        ParameterError, match=r"hand_size=4 is not allowed for 2 players and 7 cards; allowed: an int from 1 to 3$"
    ):
        CromletGame(**{**SMALL, "hand_size": 4})
    with pytest.raises(ParameterError, match=r"hand_size=1 is not allowed for 6 players and 3 cards; allowed: none"):
        CromletGame(num_players=6, cromlets=["A"], wilds=0, hand_size=1)
    assert CromletGame(**{**SMALL, "hand_size": 3}).hand_size == 3

"""Smaller games of Kings Cribbage: `rack_size`, `box` and boards of 3 and 4. The arguments are checked with
one-line errors, their defaults play the full game unchanged, and every size keeps the rules (the move sets and
masks against exhaustive search, saved states, redrawn hidden tiles)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from support.kings_cribbage import brute_moves
from test_kings_cribbage_oracle import _play_and_check

from tabletop.envs import EnvSpec
from tabletop.envs.core import InvalidStateError, ParameterError
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.tiles import NUM_KINDS, TILES_PER_KIND

SMALL = {"board_size": 3, "rack_size": 2, "box": [3, 4, 9, 9, 10]}  # kings_cribbage_small, in tiles mode
FULL_BOX = [k for k in range(NUM_KINDS) for _ in range(TILES_PER_KIND)]


def _random_states(game: KingsCribbageGame, seed: int):
    """Every state of a seeded random game, the terminal one included."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    while True:
        yield state
        if state.is_terminal():
            return
        state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize(
    "config, message",
    [
        ({"rack_size": 1}, "rack_size=1 is not allowed; allowed: an int from 2 to 5"),
        ({"rack_size": 6}, "rack_size=6 is not allowed; allowed: an int from 2 to 5"),
        ({"board_size": 2}, "board_size=2 is not allowed; allowed: an int from 3 to 26"),
        ({"box": [4, 26]}, "box=[4, 26] is not allowed; allowed: all 104 tiles (the default), or a list of kinds"),
        ({"box": [4] * 5}, "box=[4, 4, 4, 4, 4] is not allowed; allowed: all 104 tiles"),
        ({"box": [4, 4, True, 9]}, "is not allowed; allowed: all 104 tiles"),
        ({"box": "4 9"}, "box='4 9' is not allowed; allowed: all 104 tiles"),
        ({"box": [4, 9, 17]}, "box has too few tiles to fill 2 racks of 5 (3); allowed: a box with at least 10 tiles"),
        (
            {"box": [4, 9, 17, 22], "rack_size": 2, "num_players": 3},
            "box has too few tiles to fill 3 racks of 2 (4); allowed: a box with at least 6 tiles",
        ),
        (
            {"box": [4, 17, 22, 23], "rack_size": 2, "variant": "solitaire"},
            "box has too few light tiles to fill 1 rack of 2 (1); allowed: a box with at least 2 light tiles",
        ),
    ],
    ids=str,
)
def test_bad_sizes_are_one_line_errors_naming_what_is_allowed(config, message):
    with pytest.raises(ParameterError) as refused:
        EnvSpec("kings_cribbage_v0", config).new_game()
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_the_defaults_are_the_full_game_and_its_saved_states_are_unchanged():
    game = KingsCribbageGame()
    assert game.rack_size == 5 and game.box is None and game.bag_tiles() == [FULL_BOX]
    assert "rack_size" not in game.config() and "box" not in game.config()
    light = [k for k in FULL_BOX if k < 13]
    assert KingsCribbageGame(variant="solitaire").bag_tiles() == [light, [k + 13 for k in light]]


@pytest.mark.parametrize("mode", ["tiles", "moves"])
def test_the_whole_set_as_a_box_plays_the_default_game_bit_for_bit(mode):
    default, boxed = KingsCribbageGame(action_mode=mode), KingsCribbageGame(action_mode=mode, box=FULL_BOX)
    for seed in range(2):
        for a, b in zip(_random_states(default, seed), _random_states(boxed, seed), strict=True):
            assert a.racks == b.racks and a.bags == b.bags and a.score == b.score
            assert (a.values == b.values).all() and a.legal_actions().tolist() == b.legal_actions().tolist()


@pytest.mark.parametrize("mode", ["tiles", "moves"])
def test_a_small_game_deals_racks_of_its_size_from_its_box_only(mode):
    game = KingsCribbageGame(action_mode=mode, **SMALL)
    assert game.config()["box"] == [3, 4, 9, 9, 10] and game.config()["rack_size"] == 2
    for seed in range(20):
        for state in _random_states(game, seed):
            board = (state.colours * 13 + state.printed - 1)[state.values > 0].tolist()
            tiles = Counter(board) + Counter(k for r in state.racks + state.bags for k in r)
            assert tiles == Counter(SMALL["box"])
            assert all(len(r) == 2 for r in state.racks) or not state.bags[0]
            assert KingsCribbageGame.state_from_json(game, state.to_json()).to_json() == state.to_json()


def test_saved_states_of_a_small_game_hold_its_tiles_and_racks_exactly():
    game = KingsCribbageGame(**SMALL)
    data = game.new_initial_state(np.random.default_rng(0)).to_json()
    for field, change, problem in [
        ("tiles", lambda d: d["bags"][0].append(9), "the game has 2 of this kind"),
        ("racks[0]", lambda d: d["racks"][0].append(d["bags"][0].pop()), "a rack holds at most 2"),
        ("config", lambda d: d["config"].update(box=[4, 9, 9, 9, 9]), "box"),
    ]:
        broken = {**data, "bags": [list(b) for b in data["bags"]], "racks": [list(r) for r in data["racks"]]}
        broken["config"] = dict(data["config"])
        change(broken)
        with pytest.raises(InvalidStateError, match=problem) as refused:
            game.state_from_json(broken)
        assert refused.value.field == field


def test_redrawn_hidden_tiles_come_from_the_box():
    game = KingsCribbageGame(**SMALL)
    rng = np.random.default_rng(0)
    for seed in range(10):
        for state in _random_states(game, seed):
            if state.is_terminal():
                break
            seat = 1 - state.current_player
            drawn = state.resample(seat, rng)
            assert drawn.racks[seat] == state.racks[seat]
            assert sorted(drawn.racks[1 - seat] + drawn.bags[0]) == sorted(state.racks[1 - seat] + state.bags[0])


@pytest.mark.slow
@pytest.mark.parametrize(
    "config, seeds",
    [
        ({"board_size": 3}, range(500, 530)),
        ({"board_size": 4}, range(600, 620)),
        ({"board_size": 4, "rack_size": 3, "box": [0, 3, 4, 4, 5, 8, 9, 9, 10, 17, 21, 22, 25]}, range(700, 730)),
        ({**SMALL, "box": [4, 4, 9, 9, 9]}, range(800, 860)),
        (SMALL, range(900, 960)),
    ],
    ids=str,
)
def test_small_sizes_match_exhaustive_search_move_for_move_and_mask_for_mask(config, seeds):
    game = KingsCribbageGame(**config)
    assert sum(_play_and_check(game, seed) for seed in seeds) >= 150


def test_no_small_variant_position_has_more_moves_than_the_offer_holds():
    """In moves mode the variant offers every legal move (none is cut at the default 64): its most is far below."""
    game = KingsCribbageGame(action_mode="moves", **SMALL)
    most = 0
    for seed in range(40):
        for state in _random_states(game, seed):
            if not state.is_terminal():
                moves = brute_moves(state.values, state.colours, state.racks[state.current], game.board_size)
                assert len(state.offered) == len(moves) <= game.max_moves
                most = max(most, len(moves))
    assert 10 < most < game.max_moves

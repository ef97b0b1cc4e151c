"""KRZ GRTN rules, one scenario per rule, built from JSON states (see test_krz_grtn_support.scenario)."""

from __future__ import annotations

import numpy as np
import pytest
from support.krz_grtn import load, scenario

from tabletop.envs.core import IllegalActionError, ParameterError
from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.pictures import CONCEPT_ID, NUM_CARDS
from tabletop.envs.krz_grtn.rules import CLUE, GUESS, OVER, RETURN, VOTE, KrzGrtnGame
from tabletop.envs.krz_grtn.tiles import BLANK, LETTER_COUNTS, LETTER_INDEX, counts_string


def add(ch: str) -> int:
    return act.add_tile(BLANK if ch == "_" else LETTER_INDEX[ch])


def lay(state, text: str) -> None:
    for ch in text:
        state.apply(add(ch))
    state.apply(act.FINISH_CLUE)


# --- setup ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_setup_five_letters_and_two_blanks_each_level_one_and_five_lives(n):
    state = KrzGrtnGame(num_players=n).new_initial_state(np.random.default_rng(n))
    assert [state.letters(p) for p in range(n)] == [5] * n
    assert state.blanks == [2] * n
    assert int(state.bag.sum()) == 56 - 5 * n
    assert (state.lives, state.level_index, state.x) == (5, 0, 0)
    assert state.phase == VOTE and state.current_player == 1  # the giver on X's left votes first
    assert state.candidates == [state.target] and len(state.deck) == NUM_CARDS - 1
    state.check_conservation()


def test_letter_tiles_are_the_ruled_consonants():
    assert int(LETTER_COUNTS.sum()) == 56
    assert counts_string(LETTER_COUNTS) == ("BBBCCCDDDFFFGGGHHHJKKKLLLLMMMNNNNPPPQRRRRSSSSTTTTVWWWXYZ")


@pytest.mark.parametrize("blanks", [0, 1])
def test_too_easy_fewer_blanks(blanks):
    state = KrzGrtnGame(blanks_per_player=blanks).new_initial_state(np.random.default_rng(0))
    assert state.blanks == [blanks] * 4
    state.apply(act.VOTE_NO)
    assert state.phase == CLUE
    assert state.legal_action_mask()[add("_")] == (blanks > 0)


def test_the_cut_moves_top_cards_to_the_bottom_before_the_target_is_turned_up():
    state = KrzGrtnGame().new_initial_state(np.random.default_rng(7))
    shuffled = np.random.default_rng(7).permutation(NUM_CARDS).tolist()  # the deal's first random draw
    after = state.deck + [state.target // 2]  # the deck just before the target was taken off the top
    rotations = [shuffled[-k:] + shuffled[:-k] for k in range(1, NUM_CARDS)]
    assert after in rotations


# --- the Life! vote --------------------------------------------------------------------------------------
def test_unanimous_life_costs_a_life_and_gives_each_giver_two_letters_then_votes_again():
    game = KrzGrtnGame(num_players=4)
    state = load(game, scenario(game, ["BCDFG", "HKLMN", "PRSTV", "WRSTL"]))
    for seat in (1, 2, 3):
        assert state.current_player == seat
        state.apply(act.VOTE_YES)
    assert state.lives == 4
    assert [state.letters(p) for p in range(4)] == [5, 7, 7, 7]  # X draws nothing
    assert state.phase == VOTE and state.current_player == 1 and state.votes == 0
    state.check_conservation()


def test_one_no_ends_the_vote_without_spending_a_life():
    game = KrzGrtnGame(num_players=4)
    state = load(game, scenario(game, ["BCDFG", "HKLMN", "PRSTV", "WRSTL"]))
    state.apply(act.VOTE_YES)
    state.apply(act.VOTE_NO)
    assert state.phase == CLUE and state.current_player == 1
    assert state.lives == 5 and [state.letters(p) for p in range(4)] == [5, 5, 5, 5]


def test_a_giver_short_of_two_letters_forces_life():
    game = KrzGrtnGame(num_players=3)
    state = load(game, scenario(game, ["BCDFG", "HKLMN", "P"]))
    for _ in range(2):
        mask = state.legal_action_mask()
        assert mask[act.VOTE_YES] == 1 and mask[act.VOTE_NO] == 0
        state.apply(act.VOTE_YES)
    assert state.lives == 4 and state.letters(2) == 3
    assert state.legal_action_mask()[act.VOTE_NO] == 1  # everyone can now make a clue


def test_life_draws_respect_the_tile_limit_with_the_players_choice():
    game = KrzGrtnGame(num_players=3)
    state = load(game, scenario(game, ["BC", "BCDFGHKL", "MNPRS"]))
    state.apply(act.VOTE_YES)
    state.apply(act.VOTE_YES)
    assert state.phase == RETURN and state.current_player == 1 and state.letters(1) == 10
    assert state.letters(2) == 5  # the next giver draws only after the returns
    held = state.supply[1] > 0
    assert np.array_equal(state.legal_action_mask()[act.RETURN_LETTER : act.GUESS].astype(bool), held)
    state.apply(act.return_letter(LETTER_INDEX["B"]))
    assert state.phase == RETURN
    state.apply(act.return_letter(LETTER_INDEX["C"]))
    assert state.letters(1) == 8 and state.letters(2) == 7
    assert state.phase == VOTE
    state.check_conservation()


# --- making clues ----------------------------------------------------------------------------------------
def test_a_clue_needs_two_letters_and_blanks_do_not_count():
    game = KrzGrtnGame(num_players=3)
    state = load(game, scenario(game, ["BCDFG", "GRNST", "HKLMN"], phase="clue"))
    mask = state.legal_action_mask()
    assert [act.describe(a) for a in np.flatnonzero(mask)] == [
        "add G to the clue",
        "add N to the clue",
        "add R to the clue",
        "add S to the clue",
        "add T to the clue",
        "add a blank to the clue",
    ]
    for ch, can_finish in (("G", False), ("_", False), ("R", True)):
        state.apply(add(ch))
        assert state.legal_action_mask()[act.FINISH_CLUE] == can_finish
    assert state.clues[1] == [LETTER_INDEX["G"], BLANK, LETTER_INDEX["R"]]
    assert counts_string(state.supply[1]) == "NST" and state.blanks[1] == 1
    assert state.legal_action_mask()[add("G")] == 0  # only tiles behind your own screen


def test_no_passing_a_giver_with_every_tile_laid_can_only_finish():
    game = KrzGrtnGame(num_players=2, blanks_per_player=1)
    state = load(game, scenario(game, ["BCDFG", "KL"], phase="clue"))
    for ch in "K_L":
        state.apply(add(ch))
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [act.FINISH_CLUE]


def test_givers_clue_in_turn_then_decoys_are_revealed_up_to_a_and_shuffled():
    game = KrzGrtnGame(num_players=4)
    state = load(game, scenario(game, ["BCDFG", "GRNST", "WKLMN", "PDRST"], phase="clue", x=2))
    assert state.current_player == 3 and len(state.candidates) == 1
    deck_before = len(state.deck)
    for seat, clue in ((3, "PD"), (0, "BC"), (1, "GR_N")):
        assert state.current_player == seat and state.phase == CLUE
        lay(state, clue)
    assert state.phase == GUESS and state.current_player == 2
    assert len(state.candidates) == 3 and len(state.deck) == deck_before - 2
    assert state.candidates[state.target_position] == CONCEPT_ID["pedestrian light"]
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [act.guess(i) for i in range(3)]


def test_the_target_lands_on_every_position_across_seeds():
    game = KrzGrtnGame(num_players=2)
    positions = set()
    for seed in range(40):
        state = load(game, scenario(game, ["BCDFG", "GRNST"], phase="clue"), seed)
        lay(state, "GR")
        positions.add(state.target_position)
    assert positions == {0, 1, 2}


# --- the guess -------------------------------------------------------------------------------------------
GUESS_TABLE = dict(
    phase="guess",
    clues=["", "GR_N", "W_K", "PD"],
    candidates=["pedestrian light", "cat", "dog"],
    target_position=0,
    clues_done=3,
)


def test_pass_returns_letters_keeps_blanks_givers_draw_b_and_x_moves_clockwise():
    game = KrzGrtnGame(num_players=4)
    state = load(game, scenario(game, ["BCDFG", "ST", "RST", "L"], **GUESS_TABLE))
    bag_before = int(state.bag.sum())
    state.apply(act.guess(0))
    assert state.level_index == 1 and state.lives == 5 and state.scores().tolist() == [1.0] * 4
    assert state.x == 1 and state.blanks == [2, 2, 2, 2]
    assert [state.letters(p) for p in range(4)] == [5, 2 + 3, 3 + 3, 1 + 3]  # X (seat 0) draws nothing
    assert int(state.bag.sum()) == bag_before + 7 - 9  # 7 clue letters back into the middle, 9 drawn
    assert state.last_attempt["passed"] and state.phase == VOTE and state.current_player == 2
    assert state.candidates == [state.target] and state.target != CONCEPT_ID["pedestrian light"]
    state.check_conservation()


def test_fail_costs_a_life_no_draws_same_level_and_x_moves_on():
    game = KrzGrtnGame(num_players=4)
    state = load(game, scenario(game, ["BCDFG", "ST", "RST", "L"], **GUESS_TABLE))
    state.apply(act.guess(2))
    assert state.level_index == 0 and state.lives == 4 and state.x == 1
    assert [state.letters(p) for p in range(4)] == [5, 2, 3, 1]
    assert not state.last_attempt["passed"] and state.last_attempt["guess"] == CONCEPT_ID["dog"]


def test_fail_with_no_life_left_loses():
    game = KrzGrtnGame(num_players=4)
    state = load(game, scenario(game, ["BCDFG", "ST", "RST", "L"], lives=0, **GUESS_TABLE))
    state.apply(act.guess(1))
    assert state.phase == OVER and state.current_player == -1 and state.returns().tolist() == [-1.0] * 4
    assert "no life" in state.end_reason


def test_no_vote_without_a_life_card():
    game = KrzGrtnGame(num_players=4)
    state = load(game, scenario(game, ["BCDFG", "ST", "RST", "LN"], lives=1, **GUESS_TABLE))
    state.apply(act.guess(1))
    assert state.lives == 0 and state.phase == CLUE and state.current_player == 2


def test_a_giver_without_two_letters_and_no_life_loses():
    game = KrzGrtnGame(num_players=3)
    table = dict(
        GUESS_TABLE,
        clues=["", "GR_N", "W_K"],
        clues_done=2,
        level_index=4,
        candidates=["pedestrian light", "cat", "dog", "cow", "pig", "sheep", "goat"],
    )  # A = 7 on level 5
    state = load(game, scenario(game, ["B", "ST", "RST"], lives=0, **table))
    state.apply(act.guess(0))  # level 5 passed; seat 0 was X, draws nothing, and gives clues next
    assert state.phase == OVER and state.outcome == -1 and state.level_index == 5
    assert "fewer than 2 letters" in state.end_reason


def test_the_tile_limit_after_passing_returns_tiles_of_the_players_choice():
    game = KrzGrtnGame(num_players=4)
    table = dict(GUESS_TABLE, clues=["", "GR", "W_K", "PD"])  # seat 1 owns 6 + 2 = 8 letters, the limit
    state = load(game, scenario(game, ["BCDFG", "BCDFGK", "RST", "L"], **table))
    state.apply(act.guess(0))
    assert state.phase == RETURN and state.current_player == 1 and state.letters(1) == 9
    assert state.letters(2) == 3  # seat 2 draws after seat 1 is back at the limit
    with pytest.raises(IllegalActionError):
        state.apply(act.guess(0))
    state.apply(act.return_letter(LETTER_INDEX["K"]))
    assert state.letters(1) == 8 and state.letters(2) == 6 and state.letters(3) == 4
    assert state.phase == VOTE and state.x == 1


def test_passing_level_six_wins():
    game = KrzGrtnGame(num_players=4)
    eight = ["pedestrian light", "cat", "dog", "cow", "pig", "sheep", "goat", "horse"]
    table = dict(GUESS_TABLE, candidates=eight)  # A = 8 on level 6
    state = load(game, scenario(game, ["BCDFG", "ST", "RST", "L"], level_index=5, lives=1, **table))
    state.apply(act.guess(0))
    assert state.phase == OVER and state.outcome == 1
    assert state.returns().tolist() == [1.0] * 4 and state.scores().tolist() == [6.0] * 4


def test_level_cards_set_a_and_b():
    game = KrzGrtnGame()
    assert [game.candidates_at(i) for i in range(6)] == [3, 4, 5, 6, 7, 8]
    assert [game.draws_at(i) for i in range(6)] == [3, 3, 2, 2, 1, 0]


# --- Too easy? skipping lower levels -----------------------------------------------------------------------
def test_skipping_lower_levels_plays_six_levels_from_the_higher_cards():
    game = KrzGrtnGame(num_players=2, levels=(3, 4, 5, 5, 6, 6))
    assert [game.candidates_at(i) for i in range(6)] == [5, 6, 7, 7, 8, 8]
    state = load(game, scenario(game, ["BCDFG", "GRNST"], phase="clue"))
    lay(state, "GR")
    assert len(state.candidates) == 5
    state = load(
        game,
        scenario(
            game,
            ["BCDFG", "ST"],
            level_index=5,
            **dict(
                GUESS_TABLE,
                clues=["", "GR"],
                clues_done=1,
                candidates=["pedestrian light", "cat", "dog", "cow", "pig", "sheep", "goat", "horse"],
            ),
        ),
    )
    state.apply(act.guess(0))
    assert state.outcome == 1 and state.level_index == 6


@pytest.mark.parametrize(
    "levels", [(1, 2, 3), (2, 1, 3, 4, 5, 6), (1, 2, 3, 4, 5, 5), (1, 3, 4, 5, 6, 6), (0, 1, 2, 3, 4, 5)]
)
def test_bad_level_sequences_are_refused(levels):
    with pytest.raises(ParameterError, match="ascending"):
        KrzGrtnGame(levels=levels)


def test_level_sequences_from_json_or_yaml_lists_are_accepted():
    assert KrzGrtnGame(levels=[3, 4, 5, 5, 6, 6]).levels == (3, 4, 5, 5, 6, 6)


@pytest.mark.parametrize(
    "kwargs, allowed",
    [
        ({"tile_limit": 4}, "an int from 2 to 4 \\(start_letters at most tile_limit\\)"),  # below start_letters=5
        ({"start_letters": 9}, "an int from 2 to 8 \\(start_letters at most tile_limit\\)"),  # above tile_limit=8
        ({"num_players": 6, "tile_limit": 10}, "allowed: an int from 5 to 9$"),  # 6 screens x 10 > 56 letters
    ],
)
def test_letters_and_tile_limit_must_fit_the_56_tiles(kwargs, allowed):
    with pytest.raises(ParameterError, match=allowed):
        KrzGrtnGame(**kwargs)


def test_json_scenarios_must_account_for_every_tile():
    game = KrzGrtnGame(num_players=2)
    data = scenario(game, ["BCDFG", "GRNST"])
    data["bag"] = data["bag"][1:]
    with pytest.raises(ValueError, match="56"):
        load(game, data)

"""Kings Cribbage rules as scenarios: the rulebook's ten rules, the bonuses, the end rules and the rulings.

Every scenario is a position set up directly from a small board description. Most could not arise in play
(one tile on the board, an empty rack beside a full bag, no points scored), so `from_json`, which accepts
reachable positions only, would refuse them (tests/envs/kings_cribbage/test_kings_cribbage_states.py); a rule does not care.
"""

from collections import Counter

import numpy as np
import pytest

from tabletop.envs.core import ParameterError
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame, KingsCribbageState
from tabletop.envs.kings_cribbage.tiles import NUM_KINDS, TILES_PER_KIND

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


def kind(tile: str) -> int:
    """'d6' -> dark 6, 'lQ' -> light Q (the ':9' of a turned tile is ignored here)."""
    colour = {"l": 0, "d": 1}[tile[0]]
    rank = tile[1:].split(":")[0]
    return colour * 13 + (RANKS[rank] if rank in RANKS else int(rank)) - 1


def face(tile: str) -> int:
    """'d6:9' -> the face 'dark 6 shown as 9'."""
    k = kind(tile)
    colour, rank = divmod(k, 13)
    rank += 1
    shown = int(tile.split(":")[1]) if ":" in tile else rank
    return colour * 15 + (rank - 1 if shown == rank else (13 if rank == 6 else 14))


def cell(name: str, size: int = 13) -> int:
    return (int(name[1:]) - 1) * size + ord(name[0]) - ord("A")


def scenario(board=None, racks=("", ""), bag=None, current=0, scores=None, passes=0, **config):
    """A state from a board {cell: tile} and racks ("l5 dK ..."); the bag holds every other tile."""
    game = KingsCribbageGame(**config)
    state = KingsCribbageState(game, game.new_initial_state(np.random.default_rng(0)).chance)
    size = game.board_size
    used = Counter()
    for name, tile in (board or {}).items():
        r, c = divmod(cell(name, size), size)
        k = kind(tile)
        state.values[r, c] = int(tile.split(":")[1]) if ":" in tile else k % 13 + 1
        state.colours[r, c], state.printed[r, c] = k // 13, k % 13 + 1
        used[k] += 1
    state.racks = [sorted(kind(t) for t in rack.split()) for rack in racks]
    for rack in state.racks:
        used.update(rack)
    if bag is None:
        bag = [k for k in range(NUM_KINDS) for _ in range(TILES_PER_KIND - used[k])]
    state.bags = [list(bag), []] if config.get("variant") == "solitaire" else [list(bag)]
    state.current, state.passes = current, passes
    state.score = list(scores or [0] * game.num_players)
    state.begin_turn()
    return state


def place_actions(state, tiles: dict[str, str]) -> list[int]:
    g = state.game
    return sorted((face(t) * g.cells + cell(c, g.board_size) for c, t in tiles.items()), key=lambda a: a % g.cells)


def is_legal_move(state, tiles: dict[str, str]) -> bool:
    """Can these tiles be placed and committed as one move from here?"""
    trial = state.clone()
    for action in place_actions(state, tiles):
        if not trial.legal_action_mask()[action]:
            return False
        trial.apply(action)
    return bool(trial.legal_action_mask()[trial.game.commit_action])


def play(state, tiles: dict[str, str]) -> int:
    """Place and commit; return the points scored."""
    seat, before = state.current_player, state.score[state.current_player]
    for action in place_actions(state, tiles):
        state.apply(action)
    state.apply(state.game.commit_action)
    return state.score[seat] - before


# --- the ten rules ------------------------------------------------------------------------------
def test_rule_1_no_hand_exceeds_five_tiles():
    state = scenario({"C7": "l2", "D7": "l3", "E7": "l4", "F7": "d5"}, racks=("d6 l7 dK lK lQ", ""))
    assert is_legal_move(state, {"G7": "d6"})  # 2-3-4-5-6: five tiles
    state = scenario({"C7": "l2", "D7": "l3", "E7": "l4", "F7": "d5", "G7": "d6"}, racks=("l7 lA dK lK d9", ""))
    assert not is_legal_move(state, {"H7": "l7"})  # would make a line of six
    assert not is_legal_move(state, {"B7": "lA"})
    # the same limit down a column: a fifth tile is fine, a sixth is not
    state = scenario({"H3": "l2", "H4": "l3", "H5": "l4", "H6": "d5"}, racks=("d6 l7 d8 dK lK", ""))
    assert is_legal_move(state, {"H7": "d6"})
    assert not is_legal_move(state, {"H7": "d6", "H8": "l7"})


def test_rule_2_tiles_in_a_straight_line():
    state = scenario({"G7": "l5"}, racks=("dK lQ l5 d2 d3", ""))
    assert is_legal_move(state, {"H7": "dK"}) and is_legal_move(state, {"G8": "lQ"})
    assert not is_legal_move(state, {"H7": "dK", "G8": "lQ"})  # an L shape
    state.apply(place_actions(state, {"H7": "dK"})[0])
    assert not state.legal_action_mask()[place_actions(state, {"G8": "lQ"})[0]]


def test_rule_3_no_diagonal_play_or_scoring():
    state = scenario({"G7": "l5"}, racks=("dK d5 l2 l3 l4", ""))
    assert not is_legal_move(state, {"H8": "d5"})  # touches only diagonally
    state = scenario({"G7": "l5", "H8": "lJ"}, racks=("dK d5 l2 l9 l4", ""))
    assert play(state, {"F7": "dK"}) == 2  # K-5 across; the diagonal 5-J is not a hand


def test_rule_4_every_tile_must_contribute():
    state = scenario({"D7": "l6", "E7": "l7", "F7": "d8", "G7": "d9"}, racks=("lQ l5 dA d2 l3", ""))
    assert not is_legal_move(state, {"H7": "lQ"})  # 6-7-8-9-Q: the Q scores nothing
    assert is_legal_move(state, {"C7": "l5"})  # 5-6-7-8-9
    state = scenario({"D7": "l4", "E7": "l5", "F7": "d6"}, racks=("l8 lQ dA d2 l3", ""))
    assert not is_legal_move(state, {"G7": "l8"})  # 4-5-6-8: the 8 scores nothing
    # a tile that helps the main hand but makes a dead hand across is illegal too
    state = scenario({"D7": "l4", "E7": "l5", "F8": "lA"}, racks=("l6 lQ dA d2 d3", ""))
    assert not is_legal_move(state, {"F7": "l6"})  # 4-5-6 fine, but 6 over A across scores nothing


def test_rule_5_runs_need_not_be_in_sequence():
    state = scenario({"E7": "l5"}, racks=("l3 d4 dK dQ lJ", ""))
    assert play(state, {"F7": "l3", "G7": "d4"}) == 3  # 5-3-4 is a run of three


def test_rule_6_first_move_two_to_five_tiles_later_one_to_five():
    state = scenario({}, racks=("l7 d8 dK lQ lJ", ""))
    state.apply(place_actions(state, {"G7": "l7"})[0])
    assert not state.legal_action_mask()[state.game.commit_action]  # one tile cannot open the game
    state.apply(place_actions(state, {"H7": "d8"})[0])
    assert state.legal_action_mask()[state.game.commit_action]
    later = scenario({"G7": "l7"}, racks=("d8 dK lQ lJ l2", ""))
    assert is_legal_move(later, {"H7": "d8"})  # a single tile is a move after the first


def test_rule_7_face_tiles_count_ten_for_fifteens():
    state = scenario({"G7": "l5"}, racks=("dK lQ lJ l2 d3", ""))
    assert play(state, {"H7": "dK"}) == 2


def test_rule_8_aces_count_one_for_fifteens_and_runs():
    state = scenario({"G7": "lA"}, racks=("l2 d3 dK l4 d9", ""))
    assert play(state, {"H7": "l2", "I7": "d3"}) == 3  # A-2-3 run
    state = scenario({"G7": "lA"}, racks=("l4 dK d7 d8 d9", ""))
    assert play(state, {"H7": "l4", "I7": "dK"}) == 2  # A+4+K = 15
    state = scenario({"G7": "lA"}, racks=("lQ dK d7 d8 d9", ""))
    assert not is_legal_move(state, {"H7": "lQ", "I7": "dK"})  # Q-K-A does not wrap


def test_rule_9_six_and_nine_turn_and_keep_their_value():
    state = scenario({"G7": "l6"}, racks=("d6 l2 lK lQ lJ", ""))
    assert play(state, {"H7": "d6:9"}) == 2  # 6 + (6 shown as 9) = 15
    assert state.values[6, 7] == 9 and state.printed[6, 7] == 6
    # on the board it stays a 9: 9-10-J is a run, 6-10-J would be a dead hand
    later = scenario({"G7": "l6", "H7": "d6:9", "H8": "l10"}, racks=("lJ l2 lK lQ d2", ""))
    assert play(later, {"H9": "lJ"}) == 3


def test_rule_9_turned_value_matters_for_scoring():
    state = scenario({"G7": "l9"}, racks=("d9 l2 lK lQ lJ", ""))
    assert play(state.clone(), {"H7": "d9"}) == 2  # pair of 9s
    assert play(state.clone(), {"H7": "d9:6"}) == 2  # 9 + 6 = 15
    assert is_legal_move(state, {"H7": "d9"}) and is_legal_move(state, {"H7": "d9:6"})


NO_MOVE_BOARD = {"G7": "lK"}  # with 7, 8 and 9 in hand nothing can make the K score, and every move touches it
NO_MOVE_RACK = "l7 d7 l8 l9 d9"


def test_rule_10_no_move_means_pass_and_exchange():
    state = scenario(NO_MOVE_BOARD, racks=(NO_MOVE_RACK, ""))
    g = state.game
    mask = state.legal_action_mask()
    assert not mask[: g.commit_action + 1].any(), "no place or commit action without a move"
    assert mask[g.exchange_action]
    before_bag = len(state.bags[0])
    state.apply(g.mark_base + kind("l7"))
    assert not state.legal_action_mask()[g.mark_base + kind("l7")]  # only one light 7 to give back
    state.apply(g.mark_base + kind("d7"))
    assert not state.legal_action_mask()[g.mark_base + kind("l8")]  # kinds in increasing order
    assert state.action_to_string(g.exchange_action) == "pass and exchange 2 tiles"
    state.apply(g.exchange_action)
    assert state.current == 1 and len(state.racks[0]) == 5 and len(state.bags[0]) == before_bag
    assert state.passes == 1


def test_exchange_is_forbidden_when_a_move_exists():
    state = scenario({"G7": "l5"}, racks=("dK l2 l3 l4 l6", ""))
    g = state.game
    mask = state.legal_action_mask()
    assert not mask[g.mark_base : g.exchange_action + 1].any()


def test_exchange_limited_by_bag():
    state = scenario(NO_MOVE_BOARD, racks=(NO_MOVE_RACK, ""), bag=[kind("d4")])
    g = state.game
    state.apply(g.mark_base + kind("l7"))
    assert not state.legal_action_mask()[g.mark_base : g.exchange_action].any()  # the bag holds one tile
    state.apply(g.exchange_action)
    assert kind("d4") in state.racks[0] and kind("l7") not in state.racks[0] and state.bags[0] == [kind("l7")]


# --- bonuses and full scoring -------------------------------------------------------------------
def test_first_move_bonus_and_anywhere():
    state = scenario({}, racks=("l7 d8 dK lQ lJ", ""))
    assert is_legal_move(state, {"A1": "l7", "B1": "d8"}) and is_legal_move(state, {"M12": "l7", "M13": "d8"})
    assert play(state, {"A1": "l7", "B1": "d8"}) == 2 + 10
    follow = scenario({"A1": "l7", "B1": "d8"}, racks=("", "l7 dK lQ lJ d2"), current=1)
    assert play(follow, {"C1": "l7"}) == 4 + 2  # 7-8-7: two fifteens and a pair, no bonus


def test_five_tiles_bonus():
    state = scenario({}, racks=("l3 d4 l5 d6 l7", ""))
    # run of five (5) + fifteens 3+5+7, 4+5+6 (4) + first move (10) + all five tiles (10)
    assert play(state, {"C3": "l3", "D3": "d4", "E3": "l5", "F3": "d6", "G3": "l7"}) == 5 + 4 + 10 + 10


def test_one_colour_five_tile_hand_bonus():
    base = {"C3": "l3", "D3": "l4", "E3": "l5", "F3": "l6"}
    light = scenario(base, racks=("l7 d2 dK dQ dJ", ""))
    dark = scenario(base, racks=("d7 l2 lK lQ lJ", ""))
    # 3-4-5-6-7: run of five 5, fifteens 3+5+7 and 4+5+6 = 4 -> 9; light adds the colour bonus
    assert play(light, {"G3": "l7"}) == 9 + 10
    assert play(dark, {"G3": "d7"}) == 9


def test_every_created_or_extended_hand_scores():
    state = scenario({"G7": "l5", "H6": "lQ"}, racks=("dK l2 l3 l4 d9", ""))
    assert not is_legal_move(state, {"H7": "dK"})  # 5-K across is fine, but Q-K down scores nothing
    state = scenario({"G7": "l5", "H6": "l5"}, racks=("dK l2 l3 l4 d9", ""))
    assert play(state, {"H7": "dK"}) == 2 + 2  # 5-K across and 5-K down


def test_refill_to_five_and_first_player_random():
    state = scenario({"G7": "l5"}, racks=("dK l2 l3 l4 d9", ""))
    bag = len(state.bags[0])
    play(state, {"H7": "dK"})
    assert len(state.racks[0]) == 5 and len(state.bags[0]) == bag - 1
    game = KingsCribbageGame()
    starters = {game.new_initial_state(np.random.default_rng(s)).current for s in range(20)}
    assert starters == {0, 1}


# --- the end --------------------------------------------------------------------------------------
def test_game_ends_when_a_rack_empties_with_the_bag_empty():
    state = scenario({"G7": "l5"}, racks=("dK", "l2 l3 lQ"), bag=[])
    assert play(state, {"H7": "dK"}) == 2
    assert state.is_terminal() and state.current_player == -1
    assert state.deductions == [0, 2 + 3 + 10] and state.score == [2, -15]
    assert state.returns().tolist() == [1.0, -1.0]


def test_game_ends_when_nobody_can_move_with_the_bag_empty():
    state = scenario(NO_MOVE_BOARD, racks=("l7 d8", "d6 l9"), bag=[], scores=[5, 5])
    assert state.is_terminal()
    assert state.deductions == [15, 15] and state.score == [-10, -10]  # a 6 tile counts 6 even if it could be a 9
    assert state.returns().tolist() == [0.0, 0.0]


def test_player_without_move_passes_while_others_can_move():
    state = scenario(NO_MOVE_BOARD, racks=("l7 d8", "l5 l3"), bag=[])
    g = state.game
    assert not state.is_terminal()
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [g.exchange_action]  # empty bag: pass only
    state.apply(g.exchange_action)
    assert state.current == 1 and play(state, {"H7": "l5"}) == 2


def test_three_rounds_without_a_move_end_the_game():
    state = scenario(NO_MOVE_BOARD, racks=(NO_MOVE_RACK, NO_MOVE_RACK), bag=[kind("l8")])
    g = state.game
    # nobody can move and nobody exchanges: three full rounds (six turns) end the game
    for _ in range(5):
        assert not state.is_terminal()
        state.apply(g.exchange_action)
    assert not state.is_terminal() and state.passes == 5
    state.apply(g.exchange_action)
    assert state.is_terminal() and state.deductions == [7 + 7 + 8 + 9 + 9] * 2


# --- the configuration and the words ------------------------------------------------------------------
def test_solitaire_needs_two_players_and_says_so():
    with pytest.raises(ParameterError, match=r"variant='solitaire'.*needs num_players=2.*variant='standard'"):
        KingsCribbageGame(variant="solitaire", num_players=3)
    assert KingsCribbageGame(variant="solitaire").bag_of == (0, 1)


def test_action_names():
    state = scenario({"G7": "l6"}, racks=("d6 l2 lK lQ lJ", ""))
    g = state.game
    action = face("d6:9") * g.cells + cell("H7")
    assert state.action_to_string(action) == "place dark 6 as 9 at H7"
    assert state.action_to_string(face("lQ") * g.cells + cell("A1")) == "place light Q at A1"
    state.apply(action)
    assert state.action_to_string(g.commit_action) == "commit: 2 points"
    assert state.action_to_string(g.mark_base + kind("d7")) == "choose dark 7 for the exchange"
    assert state.action_to_string(g.exchange_action) == "pass without exchanging"
    with pytest.raises(ValueError):
        state.action_to_string(g.num_actions)

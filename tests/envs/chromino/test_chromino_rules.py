"""Chromino rules: the tile set, and the rulebook's situations as scenarios built from JSON states."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.observe import ChrominoObserver
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.chromino.table import Placement
from tabletop.envs.chromino.tiles import tile_id
from tabletop.envs.core import ParameterError

try:
    from support.chromino import MIDDLE, brute_fits, scenario
except ModuleNotFoundError:  # tests/ imported as a package
    from tests.test_chromino_helpers import MIDDLE, brute_fits, scenario

M = MIDDLE
START = ("R*Y", 0, M, M)  # red (M, M-1), wild (M, M), yellow (M, M+1)


def choose(state, name, orientation):
    return state.game.actions.encode("choose", tile_id(name), orientation)


def legal(state, action) -> bool:
    return bool(state.legal_action_mask()[action])


# --- the tile set -----------------------------------------------------------------------------------
def test_tile_set_is_every_triple_up_to_reversal_plus_five_chameleons():
    normal = {tuple(c) for c in T.TILE_COLOURS[: T.NUM_NORMAL].tolist()}
    assert len(normal) == 75 and T.NUM_TILES == 80
    for a in range(5):
        for b in range(5):
            for c in range(5):
                assert (a, b, c) in normal or (c, b, a) in normal
    assert [T.tile_name(t) for t in range(75, 80)] == ["R*Y", "Y*G", "G*B", "B*P", "P*R"]
    assert T.VALUE[tile_id("RRR")] == 1 and T.VALUE[tile_id("RRG")] == 2 and T.VALUE[tile_id("RGB")] == 3
    assert T.VALUE[tile_id("G*B")] == 3
    assert tile_id("BGR") == tile_id("RGB")


def test_deal_start_chameleon_hands_of_eight_and_conservation():
    game = ChrominoGame(num_players=4)
    state = game.new_initial_state(np.random.default_rng(3))
    assert len(state.placements) == 1
    start = state.placements[0]
    assert T.IS_CHAMELEON[start.tile] and start == Placement(start.tile, 0, M, M)
    assert all(len(h) == 8 for h in state.hands) and len(state.bag) == 80 - 1 - 32
    assert sorted([t for h in state.hands for t in h] + state.bag + [start.tile]) == list(range(80))


# --- contacts --------------------------------------------------------------------------------------
def test_a_mismatched_contact_is_illegal_even_with_two_matches():
    game = ChrominoGame()
    state = scenario(game, [START], [["RRR", "RRY", "GGG"], ["BBB"]])
    board = state.view(None)["board"]
    # Under the start tile RRR touches red (match), the wild centre (match) and yellow (mismatch).
    assert not brute_fits(board, tile_id("RRR"), 0, M + 1, M, 2)
    assert not state.table.fits(Placement(tile_id("RRR"), 0, M + 1, M))[0]
    probe = state.clone()
    probe.apply(choose(probe, "RRR", 0))
    assert not legal(probe, game.actions.encode("place", M + 1, M))
    assert legal(probe, game.actions.encode("place", M + 1, M - 1))  # one step left: red and wild only
    # RRY there matches all three contacts.
    state.apply(choose(state, "RRY", 0))
    assert legal(state, game.actions.encode("place", M + 1, M))


def test_a_chameleon_centre_matches_different_colours_on_either_side():
    game = ChrominoGame()
    placements = [("RRR", 2, M - 2, M), ("BBB", 2, M + 2, M)]  # red ends at (M-1, M), blue starts at (M+1, M)
    state = scenario(game, placements, [["G*B", "RRB", "Y*G"], ["PPP"]])
    # G*B across the gap: its centre touches red above and blue below; both contacts count and match.
    assert legal(state, choose(state, "G*B", 0))
    state.apply(choose(state, "G*B", 0))
    assert legal(state, game.actions.encode("place", M, M))
    # A normal tile cannot: its centre would touch red and blue.
    assert not brute_fits(state.view(None)["board"], tile_id("RRB"), 0, M, M, 2)


def test_a_chameleon_on_the_table_matches_anything_touching_its_centre():
    game = ChrominoGame()
    state = scenario(game, [START], [["RBY"], ["PPP"]])
    state.apply(choose(state, "RBY", 0))  # red under red, blue under the wild centre, yellow under yellow
    assert legal(state, game.actions.encode("place", M + 1, M))


# --- junior: a branching domino line (docs/rulings.md, Chromino, "Junior ruling") ----------------------------
JUNIOR = ChrominoGame(variant="junior")


def junior_places(state, name) -> set[tuple[int, int, int]]:
    """(orientation, row, col) of every legal placement of tile `name` in `state`."""
    return {(o, r, c) for _, o, r, c, _ in state.table.search([tile_id(name)], junior=True).tolist()}


def test_junior_the_start_chameleon_offers_four_open_ends():
    """ "The start chameleon offers four open ends: outward from each end square along its length, and both
    sides of its centre." RRY: its red end on the left end (red), its yellow end on the right end (yellow),
    and either end on the cells above and below the wild centre."""
    state = scenario(JUNIOR, [START], [["RRY", "GGG"], ["BBB"]])
    assert junior_places(state, "RRY") == {
        (1, M, M - 3),  # Y-R-R reading left to right: the red end touches the start's red end
        (1, M, M + 3),  # Y-R-R from the yellow end: yellow on yellow
        (2, M - 2, M),
        (3, M - 2, M),  # upright above the centre, either end down: a chameleon centre matches
        (2, M + 2, M),
        (3, M + 2, M),  # and below it
    }


def test_junior_the_touching_end_squares_match_in_colour():
    """ "...the two touching squares match in colour (a chameleon centre matches anything)"."""
    state = scenario(JUNIOR, [START], [["RRB", "GGG"], ["PPP"]])
    assert (1, M, M - 3) in junior_places(state, "RRB")  # B-R-R: red on the start's red end
    assert (0, M, M - 3) not in junior_places(state, "RRB")  # R-R-B: blue on red
    assert (0, M, M + 3) not in junior_places(state, "RRB")  # red on the yellow end
    assert {(2, M + 2, M), (3, M + 2, M)} <= junior_places(state, "RRB")  # either end on the wild centre


def test_junior_a_tile_continues_straight_on_from_an_open_end():
    """ "A normal tile is placed in line with an open end ... the tile continues straight on": touching the
    start's red end square from below, or its red end from the side, is no domino contact; nor is the
    standard rule's side-by-side fit (RRY under R*Y matches all three of its contacts)."""
    standard = scenario(ChrominoGame(), [START], [["RRY", "RRR"], ["PPP"]])
    junior = scenario(JUNIOR, [START], [["RRY", "RRR"], ["PPP"]])
    assert (0, M + 1, M) in {tuple(m[1:4]) for m in standard.table.search([tile_id("RRY")]).tolist()}
    assert (0, M + 1, M) not in junior_places(junior, "RRY")
    assert junior_places(junior, "RRR") == {(0, M, M - 3), (2, M - 2, M), (2, M + 2, M)}  # not (2, M + 2, M - 1)


def test_junior_no_other_square_of_the_new_tile_touches_any_tile():
    """ "...and no other square of the new tile touches any tile": PPP lies below the cells left of the start,
    so a tile running left from the red end would touch it too."""
    state = scenario(JUNIOR, [START, ("PPP", 0, M + 1, M - 4)], [["RRR", "GGG"], ["BBB"]])
    assert (0, M, M - 3) not in junior_places(state, "RRR")
    assert {(2, M - 2, M), (2, M + 2, M)} <= junior_places(state, "RRR")


def test_junior_only_a_chameleon_lies_crosswise():
    """ "A chameleon may be placed that way, or crosswise: its centre square on the neighbour cell of an open end,
    its length perpendicular to that end's direction, touching nothing else." A normal tile with a matching
    centre may not."""
    state = scenario(JUNIOR, [START], [["Y*G", "GYB", "G*B"], ["PPP"]])
    assert (0, M, M + 3) in junior_places(state, "Y*G")  # in line: its yellow end on the yellow end
    assert (2, M, M + 2) in junior_places(state, "G*B")  # crosswise: upright, its centre on the cell beyond yellow
    assert (2, M, M + 2) not in junior_places(state, "GYB")  # upright with its yellow centre there: not a chameleon


def test_junior_a_crosswise_chameleon_branches_three_ways():
    """ "...a crosswise chameleon's two end squares and its centre's far side are then open ends, so play branches"."""
    state = scenario(JUNIOR, [START, ("G*B", 2, M, M + 2)], [["GGG", "BBB", "PPP", "RRR"], ["YYY"]])
    # G*B upright at column M+2: green (M-1), wild (M), blue (M+1); its centre's near side is the start's yellow end
    anything = {(0, M, M + 4), (2, M - 2, M), (2, M + 2, M)}  # beyond G*B's centre, and both sides of the start's
    assert junior_places(state, "GGG") == {(2, M - 3, M + 2)} | anything  # up from the green end
    assert junior_places(state, "BBB") == {(2, M + 3, M + 2)} | anything  # down from the blue end
    assert junior_places(state, "PPP") == anything
    assert junior_places(state, "RRR") == {(0, M, M - 3)} | anything  # the start's red end is still open
    state.apply(choose(state, "PPP", 0))
    state.apply(state.game.actions.encode("place", M, M + 4))
    assert state.table.open_ends()[M, M + 6] == 1 and state.table.open_ends()[M, M + 3] == 0


def test_junior_the_other_rules_are_the_standard_ones():
    """ "Every other junior rule (must place, draw, last tile, end) is the standard one": with no tile that fits
    the open ends the player must draw; a lone chameleon must draw although it fits."""
    table = [START, ("BBB", 2, M - 2, M), ("GGG", 2, M + 2, M)]  # both sides of the centre taken
    stuck = scenario(JUNIOR, table, [["PPP", "PGP"], ["YYY"]])  # open ends: red, yellow, blue (top), green (bottom)
    assert np.flatnonzero(stuck.legal_action_mask()).tolist() == [JUNIOR.actions.start("draw")]
    placing = scenario(JUNIOR, table, [["PPP", "RRB"], ["YYY"]])  # RRB: its red end on the start's red end
    mask = placing.legal_action_mask()
    assert mask[choose(placing, "RRB", 1)] and not mask[JUNIOR.actions.start("draw")]
    lone = scenario(JUNIOR, table, [["Y*G"], ["YYY", "PPP"]])
    assert lone.table.search([tile_id("Y*G")], junior=True).size
    assert np.flatnonzero(lone.legal_action_mask()).tolist() == [JUNIOR.actions.start("draw")]


# --- the turn --------------------------------------------------------------------------------------
def test_must_place_when_a_tile_fits():
    game = ChrominoGame()
    state = scenario(game, [START], [["RRY", "GGG"], ["BBB"]])
    mask = state.legal_action_mask()
    assert not mask[game.actions.start("draw")] and not mask[game.actions.start("pass")]
    assert mask[choose(state, "RRY", 0)]


def test_draw_then_a_drawn_tile_that_fits_may_still_be_kept():
    game = ChrominoGame()
    state = scenario(game, [START], [["GGG", "BBB"], ["PPP"]], bag_top=["RRY"])
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [game.actions.start("draw")]
    state.apply(game.actions.start("draw"))
    assert state.hands[0] == sorted(tile_id(n) for n in ("GGG", "BBB", "RRY"))
    mask = state.legal_action_mask()
    assert mask[game.actions.start("pass")] and mask[choose(state, "RRY", 0)]
    assert not mask[game.actions.start("draw")] and not mask[choose(state, "GGG", 0)]
    state.apply(game.actions.start("pass"))  # keep it
    assert state.current_player == 1 and len(state.hands[0]) == 3 and len(state.placements) == 1


def test_a_drawn_tile_that_does_not_fit_is_kept_and_the_turn_passes():
    game = ChrominoGame()
    state = scenario(game, [START], [["GGG"], ["PPP"]], bag_top=["BBB"])
    state.apply(game.actions.start("draw"))
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [game.actions.start("pass")]


def test_a_lone_chameleon_forces_a_draw_and_then_the_turn_goes_on():
    game = ChrominoGame()
    # Y*G fits under the start tile's right part; still it may not be played as the last tile.
    placements = [START]
    state = scenario(game, placements, [["Y*G"], ["PPP", "BBB"]], bag_top=["GGG"])
    assert state.table.search([tile_id("Y*G")]).size > 0
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [game.actions.start("draw")]
    state.apply(game.actions.start("draw"))
    assert state.current_player == 0 and state.phase == 0  # a normal turn with two tiles
    assert any(state.legal_action_mask()[choose(state, "Y*G", o)] for o in range(4))


def test_a_lone_chameleon_with_an_empty_bag_can_only_pass():
    game = ChrominoGame()
    names = [T.tile_name(t) for t in range(80) if T.tile_name(t) not in ("R*Y", "Y*G")]
    state = scenario(game, [START], [["Y*G"], names])
    assert not state.bag
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [game.actions.start("pass")]


def test_a_lone_tile_is_public():
    game = ChrominoGame(num_players=3)
    state = scenario(game, [START], [["RRY", "GGG"], ["BBB"], ["PPP", "YYY"]])
    for seat in range(3):
        assert state.view(seat)["public_tiles"] == [None, tile_id("BBB"), None]
    observer = ChrominoObserver(game, omniscient=False)
    public = observer.layout.block(observer.encode(state, 0), "public_tiles")
    assert public[1, tile_id("BBB")] == 1 and public.sum() == 1


# --- the end ---------------------------------------------------------------------------------------
def test_the_round_is_finished_and_everyone_who_goes_out_in_it_wins():
    game = ChrominoGame(num_players=3)
    placements = [START, ("BBB", 0, M - 3, M)]
    # Seat 1 goes out with RRY under the start tile; seat 2 then goes out with BBP above BBB.
    state = scenario(game, placements, [["GGG", "PPP"], ["RRY"], ["BBP"]], current=1, first=0)
    state.apply(choose(state, "RRY", 0))
    state.apply(game.actions.encode("place", M + 1, M))
    assert state.finished == [False, True, False] and not state.is_terminal()
    assert state.current_player == 2  # the round goes on
    state.apply(choose(state, "BBP", 1))  # purple-blue-blue, the blues on BBB's left two squares
    state.apply(game.actions.encode("place", M - 4, M - 1))
    assert state.is_terminal()
    assert state.returns().tolist() == [-1.0, 1.0, 1.0]


def test_going_out_first_in_the_round_lets_every_later_seat_play():
    game = ChrominoGame(num_players=3)
    hands = [["RRY"], ["GGG", "PPP"], ["BBB", "PBP"]]
    state = scenario(game, [START], hands, current=0, first=0, bag_top=["GPG", "BGB"])
    state.apply(choose(state, "RRY", 0))
    state.apply(game.actions.encode("place", M + 1, M))
    assert state.current_player == 1 and not state.is_terminal()
    for seat in (1, 2):
        assert state.current_player == seat
        assert np.flatnonzero(state.legal_action_mask()).tolist() == [game.actions.start("draw")]
        state.apply(game.actions.start("draw"))
        state.apply(game.actions.start("pass"))
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0, -1.0]


def test_the_blocked_game_ends_after_a_full_idle_round_and_fewest_tiles_win():
    # A 5x5 table with no three empty cells in a line: nothing can be laid, and the bag is empty.
    game = ChrominoGame(grid_size=5)
    table = [
        ("R*Y", 0, 2, 2),
        ("RRR", 0, 0, 2),
        ("YYY", 0, 1, 2),
        ("GGG", 0, 3, 2),
        ("BBB", 0, 4, 2),
        ("PPP", 2, 2, 0),
        ("RRY", 2, 2, 4),
    ]
    on_table = {name for name, *_ in table}
    rest = [T.tile_name(t) for t in range(80) if T.tile_name(t) not in on_table | {"RGB", "RGP"}]
    state = scenario(game, table, [["RGB", "RGP"], rest])
    assert (
        not state.bag and not state.table.search(range(80)).size and not state.table.search(range(80), junior=True).size
    )
    state.apply(game.actions.start("pass"))
    assert not state.is_terminal() and state.idle_turns == 1
    state.apply(game.actions.start("pass"))
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]


def test_expert_points_for_a_placement_touching_three_tiles():
    game = ChrominoGame(variant="expert")
    placements = [
        ("GGG", 2, M - 2, M),  # above the gap: its bottom square (M-1, M) is green; value 1
        ("RRB", 2, M + 2, M - 1),  # below left: top square (M+1, M-1) red; value 2
        ("RYP", 2, M + 2, M + 1),  # below right: top square (M+1, M+1) red; value 3
    ]
    state = scenario(game, placements, [["RGR", "BBB"], ["PPP"]])
    state.apply(choose(state, "RGR", 0))
    state.apply(game.actions.encode("place", M, M))
    assert state.points == [2 + 1 + 2 + 3, 0]
    assert state.scores().tolist() == [8.0, 0.0]


def test_expert_end_scoring_bonus_for_going_out_and_penalty_per_tile():
    game = ChrominoGame(variant="expert")
    state = scenario(game, [START], [["RRY"], ["GGG", "PPP", "BBB"]], points=[5, 20])
    state.apply(choose(state, "RRY", 0))
    state.apply(game.actions.encode("place", M + 1, M))  # worth 2 + 3 (the start chameleon) = 5, then +10
    assert state.is_terminal() is False  # seat 1 still plays the round
    state.apply(game.actions.start("draw"))
    state.apply(game.actions.start("pass"))
    assert state.is_terminal()
    assert state.points == [5 + 5 + 10, 20 - 10 * 4]
    assert state.returns().tolist() == [1.0, -1.0]


def test_solo_ends_when_stuck_with_an_empty_bag_and_returns_minus_the_tiles_left():
    game = ChrominoGame(num_players=1, variant="solo")
    state = scenario(game, [START], [[T.tile_name(t) for t in range(80) if T.tile_name(t) != "R*Y"]])
    while not state.is_terminal():
        assert not state.bag
        state.apply(int(np.flatnonzero(state.legal_action_mask())[0]))
    assert state.idle_turns == 1 and 0 < len(state.hands[0]) < 79
    assert state.returns().tolist() == [-len(state.hands[0])]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (
            {"num_players": 1},
            r"num_players=1 is not allowed with variant='standard' \(one player needs variant='solo'\); "
            r"allowed: 2, 3, 4, 5, 6, 7, 8",
        ),
        ({"variant": "solo", "num_players": 2}, r"num_players=2 is not allowed with variant='solo'; allowed: 1$"),
        ({"hand_size": 40}, r"hand_size=40 is not allowed for 2 players; allowed: an int from 1 to 39"),
        ({"hand_size": 27, "num_players": 3}, r"hand_size=27 .* allowed: an int from 1 to 26"),
        ({"grid_size": 4}, r"grid_size=4 is not allowed; allowed: an int from 5 to 101"),
    ],
)
def test_configurations_the_rules_forbid_say_what_is_allowed(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        ChrominoGame(**kwargs)


def test_the_largest_hands_and_the_smallest_grid_are_allowed():
    for kwargs in (
        {"hand_size": 79, "num_players": 1, "variant": "solo"},
        {"hand_size": 26, "num_players": 3},
        {"grid_size": 5},
    ):
        game = ChrominoGame(**kwargs)
        assert game.new_initial_state(np.random.default_rng(0)).legal_action_mask().any()

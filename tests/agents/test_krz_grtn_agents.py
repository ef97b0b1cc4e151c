"""KRZ GRTN heuristics: the skeleton clue giver and the clue-matching guesser."""

from __future__ import annotations

import pytest
from support.krz_grtn import load, scenario

from tabletop.agents import make_agent
from tabletop.agents.krz_grtn import HEURISTICS, ReadingTeammate, SkeletonTeammate, clue_match, plan_clue
from tabletop.envs import EnvSpec
from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.pictures import CONCEPT_ID
from tabletop.envs.krz_grtn.rules import RETURN, KrzGrtnGame
from tabletop.envs.krz_grtn.tiles import counts_string, parse_counts, parse_tiles, tiles_string
from tabletop.train.evaluation.tournament import run_tournament


def test_registry_finds_the_heuristics():
    assert set(HEURISTICS) == {"skeleton", "reader"}
    for name in HEURISTICS:
        agent = make_agent(EnvSpec("krz_grtn_v1"), name, seed=0)
        assert agent.name == name and agent.needs_observation is False and not getattr(agent, "needs_sample", False)


def rulebook_example():
    """Five players, level 1, X to guess: GR_N (green), W K (walk), LV (the pose), PD (pedestrian)."""
    game = KrzGrtnGame(num_players=5)
    data = scenario(
        game,
        ["BCDFG", "ST", "RST", "L", "M"],
        phase="guess",
        clues=["", "GR_N", "W_K", "LV", "PD"],
        candidates=["cat", "pedestrian light", "dog"],
        target_position=1,
        clues_done=4,
    )
    return load(game, data)


def test_rulebook_example_x_reads_the_clues_and_finds_the_pedestrian_light():
    state = rulebook_example()
    x = SkeletonTeammate(seed=0)
    action = x.act(None, state.legal_action_mask(), state.view(0))
    assert action == act.guess(1)
    state.apply(action)
    assert state.level_index == 1 and state.lives == 5


def test_clue_matching_prefers_the_spelled_word():
    green = CONCEPT_ID["pedestrian light"]
    assert clue_match(parse_tiles("GR_N"), green) > clue_match(parse_tiles("GR_N"), CONCEPT_ID["cat"])
    assert clue_match(parse_tiles("PD"), green) > clue_match(parse_tiles("PD"), CONCEPT_ID["dog"])


def test_giver_spells_the_skeleton_with_as_few_letters_as_needed():
    clue = plan_clue(CONCEPT_ID["pedestrian light"], parse_counts("PDRSTK"), blanks=2, budget=2, rank=0)
    assert tiles_string(clue) == "PD"
    clue = plan_clue(CONCEPT_ID["pedestrian light"], parse_counts("GRNK"), blanks=2, budget=3, rank=0)
    assert tiles_string(clue) == "GRN"  # "green" from the keywords


def test_giver_plays_a_whole_clue_through_the_mask():
    game = KrzGrtnGame(num_players=3)
    state = load(game, scenario(game, ["BCDFG", "PDRSTK", "HKLMN"], phase="clue"))
    giver = SkeletonTeammate(seed=0)
    while state.current_player == 1:
        state.apply(giver.act(None, state.legal_action_mask(), state.view(1)))
    assert tiles_string(state.clues[1]) == "PD" and state.letters(1) == 4


def test_returns_give_back_the_least_useful_letters():
    game = KrzGrtnGame(num_players=3)
    data = scenario(game, ["BC", "QXRRSTNLDG", "MNPRS"], lives=4)
    data.update(phase="return", current_player=1, after_draws="vote", draw_amount=2, draw_queue=[2])
    state = load(game, data)
    team = SkeletonTeammate(seed=0)
    while state.phase == RETURN:
        state.apply(team.act(None, state.legal_action_mask(), state.view(1)))
    assert counts_string(state.supply[1]) == "DGLNRRST"  # Q and X went back


def test_heuristic_team_clearly_beats_random_team():
    four = EnvSpec("krz_grtn_v1", {"num_players": 4})
    heuristic = run_tournament(four, ["skeleton"], 40, seed=1)
    random = run_tournament(four, ["random"], 40, seed=1)
    assert heuristic.records["skeleton"].win_rate > 0.5
    assert heuristic.records["skeleton"].mean_score > random.records["random"].mean_score + 2


def cheese_or_whistle(target: str = "cheese"):
    """Two players, X to guess: the giver laid SB. By the letters' fit "whistle" leads; but a skeleton giver
    holding S and B besides three letters X cannot see lays SB only for "cheese"."""
    game = KrzGrtnGame(num_players=2)
    candidates = ["basket", "whistle", "cheese"]
    data = scenario(
        game,
        ["CHMPY", "DGV"],
        phase="guess",
        clues=["", "SB"],
        target=target,
        candidates=candidates,
        target_position=candidates.index(target),
        clues_done=1,
    )
    return load(game, data)


def test_reader_x_finds_the_picture_only_a_skeleton_giver_would_clue_so():
    state = cheese_or_whistle()
    mask, view = state.legal_action_mask(), state.view(0)
    assert SkeletonTeammate(seed=0).act(None, mask, view) == act.guess(1)
    reader = ReadingTeammate(seed=0)
    explained = reader._explained(view)[1]
    assert explained[2] > 0 and explained[0] == explained[1] == 0
    assert reader.act(None, mask, view) == act.guess(2)


def test_reader_x_follows_the_fit_for_a_giver_whose_clues_have_not_matched_the_model():
    state = cheese_or_whistle()
    reader = ReadingTeammate(seed=0)
    reader._record[(0, 1)] = [0.0, 10.0]  # this game, none of seat 1's clues was what skeleton would lay
    assert reader._guess(state.legal_action_mask(), state.view(0)) == act.guess(1)  # `act` would start afresh


@pytest.mark.parametrize("target,record", [("cheese", [4.0, 1.0]), ("whistle", [3.0, 2.0])])
def test_reader_x_learns_from_the_revealed_target_whether_the_clue_matched_the_model(target, record):
    state = cheese_or_whistle(target)
    reader = ReadingTeammate(seed=0)
    state.apply(reader.act(None, state.legal_action_mask(), state.view(0)))
    assert state.view(0)["last_attempt"]["target"] == CONCEPT_ID[target]
    reader._learn(state.view(0))
    assert reader._record == {(0, 1): record}
    reader._learn({**state.view(0), "last_attempt": None})  # a new game: its givers are not known yet
    assert reader._record == {}


def test_reader_x_reads_a_clue_no_skeleton_giver_lays_by_its_fit():
    """The rulebook's example: GR_N is no skeleton giver's clue (three letters, where a level of three pictures
    has skeleton givers lay two), so for that giver only the fit counts."""
    state = rulebook_example()
    reader = ReadingTeammate(seed=0)
    view = state.view(0)
    assert not reader._explained(view)[1].any()
    assert reader.act(None, state.legal_action_mask(), view) == act.guess(1)


@pytest.mark.slow
def test_reading_team_beats_the_skeleton_team_on_the_same_seeds():
    """The reader's X is the only difference: two players, the same 40 seeded games."""
    two = EnvSpec("krz_grtn_v1", {"num_players": 2})
    skeleton = run_tournament(two, ["skeleton"], 40, seed=3).records["skeleton"]
    reader = run_tournament(two, ["reader"], 40, seed=3).records["reader"]
    assert reader.mean_score > skeleton.mean_score + 0.3 and reader.win_rate > skeleton.win_rate + 0.1

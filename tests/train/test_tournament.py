"""Tournaments rank fairly: every agent's row is over the same opponents, a cooperative game's named agents are
teams of their own on the same deals, and intervals count results, never seats that share one."""

from __future__ import annotations

import itertools

import pytest

from tabletop.envs import EnvSpec
from tabletop.train.cli import main
from tabletop.train.evaluation.tournament import run_tournament, wilson_interval

CROMLET = EnvSpec("cromlet_v0")  # two seats
KRZ_GRTN = EnvSpec("krz_grtn_v1", {"num_players": 4})


def test_more_agents_than_seats_meet_every_other_agent_equally_in_every_seat():
    specs = ["random", "patient", "greedy", "blocker"]
    result = run_tournament(CROMLET, specs, 12, seed=1)
    assert sorted(result.pairs) == sorted(itertools.combinations(specs, 2))
    assert {pair.played for pair in result.pairs.values()} == {2}  # each table of two, in both seat orders
    assert {record.played for record in result.records.values()} == {6}
    for spec in specs:
        assert sorted(g["seats"].index(spec) for g in result.per_game if spec in g["seats"]) == [0, 0, 0, 1, 1, 1]


def test_a_game_count_that_leaves_rows_unequal_is_refused_naming_counts_that_work(capsys):
    assert main(["tournament", "cromlet_v0", "random", "patient", "greedy", "blocker", "--games", "200"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "tabletop tournament: error: 4 agents at 2 seats meet in cycles of 12 games (every table of 2 in every "
        "seat order), so the games must be a multiple of 12 for every row to be comparable: e.g. 192 or 204\n"
    )


def test_the_table_prints_a_row_per_pair(capsys):
    assert main(["tournament", "cromlet_v0", "random", "patient", "greedy", "--games", "6", "--quiet"]) == 0
    out = capsys.readouterr().out
    for first, second in itertools.combinations(["random", "patient", "greedy"], 2):
        assert f"{first} vs {second} " in out


def test_each_named_agent_of_a_cooperative_game_is_a_team_on_the_same_deals():
    result = run_tournament(KRZ_GRTN, ["skeleton", "random"], 8, seed=3)
    assert [g["seats"] for g in result.per_game[:2]] == [["skeleton"] * 4, ["random"] * 4]
    assert [g["seed"] for g in result.per_game] == [3, 3, 4, 4, 5, 5, 6, 6]  # paired deals
    assert result.records["skeleton"].played == result.records["random"].played == 4  # games, not 16 seats
    assert result.records["skeleton"].seats == 16
    assert result.pairs[("skeleton", "random")].played == 4  # one comparison per deal


def test_a_cooperative_interval_counts_games_not_the_seats_sharing_each_outcome():
    result = run_tournament(KRZ_GRTN, ["skeleton"], 10, seed=1)
    record = result.records["skeleton"]
    assert record.played == 10 and record.seats == 40
    assert record.interval == wilson_interval(record.wins, 10)


@pytest.mark.parametrize(
    "specs, games, message",
    [
        (["skeleton", "skeleton"], 2, "skeleton named twice: in a cooperative game each named agent is a team"),
        (["skeleton", "random"], 3, "2 teams play the same deals in turn, so the games must be a multiple of 2"),
    ],
)
def test_cooperative_tournaments_never_merge_or_unpair_teams_silently(specs, games, message):
    with pytest.raises(ValueError, match=message):
        run_tournament(KRZ_GRTN, specs, games)

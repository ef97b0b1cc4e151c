"""Chromino's `box` argument: a list of distinct normal tile ids, the same in the env, the CLI and OpenSpiel (which
spells a list as its items separated by spaces). A bad box is one line that shows the value as it was given."""

from __future__ import annotations

import pytest

from tabletop.envs import EnvSpec, ParameterError
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.train.cli import main

ALLOWED = "allowed: every tile (the default), or a list of distinct tile ids from 0 to 74"


def test_a_list_of_tile_ids_is_the_bag():
    game = ChrominoGame(box=[7, 30, 52, 66], hand_size=2)
    assert game.box == (7, 30, 52, 66) and game.config()["box"] == [7, 30, 52, 66]


@pytest.mark.parametrize(
    "box, shown",
    [
        ("7 30 52 66", "box='7 30 52 66'"),  # a string is not split into its characters
        ([7, 7, 30, 52], "box=[7, 7, 30, 52]"),
        ([7, 30, 52, 75], "box=[7, 30, 52, 75]"),  # 75 is a chameleon
        ([7, 30, True, 66], "box=[7, 30, True, 66]"),
        ([], "box=[]"),
        (7, "box=7"),
    ],
)
def test_a_bad_box_shows_what_was_given_and_what_is_allowed(box, shown):
    with pytest.raises(ParameterError) as refused:
        EnvSpec("chromino_v1", {"box": box})
    assert str(refused.value).startswith(f"chromino_v1: {shown} is not allowed; {ALLOWED}")
    assert "\n" not in str(refused.value) and "('7'" not in str(refused.value)


def test_a_box_too_small_for_the_hands_names_the_hand_size_allowed():
    with pytest.raises(ParameterError, match=r"hand_size=8 is not allowed for 2 players; allowed: an int from 1 to 2$"):
        ChrominoGame(box=[7, 30, 52, 66])


def test_the_cli_refuses_a_string_box_in_one_line(capsys):
    argv = ["tournament", "chromino_v1", "random", "random", "--games", "1", "--quiet"]
    assert main([*argv, "--env-kwargs", '{"num_players": 2, "box": "7 30 52 66"}']) == 2
    err = capsys.readouterr().err
    assert err == f"tabletop tournament: error: chromino_v1: box='7 30 52 66' is not allowed; {ALLOWED}" + (
        ", hand_size * num_players or more, e.g. [7, 30, 52, 66]\n"
    )
    assert main([*argv, "--env-kwargs", '{"num_players": 2, "box": [7, 30, 52, 66], "hand_size": 2}']) == 0


def test_openspiel_spells_the_box_as_ids_separated_by_spaces():
    pytest.importorskip("pyspiel", reason="the openspiel extra is not installed: pip install -e '.[openspiel]'")
    from tabletop.envs.openspiel import load
    from tabletop.envs.openspiel.game import env_kwargs, openspiel_params

    assert openspiel_params("chromino_v1", {"box": [7, 30, 52, 66]}) == {"box": "7 30 52 66"}
    assert env_kwargs("chromino_v1", {"box": "7 30 52 66", "hand_size": 2})["box"] == [7, 30, 52, 66]
    assert load("tabletop_chromino_v1", {"box": "7 30 52 66", "hand_size": 2}).num_players() == 2
    with pytest.raises(ParameterError) as refused:
        env_kwargs("chromino_v1", {"box": "7 7 30"})
    assert str(refused.value).startswith(f"chromino_v1: box='7 7 30' is not allowed; {ALLOWED}")

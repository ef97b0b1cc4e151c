"""`--env-kwargs` on every subcommand becomes an `EnvSpec`; a bad one is one line on stderr and exit status 2."""

from __future__ import annotations

import pytest

from tabletop.envs import EnvSpec
from tabletop.train.cli import env_spec, main

COMMANDS = {
    "tournament": ["tournament", "cromlet_v0", "random", "greedy", "--games", "1", "--quiet"],
    "eval": ["eval", "cromlet_v0", "random", "greedy", "--games", "1", "--quiet"],
    "bench": ["bench", "cromlet_v0", "--games", "1", "--baseline-games", "1"],
    "play": ["play", "cromlet_v0", "--opponent", "random"],
}
BAD = [
    ('{"num_players": 9}', "num_players=9 is not allowed; allowed: 2, 3, 4, 5, 6"),
    ('{"colour": "red"}', "unknown argument 'colour'; its arguments are: num_players"),
    ('{"reward": "money"}', "reward='money' is not allowed"),
    ("[3]", "--env-kwargs must be a JSON object"),
    ("num_players=3", "--env-kwargs is not valid JSON"),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("kwargs, message", BAD, ids=[b[0] for b in BAD])
def test_bad_env_kwargs_are_one_line_and_status_2(command, kwargs, message, capsys):
    assert main([*COMMANDS[command], "--env-kwargs", kwargs]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tabletop {command}: error: ") and message in err and err.count("\n") == 1, err


def test_export_names_the_game_with_env_id(tmp_path, capsys):
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "x"), "--env-kwargs", "{}"]) == 2
    assert "--env-kwargs needs --env-id" in capsys.readouterr().err
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "x"), "--env-id", "cromlet_v0", "--env-kwargs", "[1]"]) == 2
    assert "must be a JSON object" in capsys.readouterr().err


def test_env_spec_keeps_only_the_arguments_given():
    assert env_spec("cromlet_v0", None) == EnvSpec("cromlet_v0")
    assert env_spec("cromlet_v0", '{"num_players": 3}').kwargs == {"num_players": 3}

"""`--env-kwargs` on every subcommand becomes an `EnvSpec`; a bad one (or a bad config, count or input) is one line\non stderr and exit status 2, never a traceback; `tabletop --version`."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tabletop.envs import EnvSpec
from tabletop.train.cli import env_spec, main

COMMANDS = {
    "tournament": ["tournament", "cromlet_v0", "random", "greedy", "--games", "1", "--quiet"],
    "eval": ["eval", "cromlet_v0", "random", "greedy", "--games", "1", "--quiet"],
    "bench": ["bench", "cromlet_v0", "--games", "1", "--baseline-games", "1"],
    "play": ["play", "cromlet_v0", "--opponent", "random"],
    "export": ["export", "no-such-run", "--out", "no-such-export", "--env-id", "cromlet_v0"],  # the game is read first
}
BAD = [
    ('{"num_players": 9}', "num_players=9 is not allowed; allowed: 2, 3, 4, 5, 6"),
    ('{"colour": "red"}', "unknown argument 'colour'; its arguments are: num_players"),
    ('{"reward": "money"}', "reward='money' is not allowed"),
    ("[3]", "--env-kwargs must be a JSON object"),
    ("num_players=3", "--env-kwargs is not valid JSON"),
    ("[" * 100_000, "--env-kwargs is nested too deeply"),
    ('{"num_players": ' + "1" * 5000 + "}", "--env-kwargs holds a number too long to read"),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("kwargs, message", BAD, ids=[b[0][:20] for b in BAD])
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


def test_version_is_the_installed_distributions(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"tabletop {metadata.version('tabletop-rl')}\n"


@pytest.mark.parametrize("command", ["tournament", "eval", "bench"])
def test_game_counts_must_be_positive(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([*COMMANDS[command], "--games", "0"])
    assert done.value.code == 2 and "argument --games: must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "yaml_text, message",
    [
        ('env_id: cromlet_v0\ntotal_steps: 64\nenv_kwargs: {"bogus": 1}\n', "unknown argument 'bogus'"),
        ("env_id: cromlet_v0\ntotal_steps: 64\nenv_kwargs: [1, 2]\n", "env_kwargs must be a mapping"),
        ("env_kwargs: " + "[" * 100_000 + "\n", "nested too deeply"),
        ("env_id: [\n", "not valid YAML"),
    ],
    ids=["unknown", "list", "deep", "yaml"],
)
def test_train_config_errors_are_one_line(yaml_text, message, tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text(yaml_text)
    assert main(["train", str(config), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tabletop train: error: ") and message in err and "Traceback" not in err, err


def test_play_survives_bytes_that_are_not_utf8():
    """Typed input reaches `tabletop play` as bytes: undecodable ones are a wrong answer, not a crash."""
    done = subprocess.run(
        [sys.executable, "-m", "tabletop.train.cli", "play", "cromlet_v0", "--opponent", "random", "--seed", "1"],
        input=b"\xff\xfe\n\xc3\n1\n",
        capture_output=True,
        cwd=Path(__file__).resolve().parents[1],
        timeout=60,
    )
    out = done.stdout.decode()
    assert done.returncode == 1 and "input ended before the game did" in done.stderr.decode()
    assert out.count("is not a choice") == 2 and out.count("you: ") == 1


def test_tournament_json_is_plain_json(tmp_path):
    """Win counts reach the file as ints (numpy scalars once made `--json` crash)."""
    import json

    from tabletop.train.cli import main

    out = tmp_path / "result.json"
    assert main(["tournament", "cromlet_v0", "patient", "greedy", "--games", "4", "--quiet", "--json", str(out)]) == 0
    record = json.loads(out.read_text())["agents"]["patient"]
    assert record["wins"] + record["draws"] + record["losses"] == 4

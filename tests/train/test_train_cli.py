"""`--env-kwargs` on every subcommand becomes an `EnvSpec`; a bad one (or a bad config, count or input) is one line
on stderr and exit status 2, never a traceback; `tabletop --version`; every option's help and default, and each
game's agents in --help; a tournament's row per pair, and its warning when an agent meets itself."""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tabletop.agents import agent_names
from tabletop.envs import ENV_IDS, EnvSpec
from tabletop.train.cli import build_parser, env_spec, main
from tabletop.train.evaluation.tournament import run_tournament

REPO = Path(__file__).resolve().parents[2]

COMMANDS = {
    "tournament": ["tournament", "cromlet_v0", "random", "greedy", "--games", "1", "--quiet"],
    "eval": ["eval", "cromlet_v0", "random", "greedy", "--games", "1", "--quiet"],
    "speed": ["speed", "cromlet_v0", "--games", "1", "--baseline-games", "1"],
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
    assert (
        main(["export", str(tmp_path), "--out", str(tmp_path / "x"), "--env-id", "cromlet_v0", "--env-kwargs", "[1]"])
        == 2
    )
    assert "must be a JSON object" in capsys.readouterr().err


def test_env_spec_keeps_only_the_arguments_given():
    assert env_spec("cromlet_v0", None) == EnvSpec("cromlet_v0")
    assert env_spec("cromlet_v0", '{"num_players": 3}').kwargs == {"num_players": 3}


def test_version_is_the_installed_distributions(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"tabletop {metadata.version('tabletop-rl')}\n"


@pytest.mark.parametrize("command", ["tournament", "eval", "speed"])
def test_game_counts_must_be_positive(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([*COMMANDS[command], "--games", "0"])
    assert done.value.code == 2 and "argument --games: must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "yaml_text, message",
    [
        ('env_id: cromlet_v0\ntotal_steps: 64\nenv_kwargs: {"bogus": 1}\n', "unknown argument 'bogus'"),
        (
            "env_id: cromlet_v0\ntotal_steps: 64\nenv_kwargs: [1, 2]\n",
            "env_kwargs=[1, 2] is not allowed; allowed: a mapping",
        ),
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
        cwd=REPO,
        timeout=60,
    )
    out = done.stdout.decode()
    assert done.returncode == 1 and "input ended before the game did" in done.stderr.decode()
    assert out.count("is not a choice") == 2 and out.count("you: ") == 1


def test_tournament_json_is_plain_json(tmp_path):
    """Win counts reach the file as ints (numpy scalars once made `--json` crash)."""
    out = tmp_path / "result.json"
    assert main(["tournament", "cromlet_v0", "patient", "greedy", "--games", "4", "--quiet", "--json", str(out)]) == 0
    record = json.loads(out.read_text())["agents"]["patient"]
    assert record["wins"] + record["draws"] + record["losses"] == 4


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_option_says_what_it_does_and_its_default(command):
    parser = _subcommands()[command]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        text = parser._get_formatter()._expand_help(action)
        assert text.strip(), f"tabletop {command} {action.dest} has no help"
        if not (action.default is None or action.default is False or action.default == []):
            assert "default" in text and str(action.default) in text, f"tabletop {command} {action.dest}: {text}"


@pytest.mark.parametrize("command", ["tournament", "eval", "play", "crossplay"])
def test_help_lists_each_games_agents(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    for env_id in ENV_IDS:
        assert re.search(rf"^  {env_id} +{', '.join(agent_names(env_id))}$", out, flags=re.M), env_id


def test_a_tournament_reports_every_pair(tmp_path, capsys):
    """Three agents at a two-seat table: the agent rows pool two opponents each, so each pair gets its own
    row (table and JSON), counted from the games both played."""
    specs = ["random", "greedy", "patient"]
    result = run_tournament(EnvSpec("cromlet_v0"), specs, 12)
    for (first, second), pair in result.pairs.items():
        met = [g for g in result.per_game if {first, second} <= set(g["seats"])]
        margins = [g["returns"][g["seats"].index(first)] - g["returns"][g["seats"].index(second)] for g in met]
        assert (pair.wins, pair.draws, pair.losses) == (
            sum(m > 0 for m in margins),
            margins.count(0),
            sum(m < 0 for m in margins),
        )
    assert sorted(result.pairs) == [("greedy", "patient"), ("random", "greedy"), ("random", "patient")]
    assert sum(p.played for p in result.pairs.values()) == 12  # one pair meets in each game

    out = tmp_path / "result.json"
    assert main(["tournament", "cromlet_v0", *specs, "--games", "12", "--quiet", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert json.loads(out.read_text())["pairs"] == result.to_dict()["pairs"]
    for pair in result.pairs.values():
        lo, hi = pair.interval
        assert re.search(
            rf"^{pair.first} vs {pair.second} +{pair.played} +{pair.wins} +{pair.draws} +{pair.losses} +"
            rf"{pair.win_rate:.3f} +\[{lo:.3f}, {hi:.3f}\]$",
            table,
            flags=re.M,
        )


def test_a_tournament_where_an_agent_meets_itself_says_so_in_one_line(capsys):
    assert main(["tournament", "cromlet_v0", "greedy", "random", "greedy", "--games", "6", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert (
        err.startswith(
            "tabletop tournament: warning: greedy holds more than one seat in 2 of every 6 games, playing itself there"
        )
        and err.count("\n") == 1
    )
    assert main(["tournament", "cromlet_v0", "greedy", "--games", "1", "--quiet"]) == 0
    assert "greedy holds more than one seat in every game" in capsys.readouterr().err
    assert main(["tournament", "cromlet_v0", "greedy", "random", "--games", "2", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    team_game = next(env_id for env_id in ENV_IDS if env_id.startswith("krz_grtn"))  # teammates share one result
    assert main(["tournament", team_game, "random", "--games", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_train_given_a_folder_lists_the_configs_in_it(capsys):
    assert main(["train", str(REPO / "configs")]) == 2
    err = capsys.readouterr().err
    listed = ", ".join(str(p) for p in sorted((REPO / "configs").glob("*.yaml")))
    assert err.startswith(
        f"tabletop train: error: {REPO / 'configs'} is a folder, not a config: give one of {listed} (more in "
    )
    assert f"{REPO / 'configs' / 'smoke'}/" in err and err.count("\n") == 1


def test_training_names_its_run_folder_first_and_shows_the_final_evaluation(tmp_path, monkeypatch, capsys):
    """The run folder is printed before the learner starts (so TensorBoard can watch it), and the final
    evaluation's games have a progress bar per baseline (they once ran for minutes without a word)."""
    from tabletop.train.selfplay import trainer

    seen_at_start = []
    make_vec_env = trainer.make_vec_env

    def watched(*args, **kwargs):
        seen_at_start.append(capsys.readouterr().out)
        return make_vec_env(*args, **kwargs)

    monkeypatch.setattr(trainer, "make_vec_env", watched)
    run = tmp_path / "run"
    assert main(["train", str(REPO / "configs" / "smoke" / "cromlet.yaml"), "--out", str(run)]) == 0
    plan, folder = seen_at_start[0].splitlines()
    assert plan.startswith("plan: 256 learner steps, then a final evaluation of 4 games against each of 4 opponents")
    assert folder == f"run folder {run} (tensorboard --logdir {run / 'logs' / 'tb'})"
    err = capsys.readouterr().err
    baselines = agent_names("cromlet_v0")
    for i, opponent in enumerate(baselines, 1):
        assert f"final evaluation vs {opponent} ({i}/{len(baselines)})" in err


def test_the_training_bar_rate_is_steady_over_bursts():
    """PPO collects in bursts between updates: the bar's rate is the last window's average, not the burst's."""
    from tabletop.train.selfplay.callbacks import SteadyBar

    clock = [0.0]
    bar = SteadyBar(total=10**6, window=20, file=io.StringIO(), mininterval=0)
    bar._time = lambda: clock[0]
    rates = []
    for second in range(1, 121):  # three seconds collecting 1,000 steps each, then one second updating
        clock[0] = float(second)
        bar.update(1000 if second % 4 else 0)
        rates.append(bar.format_dict["rate"])
    bar.close()
    assert all(abs(rate - 750) < 40 for rate in rates[30:])


def test_eval_games_sets_the_final_evaluation_and_a_shorter_run_scales_it(tmp_path, capsys):
    config = REPO / "configs" / "smoke" / "cromlet.yaml"  # 256 steps, final_games: 4, four baselines
    run = tmp_path / "run"
    assert main(["train", str(config), "--steps", "128", "--out", str(run)]) == 0
    out = capsys.readouterr().out
    assert "then a final evaluation of 2 games against each of 4 opponents" in out
    assert "8 games in all (the config's 4 scaled to 128 of its 256 steps; --eval-games N sets it)" in out
    assert {row["games"] for row in json.loads((run / "final" / "eval.json").read_text())["results"]} == {2}
    assert main(["train", str(config), "--steps", "128", "--eval-games", "1", "--out", str(tmp_path / "one")]) == 0
    assert "final evaluation of 1 game against each of 4 opponents" in capsys.readouterr().out
    assert {row["games"] for row in json.loads((tmp_path / "one" / "final" / "eval.json").read_text())["results"]} == {
        1
    }


def test_the_final_evaluation_of_another_family_scales_and_is_set_alike():
    from tabletop.train.benchmark.training import parse_training
    from tabletop.train.cli import final_evaluation

    config = parse_training({"family": "dqn", "env_id": "cromlet_v0", "total_steps": 1000, "eval_games": 100})
    scaled, plan = final_evaluation(config, 100, None)
    assert scaled.task.eval_games == scaled.data["eval_games"] == 10
    assert plan.startswith("plan: 100 learner steps, then a final evaluation of 10 games against each of 4 opponents")
    team = parse_training({"family": "dqn", "env_id": "krz_grtn_v1", "learner_seats": "all", "total_steps": 1000})
    _, plan = final_evaluation(team, None, 7)
    assert "7 games for its own team and each of 3 other teams" in plan and "28 games in all (--eval-games 7)" in plan

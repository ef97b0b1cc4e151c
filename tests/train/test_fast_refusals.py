"""A mistyped path or argument is refused before the heavy imports (torch, Ray, onnxruntime) load, so it answers at
once; `tabletop benchmark report --help` is the report's own help."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tabletop.train.cli import main

HEAVY = ("torch", "ray", "stable_baselines3", "onnxruntime")
PROBE = """
import json, sys
from tabletop.train.cli import main
status = main({argv!r})
print(json.dumps([status, [m for m in {heavy!r} if m in sys.modules]]))
"""


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "no-such.yaml"], "config file 'no-such.yaml' does not exist"),
        (["train", "configs/cromlet.yaml", "--resume", "runs/no-such"], "nothing to resume at 'runs/no-such'"),
        (["export", "runs/no-such", "--out", "x"], "no trained model at 'runs/no-such'"),
        (["benchmark", "no-such.yaml", "--out", "x"], "suite file 'no-such.yaml' does not exist"),
        (["benchmark", "report", "no-such"], "no-such holds no benchmark (no such folder)"),
        (["tournament", "cromlet_v0", "random", "no-such"], "unknown agent 'no-such'"),
        (["tournament", "cromlet_v0", "random", "ppo:runs/no-such"], "no trained model at 'runs/no-such'"),
        (["exploit", "cromlet_v0", "ppo:runs/no-such"], "no trained model at 'runs/no-such'"),
        (["speed", "--train", "no-such.yaml"], "config file 'no-such.yaml' does not exist"),
    ],
)
def test_a_bad_command_line_is_refused_without_heavy_imports(argv, message):
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True, text=True, timeout=120
    )
    status, loaded = json.loads(done.stdout.splitlines()[-1])
    assert status == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert loaded == [], f"{argv} imported {loaded} before refusing"


BAD_CONFIGS = {  # file name -> (its text, the command's words for it)
    "key.yaml": ("env_id: cromlet_v0\ntotal_steps: 1000\nbogus_key: 3\n", "unknown key 'bogus_key'"),
    "value.yaml": ("env_id: cromlet_v0\ntotal_steps: 1000\nseed: -3\n", "seed=-3 is not allowed"),
    "network.yaml": (
        "env_id: cromlet_v0\ntotal_steps: 1000\nnetwork: {kind: board}\n",
        "network.kind 'board' does not read cromlet_v0's observation",
    ),
    "family.yaml": ("family: dqn\nenv_id: cromlet_v0\ntotal_steps: 1000\nsave_evry: 10\n", "unknown key 'save_evry'"),
    "suite.yaml": (
        "tasks:\n  t: {env_id: cromlet_v0, budget: 1000, eval_every: 1000, panel: [random], eval_games: 0}\n"
        "algorithms: {ppo: {}}\n",
        "eval_games=0 is not allowed",
    ),
    "hyperparameter.yaml": (
        "family: nfsp\nenv_id: cromlet_v0\ntotal_steps: 1000\nnfsp: {bogus: 1}\n",
        "unknown key nfsp.bogus",
    ),
    "suite_hyperparameter.yaml": (
        "tasks:\n  t: {env_id: cromlet_v0, budget: 1000, eval_every: 1000, panel: [random, greedy]}\n"
        "algorithms: {psro: {br_stepz: 10}}\n",
        "unknown key algorithms.psro.br_stepz",
    ),
}


@pytest.mark.parametrize(
    "argv, config",
    [
        (["train", "{dir}/key.yaml"], "key.yaml"),
        (["train", "{dir}/value.yaml"], "value.yaml"),
        (["train", "{dir}/network.yaml"], "network.yaml"),
        (["train", "{dir}/family.yaml"], "family.yaml"),
        (["train", "{dir}/hyperparameter.yaml"], "hyperparameter.yaml"),
        (["benchmark", "{dir}/suite_hyperparameter.yaml", "--out", "{dir}/out"], "suite_hyperparameter.yaml"),
        (["speed", "--train", "{dir}/key.yaml"], "key.yaml"),
        (["benchmark", "{dir}/suite.yaml", "--out", "{dir}/out"], "suite.yaml"),
        (["exploit", "cromlet_v0", "random", "--override", '{{"ppo": {{"bogus_key": 3}}}}'], None),
    ],
)
def test_a_bad_key_or_value_in_a_config_is_refused_without_heavy_imports(tmp_path, argv, config):
    for name, (text, _) in BAD_CONFIGS.items():
        (tmp_path / name).write_text(text)
    argv = [arg.format(dir=tmp_path) for arg in argv]
    message = BAD_CONFIGS[config][1] if config else "unknown key 'ppo.bogus_key'"
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True, text=True, timeout=120
    )
    status, loaded = json.loads(done.stdout.splitlines()[-1])
    assert status == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert loaded == [], f"{argv} imported {loaded} before refusing"


def test_benchmark_report_help_is_its_own(capsys):
    with pytest.raises(SystemExit) as done:
        main(["benchmark", "report", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith("usage: tabletop benchmark report [-h] [--no-plots]")
    assert "--algorithms" not in out

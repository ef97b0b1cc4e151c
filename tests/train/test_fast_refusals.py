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


def test_benchmark_report_help_is_its_own(capsys):
    with pytest.raises(SystemExit) as done:
        main(["benchmark", "report", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith("usage: tabletop benchmark report [-h] [--no-plots]")
    assert "--algorithms" not in out

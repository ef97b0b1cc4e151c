"""Every command that needs an extra, run without it: one line naming the extra to install, exit status 2,
no traceback, nothing half-made. Each run is a fresh interpreter whose import system finds none of the
extra's modules, as if never installed, so nothing an earlier test imported can hide the gap.
`tabletop export` is tried on a trained run in tests/train/test_export.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.agents.extras import MissingExtra, require
from tabletop.train.evaluation.crossplay import ROLE_GAMES

REPO = Path(__file__).resolve().parents[2]
WITHOUT = """
import sys

class Absent:  # first on the import path: these modules (and their submodules) are not installed
    names = set(sys.argv.pop(1).split(","))

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Absent())
from tabletop.train.cli import main
sys.exit(main())
"""
EXPORT = "an exported policy (onnx: or pretrained agent) needs the export extra (onnxruntime is missing): pip install -e '.[export]'"
TRAIN = "this command needs the train extra ({} is missing): pip install -e '.[train]'"


def run_without(modules: tuple[str, ...], args: list[str]) -> subprocess.CompletedProcess:
    """`tabletop ARGS` in a fresh interpreter where `modules` are not installed."""
    return subprocess.run(
        [sys.executable, "-c", WITHOUT, ",".join(modules), *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def assert_one_line(done: subprocess.CompletedProcess, command: str, message: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"tabletop {command}: error: {message}\n"


CASES = {  # id: (modules absent, command line with {tmp} for outputs that must not appear, the message)
    "tournament pretrained": (
        ("onnxruntime",),
        ["tournament", "cromlet_v0", "pretrained", "random", "--quiet", "--json", "{tmp}/out.json"],
        EXPORT,
    ),
    "eval pretrained": (
        ("onnxruntime",),
        ["eval", "cromlet_v0", "pretrained", "random", "--quiet", "--out", "{tmp}/out"],
        EXPORT,
    ),
    "play pretrained": (("onnxruntime",), ["play", "cromlet_v0", "--opponent", "pretrained"], EXPORT),
    "crossplay pretrained": (
        ("onnxruntime",),
        ["crossplay", ROLE_GAMES[0], "onnx:{tmp}/exported", "--json", "{tmp}/out.json"],
        EXPORT,
    ),
    "agent": (("onnxruntime",), ["agent", "--model", str(REPO / "agents/pretrained/cromlet_2p")], EXPORT),
    "bench baseline": (
        ("pygame",),
        ["speed", "cromlet_v0", "--games", "1", "--baseline-games", "1", "--rounds", "1"],
        "the connect_four_v3 baseline needs the dev extra (pygame is missing): pip install -e '.[dev]'",
    ),
    "bench texas holdem": (
        ("rlcard",),
        [
            "speed",
            "cromlet_v0",
            "--baseline",
            "texas_holdem_v4",
            "--games",
            "1",
            "--baseline-games",
            "1",
            "--rounds",
            "1",
        ],
        "the texas_holdem_v4 baseline needs rlcard, which no extra installs: pip install rlcard",
    ),
    "bench openspiel": (
        ("pyspiel",),
        [
            "speed",
            "cromlet_v0",
            "--baseline",
            "openspiel:cribbage",
            "--games",
            "1",
            "--baseline-games",
            "1",
            "--rounds",
            "1",
        ],
        "an OpenSpiel baseline needs OpenSpiel: pip install open-spiel",
    ),
    "serve": (
        ("starlette",),
        ["serve", "--port", "0"],
        "this command needs the web extra (starlette is missing): pip install -e '.[web]'",
    ),
    "train": (("torch",), ["train", "configs/smoke/cromlet.yaml", "--out", "{tmp}/out"], TRAIN.format("torch")),
    "eval ratings": (
        ("openskill",),
        ["eval", "cromlet_v0", "random", "greedy", "--out", "{tmp}/out"],
        TRAIN.format("openskill"),
    ),
    "tournament ppo": (
        ("torch",),
        ["tournament", "cromlet_v0", "ppo:{tmp}", "random"],  # a folder that is there: the extra is what is missing
        "a trained policy (ppo: agent) needs the train extra (torch is missing): pip install -e '.[train]'",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_command_without_its_extra_says_which_to_install(case, tmp_path):
    modules, args, message = CASES[case]
    done = run_without(modules, [a.format(tmp=tmp_path) for a in args])
    assert_one_line(done, args[0], message)
    assert done.stdout == "" and list(tmp_path.iterdir()) == []  # nothing begun, nothing written


def test_a_broken_install_is_not_mistaken_for_a_missing_extra(tmp_path, monkeypatch):
    """A module that is there but lacks a dependency of its own raises as it is: the fix is not an extra."""
    (tmp_path / "half_installed.py").write_text("import no_such_dependency_of_it\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as raised:
        require("this command", "half_installed")
    assert raised.value.name == "no_such_dependency_of_it" and not isinstance(raised.value, MissingExtra)

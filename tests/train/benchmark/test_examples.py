"""The bring-your-own-algorithm examples run on a tiny budget: the CleanRL-style PPO writes a run the benchmark
report reads (the same one twice for the same seed), and the PettingZoo loop plays its games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
def test_the_masked_ppo_example_writes_a_run_the_report_reads(tmp_path):
    from tabletop.train.benchmark.report import collect

    flags = ["--suite", "configs/benchmark/smoke.yaml", "--task", "cromlet_2p", "--total-steps", "128"]
    flags += ["--eval-every", "64", "--eval-games", "2", "--num-envs", "2", "--num-steps", "32", "--hidden", "16"]
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        run("examples/cleanrl_masked_ppo.py", *flags, "--out", str(out))
    seed = Path("cromlet_2p/cleanrl_ppo/seed_0")
    evals = [json.loads((out / seed / "evals.json").read_text()) for out in outs]
    assert evals[0] == evals[1]  # the same seed, the same run
    assert [e["step"] for e in evals[0]] == [0, 64, 128] and evals[0][-1]["learner_steps"] >= 128
    assert (outs[0] / seed / "finished").is_file() and (outs[0] / "cromlet_2p" / "reference.json").is_file()
    found = collect(outs[0])
    assert "cleanrl_ppo" in found.curves["cromlet_2p"]


def test_the_pettingzoo_loop_example_plays_its_games():
    out = run("examples/pettingzoo_own_loop.py", "--env", "cromlet_v0", "--games", "2")
    assert "2 games of random play" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["examples/onnx_cromlet.py", "agents/pretrained/chromino_2p"], "is an export of chromino_v1; this example"),
        (["examples/onnx_cromlet.py", "no-such-export"], "no-such-export holds no export (model.onnx and metadata"),
        (["examples/cleanrl_masked_ppo.py", "--task", "no_such_task"], "unknown task 'no_such_task'; its tasks:"),
        (["examples/cleanrl_masked_ppo.py", "--num-envs", "0"], "expected a whole number of at least 1, got '0'"),
        (["examples/pettingzoo_own_loop.py", "--games", "0"], "expected a whole number of at least 1, got '0'"),
    ],
)
def test_every_example_refuses_a_wrong_input_in_one_line(args, message):
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert message in done.stderr.splitlines()[-1], done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"{Path(args[0]).name}: error: ")


def test_the_onnx_example_names_the_first_move_of_a_cromlet_export():
    out = run("examples/onnx_cromlet.py", "agents/pretrained/cromlet_2p")
    assert out.startswith("player_0 plays action ")

"""The smoke suite in the documented install without the rllib extra: the RLlib families are left out before any
run starts, each with one line naming the extra, and the rest of the grid runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[3]
SMOKE = ROOT / "configs/benchmark/smoke.yaml"
WITHOUT_RAY = "import sys; sys.modules['ray'] = None; from tabletop.train.cli import main; sys.exit(main())"
SKIP = (
    "tabletop benchmark: skipping {0}: the {0} benchmark family needs the rllib extra (ray is missing): "
    "pip install -e '.[rllib]'"
)


def benchmark_without_ray(*args: str) -> subprocess.CompletedProcess:
    """`tabletop benchmark ARGS` in a fresh interpreter where ray cannot be imported."""
    command = [sys.executable, "-c", WITHOUT_RAY, "benchmark", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_family_whose_extra_is_missing_is_skipped_with_one_line_before_any_run(tmp_path):
    out = tmp_path / "grid"
    done = benchmark_without_ray(str(SMOKE), "--algorithms", "rllib_ppo,ppo", "--seeds", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == SKIP.format("rllib_ppo")
    assert [r["algorithm"] for r in json.loads((out / "benchmark.json").read_text())["runs"]] == ["ppo"]
    assert not (out / "cromlet_2p/rllib_ppo").exists()
    assert (out / "cromlet_2p/ppo/seed_0/finished").is_file()


def test_a_grid_of_missing_families_only_is_a_one_line_error(tmp_path):
    out = tmp_path / "grid"
    done = benchmark_without_ray(str(SMOKE), "--algorithms", "rllib_appo", "--out", str(out), "--quiet")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        SKIP.format("rllib_appo"),
        "tabletop benchmark: error: the rllib_appo benchmark family needs the rllib extra (ray is missing): "
        "pip install -e '.[rllib]'",
    ]
    assert not out.exists()

"""The shipped raw results (docs/benchmark/*/): `tabletop benchmark report` on each shipped folder makes its
tables, JSON and plots again byte for byte, and one cell of the CI smoke grid (docs/benchmark/smoke/) trained
again matches its shipped records bit for bit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tabletop.train.benchmark import runner  # noqa: E402
from tabletop.train.benchmark.report import REPORT, write_report  # noqa: E402
from tabletop.train.benchmark.suite import load_suite, panel_files  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "docs/benchmark/smoke"
SMOKE = ROOT / "configs/benchmark/smoke.yaml"
CELL = ("cromlet_2p", "mmd", 0)  # a cell small enough for CI: seconds of training


EVERY_SHIPPED = sorted(p.parent for p in (ROOT / "docs/benchmark").glob("*/benchmark.json"))
NAMES = [p.name for p in EVERY_SHIPPED]


@pytest.mark.parametrize("shipped", EVERY_SHIPPED, ids=NAMES)
def test_a_shipped_folder_names_its_suite_version_and_the_panel_files_it_played(shipped):
    """A panel policy replaced since (another sha256) fails here: the shipped results no longer describe it."""
    grid = json.loads((shipped / "benchmark.json").read_text())
    suite = load_suite(ROOT / grid["suite"])
    assert grid["suite_version"] == suite.version
    played = {run["task"] for run in grid["runs"]}
    assert grid["panel_sha256"] == {name: panel_files(suite.tasks[name]) for name in sorted(played)}
    assert not list(shipped.rglob("*.pt"))  # raw records, no saves


@pytest.mark.parametrize("shipped", EVERY_SHIPPED, ids=NAMES)
def test_report_on_a_shipped_folder_makes_its_files_again_byte_for_byte(shipped, tmp_path):
    copy = tmp_path / "shipped"
    shutil.copytree(shipped, copy)
    shutil.rmtree(copy / REPORT)
    written = write_report(copy)  # a shipped population table (report/population/) needs the policies: not made here
    assert sorted(p.name for p in written) == sorted(p.name for p in (shipped / REPORT).iterdir() if p.is_file())
    for path in written:
        assert path.read_bytes() == (shipped / REPORT / path.name).read_bytes(), path.name


def test_one_shipped_cell_trained_again_matches_its_records_bit_for_bit(tmp_path):
    task, algorithm, seed = CELL
    suite = load_suite(SMOKE)
    jobs = [
        j for j in runner.plan(suite, [task], [algorithm], seed + 1, tmp_path) if j.algorithm is None or j.seed == seed
    ]
    runner.record_grid(tmp_path, suite, jobs)
    assert set(runner.run_grid(jobs, progress=False).values()) == {"finished"}
    cell = f"{task}/{algorithm}/seed_{seed}"
    for name in (f"{task}/reference.json", f"{cell}/run.json", f"{cell}/evals.json", f"{cell}/absolute.json"):
        assert (tmp_path / name).read_bytes() == (SHIPPED / name).read_bytes(), name

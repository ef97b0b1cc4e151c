"""The shipped raw results (docs/benchmark/smoke/, the CI smoke grid): `tabletop benchmark report` on the shipped
folder makes its tables, JSON and plots again byte for byte, and one cell trained again matches its shipped
records bit for bit."""

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


def test_the_shipped_folder_names_its_suite_version_and_panel_files():
    grid = json.loads((SHIPPED / "benchmark.json").read_text())
    suite = load_suite(SMOKE)
    assert grid["suite_version"] == suite.version
    assert grid["panel_sha256"] == {name: panel_files(task) for name, task in suite.tasks.items()}
    assert not list(SHIPPED.rglob("*.pt"))  # raw records, no saves


def test_report_on_the_shipped_folder_makes_its_files_again_byte_for_byte(tmp_path):
    copy = tmp_path / "shipped"
    shutil.copytree(SHIPPED, copy)
    shutil.rmtree(copy / REPORT)
    written = write_report(copy)
    assert sorted(p.name for p in written) == sorted(p.name for p in (SHIPPED / REPORT).iterdir())
    for path in written:
        assert path.read_bytes() == (SHIPPED / REPORT / path.name).read_bytes(), path.name


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

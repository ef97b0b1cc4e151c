"""Shipping a benchmark folder and carrying a part-done one on: `--ship` keeps every raw record (CPU timings and
an exact task's CFR+ line included, no saves), `--from` starts a new folder from the finished runs alone, and a
folder whose finished run was made with other settings is refused."""

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch")

from support.benchmark import RandomLearner  # noqa: E402

from tabletop.train.benchmark import families  # noqa: E402
from tabletop.train.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
STARTED: list[int] = []  # the seeds Cheap was asked to train, in order
BROKEN: set[int] = set()  # the seeds whose training fails


class Cheap:
    """Plays at random and learns nothing; fails on the seeds in BROKEN."""

    description = "test double"
    defaults: dict = {}

    def unsupported(self, task):
        return None

    def start(self, task, params, seed, folder):
        STARTED.append(seed)
        if seed in BROKEN:
            raise RuntimeError("this seed always fails")
        return RandomLearner(seed)


FAMILY = Cheap()


@pytest.fixture
def suite_file(tmp_path, monkeypatch):
    monkeypatch.setitem(families.FAMILIES, "cheap", __name__)
    STARTED.clear()
    BROKEN.clear()
    task = yaml.safe_load((ROOT / "configs/benchmark/smoke.yaml").read_text())["tasks"]["cromlet_2p"]
    path = tmp_path / "suite.yaml"
    path.write_text(
        json.dumps({"tasks": {"c2": {**task, "budget": 256, "eval_every": 128}}, "algorithms": {"cheap": {}}})
    )
    return path


def grid(suite_file: Path, out: Path, *extra: str) -> int:
    return main(["benchmark", str(suite_file), "--seeds", "2", "--out", str(out), "--quiet", *extra])


def test_a_part_done_grid_ships_with_its_timings_and_carries_on_from_the_shipped_folder(suite_file, tmp_path, capsys):
    out, shipped, again = tmp_path / "grid", tmp_path / "shipped", tmp_path / "again"
    BROKEN.add(1)
    assert grid(suite_file, out) == 1  # seed 1 failed: the grid is part-done
    (out / "c2/cfr_plus.json").write_text('{"iterations": 0, "curve": []}\n')  # as an exact task has
    assert main(["benchmark", "report", str(out), "--no-plots", "--ship", str(shipped)]) == 0
    for name in ("benchmark.json", "c2/reference.json", "c2/cfr_plus.json", "c2/timing.json"):
        assert (shipped / name).read_bytes() == (out / name).read_bytes(), name
    for name in ("run.json", "evals.json", "timing.json", "finished"):
        assert (shipped / "c2/cheap/seed_0" / name).is_file(), name
    assert not (shipped / "c2/cheap/seed_1/error.txt").exists()
    report = (shipped / "report/report.md").read_text()
    assert "## CPU time per run" in report and "| c2 | cheap | 1 |" in report
    assert "- c2/cheap/seed_1" in report  # not finished, listed

    BROKEN.clear()
    STARTED.clear()
    capsys.readouterr()
    assert grid(suite_file, again, "--from", str(shipped)) == 0
    assert STARTED == [1]  # the shipped finished run is not trained again; the failed one is, from its start
    assert f"starts from the 1 finished runs of {shipped}" in capsys.readouterr().err
    for name in ("run.json", "evals.json", "timing.json"):
        assert (again / "c2/cheap/seed_0" / name).read_bytes() == (shipped / "c2/cheap/seed_0" / name).read_bytes()
    assert json.loads((again / "c2/cheap/seed_1/evals.json").read_text())[-1]["step"] == 256

    assert grid(suite_file, again, "--from", str(shipped)) == 2  # only into a new folder
    assert "already holds a benchmark: give --from only with a new --out" in capsys.readouterr().err


def test_a_folder_whose_finished_run_has_other_settings_is_refused(suite_file, tmp_path, capsys):
    out = tmp_path / "grid"
    assert grid(suite_file, out) == 0
    data = json.loads(suite_file.read_text())
    data["tasks"]["c2"]["eval_games"] += 2
    suite_file.write_text(json.dumps(data))
    capsys.readouterr()
    assert grid(suite_file, out) == 2
    assert "c2/cheap/seed_0 holds a run of another setting; start the benchmark in another --out" in (
        capsys.readouterr().err
    )


def test_from_a_folder_that_holds_no_benchmark_says_so(suite_file, tmp_path, capsys):
    assert grid(suite_file, tmp_path / "out", "--from", str(tmp_path)) == 2
    assert "holds no benchmark (benchmark.json is missing): give a folder shipped with" in capsys.readouterr().err

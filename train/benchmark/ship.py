"""Raw results to ship: a benchmark folder's JSON records without the saves, and the report made from them.

    tabletop benchmark report DIR --ship docs/benchmark/runs/NAME

copies `benchmark.json` (the suite, its version, the sha256 of every panel policy file and the code that ran
it), each task's `reference.json` (and an exact task's `cfr_plus.json`), and each run's `run.json`, `evals.json`,
`absolute.json`, `timing.json` and its `finished` or `unsupported.json` marker: tens of KB, the saves and
policies left out. The report is then written from the copy alone, so `tabletop benchmark report` on a shipped
folder makes the same files again, byte for byte.

    tabletop benchmark SUITE --out DIR --from docs/benchmark/runs/NAME

goes the other way (`restore`): a new benchmark folder holding the shipped folder's finished runs, so a grid
shipped part-done carries on where it stopped on any machine (the runs it had not finished start again).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tabletop.train.benchmark.exact import CFR_FILE
from tabletop.train.benchmark.report import write_report
from tabletop.train.benchmark.runner import (
    ABSOLUTE_FILE,
    EVALS_FILE,
    FINISHED,
    GRID_FILE,
    REFERENCE_FILE,
    RUN_FILE,
    TIMING_FILE,
    UNSUPPORTED,
    read_json,
    status,
)

TASK_RECORDS = (REFERENCE_FILE, CFR_FILE, TIMING_FILE)
RUN_RECORDS = (RUN_FILE, EVALS_FILE, ABSOLUTE_FILE, TIMING_FILE, FINISHED, UNSUPPORTED)


def ship(folder: Path, dest: Path, plots: bool = True) -> list[Path]:
    """Copy `folder`'s raw records into `dest` (which must not exist yet) and write the report there."""
    folder, dest = Path(folder), Path(dest)
    grid = _grid(folder, "give the --out of tabletop benchmark")
    if dest.exists():
        raise ValueError(f"{dest} exists: ship into a new folder")
    _copy(folder, dest, grid, grid["runs"])
    return write_report(dest, plots=plots)


def restore(shipped: Path, folder: Path) -> int:
    """Start the benchmark folder `folder` (which must not hold one yet) from `shipped`'s finished runs and its
    tasks' references; returns how many runs it holds finished. A run shipped unfinished is left out: it has no
    save to resume from, so the grid trains it again from its start."""
    shipped, folder = Path(shipped), Path(folder)
    grid = _grid(shipped, "give a folder shipped with tabletop benchmark report DIR --ship")
    if (folder / GRID_FILE).is_file():
        raise ValueError(f"{folder} already holds a benchmark: give --from only with a new --out")
    done = [r for r in grid["runs"] if status(shipped / r["folder"]) in ("finished", "unsupported")]
    _copy(shipped, folder, grid, done)
    return len(done)


def _grid(folder: Path, hint: str) -> dict:
    grid = read_json(folder / GRID_FILE)
    if grid is None:
        raise ValueError(f"{folder} holds no benchmark ({GRID_FILE} is missing): {hint}")
    return grid


def _copy(source: Path, dest: Path, grid: dict, runs: list[dict]) -> None:
    """benchmark.json, every task's records and the records of `runs` (of `grid`, source's), into `dest`."""
    files = [f"{task}/{name}" for task in sorted({run["task"] for run in grid["runs"]}) for name in TASK_RECORDS]
    files += [f"{run['folder']}/{name}" for run in runs for name in RUN_RECORDS]
    for name in [GRID_FILE, *sorted(files)]:
        if (source / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / name, dest / name)

"""Raw results to ship: a benchmark folder's JSON records without the saves, and the report made from them.

    tabletop benchmark report DIR --ship docs/benchmark/runs/NAME

copies `benchmark.json` (the suite, its version and the sha256 of every panel policy file), each task's
`reference.json`, and each run's `run.json`, `evals.json`, `absolute.json` and its `finished` or
`unsupported.json` marker: tens of KB, the saves, policies and CPU timings left out. The report is then written
from the copy alone, so `tabletop benchmark report` on a shipped folder makes the same files again, byte for byte.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tabletop.train.benchmark.report import write_report
from tabletop.train.benchmark.runner import (
    ABSOLUTE_FILE,
    EVALS_FILE,
    FINISHED,
    GRID_FILE,
    REFERENCE_FILE,
    RUN_FILE,
    UNSUPPORTED,
    read_json,
)

RUN_RECORDS = (RUN_FILE, EVALS_FILE, ABSOLUTE_FILE, FINISHED, UNSUPPORTED)


def ship(folder: Path, dest: Path, plots: bool = True) -> list[Path]:
    """Copy `folder`'s raw records into `dest` (which must not exist yet) and write the report there."""
    folder, dest = Path(folder), Path(dest)
    grid = read_json(folder / GRID_FILE)
    if grid is None:
        raise ValueError(f"{folder} holds no benchmark ({GRID_FILE} is missing): give the --out of tabletop benchmark")
    if dest.exists():
        raise ValueError(f"{dest} exists: ship into a new folder")
    files = [GRID_FILE, *{f"{run['task']}/{REFERENCE_FILE}" for run in grid["runs"]}]
    files += [f"{run['folder']}/{name}" for run in grid["runs"] for name in RUN_RECORDS]
    for name in sorted(files):
        if (folder / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / name, dest / name)
    return write_report(dest, plots=plots)

"""Run-folder logs that survive a resume: SB3's CSV and TensorBoard, and our evaluation table.

A resumed run continues the same files; rows written after the checkpoint it resumes from (by a run
that went on and then died) are dropped, so every step appears once.
"""

from __future__ import annotations

import csv
from pathlib import Path

from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat

STEP_COLUMN = "time/total_timesteps"
EVAL_COLUMNS = [
    "step",
    "opponent",
    "games",
    "wins",
    "draws",
    "losses",
    "win_rate",
    "ci_low",
    "ci_high",
    "opponent_win_rate",
    "mean_score",
]


def _rows_up_to(path: Path, column: str, step: int) -> tuple[list[str], list[dict]]:
    """Header and the rows of a CSV whose `column` is at most `step` (rows without it are kept)."""
    if not path.is_file() or path.stat().st_size == 0:
        return [], []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = [r for r in reader if not r.get(column) or float(r[column]) <= step]
        return list(reader.fieldnames or []), rows


class ResumableCSV(CSVOutputFormat):
    """SB3's CSV writer, continuing an existing file from `step` instead of truncating it."""

    def __init__(self, filename: Path, step: int):
        header, rows = _rows_up_to(Path(filename), STEP_COLUMN, step)
        super().__init__(str(filename))
        if header:
            writer = csv.DictWriter(self.file, fieldnames=header, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
            self.file.flush()
            self.keys = header


def make_logger(log_dir: Path, step: int) -> Logger:
    """CSV (`progress.csv`) and TensorBoard output in `log_dir`, continuing from `step`."""
    log_dir.mkdir(parents=True, exist_ok=True)
    return Logger(
        str(log_dir), [ResumableCSV(log_dir / "progress.csv", step), TensorBoardOutputFormat(str(log_dir / "tb"))]
    )


class EvalLog:
    """`eval.csv`: one row per (evaluation step, opponent)."""

    def __init__(self, path: Path, step: int):
        self.path = path
        _, rows = _rows_up_to(path, "step", step)
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=EVAL_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)

    def append(self, step: int, matchups) -> None:
        with open(self.path, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=EVAL_COLUMNS, extrasaction="ignore", lineterminator="\n")
            for m in matchups:
                writer.writerow({"step": step, **m.to_dict()})


def read_csv(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

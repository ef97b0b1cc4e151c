"""Turn saved `tabletop speed` reports into docs/speed.md's table of ratios.

Each file holds one run's printed report (`tabletop speed GAME --baseline ... > FILE`). The table has one row
per game: our engine and AEC loop in steps per CPU-second, and each ratio the run printed. Steps per CPU-second
is the figure read, since a shared machine moves the wall clock more than the CPU time.

    python scripts/speed_table.py docs/records/speed/*.txt                      # print the table
    python scripts/speed_table.py docs/records/speed/*.txt --write docs/speed.md  # replace it in the page

`--write` replaces what lies between the page's `<!-- speed-table -->` and `<!-- /speed-table -->` lines.
Run it on the machine and day the reports were taken: the caption names both (`--machine`, `--date`).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

BEGIN, END = "<!-- speed-table -->", "<!-- /speed-table -->"
LOOP = re.compile(r"^(?P<name>.+?)\s+(?P<games>\d+)\s+(?P<steps>\d+)\s+[\d.]+\s+[\d.]+\s+(?P<cpu>[\d.]+)$")
RATIO = re.compile(r"^ratio \((?P<ours>.+?) / (?P<theirs>.+?)\): steps/s [\d.]+x; steps per CPU-second (?P<x>[\d.]+)x$")


@dataclass
class Run:
    """One saved report: the steps per CPU-second of every loop, and each ratio against a baseline."""

    game: str
    rate: dict[str, float] = field(default_factory=dict)  # loop name -> steps per CPU-second
    ratios: list[tuple[str, str, float]] = field(default_factory=list)  # (our loop, baseline loop, ratio)


def parse(text: str, source: str = "report") -> Run:
    rate: dict[str, float] = {}
    ratios: list[tuple[str, str, float]] = []
    for line in text.splitlines():
        line = line.strip()
        if m := RATIO.match(line):
            ratios.append((m["ours"], m["theirs"], float(m["x"])))
        elif (m := LOOP.match(line)) and m["name"] != "loop":
            rate[m["name"]] = float(m["cpu"])
    engine = [name for name in rate if name.endswith(" engine")]
    if not engine or not ratios:
        raise ValueError(f"{source}: not a `tabletop speed` report (no engine loop or no ratio line)")
    return Run(engine[0].removesuffix(" engine"), rate, ratios)


def _thousands(x: float) -> str:
    return f"{x / 1000:.1f}k"


def table(runs: list[Run], machine: str, date: str) -> str:
    rows = [
        f"Measured {date} on {machine}; steps per CPU-second; regenerate with `python scripts/speed_table.py`.",
        "",
        "| game | engine | AEC | AEC vs PettingZoo baseline | engine vs OpenSpiel |",
        "|---|---:|---:|---|---|",
    ]
    for run in runs:
        cells: dict[str, list[str]] = {"AEC": [], "engine": []}
        for _, theirs, ratio in run.ratios:
            baseline, loop = theirs.rsplit(" ", 1)
            cells[loop].append(f"**{ratio:.2f}x** `{baseline}` ({_thousands(run.rate[theirs])})")
        engine, aec = run.rate[f"{run.game} engine"], run.rate[f"{run.game} AEC"]
        rows.append(
            f"| `{run.game.removesuffix('()')}` | {_thousands(engine)} | {_thousands(aec)} | "
            f"{'; '.join(cells['AEC']) or '-'} | {'; '.join(cells['engine']) or '-'} |"
        )
    return "\n".join(rows)


def replace(page: str, new_table: str) -> str:
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        raise ValueError(f"the page needs one {BEGIN} line followed by one {END} line")
    head, rest = page.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{new_table}\n{END}{tail}"


def this_machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path, help="saved `tabletop speed` reports, one run each")
    parser.add_argument("--write", type=Path, metavar="PAGE", help="replace the table in this page")
    parser.add_argument("--machine", default=this_machine(), help="the machine the runs took (default: this one)")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="the runs' date (default: today)")
    args = parser.parse_args(argv)
    try:
        runs = [parse(path.read_text(), str(path)) for path in args.reports]
        text = table(runs, args.machine, args.date)
        if args.write:
            args.write.write_text(replace(args.write.read_text(), text))
        else:
            print(text)
    except (OSError, ValueError) as e:
        print(f"speed_table: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""mypy over envs/, agents/ and train/ against a committed baseline that may only shrink.

The folders install as `tabletop.envs`, `tabletop.agents` and `tabletop.train`, a mapping mypy cannot read from
an editable install, so mypy checks them through a `tabletop/` folder of links to them under .mypy_cache/. Its
settings are `[tool.mypy]` in pyproject.toml. Each error is kept as `file: [code] message`, without its line
number, so the baseline (.ci/mypy-baseline.txt) survives edits that only move code. Exit status 1 when an error
is not in the baseline (fix it) or a baseline entry no longer occurs (shrink the baseline with `--update`). The
public API (the registry, the entry modules, the layer protocols, the agent protocol, specs and policy players)
has no baseline: any error there fails.

    python .ci/mypy_baseline.py            # check
    python .ci/mypy_baseline.py --update   # write today's errors as the baseline
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
CACHE = ROOT / ".mypy_cache"
FOLDERS = ("envs", "agents", "train")
PUBLIC = re.compile(  # the public API: no error here, baseline or not
    r"^(envs/(__init__|registry|[a-z_]+_v\d+)\.py|envs/core/(protocol|definition)\.py"
    r"|agents/(__init__|base|registry|policy_agent|onnx_agent)\.py|agents/search/spec\.py):"
)
ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<message>.*?)(?:  \[(?P<code>[a-z-]+)\])?$")


def normalize(line: str) -> str | None:
    """`file: [code] message` for an error line of mypy's output, None for anything else (notes, the summary)."""
    match = ERROR.match(line)
    if match is None:
        return None
    message = re.sub(r"\bon line \d+", "on line N", match["message"])
    return f"{match['path']}: [{match['code'] or 'error'}] {message}"


def run_mypy() -> list[str]:
    """mypy's error lines, their paths relative to the repository (`envs/core/aec.py:118: error: ...`)."""
    links = CACHE / "tree"  # a stable path, so that mypy's cache stays valid from one run to the next
    for name in FOLDERS:
        link = links / "tabletop" / name
        if not link.is_symlink():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(ROOT / name, target_is_directory=True)
    packages = [arg for name in FOLDERS for arg in ("-p", f"tabletop.{name}")]
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(CACHE)]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *config, *packages],
        cwd=links,
        env={**os.environ, "MYPYPATH": str(links)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a bad setting, a crash)
        sys.exit(f"mypy failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    prefix = re.compile(rf"^(?:{re.escape(str(links))}/)?tabletop/")
    return [prefix.sub("", line) for line in done.stdout.splitlines() if ": error: " in line]


def read_baseline() -> Counter[str]:
    if not BASELINE.is_file():
        return Counter()
    lines = BASELINE.read_text().splitlines()
    return Counter(line for line in lines if line and not line.startswith("#"))


def write_baseline(found: Counter[str]) -> None:
    header = (
        "# mypy's errors over envs/, agents/ and train/ (python .ci/mypy_baseline.py --update); it may only shrink\n"
    )
    BASELINE.write_text(header + "".join(f"{entry}\n" for entry in sorted(found.elements())))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write today's errors as the baseline")
    args = parser.parse_args(argv)
    lines = run_mypy()
    found = Counter(entry for entry in map(normalize, lines) if entry)
    if args.update:
        write_baseline(Counter({entry: n for entry, n in found.items() if not PUBLIC.match(entry)}))
        print(f"{BASELINE.relative_to(ROOT)}: {sum(found.values())} errors")
        return 0
    baseline = read_baseline()
    new, gone = found - baseline, baseline - found
    new.update(entry for entry in (baseline & found).elements() if PUBLIC.match(entry))
    for line in lines:
        if normalize(line) in new:
            print(f"new: {line}")
    for entry in sorted(gone.elements()):
        print(f"fixed: {entry}")
    if new:
        print(f"{sum(new.values())} mypy errors not in {BASELINE.relative_to(ROOT)}: fix them")
    if gone:
        print(
            f"{sum(gone.values())} baseline errors no longer occur: shrink the baseline with "
            "`python .ci/mypy_baseline.py --update` and commit it"
        )
    if not new and not gone:
        print(f"mypy: {sum(found.values())} errors, all in the baseline")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())

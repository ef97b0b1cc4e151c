"""Another commit's engine against this checkout's, and both against OpenSpiel's cribbage, in one process taking turns.

`bench_commit.py` runs one side per process, one after the other; on a machine whose speed drifts by 10-20% from
minute to minute that comparison moves with the drift. Here COMMIT's `envs/` is imported beside this checkout's
as a second package with COMMIT's own bench loops (a temporary copy with its imports renamed), and the three loops
alternate in short rounds: COMMIT's engine in COMMIT's engine loop, this checkout's in `tabletop bench`'s, and
OpenSpiel's (needs `pip install open-spiel`):

    python scripts/engine_ab.py HEAD~1 kings_cribbage_v0 --games 20 --rounds 20

Caution: COMMIT's copy runs slower than the same code in this checkout (given HEAD itself it reports
here / HEAD 1.05 for Chromino and 1.11-1.22 for Kings Cribbage; docs/speed.md), so "here / COMMIT" overstates a
change's gain. Read the "here vs OpenSpiel" figure; to measure a change, swap the code inside one package.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tabletop.envs import EnvSpec
from tabletop.train.evaluation.bench import engine_play, openspiel_play

ROOT = Path(__file__).resolve().parents[1]
BENCH = "train/evaluation/bench.py"


def import_at(commit: str, folder: Path):
    """COMMIT's `envs/` as the package `tabletop_at_commit.envs` and its `train/evaluation/bench.py` as
    `tabletop_at_commit.bench` (the files copied out of git, `tabletop.envs` renamed): that bench module."""
    package = folder / "tabletop_at_commit"
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", commit, "envs", BENCH],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in files:
        data = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:{name}"], check=True, capture_output=True
        ).stdout
        target = package / ("bench.py" if name == BENCH else name)
        target.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".py"):
            data = data.replace(b"tabletop.envs", b"tabletop_at_commit.envs")
        target.write_bytes(data)
    (package / "__init__.py").write_text("")
    sys.path.insert(0, str(folder))
    return importlib.import_module("tabletop_at_commit.bench")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit")
    parser.add_argument("game", help="an env id that both commits register")
    parser.add_argument("--env-kwargs", default="{}", help="JSON (default: {})")
    parser.add_argument("--games", type=int, default=20, help="games a side a round (default: 20)")
    parser.add_argument("--rounds", type=int, default=16, help="(default: 16)")
    args = parser.parse_args()
    kwargs = json.loads(args.env_kwargs)
    with tempfile.TemporaryDirectory() as folder:
        bench_at_commit = import_at(args.commit, Path(folder))
        at_commit, here = bench_at_commit.EnvSpec(args.game, kwargs), EnvSpec(args.game, kwargs)
        for play, spec in ((engine_play, here), (bench_at_commit.engine_play, at_commit)):  # compile, warm caches
            play(spec, 2)
        openspiel_play("cribbage", 2)
        totals = {"commit": [0, 0.0], "here": [0, 0.0], "openspiel": [0, 0.0]}
        for r in range(args.rounds):
            seed = 1000 * r
            for name, run in (
                ("here", engine_play(here, args.games, seed)),
                ("commit", bench_at_commit.engine_play(at_commit, args.games, seed)),
                ("openspiel", openspiel_play("cribbage", args.games, seed)),
            ):
                totals[name][0] += run.steps
                totals[name][1] += run.cpu_seconds
    rate = {name: steps / seconds for name, (steps, seconds) in totals.items()}
    print(
        f"steps per CPU-second: {args.commit} {rate['commit']:.0f}, here {rate['here']:.0f}, openspiel:cribbage "
        f"{rate['openspiel']:.0f}; here / {args.commit} {rate['here'] / rate['commit']:.3f}; against OpenSpiel: "
        f"{args.commit} {rate['commit'] / rate['openspiel']:.3f}x, here {rate['here'] / rate['openspiel']:.3f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

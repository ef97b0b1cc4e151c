"""This checkout's `tabletop bench` loops on the engines of another commit, for before/after figures (docs/speed.md).

Checks COMMIT out into a temporary worktree, points the `tabletop` package at it, and runs
`train/evaluation/bench.py`'s `compare` from this checkout there (the loops need only the public env API):

    python scripts/bench_commit.py HEAD~1 chromino_v0 --baseline go_v5 --baseline openspiel:cribbage --games 20

`--own-bench` runs COMMIT's own `bench.py` instead, so that COMMIT's figure comes from COMMIT's own loops.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = """import json, runpy, sys
bench = runpy.run_path(sys.argv[1])
from tabletop.envs import EnvSpec
a = json.loads(sys.argv[2])
print(bench["compare"](EnvSpec(a["game"], a["env_kwargs"]), a["baselines"], a["games"], a["baseline_games"], 0, a["rounds"]))
"""


@contextmanager
def tabletop_at(commit: str) -> Iterator[str]:
    """A PYTHONPATH entry under which `tabletop` is COMMIT's tree (a temporary git worktree, removed after)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree, shim = Path(tmp) / "tree", Path(tmp) / "shim" / "tabletop"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), commit], check=True)
        try:
            shim.mkdir(parents=True)
            (shim / "__init__.py").write_text("")
            for folder in ("envs", "agents", "train"):
                (shim / folder).symlink_to(tree / folder)
            yield str(shim.parent)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit")
    parser.add_argument("game", help="an env id as that commit registers it")
    parser.add_argument("--env-kwargs", default="{}", help="JSON (default: {})")
    parser.add_argument("--baseline", action="append", help="as for tabletop bench (default: connect_four_v3)")
    parser.add_argument("--games", type=int, default=200, help="(default: 200)")
    parser.add_argument("--baseline-games", type=int, default=500, help="(default: 500)")
    parser.add_argument("--rounds", type=int, default=4, help="(default: 4)")
    parser.add_argument("--own-bench", action="store_true", help="run COMMIT's own bench.py (its loops as they were)")
    args = parser.parse_args()
    spec = {
        "game": args.game,
        "env_kwargs": json.loads(args.env_kwargs),
        "baselines": args.baseline or ["connect_four_v3"],
        "games": args.games,
        "baseline_games": args.baseline_games,
        "rounds": args.rounds,
    }
    with tabletop_at(args.commit) as python_path:
        env = {**os.environ, "PYTHONPATH": python_path}
        root = Path(python_path).parent / "tree" if args.own_bench else ROOT
        bench = root / "train" / "evaluation" / "bench.py"
        return subprocess.run(
            [sys.executable, "-c", RUN, str(bench), json.dumps(spec)], env=env, cwd=Path(python_path).parent
        ).returncode


if __name__ == "__main__":
    raise SystemExit(main())

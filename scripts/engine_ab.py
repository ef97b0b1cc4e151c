"""Another commit's engine against this checkout's, and both against OpenSpiel's cribbage, in one process taking turns.

`bench_commit.py` runs one side per process, one after the other; on a machine whose speed drifts by 10-20% from
minute to minute that before/after moves with the drift. Here COMMIT's `envs/` is imported beside this checkout's
as a second package (a temporary copy with its imports renamed), and the three loops alternate in short rounds:
COMMIT's engine with the engine loop as it was before `legal_actions` (a draw among the mask's nonzero indices),
this checkout's with `tabletop bench`'s engine loop, and OpenSpiel's (needs `pip install open-spiel`):

    python scripts/engine_ab.py b39f0bf kings_cribbage_v0 --games 20 --rounds 20
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tabletop.envs import EnvSpec
from tabletop.train.evaluation.bench import engine_play, legal_actions, openspiel_play

ROOT = Path(__file__).resolve().parents[1]


def import_envs_at(commit: str, folder: Path):
    """COMMIT's `envs/` as the package `tabletop_then.envs` (its files copied out of git, imports renamed)."""
    package = folder / "tabletop_then"
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", commit, "envs"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in files:
        data = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:{name}"], check=True, capture_output=True
        ).stdout
        target = package / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".py"):
            data = data.replace(b"tabletop.envs", b"tabletop_then.envs")
        target.write_bytes(data)
    (package / "__init__.py").write_text("")
    sys.path.insert(0, str(folder))
    return importlib.import_module("tabletop_then.envs")


def mask_play(spec, games: int, seed: int) -> tuple[int, float]:
    """The engine loop before `legal_actions`: a uniform draw among the mask's nonzero indices."""
    game, steps = spec.new_game(), 0
    began = time.process_time()
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            legal = legal_actions(state.legal_action_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
            steps += 1
    return steps, time.process_time() - began


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
        then = import_envs_at(args.commit, Path(folder)).EnvSpec(args.game, kwargs)
        now = EnvSpec(args.game, kwargs)
        engine_play(now, 2), mask_play(then, 2, 0), openspiel_play("cribbage", 2)  # compile and warm the caches
        totals = {"then": [0, 0.0], "now": [0, 0.0], "openspiel": [0, 0.0]}
        for r in range(args.rounds):
            seed = 1000 * r
            ours = engine_play(now, args.games, seed)
            theirs = openspiel_play("cribbage", args.games, seed)
            for name, (steps, seconds) in (
                ("now", (ours.steps, ours.cpu_seconds)),
                ("then", mask_play(then, args.games, seed)),
                ("openspiel", (theirs.steps, theirs.cpu_seconds)),
            ):
                totals[name][0] += steps
                totals[name][1] += seconds
    rate = {name: steps / seconds for name, (steps, seconds) in totals.items()}
    print(
        f"steps per CPU-second: {args.commit} {rate['then']:.0f}, now {rate['now']:.0f}, openspiel:cribbage "
        f"{rate['openspiel']:.0f}; now / {args.commit} {rate['now'] / rate['then']:.3f}; against OpenSpiel: "
        f"{args.commit} {rate['then'] / rate['openspiel']:.3f}x, now {rate['now'] / rate['openspiel']:.3f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

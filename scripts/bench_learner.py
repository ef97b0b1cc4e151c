"""Learner steps/s of this checkout against another commit, the two taking turns in one run (docs/speed.md).

For each config and round, a fresh process per side trains a fresh learner (no warm start: imitation is
skipped, the opponent pool filled with `max_snapshots` copies of it, as `tabletop bench --train` does) for
`--steps` learner steps on the config's `batched` path with that side's own training code, and times the
`learn` call alone; imports, env construction and one random game per config (numba's kernels loaded or
compiled) come before the clock. The sides alternate which goes first from round to round, so a machine
whose load changes slows both alike:

    python scripts/bench_learner.py 366ae83 configs/cromlet.yaml configs/results/krz_grtn_pretrained_4p.yaml
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_commit import ROOT, tabletop_at  # noqa: E402  (a sibling script)

CHILD = """import json, sys
import numpy as np
from tabletop.train.selfplay.config import load_config
from tabletop.train.selfplay.throughput import learn_once
config = load_config(sys.argv[1])
table, rng = config.env.make_raw(), np.random.default_rng(0)
table.reset(seed=0)
while not all(table.terminations.values()):  # one random game before the clock: the kernels are loaded
    table.step(int(rng.choice(np.flatnonzero(table.game_state.legal_action_mask()))))
speed = learn_once(config, "batched", int(sys.argv[2]))
print(json.dumps({"steps": speed.steps, "seconds": speed.seconds, "rollout": speed.rollout_seconds}))
"""


def run_side(python_path: str | None, config: Path, steps: int) -> dict:
    """One timed learn in a fresh process; `python_path` points `tabletop` at another tree (None: this one)."""
    env = {**os.environ, "PYTHONPATH": python_path} if python_path else dict(os.environ)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(config), str(steps)], env=env, capture_output=True, text=True, cwd=ROOT
    )
    if out.returncode:
        raise SystemExit(f"{config} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _name(config: Path) -> str:
    return str(config.relative_to(ROOT)) if config.is_relative_to(ROOT) else str(config)


def table(configs: list[Path], totals: dict, label: str) -> str:
    lines = [
        f"{'config':<48} {'before steps/s':>14} {'after steps/s':>13} {'ratio':>6}   "
        f"before rollout/update s   after rollout/update s   ({label})"
    ]
    for config in configs:
        b, a = totals[config, "before"], totals[config, "after"]
        rate = {side: t["steps"] / t["seconds"] for side, t in (("before", b), ("after", a))}
        lines.append(
            f"{_name(config):<48} {rate['before']:>14.0f} {rate['after']:>13.0f} {rate['after'] / rate['before']:>5.2f}x   "
            f"{b['rollout']:>10.1f} / {b['seconds'] - b['rollout']:<10.1f}   "
            f"{a['rollout']:>10.1f} / {a['seconds'] - a['rollout']:<10.1f}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the 'before' side: a commit of this repository")
    parser.add_argument("configs", nargs="+", type=Path, help="training configs (YAML), read by both sides")
    parser.add_argument("--steps", type=int, default=4096, help="learner steps per timed run (default: 4096)")
    parser.add_argument("--rounds", type=int, default=2, help="(default: 2)")
    args = parser.parse_args()
    configs = [path.resolve() for path in args.configs]
    with tabletop_at(args.commit) as python_path:
        sides = {"before": python_path, "after": None}
        totals = {}
        for round_ in range(args.rounds):
            order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
            for config in configs:
                for side in order:
                    result = run_side(sides[side], config, args.steps)
                    print(f"round {round_ + 1} {config.name} {side}: {json.dumps(result)}", flush=True)
                    total = totals.setdefault((config, side), {"steps": 0, "seconds": 0.0, "rollout": 0.0})
                    for key in total:
                        total[key] += result[key]
        print(table(configs, totals, f"before = {args.commit}, {args.rounds} rounds of {args.steps} steps"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

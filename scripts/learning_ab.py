"""The same learning on both sides: this checkout's learner and another commit's, trained side by side from the
same config and seed, each evaluated at equal learner steps against the same seeded games (docs/speed.md).

Each side trains a fresh learner as `scripts/bench_learner.py` does (no warm start, the pool full of copies of
it), and after every `--every` learner steps plays `--games` games against each `--opponent` with its greedy
policy (evaluation seeds from 10,000,000, as the benchmark's). The table gives each side's win rate with its
95% Wilson interval at every step count: the learning curves, and at the last step the final strength.

    python scripts/learning_ab.py HEAD~1 configs/benchmark/suite.yaml:chromino_2p --steps 16384 --every 4096 \\
        --opponent random --opponent most_points --games 100
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_commit import ROOT, tabletop_at  # noqa: E402  (sibling scripts)
from bench_learner import config_file  # noqa: E402

CHILD = (
    f"""import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})  # learner_configs, whichever tree `tabletop` is
"""
    + """import json
from tabletop.agents import PolicyAgent
from tabletop.train.evaluation.evaluate import evaluate
from tabletop.train.selfplay.config import load_config
from learner_configs import fresh_learner
config = load_config(sys.argv[1])
steps, every, games, opponents = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(",")
model, _ = fresh_learner(config)
while model.num_timesteps < steps:
    model.learn(every, reset_num_timesteps=False)
    agent = PolicyAgent(model.policy, name="learner")
    rows = evaluate(agent, config.env, games, seed=10_000_000, learner_seats=config.learner_seats, opponents=opponents)
    print(json.dumps({"steps": model.num_timesteps, **{r.opponent: [r.wins, r.draws, r.games] for r in rows}}))
"""
)


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    centre, spread = (
        wins / games + z * z / (2 * games),
        z * ((wins / games * (1 - wins / games) + z * z / (4 * games)) / games) ** 0.5,
    )
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the 'before' side: a commit of this repository")
    parser.add_argument("config", help="a training config (YAML), or SUITE.yaml:TASK for a benchmark task's ppo family")
    parser.add_argument("--steps", type=int, default=16384, help="learner steps in all (default: 16384)")
    parser.add_argument("--every", type=int, default=4096, help="learner steps between evaluations (default: 4096)")
    parser.add_argument("--games", type=int, default=100, help="games against each opponent (default: 100)")
    parser.add_argument("--opponent", action="append", help="an agent spec (repeatable; default: random)")
    args = parser.parse_args()
    opponents = ",".join(args.opponent or ["random"])
    with tempfile.TemporaryDirectory() as folder, tabletop_at(args.commit) as python_path:
        config = config_file(args.config, Path(folder))
        command = [
            sys.executable,
            "-c",
            CHILD,
            str(config),
            str(args.steps),
            str(args.every),
            str(args.games),
            opponents,
        ]
        sides = {"before": {**os.environ, "PYTHONPATH": python_path}, "after": dict(os.environ)}
        running = {
            side: subprocess.Popen(
                command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
            )
            for side, env in sides.items()
        }
        curves = {}
        for side, process in running.items():
            out, err = process.communicate()
            if process.returncode:
                raise SystemExit(f"{side} failed:\n{err[-3000:]}")
            curves[side] = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    print(f"{args.config}: win rate (wins + draws / 2) [95% interval], before = {args.commit}, after = this checkout")
    for before, after in zip(curves["before"], curves["after"]):
        for opponent in opponents.split(","):
            cells = []
            for point in (before, after):
                wins, draws, games = point[opponent]
                low, high = wilson(wins + draws / 2, games)
                cells.append(f"{(wins + draws / 2) / games:.2f} [{low:.2f}, {high:.2f}]")
            print(f"  {before['steps']:>7} steps vs {opponent:<14} before {cells[0]:<20} after {cells[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

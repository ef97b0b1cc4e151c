"""Learner steps/s of this checkout against another commit, the two side by side in one run (docs/speed.md).

For each config and round, a fresh process per side trains a fresh learner (no warm start: imitation is
skipped, the opponent pool filled with `max_snapshots` copies of it, as `tabletop bench --train` does) for
`--steps` learner steps on the config's `batched` path with that side's own training code, and times the
`learn` call alone, by the process's CPU time and by the wall clock (torch runs on the config's
`torch_threads`, 1 in the shipped configs, so on a machine shared with other jobs the CPU time is the
steadier figure); imports, env construction and one random game per config (numba's kernels loaded or
compiled) come before the clocks. The two sides run at the same time, so whatever else the machine is
doing slows both alike (on 2 cores they take one each when it is idle):

    python scripts/bench_learner.py HEAD~1 configs/cromlet.yaml configs/results/krz_grtn_pretrained_4p.yaml \\
        --after sb3.overlap=true

A benchmark task's `ppo` family is named `SUITE.yaml:TASK`; this checkout turns it into a training config (seed
0) that both sides read, so that both train the same task whatever suite format each side reads:

    python scripts/bench_learner.py HEAD~1 configs/benchmark/suite.yaml:chromino_2p
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_commit import ROOT, tabletop_at  # noqa: E402  (a sibling script)
from learner_configs import learner_config, split_task  # noqa: E402

CHILD = (
    f"""import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})  # learner_configs, whichever tree `tabletop` is
"""
    + """import json, time
from stable_baselines3.common.callbacks import BaseCallback
from tabletop.train.selfplay.config import load_config
from learner_configs import fresh_learner, load_kernels
config = load_config(sys.argv[1])
for key, value in json.loads(sys.argv[3]).items():  # the side's overrides, e.g. {"sb3.overlap": true}
    *path, name = key.split(".")
    section = config
    for part in path:
        section = getattr(section, part)
    setattr(section, name, value)
load_kernels(config)
model, _ = fresh_learner(config)
clocks = {"wall": time.perf_counter, "cpu": time.process_time}
class Rollouts(BaseCallback):
    spent = dict.fromkeys(clocks, 0.0)
    def _on_rollout_start(self):
        self.began = {k: clock() for k, clock in clocks.items()}
    def _on_rollout_end(self):
        for k, clock in clocks.items():
            self.spent[k] += clock() - self.began[k]
    def _on_step(self):
        return True
began = {k: clock() for k, clock in clocks.items()}
model.learn(int(sys.argv[2]), callback=Rollouts())
result = {"steps": model.num_timesteps}
for k, clock in clocks.items():
    result[k] = clock() - began[k]
    result[k + "_rollout"] = Rollouts.spent[k]
print(json.dumps(result))
"""
)


def start_side(python_path: str | None, config: Path, steps: int, overrides: dict) -> subprocess.Popen:
    """One timed learn in a fresh process; `python_path` points `tabletop` at another tree (None: this one),
    `overrides` sets config keys (dotted names) after loading."""
    env = {**os.environ, "PYTHONPATH": python_path} if python_path else dict(os.environ)
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(config), str(steps), json.dumps(overrides)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def result_of(process: subprocess.Popen, config: Path) -> dict:
    out, err = process.communicate()
    if process.returncode:
        raise SystemExit(f"{config} failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1])


def config_file(source: str, folder: Path) -> Path:
    """The training config `source` names: itself, or for SUITE.yaml:TASK the task's ppo family written to
    `folder` as TASK.yaml."""
    path, task = split_task(source)
    if task is None:
        return path.resolve()
    written = folder / f"{task}.yaml"
    written.write_text(yaml.safe_dump(learner_config(source).to_dict()))
    return written


def _name(config: Path) -> str:
    return str(config.relative_to(ROOT)) if config.is_relative_to(ROOT) else config.name  # a task: TASK.yaml


def table(configs: list[Path], totals: dict, label: str) -> str:
    """Per config: learner steps per CPU-second and per wall second of each side, their ratio, and where the
    CPU time went (rollout / update)."""
    lines = [
        f"({label})",
        f"{'config':<44} {'clock':<5} {'before steps/s':>14} {'after steps/s':>13} {'ratio':>6}   "
        f"{'before rollout/update s':>23}   {'after rollout/update s':>22}",
    ]
    for config in configs:
        b, a = totals[config, "before"], totals[config, "after"]
        for clock in ("cpu", "wall"):
            rate = {side: t["steps"] / t[clock] for side, t in (("before", b), ("after", a))}
            split = [f"{t[clock + '_rollout']:.1f} / {t[clock] - t[clock + '_rollout']:.1f}" for t in (b, a)]
            lines.append(
                f"{_name(config):<44} {clock:<5} {rate['before']:>14.0f} {rate['after']:>13.0f} "
                f"{rate['after'] / rate['before']:>5.2f}x   {split[0]:>23}   {split[1]:>22}"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the 'before' side: a commit of this repository")
    parser.add_argument(
        "configs",
        nargs="+",
        help="training configs (YAML), or SUITE.yaml:TASK for a benchmark task's ppo family; read by both sides",
    )
    parser.add_argument("--steps", type=int, default=4096, help="learner steps per timed run (default: 4096)")
    parser.add_argument("--rounds", type=int, default=2, help="(default: 2)")
    parser.add_argument(
        "--after",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a config key on the 'after' side only, VALUE in YAML (e.g. sb3.overlap=true); repeatable",
    )
    parser.add_argument(
        "--one-at-a-time",
        action="store_true",
        help="run the sides one after the other (on an idle machine: what each gets with the cores to itself)",
    )
    args = parser.parse_args()
    after = {}
    for item in args.after:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"--after {item!r}: expected KEY=VALUE, e.g. sb3.overlap=true")
        after[key] = yaml.safe_load(value)
    with tempfile.TemporaryDirectory() as folder, tabletop_at(args.commit) as python_path:
        configs = [config_file(source, Path(folder)) for source in args.configs]
        sides = {"before": python_path, "after": None}
        totals = {}
        for round_ in range(args.rounds):
            for config in configs:
                results = {}  # one after the other: each side's result before the next starts
                running = {}  # side by side: every side started, then their results read
                for side, path in sides.items():
                    process = start_side(path, config, args.steps, after if side == "after" else {})
                    if args.one_at_a_time:
                        results[side] = result_of(process, config)
                    else:
                        running[side] = process
                results.update({side: result_of(process, config) for side, process in running.items()})
                for side, result in results.items():
                    print(f"round {round_ + 1} {config.name} {side}: {json.dumps(result)}", flush=True)
                    total = totals.setdefault((config, side), dict.fromkeys(result, 0))
                    for key in total:
                        total[key] += result[key]
        label = f"before = {args.commit}, after = this checkout {' '.join(args.after)}".rstrip()
        print(table(configs, totals, f"{label}, {args.rounds} rounds of {args.steps} steps"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

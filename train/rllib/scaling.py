"""How RLlib training scales with sampling processes on this machine, and where the learner becomes the limit.

    python -m tabletop.train.rllib.scaling configs/rllib/cromlet.yaml --runners 0 1 2 --iterations 4

For each count of env runners (0: the driver samples), a fresh local Ray runs `iterations` PPO iterations
of the config; the first is warm-up and not counted. An iteration is sampling (spread over the runners)
then one learner update (in the driver), so its time is S/N + L: the learner's share L is timed directly
(around `LearnerGroup.update`), sampling is the rest. The projection per added core keeps L and divides
the sampling time of one remote runner by N: throughput approaches batch / L, where the learner is the limit.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from tabletop.train.selfplay.config import TrainConfig, load_config


@dataclasses.dataclass
class Measured:
    runners: int
    iteration_s: float  # median over the counted iterations
    learner_s: float  # of which the learner update
    env_steps: int  # per iteration
    learner_steps: int  # per iteration

    @property
    def sampling_s(self) -> float:
        return self.iteration_s - self.learner_s


def measure(config: TrainConfig, runners: int, iterations: int) -> Measured:
    """`iterations` training iterations with `runners` env runners on a fresh local Ray (the first not counted)."""
    import torch

    from tabletop.train.rllib.trainer import ENV_STEPS, LEARNER_STEPS, algorithm_config, count, ray_session, stop

    torch.set_num_threads(config.torch_threads)  # as `train` does: the driver samples (0 runners) and learns

    config = dataclasses.replace(
        config,
        rllib=dataclasses.replace(
            config.rllib, num_env_runners=runners, num_cpus=max(config.rllib.num_cpus, runners + 1)
        ),
    )
    with ray_session(config):
        algo = algorithm_config(config).build_algo()
        update, spent = algo.learner_group.update, []

        def timed_update(*args, **kwargs):
            began = time.perf_counter()
            try:
                return update(*args, **kwargs)
            finally:
                spent.append(time.perf_counter() - began)

        algo.learner_group.update = timed_update
        walls, counts = [], []
        try:
            for _ in range(iterations):
                began = time.perf_counter()
                result = algo.train()
                walls.append(time.perf_counter() - began)
                counts.append((count(result, ENV_STEPS), count(result, LEARNER_STEPS)))
        finally:
            stop(algo)
    env_steps = (counts[-1][0] - counts[0][0]) // (iterations - 1)
    learner_steps = (counts[-1][1] - counts[0][1]) // (iterations - 1)
    return Measured(runners, statistics.median(walls[1:]), statistics.median(spent[1:]), env_steps, learner_steps)


def table(rows: list[Measured], project_to: int = 8) -> str:
    """The measured rows, then a projection for 1..`project_to` remote runners from the one-runner row
    (one sampler on its own core; else the last row)."""
    lines = [
        "| env runners | s / iteration | sampling s | learner s | env steps/s | learner steps/s |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.runners} (measured) | {r.iteration_s:.2f} | {r.sampling_s:.2f} | {r.learner_s:.2f} | "
            f"{r.env_steps / r.iteration_s:.0f} | {r.learner_steps / r.iteration_s:.0f} |"
        )
    base = next((r for r in rows if r.runners == 1), rows[-1])
    one_runner_sampling = base.sampling_s * max(base.runners, 1)
    for n in range(1, project_to + 1):
        seconds = one_runner_sampling / n + base.learner_s
        lines.append(
            f"| {n} (projected) | {seconds:.2f} | {one_runner_sampling / n:.2f} | {base.learner_s:.2f} | "
            f"{base.env_steps / seconds:.0f} | {base.learner_steps / seconds:.0f} |"
        )
    lines.append(
        f"| limit (learner only) | {base.learner_s:.2f} | 0 | {base.learner_s:.2f} | {base.env_steps / base.learner_s:.0f} | {base.learner_steps / base.learner_s:.0f} |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tabletop.train.rllib.scaling", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("config", help="a backend: rllib config, e.g. configs/rllib/cromlet.yaml")
    parser.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--iterations", type=int, default=4, help="per runner count; the first is warm-up (at least 2)")
    args = parser.parse_args(argv)
    if args.iterations < 2 or min(args.runners) < 0:
        parser.error("--iterations must be at least 2 and --runners at least 0")
    config = load_config(args.config)
    if config.backend != "rllib" or config.rllib.algorithm != "ppo":
        parser.error(f"{args.config} must say backend: rllib and algorithm: ppo (APPO overlaps sampling and learning)")
    rows = []
    for n in args.runners:
        rows.append(measure(config, n, args.iterations))
        print(
            f"{n} env runners: {rows[-1].iteration_s:.2f} s per iteration, learner {rows[-1].learner_s:.2f} s",
            flush=True,
        )
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

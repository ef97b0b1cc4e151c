"""The training config a learner benchmark or profile reads: a YAML training config, or a benchmark suite's task
trained by its `ppo` family (`SUITE.yaml:TASK`, e.g. `configs/benchmark/suite.yaml:chromino_2p`), as
`tabletop benchmark` would train it with seed 0."""

from __future__ import annotations

from pathlib import Path


def split_task(source: str) -> tuple[Path, str | None]:
    """(the YAML file, the suite task named after its last ':', or None for a training config)."""
    path, sep, task = source.rpartition(":")
    if sep and task and "/" not in task and Path(path).is_file():
        return Path(path), task
    return Path(source), None


def learner_config(source: str):
    """The TrainConfig of `source` (a training config, or `SUITE.yaml:TASK`)."""
    path, task = split_task(source)
    if task is None:
        from tabletop.train.selfplay.config import load_config

        return load_config(path)
    from tabletop.train.benchmark.families.ppo import train_config
    from tabletop.train.benchmark.suite import load_suite

    suite = load_suite(path)
    (chosen,) = suite.select_tasks([task])
    return train_config(chosen, suite.params("ppo"), seed=0)

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


def load_kernels(config) -> None:
    """Play one random game of `config`'s env, so that numba's kernels are loaded (or compiled) before a clock."""
    import numpy as np

    table, rng = config.env.make_raw(), np.random.default_rng(0)
    table.reset(seed=0)
    while not all(table.terminations.values()):
        table.step(int(rng.choice(np.flatnonzero(table.game_state.legal_action_mask()))))


def fresh_learner(config):
    """(model, its vec env): a fresh learner of `config` on its `batched` path, as `tabletop bench --train` trains
    one: torch on the config's threads, no warm start, the opponent pool filled with `max_snapshots` copies of
    it, no log output."""
    import torch
    from stable_baselines3.common.logger import Logger

    from tabletop.train.selfplay.policy import actor_weights
    from tabletop.train.selfplay.trainer import make_vec_env, new_model

    torch.set_num_threads(config.torch_threads)
    vec_env = make_vec_env(config, seed=config.seed)
    model = new_model(config, vec_env)
    if config.learner_seats == "one":
        weights = actor_weights(model.policy)
        for k in range(config.opponents.max_snapshots):
            vec_env.env_method("add_snapshot", f"step_{k:09d}", weights)
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model, vec_env

"""Learner throughput of the training paths on one config, measured in one run (`tabletop speed --train`).

Each path trains a fresh learner for a few thousand steps inside `MaskablePPO.learn`, same config and
seeds, the opponent pool already full (`max_snapshots` frozen copies of the first learner, as in a long
run): `dummy` (one SeatEnv per game in a DummyVecEnv) and `batched` (BatchedSelfPlayEnv).
The paths take turns, round after round, so a machine whose load changes slows both alike. Rollout
time (the games and the learner's forward passes) and update time (PPO's gradient steps) are reported
apart: only the first depends on the environment side. `batched_games` runs the batched path with that
many games instead, `sb3.n_steps` scaled to keep the rollout size (the dummy path cannot hold many games:
each of its envs keeps its own copy of every snapshot).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger

from tabletop.train.selfplay.config import TrainConfig
from tabletop.train.selfplay.policy import actor_weights
from tabletop.train.selfplay.trainer import make_vec_env, new_model

PATHS = ("dummy", "batched")


@dataclass
class PathSpeed:
    kind: str
    network: str = ""  # the trained network's kind
    games: int = 0
    steps: int = 0
    seconds: float = 0.0  # inside `learn`
    rollout_seconds: float = 0.0  # of which collecting rollouts

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds

    @property
    def rollout_steps_per_second(self) -> float:
        return self.steps / self.rollout_seconds

    @property
    def update_seconds(self) -> float:
        return self.seconds - self.rollout_seconds


class _RolloutClock(BaseCallback):
    """Adds up the time spent collecting rollouts."""

    def __init__(self):
        super().__init__()
        self.seconds = 0.0

    def _on_rollout_start(self) -> None:
        self._began = time.perf_counter()

    def _on_rollout_end(self) -> None:
        self.seconds += time.perf_counter() - self._began

    def _on_step(self) -> bool:
        return True


def learn_once(config: TrainConfig, kind: str, steps: int) -> PathSpeed:
    """Train a fresh learner for `steps` learner steps on the `kind` path; time the `learn` call only."""
    config = dataclasses.replace(
        config, sb3=dataclasses.replace(config.sb3, vec_env=dataclasses.replace(config.sb3.vec_env, kind=kind))
    )
    torch.set_num_threads(config.torch_threads)
    vec_env = make_vec_env(config, seed=config.seed)
    try:
        model = new_model(config, vec_env)
        if config.learner_seats == "one":
            weights = actor_weights(model.policy)
            for k in range(config.opponents.max_snapshots):
                vec_env.env_method("add_snapshot", f"step_{k:09d}", weights)
        model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes a /tmp/SB3-* folder per call
        clock = _RolloutClock()
        began = time.perf_counter()
        model.learn(steps, callback=clock)
        seconds = time.perf_counter() - began
    finally:
        vec_env.close()
    return PathSpeed(
        kind, config.network.kind, config.sb3.vec_env.num_envs, model.num_timesteps, seconds, clock.seconds
    )


def with_games(config: TrainConfig, games: int) -> TrainConfig:
    """`config` with `games` games per rollout and `sb3.n_steps` scaled to keep the rollout size."""
    rollout = config.sb3.n_steps * config.sb3.vec_env.num_envs
    if games < 1 or rollout % games:
        raise ValueError(
            f"the rollout of {rollout} steps (sb3.n_steps * sb3.vec_env.num_envs) does not split into {games} games"
        )
    return dataclasses.replace(
        config,
        sb3=dataclasses.replace(
            config.sb3, vec_env=dataclasses.replace(config.sb3.vec_env, num_envs=games), n_steps=rollout // games
        ),
    )


def compare_paths(
    config: TrainConfig,
    steps: int,
    rounds: int = 2,
    batched_games: int | None = None,
    dummy_config: TrainConfig | None = None,
) -> list[PathSpeed]:
    """Every path, `rounds` times in turn, `steps` learner steps each time; the totals per path. The dummy
    path trains `dummy_config` when given (the same game: say, a flat MLP beside a structured network)."""
    if steps < 1 or rounds < 1:
        raise ValueError(f"steps and rounds must be at least 1, got steps={steps}, rounds={rounds}")
    if dummy_config is not None and not dummy_config.env.same_game(config.env):
        raise ValueError(f"the dummy config plays {dummy_config.env}, the config {config.env}: compare one game")
    configs = {kind: config for kind in PATHS}
    if dummy_config is not None:
        configs[PATHS[0]] = dummy_config
    if batched_games is not None:
        configs["batched"] = with_games(config, batched_games)
    totals = {
        kind: PathSpeed(kind, configs[kind].network.kind, games=configs[kind].sb3.vec_env.num_envs) for kind in PATHS
    }
    for _ in range(rounds):
        for kind in PATHS:
            run = learn_once(configs[kind], kind, steps)
            total = totals[kind]
            total.steps += run.steps
            total.seconds += run.seconds
            total.rollout_seconds += run.rollout_seconds
    return list(totals.values())


def report(config: TrainConfig, source: str, speeds: list[PathSpeed], rounds: int) -> str:
    dummy, batched = speeds
    per_round = dummy.steps // rounds
    lines = [
        f"{source}: {config.env} learner_seats={config.learner_seats}, network {dataclasses.asdict(config.network)}, "
        f"torch threads {config.torch_threads}; {rounds} rounds of {per_round} learner steps per path",
        f"{'path':<10} {'network':<8} {'games':>6} {'learner steps/s':>16} {'rollout steps/s':>16} {'rollout s':>10} {'update s':>9}",
    ]
    for s in speeds:
        lines.append(
            f"{s.kind:<10} {s.network:<8} {s.games:>6} {s.steps_per_second:>16.0f} {s.rollout_steps_per_second:>16.0f} "
            f"{s.rollout_seconds:>10.1f} {s.update_seconds:>9.1f}"
        )
    lines.append(
        f"ratio ({batched.kind} / {dummy.kind}): learner steps/s {batched.steps_per_second / dummy.steps_per_second:.2f}x, "
        f"rollout steps/s {batched.rollout_steps_per_second / dummy.rollout_steps_per_second:.2f}x"
    )
    return "\n".join(lines)

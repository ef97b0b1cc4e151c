"""What happens around the PPO updates: snapshots into the pool, evaluations, checkpoints, the progress bar.

Each runs when the learner's step count crosses a multiple of its interval, so the schedule is the
same after a resume. The bar's rate and ETA are over the last RATE_WINDOW seconds (`SteadyBar`).
"""

from __future__ import annotations

import math
import time
from collections import deque

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

RATE_WINDOW = 180.0  # seconds: several rollouts, their updates and any evaluation between them


def next_multiple(step: int, every: int) -> int:
    return (step // every + 1) * every


class SteadyBar(tqdm):
    """A tqdm bar whose rate, and so its ETA, is the steps of the last `window` seconds over those seconds.
    PPO collects steps in bursts between its updates and evaluations, so tqdm's moving average of the
    latest updates swings tenfold (55 to 1,027 steps/s in one run) while the run's pace holds steady."""

    def __init__(self, *args, window: float = RATE_WINDOW, **kwargs):
        self.window = window
        self.marks: deque[tuple[float, float]] = (
            deque()
        )  # (time, steps) at each redraw, the oldest just over `window` ago
        super().__init__(*args, **kwargs)

    @property
    def format_dict(self):
        info = super().format_dict
        if hasattr(self, "start_t"):  # tqdm draws once before its clock starts
            now = self._time()
            self.marks.append((now, self.n))
            while len(self.marks) > 2 and now - self.marks[1][0] >= self.window:
                self.marks.popleft()
            then, steps = self.marks[0]
            info["rate"] = (self.n - steps) / (now - then) if now > then and self.n > steps else None
        return info


class SelfPlayCallback(BaseCallback):
    def __init__(self, run, progress: bool = True):
        super().__init__()
        self.run = run  # trainer.Run: config, pool record, evaluation and checkpoint writing
        self.progress = progress
        self.bar = None
        self.outcomes: deque[tuple[str, float]] = deque(maxlen=1000)
        self.eval_seconds = 0.0
        self.eval_cpu_seconds = 0.0  # kept apart from training's CPU time

    def _on_training_start(self) -> None:
        step, cfg = self.num_timesteps, self.run.config
        self.model.trained_steps = step  # the step the weights are trained through: checkpoints are written there
        self.next_snapshot = next_multiple(step, cfg.opponents.snapshot_every)
        self.next_eval = next_multiple(step, cfg.evaluation.every)
        self.next_checkpoint = next_multiple(step, cfg.checkpoint.every)
        if self.progress:  # PPO stops after the rollout that reaches the budget
            rollout = self.model.n_steps * self.model.n_envs
            end = step + math.ceil(max(0, self.run.total_steps - step) / rollout) * rollout
            self.bar = SteadyBar(total=end, initial=step, desc=cfg.env_id, unit="step", dynamic_ncols=True)

    def _on_rollout_start(self) -> None:
        if not getattr(self.model, "update_running", False):  # the last rollout's update has ended
            self.model.trained_steps = self.num_timesteps
        self.run.mark_boundary(self.model)  # what a checkpoint of this step holds, should one be written

    def _on_step(self) -> bool:
        with torch.inference_mode(False):  # snapshots, evaluations and checkpoints are ordinary tensors
            return self._after_step()

    def _after_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "outcome" in info:
                self.outcomes.append((_category(info.get("opponents", ["team"])), info["outcome"]))
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self.bar.n)
        if not getattr(self.model, "update_running", False):  # else the learner is mid-update: see on_update_end
            self._due()
        return True

    def on_update_end(self) -> None:
        """An overlapped update (train/selfplay/pipeline.py) has ended: what fell due while it ran, now."""
        with torch.inference_mode(False):
            self._due()

    def _due(self) -> None:
        """Snapshot, evaluate and checkpoint the learner where the step count has crossed their intervals."""
        step = self.num_timesteps
        if step >= self.next_snapshot:
            self.run.add_snapshot(self.model, f"step_{step:09d}")
            self.next_snapshot = next_multiple(step, self.run.config.opponents.snapshot_every)
        if self.next_eval <= step < self.run.total_steps:  # the final evaluation covers the last step
            start, cpu = time.perf_counter(), time.process_time()
            if self.bar is not None:
                self.bar.set_postfix_str("evaluating")
            rows = self.run.evaluate(self.model, step, self.run.config.evaluation.games)
            for r in rows:
                self.logger.record(f"eval/win_rate_vs_{r.opponent}", r.win_rate)
            if self.bar is not None:
                self.bar.set_postfix({r.opponent: f"{r.win_rate:.2f}" for r in rows})
            self.eval_seconds += time.perf_counter() - start
            self.eval_cpu_seconds += time.process_time() - cpu
            self.next_eval = next_multiple(step, self.run.config.evaluation.every)
        trained = self.model.trained_steps  # a checkpoint holds whole rollouts only: it waits for their update
        if trained >= self.next_checkpoint:
            self.run.save_checkpoint(self.model)
            self.next_checkpoint = next_multiple(trained, self.run.config.checkpoint.every)

    def _on_rollout_end(self) -> None:
        """Training-time results by opponent kind over the last 1000 games (a cheap, noisy curve)."""
        by_kind: dict[str, list[float]] = {}
        for kind, outcome in self.outcomes:
            by_kind.setdefault(kind, []).append(outcome)
        for kind, outcomes in by_kind.items():
            self.logger.record(f"selfplay/win_rate_vs_{kind}", float(np.mean(np.array(outcomes) > 0)))
        self.logger.record("selfplay/snapshots", len(self.run.snapshots))
        # this process's CPU time so far (warm start and evaluations included): a run's cost, even if it is killed
        self.logger.record("time/process_cpu_seconds", time.process_time())

    def _on_training_end(self) -> None:
        self.model.trained_steps = self.num_timesteps  # every collected rollout's update has ended
        if self.bar is not None:
            self.bar.close()


def _category(opponents: list[str]) -> str:
    """`self:step_000020000` -> `self`; several kinds at one table -> `mixed`."""
    kinds = {name.split(":", 1)[0] for name in opponents}
    return kinds.pop() if len(kinds) == 1 else "mixed"

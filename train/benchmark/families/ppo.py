"""`ppo`: the project's SB3 MaskablePPO self-play learner (train/selfplay) as a benchmark family.

The task becomes a `backend: sb3` training config (the family's hyperparameters in its `ppo:`, `network:`,
`opponents:` and `sb3:` sections, checked by that config's own declarations), trained in slices by
`MaskablePPO.learn` with the self-play callback adding snapshots to the opponent pool. Masks reach the policy
in training (MaskablePPO's `action_masks`) and in evaluation (`PolicyAgent` plays the best legal action).
A save is the trainer's checkpoint (written whole or not at all); a resumed learner reloads it, as
`tabletop train --resume` does, so it continues reproducibly but not bit for bit as an uninterrupted run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW, Task
from tabletop.train.benchmark.families.hyperparameters import PPO as DEFAULTS

UNSCHEDULED = 2**62  # the trainer's own evaluations and checkpoints: never (the benchmark runner owns them)


def train_config(task: Task, params: dict[str, Any], seed: int):
    """The task and the family's hyperparameters as a validated `backend: sb3` TrainConfig."""
    from tabletop.train.selfplay.config import parse_config

    p = params
    data = {
        "env_id": task.env.env_id,
        "env_kwargs": dict(task.env.kwargs),
        "total_steps": task.budget,
        "seed": seed,
        "torch_threads": 1,
        "learner_seats": task.learner_seats,
        "backend": "sb3",
        "ppo": {
            k: p[k]
            for k in (
                "learning_rate",
                "batch_size",
                "n_epochs",
                "gamma",
                "gae_lambda",
                "clip_range",
                "ent_coef",
                "vf_coef",
                "max_grad_norm",
            )
        },
        "network": {"kind": p["network"], "hidden": p["hidden"], "activation": p["activation"]}
        | {"width": p["width"], "blocks": p["blocks"]},
        "opponents": {
            "weights": dict(task.opponents) or {"random": 1.0},  # unused when the learner plays every seat
            "snapshot_every": p["snapshot_every"],
            "max_snapshots": p["max_snapshots"],
        },
        "evaluation": {"every": UNSCHEDULED},
        "checkpoint": {"every": UNSCHEDULED, "keep": 1},
        "sb3": {
            "n_steps": p["n_steps"],
            "target_kl": p["target_kl"],
            "sampling": p["sampling"],
            "vec_env": {"kind": "batched", "num_envs": p["num_envs"]},
        },
    }
    return parse_config(data, source=f"algorithms.ppo on task {task.name}")


def below_training_limit(reset):
    """`reset` with its seed folded below TRAINING_SEEDS_BELOW: the self-play games draw table seeds from
    [0, 2^31), which would reach into the evaluation seeds; folding keeps every training deal below them."""

    def seeded_reset(seed=None, options=None):
        return reset(seed=None if seed is None else seed % TRAINING_SEEDS_BELOW, options=options)

    return seeded_reset


class PPOLearner:
    """One MaskablePPO run, saved as the trainer's checkpoints in `folder/checkpoints/`."""

    def __init__(self, task: Task, params: dict[str, Any], seed: int, folder: Path):
        import torch
        from stable_baselines3.common.logger import Logger

        from tabletop.train.selfplay.callbacks import SelfPlayCallback
        from tabletop.train.selfplay.checkpoints import CHECKPOINTS, checkpoint_folders, latest_checkpoint
        from tabletop.train.selfplay.trainer import Run, make_vec_env, new_model, resume_shapes

        torch.set_num_threads(1)
        self.config = config = train_config(task, params, seed)
        self.task, self.folder = task, folder
        saved = folder / CHECKPOINTS
        checkpoint = None
        if saved.is_dir() and checkpoint_folders(saved):
            checkpoint = latest_checkpoint(
                folder, resume_shapes(config), report=lambda line: print(line, file=sys.stderr)
            )
        start = checkpoint.step if checkpoint is not None else 0
        self.run = Run(config, folder, task.budget)
        self.run.vec_env = make_vec_env(config, seed=config.seed + start)
        for game in self.run.vec_env.venv.games:
            game.aec.reset = below_training_limit(game.aec.reset)
        self.model = new_model(config, self.run.vec_env)
        if checkpoint is None:
            self.run.add_snapshot(self.model, "step_000000000")  # self-play needs an opponent from the first game
        else:
            self.model.set_parameters(checkpoint.params, exact_match=True, device="cpu")
            self.model.num_timesteps, self.model._n_updates = checkpoint.step, checkpoint.updates
            self.model.set_random_seed(config.seed + start)
            self.run.restore_pool(checkpoint.snapshots)
            self.run.restore_games(self.model, checkpoint)  # the games in progress and the generators, where saved
        self.model.set_logger(Logger(folder=None, output_formats=[]))
        self.callback = SelfPlayCallback(self.run, progress=False)

    @property
    def steps(self) -> int:
        return int(self.model.num_timesteps)

    def train_until(self, steps: int) -> None:
        if steps > self.steps:
            self.model.learn(steps - self.steps, callback=self.callback, reset_num_timesteps=False)

    def agent(self):
        from tabletop.agents import PolicyAgent

        sample = self.task.eval_mode == "sample"
        return PolicyAgent(self.model.policy, name="learner", seed=self.config.seed, sample=sample)

    def save(self) -> None:
        from tabletop.agents.networks import POLICY_FILE
        from tabletop.agents.networks.saved import write_policy

        self.run.save_checkpoint(self.model)
        write_policy(self.folder / POLICY_FILE, self.run.policy_file(self.model))

    def close(self) -> None:
        self.run.vec_env.close()


class PPOFamily:
    name = "ppo"
    description = "SB3 MaskablePPO self-play (train/selfplay): batched games, opponent pool with snapshots"
    backend = "sb3"  # `tabletop train` trains it through train/selfplay's full pipeline
    defaults = DEFAULTS

    def unsupported(self, task: Task) -> str | None:
        return None  # competitive and cooperative (learner_seats: all) alike

    def start(self, task: Task, params: dict[str, Any], seed: int, folder: Path) -> PPOLearner:
        from tabletop.agents.extras import require

        require("the ppo benchmark family", "torch", "sb3_contrib")
        return PPOLearner(task, params, seed, folder)


FAMILY = PPOFamily()

"""`rllib_ppo` and `rllib_appo`: the project's Ray RLlib self-play backend (train/rllib) as benchmark families.

The task becomes a `backend: rllib` training config (the family's hyperparameters in its `ppo:`, `network:`,
`opponents:` and `rllib:` sections), and the algorithm trains iteration by iteration until the learner's own
steps reach the runner's next evaluation; every `snapshot_every` learner steps the oldest frozen slot takes the
learner's weights (train/rllib/trainer.py). The masked module (train/rllib/modules.py) masks illegal actions
in training; the evaluation plays the learner's plain policy file with `PolicyAgent` (the best legal action).

A learner holds a Ray session from `start` to `close`: a local Ray of `num_cpus` CPUs, or the cluster the runner
runs on (`--ray-address`: the run is then itself a Ray task and joins that cluster). A save is RLlib's own
checkpoint (`algorithm/`, every module, optimiser and sampler state) and `rllib_state.json` (the learner steps,
the next snapshot slot); a resumed learner restores both and puts every slot's weights back in the samplers.
"""

from __future__ import annotations

import functools
import shutil
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.families.hyperparameters import RLLIB as DEFAULTS
from tabletop.train.benchmark.families.ppo import UNSCHEDULED, below_training_limit

STATE_FILE = "rllib_state.json"
ALGORITHM = "algorithm"

PPO_KEYS = ("learning_rate", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef")
RLLIB_KEYS = ("num_env_runners", "num_envs_per_env_runner", "train_batch_size", "num_cpus", "object_store_mb")


def train_config(task: Task, algorithm: str, params: dict[str, Any], seed: int):
    """The task and the family's hyperparameters as a validated `backend: rllib` TrainConfig."""
    from tabletop.train.selfplay.config import parse_config

    p = params
    data = {
        "env_id": task.env.env_id,
        "env_kwargs": dict(task.env.kwargs),
        "total_steps": task.budget,
        "seed": seed,
        "torch_threads": 1,
        "learner_seats": task.learner_seats,
        "backend": "rllib",
        "ppo": {k: p[k] for k in (*PPO_KEYS, "max_grad_norm")},
        "network": {"kind": "mlp", "hidden": p["hidden"], "activation": p["activation"]},
        "opponents": {
            "weights": dict(task.opponents) or {"random": 1.0},  # unused when the learner plays every seat
            "snapshot_every": p["snapshot_every"],
            "max_snapshots": p["max_snapshots"],
        },
        "evaluation": {"every": UNSCHEDULED},
        "checkpoint": {"every": UNSCHEDULED, "keep": 1},
        "rllib": {"algorithm": algorithm, **{k: p[k] for k in RLLIB_KEYS}},
    }
    return parse_config(data, source=f"algorithms.rllib_{algorithm} on task {task.name}")


@functools.cache
def benchmark_env():
    """The RLlib env class whose training deals are seeded below TRAINING_SEEDS_BELOW (see ppo.py); made once,
    when ray is first needed."""
    from tabletop.train.rllib.env import TabletopMultiAgentEnv

    class BenchmarkEnv(TabletopMultiAgentEnv):
        def __init__(self, config: dict):
            super().__init__(config)
            self.aec.reset = below_training_limit(self.aec.reset)

    return BenchmarkEnv


class RLlibLearner:
    def __init__(self, task: Task, algorithm: str, params: dict[str, Any], seed: int, folder: Path):
        import json

        import torch

        from tabletop.train.rllib.trainer import Run, algorithm_config, env_config, ray_session

        torch.set_num_threads(1)
        self.config = config = train_config(task, algorithm, params, seed)
        self.task, self.folder = task, folder
        self.ray_context = ExitStack()  # the Ray session, held until `close`
        self.ray_context.enter_context(ray_session(config, folder / "logs"))  # Ray's lines: out of the bar
        try:
            algo_config = algorithm_config(config).environment(
                benchmark_env(), env_config=env_config(config), disable_env_checking=True
            )
            self.algo = algo_config.build_algo()
            folder.mkdir(parents=True, exist_ok=True)
            self.run = Run(config, folder, self.algo)  # its logs/progress.csv; eval.csv stays empty
            saved = folder / STATE_FILE
            if saved.is_file() and (folder / ALGORITHM).is_dir():
                state = json.loads(saved.read_text())
                self.algo.restore_from_path(str((folder / ALGORITHM).resolve()))
                self.steps, self.counter, self.run.next_slot = state["steps"], state["counter"], state["next_slot"]
                self._reload_slots()
            else:
                self.steps, self.counter = 0, 0
                self.run.snapshot(fill_all=True)  # self-play needs an opponent from the first game
        except BaseException:
            self.ray_context.close()
            raise
        self.next_snapshot = (self.steps // config.opponents.snapshot_every + 1) * config.opponents.snapshot_every

    def _reload_slots(self) -> None:
        """Every frozen slot's weights from the restored learner group into the samplers."""
        if not self.run.slots:
            return
        weights = self.algo.learner_group.get_weights(module_ids=self.run.slots)

        def load(runner) -> None:
            for slot, state in weights.items():
                runner.module[slot].set_state(state)

        self.algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)

    def train_until(self, steps: int) -> None:
        from tabletop.train.rllib.trainer import LEARNER_STEPS, count

        every = self.config.opponents.snapshot_every
        while self.steps < steps:
            counter = count(self.algo.train(), LEARNER_STEPS)
            # RLlib's lifetime counter: continued by a restore, or started again (then counted from 0)
            self.steps += counter - (self.counter if counter >= self.counter else 0)
            self.counter = counter
            if self.steps >= self.next_snapshot:
                self.run.snapshot()
                self.next_snapshot = (self.steps // every + 1) * every

    def agent(self):
        from tabletop.agents import PolicyAgent

        sample = self.task.eval_mode == "sample"
        return PolicyAgent(self.run.policy().build(), name="learner", seed=self.config.seed, sample=sample)

    def save(self) -> None:
        import json

        from tabletop.agents.networks import POLICY_FILE
        from tabletop.agents.networks.saved import write_policy

        temp = self.folder / f".writing-{ALGORITHM}"
        if temp.exists():
            shutil.rmtree(temp)
        self.algo.save_to_path(str(temp.resolve()))
        old = self.folder / f".replaced-{ALGORITHM}"
        if (self.folder / ALGORITHM).exists():
            (self.folder / ALGORITHM).rename(old)
        temp.rename(self.folder / ALGORITHM)
        if old.exists():
            shutil.rmtree(old)
        state = {"steps": self.steps, "counter": self.counter, "next_slot": self.run.next_slot}
        (self.folder / STATE_FILE).write_text(json.dumps(state))
        write_policy(self.folder / POLICY_FILE, self.run.policy())

    def close(self) -> None:
        from tabletop.train.rllib.trainer import stop

        try:
            stop(self.algo)
        finally:
            self.ray_context.close()


class RLlibFamily:
    def __init__(self, algorithm: str):
        self.algorithm = algorithm
        self.name = f"rllib_{algorithm}"
        self.backend = "rllib"  # `tabletop train` trains it through train/rllib's full pipeline
        self.description = {
            "ppo": "Ray RLlib PPO self-play (train/rllib): masked MLP module, frozen snapshot slots",
            "appo": "Ray RLlib APPO self-play (train/rllib): asynchronous PPO with v-trace, frozen snapshot slots",
        }[algorithm]
        self.defaults = DEFAULTS
        # APPO's learner updates in a thread of its own (RLlib's IMPALA learner), so when the samplers get new
        # weights depends on thread timing: the same seed does not repeat its results bit for bit
        self.deterministic = algorithm != "appo"

    def unsupported(self, task: Task) -> str | None:
        return None  # competitive and cooperative (one shared module in every seat) alike

    def start(self, task: Task, params: dict[str, Any], seed: int, folder: Path) -> RLlibLearner:
        from tabletop.agents.extras import require

        require(f"the {self.name} benchmark family", "ray", "torch")
        return RLlibLearner(task, self.algorithm, params, seed, folder)


FAMILIES = {"rllib_ppo": RLlibFamily("ppo"), "rllib_appo": RLlibFamily("appo")}

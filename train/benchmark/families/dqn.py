"""The `dqn` family: masked Double DQN with a replay buffer and a target network, trained through the public
vector interface (train/benchmark/vector.py) against the task's opponents (docs/benchmark.md, "Families: dqn").

Masks are used everywhere an action is chosen or valued: the epsilon-greedy argmax and its random move draw
legal actions only, the target's max runs over the next decision's legal actions, and the evaluation player
(`agent()`) plays the highest-valued legal action. One learner step is one learner decision.

A cooperative task (learner_seats "all") trains as one Q-function over every seat: the next decision may be
another seat's, and the reward is the team's.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tabletop.agents import Agent
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.families.hyperparameters import DQN as DEFAULTS
from tabletop.train.benchmark.families.qlearning import (
    DecisionReplay,
    DoubleDQN,
    check_params,
    export_policy,
    linear_epsilon,
    policy_player,
    read_state,
    restore_rng,
    rng_state,
    snapshot,
    write_state,
)
from tabletop.train.benchmark.vector import TaskVectorEnv, run_seed
from tabletop.train.selfplay.config import SELF

SAVE = "learner.pt"


class DQNLearner:
    """One dqn run: the vector env, the Q-learner, the replay; `train_until` plays and learns in vector steps
    (so it may pass the asked step count by less than `num_envs`)."""

    family = "dqn"

    def __init__(self, task: Task, params: dict[str, Any], seed: int, folder: Path):
        torch.set_num_threads(1)
        torch.manual_seed(seed)
        self.task, self.params, self.seed, self.folder = task, params, seed, Path(folder)
        self.rng = np.random.default_rng(seed)
        self.steps = 0
        self.updated_at = self.synced_at = self.snapshot_at = 0
        self.outcomes: deque[float] = deque(maxlen=1000)  # the learner's recent results (+1/0/-1), for logs
        self.build()
        saved = read_state(self.folder, SAVE, self.family, params)
        if saved is not None:
            self.load(saved)
        self.env = self.make_env()
        self.obs, _ = self.env.reset()
        self.masks = self.env.action_masks()
        self.replay.start()
        self.replay.add(self.obs, self.masks)

    # --- what each family builds ----------------------------------------------------------------------
    def build(self) -> None:
        p, env = self.params, self.task.env
        self.dqn = DoubleDQN(env, p)
        spec = self.dqn.q.spec
        self.replay = DecisionReplay(p["buffer_size"], p["num_envs"], spec["observation_size"], spec["num_actions"])

    def opponents(self) -> dict[str, float] | None:
        """The training opponents: the task's own."""
        return None

    def make_env(self) -> TaskVectorEnv:
        """Games seeded from the run's seed and how far it got (a resumed run deals new games)."""
        n = self.params["num_envs"]
        env_seed = run_seed(self.seed, self.steps, n)
        env = TaskVectorEnv(self.task, n, env_seed, self.opponents(), self.params.get("max_snapshots", 1))
        if env.opponents.get(SELF, 0) > 0:
            self.add_snapshot(env)
        return env

    def add_snapshot(self, env: TaskVectorEnv) -> None:
        env.add_snapshot(f"{self.steps}", snapshot(self.dqn.q), greedy=True)  # a Q-network's policy: its argmax

    def choose(self) -> np.ndarray:
        epsilon = linear_epsilon(self.params, self.steps, self.task.budget)
        return self.dqn.act(self.obs, self.masks, epsilon, self.rng)

    def observe(self, actions: np.ndarray, dones: np.ndarray) -> None:
        """After a vector step (`self.obs` and `self.masks` are still the decisions `actions` were taken at):
        a new "self" snapshot when one is due."""
        if self.steps - self.snapshot_at >= self.params["snapshot_every"] and self.env.opponents.get(SELF, 0) > 0:
            self.snapshot_at = self.steps
            self.add_snapshot(self.env)

    def learn(self) -> None:
        """One gradient step (nfsp adds its supervised one)."""
        slots = self.replay.sample(self.params["batch_size"], self.rng)
        if slots is not None:
            self.dqn.update(self.replay, slots)

    # --- the Learner protocol -------------------------------------------------------------------------
    def train_until(self, steps: int) -> None:
        p = self.params
        while self.steps < steps:
            actions = self.choose()
            obs, rewards, dones, _, infos = self.env.step(actions)
            masks = self.env.action_masks()
            self.replay.add(obs, masks, actions, rewards, dones)
            self.steps += len(actions)
            self.observe(actions, dones)
            self.obs, self.masks = obs, masks
            if dones.any():
                self.outcomes.extend(infos["outcome"][dones].tolist())
            if self.steps < p["learning_starts"]:
                self.updated_at = self.steps
            while self.steps - self.updated_at >= p["train_every"]:
                self.updated_at += p["train_every"]
                self.learn()
            if self.steps - self.synced_at >= p["target_update"]:
                self.synced_at = self.steps
                self.dqn.sync_target()

    def agent(self) -> Agent:
        return policy_player(self.dqn.q, self.task.env, f"{self.family}:{self.task.name}", None, sample=False)

    def save(self) -> None:
        write_state(self.folder, SAVE, self.state())
        export_policy(self.folder, self.exported(), self.task.env, self.family)

    # --- the save ---------------------------------------------------------------------------------------
    def exported(self):
        """The network the policy file holds: the Q-network (its argmax is the greedy policy)."""
        return self.dqn.q

    def state(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "params": self.params,
            "steps": self.steps,
            "counters": [self.updated_at, self.synced_at, self.snapshot_at],
            "rng": rng_state(self.rng),
            "torch_rng": torch.get_rng_state(),
            **self.dqn.state(),
        }

    def load(self, state: dict[str, Any]) -> None:
        self.steps = int(state["steps"])
        self.updated_at, self.synced_at, self.snapshot_at = (int(c) for c in state["counters"])
        self.rng = restore_rng(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        self.dqn.load(state)


class DQNFamily:
    """The `dqn` algorithm family (module docstring)."""

    name = "dqn"
    description = "masked Double DQN (replay buffer, target network, epsilon-greedy over legal actions)"
    defaults = DEFAULTS
    learner = DQNLearner

    def unsupported(self, task: Task) -> str | None:
        if task.eval_mode == "sample" or task.exact:
            return f"task {task.name} measures or samples the policy itself; dqn's Q-values are no policy"
        return None

    def start(self, task: Task, params: dict[str, Any], seed: int, folder: Path) -> DQNLearner:
        return self.learner(task, check_params(self.name, params, self.defaults), seed, Path(folder))


FAMILY = DQNFamily()

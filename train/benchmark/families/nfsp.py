"""The `nfsp` family: Neural Fictitious Self-Play (Heinrich & Silver 2016; OpenSpiel's `nfsp.py`), masked, trained
through the public vector interface (docs/benchmark.md, "Families: nfsp").

Two networks: a best response (the dqn family's masked Double DQN, learning from every learner transition) and
an average policy (a softmax policy trained by supervised learning, masked cross-entropy, on the learner's own
best-response decisions kept in a reservoir sample, so it tracks the average of past best responses). In each
game the learner's seat plays the best response (epsilon-greedy over legal actions) with probability
`anticipatory` (eta), drawn again at every new deal, and the average policy otherwise.

Self-play is NFSP's own, not the task's opponent pool: every other seat plays a frozen copy of the average policy
(sampled from its masked softmax), refreshed every `refresh_every` learner steps. So the best response learns
against the current average strategy, as fictitious play prescribes; the opponents' eta-share of best-response
play that the paper's symmetric agents would also show is left out (a documented simplification). `agent()`
plays the average policy, sampled with a generator seeded by the run's seed: the strategy NFSP converges with.
Cooperative tasks are refused: there is no opponent to reach an equilibrium with.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from tabletop.agents import Agent
from tabletop.train.benchmark.families import dqn
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.families.hyperparameters import NFSP as DEFAULTS
from tabletop.train.benchmark.families.qlearning import (
    Inputs,
    adam,
    build_network,
    legal_logits,
    policy_player,
    row_argmax,
    row_log_softmax,
    snapshot,
)
from tabletop.train.benchmark.vector import TaskVectorEnv
from tabletop.train.selfplay.config import SELF


def cross_entropy(network, obs, masks: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """The mean cross-entropy of `actions` under the masked softmax policy, its head on the legal actions only."""
    row, action, logits = legal_logits(network, obs, masks)
    taken = action == actions[row]
    return -row_log_softmax(row, logits, len(masks))[taken].mean()


class Reservoir:
    """A uniform sample of every (observation, legal mask, action) offered (reservoir sampling, Vitter's R)."""

    def __init__(self, capacity: int, observation_size: int, num_actions: int):
        if capacity < 1:
            raise ValueError(f"reservoir_size={capacity}; it must hold at least 1 decision")
        self.capacity = capacity
        self.obs = np.zeros((capacity, observation_size), dtype=np.float32)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.seen = 0

    def add(self, obs: np.ndarray, masks: np.ndarray, actions: np.ndarray, rng: np.random.Generator) -> None:
        for row in range(len(obs)):
            slot = self.seen if self.seen < self.capacity else int(rng.integers(self.seen + 1))
            self.seen += 1
            if slot < self.capacity:
                self.obs[slot], self.mask[slot], self.action[slot] = obs[row], masks[row], actions[row]

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray | None:
        filled = min(self.seen, self.capacity)
        return rng.integers(filled, size=size) if filled >= size else None


class NFSPLearner(dqn.DQNLearner):
    """One nfsp run: dqn's loop with each game's mode, the reservoir and the average policy's supervised steps."""

    family = "nfsp"

    def build(self) -> None:
        super().build()
        p = self.params
        self.average = build_network(self.task.env, p)
        self.sl_optimizer = adam(self.average, lr=p["sl_learning_rate"])
        self.average_inputs = Inputs(self.average)
        spec = self.average.spec
        self.reservoir = Reservoir(p["reservoir_size"], spec["observation_size"], spec["num_actions"])
        self.best_response = self.rng.random(p["num_envs"]) < p["anticipatory"]  # each game's mode for this deal
        self.refreshed_at = 0

    def opponents(self) -> dict[str, float]:
        return {SELF: 1.0}

    def add_snapshot(self, env: TaskVectorEnv) -> None:
        env.add_snapshot("average", snapshot(self.average))

    def choose(self) -> np.ndarray:
        actions = super().choose()
        playing_average = ~self.best_response
        if playing_average.any():
            obs, masks = self.obs[playing_average], self.masks[playing_average]
            with torch.no_grad():
                row, action, logits = legal_logits(self.average, self.average_inputs(obs), torch.from_numpy(masks))
            keys = logits.double() + torch.from_numpy(self.rng.gumbel(size=len(logits)))  # Gumbel-max, legal only
            actions[playing_average] = action[row_argmax(row, keys, len(obs))].numpy()
        return actions

    def observe(self, actions: np.ndarray, dones: np.ndarray) -> None:
        """The best-response decisions just played go to the reservoir, finished games draw their next mode,
        and the opponents' copy of the average policy is refreshed when due."""
        br = self.best_response
        if br.any():
            self.reservoir.add(self.obs[br], self.masks[br], actions[br], self.rng)
        if dones.any():
            self.best_response[dones] = self.rng.random(int(dones.sum())) < self.params["anticipatory"]
        if self.steps - self.refreshed_at >= self.params["refresh_every"]:
            self.refreshed_at = self.steps
            self.add_snapshot(self.env)

    def learn(self) -> None:
        super().learn()
        rows = self.reservoir.sample(self.params["batch_size"], self.rng)
        if rows is None:
            return
        chosen = rows[self.reservoir.mask[rows].sum(axis=1) > 1]  # a forced move's cross-entropy is 0, its gradient too
        if not len(chosen):
            return
        r = self.reservoir
        obs, masks = self.average_inputs(r.obs[chosen]), torch.from_numpy(r.mask[chosen])
        loss = cross_entropy(self.average, obs, masks, torch.from_numpy(r.action[chosen])) * len(chosen) / len(rows)
        self.sl_optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.average.parameters(), self.params["max_grad_norm"])
        self.sl_optimizer.step()

    def agent(self) -> Agent:
        sample = self.task.eval_mode == "sample"
        return policy_player(self.average, self.task.env, f"nfsp:{self.task.name}", self.seed, sample=sample)

    def exported(self):
        return self.average

    def state(self) -> dict[str, Any]:
        return {
            **super().state(),
            "average": self.average.state_dict(),
            "sl_optimizer": self.sl_optimizer.state_dict(),
            "best_response": torch.from_numpy(self.best_response.copy()),
            "refreshed_at": self.refreshed_at,
            "average_dense_rows": self.average_inputs.dense,
        }

    def load(self, state: dict[str, Any]) -> None:
        super().load(state)
        if state.get("average_dense_rows", False):
            self.average_inputs.go_dense()
        self.average.load_state_dict(state["average"])
        self.sl_optimizer.load_state_dict(state["sl_optimizer"])
        self.best_response = state["best_response"].numpy().copy()
        self.refreshed_at = int(state["refreshed_at"])


class NFSPFamily(dqn.DQNFamily):
    """The `nfsp` algorithm family (module docstring)."""

    name = "nfsp"
    description = "Neural Fictitious Self-Play: masked DQN best response + supervised average policy (eta-mixed)"
    defaults = DEFAULTS
    learner = NFSPLearner

    def unsupported(self, task: Task) -> str | None:
        if task.learner_seats == "all":
            return (
                f"nfsp learns an equilibrium against opponents by self-play; task {task.name} is cooperative "
                "(learner_seats: all), with no opponent seats"
            )
        return None


FAMILY = NFSPFamily()

"""The opponent pool: heuristics, the random agent and frozen snapshots of the learner.

Each training env holds its own pool (so subprocess workers act without talking to the learner);
the trainer broadcasts every new snapshot to all of them. Snapshots sample from their policy, which
keeps self-play opponents varied.
"""

from __future__ import annotations

import importlib
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np
import torch
from gymnasium import spaces

from tabletop.agents import make_agent
from tabletop.agents.registry import game_of
from tabletop.train.config import HEURISTICS, SELF
from tabletop.train.policy import build_policy, choose_action


def heuristic_names(env_id: str) -> list[str]:
    """The game's heuristics, or none while `agents/<game>.py` has not landed."""
    try:
        module = importlib.import_module(f"tabletop.agents.{game_of(env_id)}")
    except ModuleNotFoundError as err:
        if err.name != f"tabletop.agents.{game_of(env_id)}":
            raise
        return []
    return list(module.HEURISTICS)


def allowed_opponents(env_id: str) -> list[str]:
    """Keys an `opponents.weights` mapping may use for this game."""
    return [SELF, HEURISTICS, "random", *heuristic_names(env_id)]


class SnapshotAgent:
    """A frozen copy of the learner acting on observation + mask, sampling with its own generator."""

    needs_observation = True

    def __init__(self, name: str, policy, seed: int):
        self.name = name
        self.policy = policy
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        return choose_action(self.policy, observation, action_mask, self.rng)


def expand_weights(env_id: str, weights: dict[str, float]) -> dict[str, float]:
    """Split the `heuristics` group weight evenly over the game's heuristics; drop zero weights."""
    expanded: dict[str, float] = {}
    for name, w in weights.items():
        if name != HEURISTICS:
            expanded[name] = expanded.get(name, 0.0) + w
            continue
        names = heuristic_names(env_id)
        if not names:
            warnings.warn(f"{env_id} has no heuristics yet (agents/{game_of(env_id)}.py); its share goes to random")
            names = ["random"]
        for h in names:
            expanded[h] = expanded.get(h, 0.0) + w / len(names)
    return {k: v for k, v in expanded.items() if v > 0}


class OpponentPool:
    """Samples one opponent per seat per episode, by the config's weights."""

    def __init__(
        self,
        env_id: str,
        env_kwargs: dict,
        weights: dict[str, float],
        max_snapshots: int,
        policy_kwargs: dict,
        observation_space: spaces.Box,
        action_space: spaces.Discrete,
        seed: int,
    ):
        self.weights = expand_weights(env_id, weights)
        self.names = list(self.weights)
        p = np.array([self.weights[n] for n in self.names])
        self.probs = p / p.sum()
        self.fixed = {
            name: make_agent(env_id, name, seed=seed * 1000 + i, env_kwargs=env_kwargs)
            for i, name in enumerate(self.names)
            if name != SELF
        }
        self.max_snapshots = max_snapshots
        self.snapshots: OrderedDict[str, SnapshotAgent] = OrderedDict()
        self._spaces = (observation_space, action_space)
        self._policy_kwargs = policy_kwargs
        self._seed = seed

    def add_snapshot(self, name: str, weights: dict[str, torch.Tensor]) -> None:
        """Freeze `weights` as a new opponent; the oldest goes once more than `max_snapshots` are kept."""
        policy = build_policy(*self._spaces, self._policy_kwargs)
        policy.load_state_dict(weights)
        self.snapshots[name] = SnapshotAgent(f"{SELF}:{name}", policy, seed=self._seed * 1000 + len(self.snapshots) + 7919)
        while len(self.snapshots) > self.max_snapshots:
            self.snapshots.popitem(last=False)

    def sample(self, rng: np.random.Generator):
        """(name, agent) for one seat of one episode."""
        name = self.names[rng.choice(len(self.names), p=self.probs)]
        if name != SELF:
            return name, self.fixed[name]
        if not self.snapshots:
            raise RuntimeError("the pool has no snapshot yet; the trainer adds one before training starts")
        keys = list(self.snapshots)
        agent = self.snapshots[keys[rng.integers(len(keys))]]
        return agent.name, agent

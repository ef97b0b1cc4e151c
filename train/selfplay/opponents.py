"""The opponent pool: heuristics, the random agent and frozen snapshots of the learner.

Each training env holds its own pool (so subprocess workers act without talking to the learner);
the trainer broadcasts every new snapshot to all of them. Snapshots sample from their policy, which
keeps self-play opponents varied.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import torch
from gymnasium import spaces

from tabletop.agents import Agent, PolicyAgent, make_agent
from tabletop.agents.policy_agent import build_policy
from tabletop.agents.registry import game_of, heuristics
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import HEURISTICS, SELF


def expand_weights(env_id: str, weights: dict[str, float]) -> dict[str, float]:
    """Split the `heuristics` group weight evenly over the game's heuristics; drop zero weights."""
    expanded: dict[str, float] = {}
    for name, w in weights.items():
        if name != HEURISTICS:
            expanded[name] = expanded.get(name, 0.0) + w
            continue
        names = list(heuristics(env_id))
        if not names:
            warnings.warn(f"{env_id} has no heuristics (agents/{game_of(env_id)}.py); their share goes to random")
            names = ["random"]
        for h in names:
            expanded[h] = expanded.get(h, 0.0) + w / len(names)
    return {k: v for k, v in expanded.items() if v > 0}


class OpponentPool:
    """Samples one opponent per seat per episode, by the config's weights."""

    def __init__(
        self,
        env: EnvSpec,
        weights: dict[str, float],
        max_snapshots: int,
        policy_kwargs: dict,
        observation_space: spaces.Box,
        action_space: spaces.Discrete,
        seed: int,
    ):
        self.weights = expand_weights(env.env_id, weights)
        self.names = list(self.weights)
        p = np.array([self.weights[n] for n in self.names])
        self.probs = p / p.sum()
        self.fixed = {
            name: make_agent(env, name, seed=seed * 1000 + i) for i, name in enumerate(self.names) if name != SELF
        }
        self.max_snapshots = max_snapshots
        self.snapshots: OrderedDict[str, PolicyAgent] = OrderedDict()
        self._spaces = (observation_space, action_space)
        self._policy_kwargs = policy_kwargs
        self._seed = seed

    def add_snapshot(self, name: str, weights: dict[str, torch.Tensor]) -> None:
        """Freeze `weights` as a new opponent (sampling from its policy, with its own seeded generator);
        the oldest goes once more than `max_snapshots` are kept."""
        policy = build_policy(*self._spaces, self._policy_kwargs)
        policy.load_state_dict(weights)
        seed = self._seed * 1000 + len(self.snapshots) + 7919
        self.snapshots[name] = PolicyAgent(policy, name=f"{SELF}:{name}", seed=seed, sample=True)
        while len(self.snapshots) > self.max_snapshots:
            self.snapshots.popitem(last=False)

    def sample(self, rng: np.random.Generator) -> tuple[str, Agent]:
        """(name, agent) for one seat of one episode."""
        name = self.names[rng.choice(len(self.names), p=self.probs)]
        if name != SELF:
            return name, self.fixed[name]
        if not self.snapshots:
            raise RuntimeError("the pool has no snapshot yet; the trainer adds one before training starts")
        keys = list(self.snapshots)
        agent = self.snapshots[keys[rng.integers(len(keys))]]
        return agent.name, agent

"""The opponent pool: heuristics, the random agent and frozen snapshots of the learner.

Each training env holds its own pool (so subprocess workers act without talking to the learner);
the trainer broadcasts every new snapshot to all of them. Snapshots sample from their policy, which
keeps self-play opponents varied.

`sampling="pfsp"` (prioritised fictitious self-play, as in AlphaStar) multiplies each opponent's
weight by (1 - x)^2, where x is the learner's recent score against it (a win 1, a draw 1/2, over its
last `PFSP_WINDOW` games, with one win and one loss of prior so that a new opponent starts at 1/2).
Opponents the learner already beats fade out; those that still beat it are met more often. The
`self` weight is shared among the snapshots in proportion to the same factor.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Any

import numpy as np
import torch
from gymnasium import spaces

from tabletop.agents import Agent, PolicyAgent, make_agent
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import SELF, expand_weights
from tabletop.train.selfplay.policy import build_policy

PFSP_WINDOW = 100  # recent games per opponent that set its pfsp weight


def pfsp_factor(scores: list[float] | deque) -> float:
    """(1 - x)^2 for the learner's smoothed score x against one opponent (1/2 before any game)."""
    x = (sum(scores) + 1.0) / (len(scores) + 2.0)
    return (1.0 - x) ** 2


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
        policy_class: type | None = None,
        sampling: str = "uniform",
    ):
        if sampling not in ("uniform", "pfsp"):
            raise ValueError(f"sampling={sampling!r}; allowed: 'uniform', 'pfsp'")
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
        self._policy_class = policy_class  # None: sb3-contrib's MLP policy
        self._seed = seed
        self.sampling = sampling
        self.results: dict[str, deque] = {}  # opponent name -> the learner's recent scores against it

    def add_snapshot(self, name: str, weights: dict[str, torch.Tensor]) -> None:
        """Freeze `weights` as a new opponent (sampling from its policy, with its own seeded generator);
        the oldest goes once more than `max_snapshots` are kept."""
        self.add_frozen(name, self.freeze(weights))

    def freeze(self, weights: dict[str, torch.Tensor]):
        """A frozen CPU policy holding `weights` (pools of one batched env share it)."""
        policy = build_policy(*self._spaces, self._policy_kwargs, self._policy_class)
        policy.load_state_dict(weights)
        return policy

    def add_frozen(self, name: str, policy) -> None:
        """`add_snapshot` for a policy already frozen."""
        seed = self._seed * 1000 + len(self.snapshots) + 7919
        self.snapshots[name] = PolicyAgent(policy, name=f"{SELF}:{name}", seed=seed, sample=True)
        while len(self.snapshots) > self.max_snapshots:
            self.snapshots.popitem(last=False)

    def record(self, opponents: list[str], outcome: float) -> None:
        """The learner's result (+1 win, 0 draw, -1 loss) in a game against `opponents` (names as `sample` gave them)."""
        for name in opponents:
            self.results.setdefault(name, deque(maxlen=PFSP_WINDOW)).append((outcome + 1.0) / 2.0)

    def probabilities(self) -> dict[str, float]:
        """Each opponent's chance to fill a seat: fixed players by name, snapshots as `self:<name>`.

        A snapshot's base weight is the `self` weight split evenly; pfsp multiplies every base weight
        by the opponent's factor."""
        if not self.snapshots and SELF in self.names:
            raise RuntimeError("the pool has no snapshot yet; the trainer adds one before training starts")
        weights = {}
        for name in self.names:
            if name != SELF:
                weights[name] = self.weights[name]
            for key in self.snapshots if name == SELF else ():
                weights[f"{SELF}:{key}"] = self.weights[SELF] / len(self.snapshots)
        if self.sampling == "pfsp":
            weights = {member: w * pfsp_factor(self.results.get(member, ())) for member, w in weights.items()}
        norm = sum(weights.values())
        return {member: w / norm for member, w in weights.items()}

    def sample(self, rng: np.random.Generator) -> tuple[str, Agent]:
        """(name, agent) for one seat of one episode."""
        if self.sampling == "uniform":
            name = self.names[rng.choice(len(self.names), p=self.probs)]
            if name != SELF:
                return name, self.fixed[name]
            if not self.snapshots:
                raise RuntimeError("the pool has no snapshot yet; the trainer adds one before training starts")
            keys = list(self.snapshots)
            agent = self.snapshots[keys[rng.integers(len(keys))]]
            return agent.name, agent
        probabilities = self.probabilities()
        members = list(probabilities)
        member = members[rng.choice(len(members), p=np.array([probabilities[m] for m in members]))]
        if member in self.fixed:
            return member, self.fixed[member]
        agent = self.snapshots[member.split(":", 1)[1]]
        return agent.name, agent

    # --- exact resume (train/selfplay/resume.py) ------------------------------------------------------
    def members(self) -> dict[str, Agent]:
        """Every player the pool may seat, by the name `sample` gives it."""
        return {**self.fixed, **{agent.name: agent for agent in self.snapshots.values()}}

    def state_dict(self, seated: dict[str, Agent]) -> dict:
        """The learner's recent scores against the members, the generators of the members and of `seated` (the
        players of the game in progress, a snapshot that has left the pool among them) and the seed of the
        snapshots to come, as plain data."""
        players: dict[str, Any] = {**self.members(), **seated}  # a player's `rng` and `policy`: where it has them
        return {
            "seed": self._seed,
            "results": {name: list(self.results[name]) for name in players if name in self.results},
            "rngs": {name: agent.rng.bit_generator.state for name, agent in players.items() if _seeded(agent)},
            "dense": [name for name, agent in players.items() if dense_rows(getattr(agent, "policy", None))],
        }

    def load_state_dict(self, state: dict, seated: set[str], retired: dict) -> dict[str, Agent]:
        """Restore what `state_dict` saved; the players named `seated`, by name (`retired`: the frozen policies
        of seated snapshots no longer in the pool, each given its own sampler)."""
        self.results = {name: deque(scores, maxlen=PFSP_WINDOW) for name, scores in state["results"].items()}
        self._seed = state["seed"]
        members: dict[str, Any] = self.members()
        for name in seated - set(members):
            members[name] = PolicyAgent(retired[name], name=name, seed=0, sample=True)
        for name, rng in state["rngs"].items():
            members[name].rng.bit_generator.state = rng
        for name in state["dense"]:
            members[name].policy.store_dense()
        return {name: members[name] for name in seated}


def _seeded(agent: Agent) -> bool:
    return isinstance(getattr(agent, "rng", None), np.random.Generator)


def dense_rows(policy) -> bool:
    """Whether an MLP policy has gone over to dense rows for good (`MlpPolicy.dense_rows`): a resumed copy must too,
    or it would take the other path, with other rounding and other draws."""
    return bool(getattr(policy, "dense_rows", False))

"""What the value-based families share (dqn, and nfsp's best response): masked Double DQN over a replay of
learner decisions, the network, parameter checks and the plain save file.

The replay keeps each learner decision once (observation and legal mask) with the transition that led into
it from the same game's previous decision (that decision's slot, the action, the reward, whether the game
ended there), so an observation is stored once, not twice: the memory is `buffer_size * (observation size
* 4 + num_actions)` bytes. A transition whose previous slot has been overwritten is never sampled.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from tabletop.agents import PolicyAgent
from tabletop.agents.networks.actor_critic import ActorCritic, network_spec
from tabletop.agents.networks.common import masked
from tabletop.agents.networks.saved import load_plain, saved_policy, write_policy
from tabletop.envs import EnvSpec

NETWORK_KEYS = ("network", "hidden", "activation", "width", "blocks")


def check_params(family: str, params: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """`params` over `defaults`; an unknown key or a negative number is a ValueError naming it."""
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(f"{family} has no parameter {unknown[0]!r}; allowed: {', '.join(defaults)}")
    merged = {**defaults, **params}
    for key, value in merged.items():
        if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"{family}.{key}={value}; it must be at least 0")
    return merged


def build_network(env: EnvSpec, params: dict[str, Any]) -> ActorCritic:
    """An `ActorCritic` of the params' network kind and sizes; its actor head gives one number per action
    (a Q-value, or an average policy's logit), so the saved policy file plays and exports like any policy."""
    sizes = {k: params[k] for k in NETWORK_KEYS[1:]}
    return ActorCritic(network_spec(env, params["network"], **sizes))


def masked_argmax(values: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Per row, the legal action of highest value."""
    return masked(values, masks).argmax(dim=1)


def policy_player(network: ActorCritic, env: EnvSpec, name: str, seed: int | None, sample: bool) -> PolicyAgent:
    """A frozen copy of `network` as a player at the task's table: its masked argmax, or a sample from its masked
    softmax with a seeded generator."""
    agent = PolicyAgent(copy.deepcopy(network).eval(), name=name, seed=seed, sample=sample)
    agent.observation_options = env.definition.observer_options(env.kwargs)
    return agent


class DecisionReplay:
    """A ring buffer of learner decisions over `num_games` games (module docstring)."""

    def __init__(self, capacity: int, num_games: int, observation_size: int, num_actions: int):
        if capacity < 2 * num_games:
            raise ValueError(f"buffer_size={capacity}; it must hold at least two decisions per game ({2 * num_games})")
        self.capacity = capacity
        self.obs = np.zeros((capacity, observation_size), dtype=np.float32)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.prev = np.full(capacity, -1, dtype=np.int64)
        self.prev_stamp = np.full(capacity, -1, dtype=np.int64)
        self.stamp = np.full(capacity, -1, dtype=np.int64)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.done = np.zeros(capacity, dtype=bool)
        self.last = np.full(num_games, -1, dtype=np.int64)  # each game's latest slot (-1: none since a reset)
        self.count = 0

    def start(self) -> None:
        """The games were dealt afresh (reset): no transition leads into their next decisions."""
        self.last[:] = -1

    def add(self, obs: np.ndarray, masks: np.ndarray, actions=None, rewards=None, dones=None) -> None:
        """Every game's new decision, and (after a step) the transition from its previous one."""
        n = len(obs)
        slots = (self.count + np.arange(n)) % self.capacity
        self.obs[slots], self.mask[slots] = obs, masks
        self.prev[slots] = self.last
        self.prev_stamp[slots] = np.where(self.last >= 0, self.stamp[np.maximum(self.last, 0)], -1)
        self.stamp[slots] = self.count + np.arange(n)
        if actions is not None:
            self.action[slots], self.reward[slots], self.done[slots] = actions, rewards, dones
        self.last = slots
        self.count += n

    def __len__(self) -> int:
        return min(self.count, self.capacity)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray | None:
        """`size` slots holding a whole transition, uniformly (None while there are fewer than `size`)."""
        filled = len(self)
        prev = self.prev[:filled]
        valid = (prev >= 0) & (self.stamp[np.maximum(prev, 0)] == self.prev_stamp[:filled])
        slots = np.flatnonzero(valid)
        if slots.size < size:
            return None
        return slots[rng.integers(slots.size, size=size)]


class DoubleDQN:
    """A Q-network, its target and optimiser: masked epsilon-greedy acting and the Double DQN update (the online
    network picks the next decision's best legal action, the target network values it)."""

    def __init__(self, env: EnvSpec, params: dict[str, Any]):
        self.params = params
        self.q = build_network(env, params)
        self.target = copy.deepcopy(self.q).requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.q.parameters(), lr=params["learning_rate"])

    def act(self, obs: np.ndarray, masks: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
        """Per game, the legal action of highest Q, or with probability `epsilon` a uniform legal one."""
        with torch.no_grad():
            greedy = masked_argmax(self.q(torch.from_numpy(obs)), torch.from_numpy(masks)).numpy()
        explore = rng.random(len(obs)) < epsilon
        if explore.any():
            noise = np.where(masks[explore], rng.random(masks[explore].shape), -1.0)
            greedy[explore] = noise.argmax(axis=1)
        return greedy

    def update(self, replay: DecisionReplay, slots: np.ndarray) -> float:
        """One gradient step on the transitions into `slots`; the Huber loss."""
        gamma = self.params["gamma"]
        obs = torch.from_numpy(replay.obs[replay.prev[slots]])
        actions = torch.from_numpy(replay.action[slots])
        rewards = torch.from_numpy(replay.reward[slots])
        alive = torch.from_numpy(~replay.done[slots]).float()
        next_obs, next_masks = torch.from_numpy(replay.obs[slots]), torch.from_numpy(replay.mask[slots])
        with torch.no_grad():
            best = masked_argmax(self.q(next_obs), next_masks)
            next_value = self.target(next_obs).gather(1, best[:, None]).squeeze(1)
            target = rewards + gamma * alive * next_value
        value = self.q(obs).gather(1, actions[:, None]).squeeze(1)
        loss = F.smooth_l1_loss(value, target)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.q.parameters(), self.params["max_grad_norm"])
        self.optimizer.step()
        return float(loss.detach())

    def sync_target(self) -> None:
        self.target.load_state_dict(self.q.state_dict())

    def state(self) -> dict[str, Any]:
        return {"q": self.q.state_dict(), "target": self.target.state_dict(), "optimizer": self.optimizer.state_dict()}

    def load(self, state: dict[str, Any]) -> None:
        self.q.load_state_dict(state["q"])
        self.target.load_state_dict(state["target"])
        self.optimizer.load_state_dict(state["optimizer"])


def linear_epsilon(params: dict[str, Any], steps: int, budget: int) -> float:
    """`epsilon_start` falling linearly to `epsilon_end` over the first `exploration_fraction` of the budget."""
    span = max(1.0, params["exploration_fraction"] * budget)
    progress = min(1.0, steps / span)
    return params["epsilon_start"] + progress * (params["epsilon_end"] - params["epsilon_start"])


# --- the run folder -------------------------------------------------------------------------------------
def write_state(folder: Path, name: str, state: dict[str, Any]) -> None:
    """`torch.save` through a temporary file renamed into place: a kill leaves the old save or the new."""
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".writing-{name}"
    torch.save(state, temp)
    os.replace(temp, folder / name)


def read_state(folder: Path, name: str, family: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The save in `folder` (tensors and plain data only), or None when there is none; a ValueError when it
    was trained with other parameters or is not this family's."""
    path = folder / name
    if not path.exists():
        return None
    state = load_plain(path)
    if not isinstance(state, dict) or state.get("family") != family:
        raise ValueError(f"{path} is not a {family} save; give the run another folder")
    changed = sorted(k for k in params if state["params"].get(k) != params[k])
    if changed:
        key = changed[0]
        raise ValueError(
            f"{path} was trained with {family}.{key}={state['params'].get(key)!r}, not {params[key]!r}; "
            "resume with the same parameters or give the run another folder"
        )
    return state


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    return rng.bit_generator.state


def restore_rng(state: dict[str, Any]) -> np.random.Generator:
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return rng


def export_policy(folder: Path, network: ActorCritic, env: EnvSpec, backend: str) -> None:
    """The plain policy file (`policy.pt`) beside the save: `ppo:FOLDER/policy.pt` plays it, `tabletop export`
    exports it."""
    write_policy(folder / "policy.pt", saved_policy(network.spec, network.state_dict(), env, backend))

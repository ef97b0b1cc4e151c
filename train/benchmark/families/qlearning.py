"""What the value-based families share (dqn, and nfsp's best response): masked Double DQN over a replay of
learner decisions, the network, parameter checks and the plain save file.

Every family here (and `policy_gradient`'s) reads only what is there, as the `ppo` family's MLP does
(docs/speed.md): the `mlp` kind's first layers are embedding bags (`BagLinear`) that read each row's nonzero
inputs (`SparseRows`) while the game's rows are sparse enough for a bag to pay (`Inputs`); heads score legal
actions only (`legal_logits`); the evaluation's player scores one observation the same way (`LegalPolicyAgent`).
The same function and gradients as the dense network, up to float rounding. Adam stays dense (`adam`). A lazy
Adam leaves a rarely active input's row still after its step, where Adam's momentum moves it on for some ten
steps: another optimiser, whose first-layer weights parted from Adam's within one mmd update.

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
from torch import nn

from tabletop.agents import PolicyAgent
from tabletop.agents.legal_policy_agent import LegalPolicyAgent
from tabletop.agents.networks.actor_critic import ActorCritic, network_spec
from tabletop.agents.networks.saved import load_plain, saved_policy, write_policy
from tabletop.agents.networks.sparse import BagLinear, SparseRows, bag_pays, most_active, sparse_rows
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
    (a Q-value, or an average policy's logit), so the saved policy file plays and exports like any policy.
    The `mlp` kind's first layers are `BagLinear`s, initialised as the dense layers they replace."""
    sizes = {k: params[k] for k in NETWORK_KEYS[1:]}
    network = ActorCritic(network_spec(env, params["network"], **sizes))
    if network.spec["kind"] == "mlp" and network.spec["hidden"]:
        extractor: Any = network.mlp_extractor  # torch types a submodule as `Tensor | Module`
        for trunk in (extractor.policy_net, extractor.value_net):
            trunk[0] = as_bag(trunk[0])
    return network


def as_bag(dense: nn.Linear) -> BagLinear:
    """A `BagLinear` holding `dense`'s weights (torch's generator left as it was: the run draws what it drew)."""
    with torch.random.fork_rng(devices=[]):
        bag = BagLinear(dense.in_features, dense.out_features)
    with torch.no_grad():
        bag.weight.copy_(dense.weight)
        bag.bias.copy_(dense.bias)
    return bag


def bags(network: nn.Module) -> list[BagLinear]:
    return [m for m in network.modules() if isinstance(m, BagLinear)]


def adam(network: nn.Module, **kwargs) -> torch.optim.Adam:
    """Adam over `network`'s weights with torch's `foreach` kernels (the same steps as one weight at a time)."""
    return torch.optim.Adam(network.parameters(), foreach=True, **kwargs)


class Inputs:
    """How `networks` (sharing their inputs) read a batch of observations: `SparseRows` while the rows are sparse
    enough for their bags to pay (`sparse.bag_pays`, the `ppo` family's rule), else dense; from the first batch
    too dense on, always dense, and the bags keep nn.Linear's layout. `dense` is saved with the run."""

    def __init__(self, *networks: nn.Module):
        self.bags = [bag for network in networks for bag in bags(network)]
        self.dense = not self.bags

    def __call__(self, obs: np.ndarray) -> torch.Tensor | SparseRows:
        batch = torch.from_numpy(obs)
        if self.dense:
            return batch
        if bag_pays(most_active(obs), obs.shape[1]):
            return sparse_rows(batch)
        self.go_dense()
        return batch

    def go_dense(self) -> None:
        if not self.dense:
            for bag in self.bags:
                bag.store_dense()
        self.dense = True


class MlpSnapshot(nn.Module):
    """A network's actor as the batched opponents play it (train/selfplay/batched.py, `legal_head`), as they play
    the `ppo` family's MLP: its bags read the rows' nonzero inputs while they pay, its head scores the legal
    actions only, and a forced move is not computed."""

    legal_head = True

    def __init__(self, network: ActorCritic):
        super().__init__()
        self.mlp_extractor: Any = network.mlp_extractor
        self.action_net: Any = network.action_net
        self.inputs = Inputs(self)

    @property
    def dense_rows(self) -> bool:
        return self.inputs.dense

    def extract_features(self, obs: torch.Tensor) -> SparseRows:
        return sparse_rows(obs)

    def store_dense(self) -> None:
        self.inputs.go_dense()

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.mlp_extractor.forward_actor(obs))


def snapshot(network: ActorCritic) -> nn.Module:
    """What the learner adds to the opponents' pool: an `MlpSnapshot` of a network with bags, else the network."""
    return MlpSnapshot(network) if bags(network) and isinstance(network.action_net, nn.Linear) else network


def legal_logits(
    network: Any, features: torch.Tensor | SparseRows, masks: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(row, action, logit) of every legal action of every row, rows in order: the `mlp` kind's head applied to
    the legal actions only, another kind's logits read at them."""
    row, action = masks.nonzero(as_tuple=True)
    head = network.action_net
    if not isinstance(head, nn.Linear):
        return row, action, network(features)[row, action]
    latent = network.mlp_extractor.forward_actor(features)
    return row, action, (latent[row] * head.weight[action]).sum(dim=1) + head.bias[action]


def row_log_softmax(row: torch.Tensor, logits: torch.Tensor, rows: int) -> torch.Tensor:
    """Each logit's log-probability within its row (the softmax over each row's entries)."""
    top = torch.full((rows,), -torch.inf, dtype=logits.dtype).scatter_reduce_(0, row, logits.detach(), "amax")
    shifted = logits - top[row]
    return shifted - torch.zeros(rows, dtype=logits.dtype).index_add_(0, row, shifted.exp()).log()[row]


def row_argmax(row: torch.Tensor, keys: torch.Tensor, rows: int) -> torch.Tensor:
    """Per row, the index (into `keys`) of its largest key; on a tie the first, as `argmax` picks."""
    best = torch.full((rows,), -torch.inf, dtype=keys.dtype).scatter_reduce_(0, row, keys, "amax")
    won = (keys == best[row]).nonzero().squeeze(1)
    return won[torch.cat([torch.ones(min(len(won), 1), dtype=torch.bool), row[won[1:]] != row[won[:-1]]])]


def masked_argmax(network: Any, features: torch.Tensor | SparseRows, masks: torch.Tensor) -> torch.Tensor:
    """Per row, the legal action of highest value."""
    row, action, values = legal_logits(network, features, masks)
    return action[row_argmax(row, values, len(masks))]


def head_at(network: Any, features: torch.Tensor | SparseRows, actions: torch.Tensor) -> torch.Tensor:
    """Each row's value of its one action in `actions` (the `mlp` kind's head on that action only)."""
    head = network.action_net
    if not isinstance(head, nn.Linear):
        return network(features).gather(1, actions[:, None]).squeeze(1)
    latent = network.mlp_extractor.forward_actor(features)
    return (latent * head.weight[actions]).sum(dim=1) + head.bias[actions]


def policy_player(network: ActorCritic, env: EnvSpec, name: str, seed: int | None, sample: bool) -> PolicyAgent:
    """A frozen copy of `network` as a player at the task's table: its masked argmax, or a sample from its masked
    softmax with a seeded generator."""
    agent = LegalPolicyAgent(copy.deepcopy(network).eval(), name=name, seed=seed, sample=sample)
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
        self.optimizer = adam(self.q, lr=params["learning_rate"])
        self.inputs = Inputs(self.q, self.target)

    def act(self, obs: np.ndarray, masks: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
        """Per game, the legal action of highest Q, or with probability `epsilon` a uniform legal one."""
        with torch.no_grad():
            greedy = masked_argmax(self.q, self.inputs(obs), torch.from_numpy(masks)).numpy()
        explore = rng.random(len(obs)) < epsilon
        if explore.any():
            noise = np.where(masks[explore], rng.random(masks[explore].shape), -1.0)
            greedy[explore] = noise.argmax(axis=1)
        return greedy

    def update(self, replay: DecisionReplay, slots: np.ndarray) -> float:
        """One gradient step on the transitions into `slots`; the Huber loss."""
        loss = self.loss(replay, slots)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.q.parameters(), self.params["max_grad_norm"])
        self.optimizer.step()
        return float(loss.detach())

    def loss(self, replay: DecisionReplay, slots: np.ndarray) -> torch.Tensor:
        """The Huber loss of the Q-values of the transitions into `slots` against their Double DQN targets."""
        gamma = self.params["gamma"]
        obs = self.inputs(replay.obs[replay.prev[slots]])
        actions = torch.from_numpy(replay.action[slots])
        rewards = torch.from_numpy(replay.reward[slots])
        alive = torch.from_numpy(~replay.done[slots]).float()
        next_obs, next_masks = self.inputs(replay.obs[slots]), torch.from_numpy(replay.mask[slots])
        with torch.no_grad():
            best = masked_argmax(self.q, next_obs, next_masks)
            target = rewards + gamma * alive * head_at(self.target, next_obs, best)
        return F.smooth_l1_loss(head_at(self.q, obs, actions), target)

    def sync_target(self) -> None:
        self.target.load_state_dict(self.q.state_dict())

    def state(self) -> dict[str, Any]:
        return {
            "q": self.q.state_dict(),
            "target": self.target.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "dense_rows": self.inputs.dense,
        }

    def load(self, state: dict[str, Any]) -> None:
        if state.get("dense_rows", False):
            self.inputs.go_dense()
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

"""A masked PPO learner on the public vector interface (train/benchmark/vector.py), read top to bottom as
CleanRL's `ppo.py` is: the `mmd` family is this learner with its two regularisers switched on, and `psro` trains
its best responses with it.

One update: a rollout of `n_steps` decisions in each of `num_envs` games (the learner's own decisions; opponents
move inside the env), GAE advantages (a finished game bootstraps nothing: its next row is already the next deal),
then `n_epochs` passes of `num_minibatches` minibatches minimising

    clipped policy loss  +  vf_coef * value loss  -  ent_coef * entropy  +  kl_coef * KL(new || rollout policy)

over legal actions only (the softmax runs over each row's legal actions; a forced move, one legal action, has
log-probability 0 and entropy 0, so the actor runs only on the rows with a choice). The KL term is the sample estimate
`r log r - (r - 1)` of the reverse KL from the rollout's policy (r the probability ratio), as IIG-RL-Benchmark's
MMD computes it. Actions are drawn by the Gumbel-max trick from the run's numpy generator, so one seed fixes
every draw; minibatches are shuffled by the same generator. The network reads only what is there
(qlearning.py's module docstring): the same function as the dense masked network, up to float rounding.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from tabletop.agents import Agent
from tabletop.agents.networks.sparse import SparseRows
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.families.hyperparameters import POLICY_GRADIENT as DEFAULTS
from tabletop.train.benchmark.families.qlearning import (
    Inputs,
    adam,
    build_network,
    check_params,
    export_policy,
    legal_logits,
    policy_player,
    read_state,
    restore_rng,
    rng_state,
    row_argmax,
    row_log_softmax,
    snapshot,
    write_state,
)
from tabletop.train.benchmark.vector import TaskVectorEnv, run_seed
from tabletop.train.selfplay.config import SELF

SAVE = "learner.pt"


def value_of(network, obs: torch.Tensor | SparseRows) -> torch.Tensor:
    """The critic's value of each observation."""
    return network.value_net(network.mlp_extractor.forward_critic(obs)).squeeze(-1)


def legal_policy(
    network, obs: torch.Tensor | SparseRows, masks: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(rows with a choice, and per legal action of those: its row among them, the action, its log-probability)
    of the masked softmax policy; the actor runs on the rows with a choice only."""
    choices = (masks.sum(dim=1) > 1).nonzero().squeeze(1)
    if not len(choices):
        none = choices.new_zeros(0)
        return choices, none, none, torch.zeros(0)
    row, action, logits = legal_logits(network, obs[choices], masks[choices])
    return choices, row, action, row_log_softmax(row, logits, len(choices))


def ppo_loss(network, b: dict[str, Any], p: dict[str, Any]) -> torch.Tensor:
    """The module docstring's loss on a minibatch `b` (obs, masks, actions, logprobs, advantages, returns)."""
    choices, row, action, logp_legal = legal_policy(network, b["obs"], b["masks"])
    taken = action == b["actions"][choices][row]
    logp = torch.zeros(len(b["actions"])).index_put((choices[row[taken]],), logp_legal[taken])
    log_ratio = logp - b["logprobs"]
    ratio = log_ratio.exp()
    adv = b["advantages"]
    if len(adv) > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    clipped = torch.clamp(ratio, 1 - p["clip_range"], 1 + p["clip_range"])
    policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
    value_loss = 0.5 * F.mse_loss(value_of(network, b["obs"]), b["returns"])
    entropy = -(logp_legal.exp() * logp_legal).sum() / len(adv)
    reverse_kl = (ratio * log_ratio - (ratio - 1)).mean()
    return policy_loss + p["vf_coef"] * value_loss - p["ent_coef"] * entropy + p["kl_coef"] * reverse_kl


class Rollout:
    """One rollout's arrays, step-major: `(n_steps, num_envs, ...)`."""

    def __init__(self, steps: int, games: int, observation_size: int, num_actions: int):
        self.obs = np.zeros((steps, games, observation_size), dtype=np.float32)
        self.masks = np.zeros((steps, games, num_actions), dtype=bool)
        self.actions = np.zeros((steps, games), dtype=np.int64)
        self.logprobs = np.zeros((steps, games), dtype=np.float32)
        self.values = np.zeros((steps, games), dtype=np.float32)
        self.rewards = np.zeros((steps, games), dtype=np.float32)
        self.dones = np.zeros((steps, games), dtype=bool)

    def advantages(self, last_value: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """GAE advantages and returns; a decision that ended its game has no successor to bootstrap from."""
        advantages = np.zeros_like(self.rewards)
        running = np.zeros_like(last_value)
        for t in reversed(range(len(self.rewards))):
            following = last_value if t == len(self.rewards) - 1 else self.values[t + 1]
            alive = 1.0 - self.dones[t]
            delta = self.rewards[t] + gamma * following * alive - self.values[t]
            running = delta + gamma * lam * alive * running
            advantages[t] = running
        return advantages, advantages + self.values


class PolicyGradientLearner:
    """One masked PPO run against the task's opponents (or those `opponents()` names); `train_until` collects and
    updates in whole rollouts, so it may pass the asked step count by less than one rollout."""

    family = "ppo_core"

    def __init__(self, task: Task, params: dict[str, Any], seed: int, folder: Path):
        torch.set_num_threads(1)
        torch.manual_seed(seed)
        self.task, self.params, self.seed, self.folder = task, params, seed, Path(folder)
        self.rng = np.random.default_rng(seed)
        self.steps = self.snapshot_at = 0
        self.network = build_network(task.env, params)
        self.optimizer = adam(self.network, lr=params["learning_rate"], eps=1e-5)
        self.inputs = Inputs(self.network)
        self.build()
        saved = read_state(self.folder, SAVE, self.family, params)
        if saved is not None:
            self.load(saved)
        spec = self.network.spec
        self.rollout = Rollout(params["n_steps"], params["num_envs"], spec["observation_size"], spec["num_actions"])
        self.env = self.make_env()
        self.obs, _ = self.env.reset()
        self.masks = self.env.action_masks()

    # --- what a family built on this learner changes -------------------------------------------------
    def build(self) -> None:
        """Anything more the family learns or keeps (psro: its population)."""

    def opponents(self) -> dict[str, float] | None:
        """The training opponents: the task's own."""
        return None

    def make_env(self) -> TaskVectorEnv:
        """Games seeded from the run's seed and how far it got (a resumed run deals new games)."""
        n = self.params["num_envs"]
        env_seed = run_seed(self.seed, self.steps, n)
        env = TaskVectorEnv(self.task, n, env_seed, self.opponents(), self.params["max_snapshots"])
        if env.opponents.get(SELF, 0) > 0:
            self.add_snapshot(env)
        return env

    def add_snapshot(self, env: TaskVectorEnv) -> None:
        env.add_snapshot(f"{self.steps}", snapshot(self.network))  # sampled from its masked softmax

    def after_rollout(self) -> None:
        """Called after every update: a new "self" snapshot when one is due."""
        if self.steps - self.snapshot_at >= self.params["snapshot_every"] and self.env.opponents.get(SELF, 0) > 0:
            self.snapshot_at = self.steps
            self.add_snapshot(self.env)

    # --- the Learner protocol -------------------------------------------------------------------------
    def train_until(self, steps: int) -> None:
        while self.steps < steps:
            self.collect()
            self.update()
            self.after_rollout()

    def collect(self) -> None:
        """One rollout with the current policy: per game a Gumbel-max draw over its legal actions (a forced move
        draws nothing, its log-probability 0)."""
        r = self.rollout
        for t in range(len(r.obs)):
            masks = torch.from_numpy(self.masks)
            with torch.no_grad():
                obs = self.inputs(self.obs)
                choices, row, action, logp = legal_policy(self.network, obs, masks)
                values = value_of(self.network, obs)
            keys = logp.double() + torch.from_numpy(self.rng.gumbel(size=len(logp)))
            won = row_argmax(row, keys, len(choices))
            actions, logprobs = self.masks.argmax(axis=1), np.zeros(len(self.masks), dtype=np.float32)
            actions[choices.numpy()], logprobs[choices.numpy()] = action[won].numpy(), logp[won].numpy()
            r.obs[t], r.masks[t], r.actions[t] = self.obs, self.masks, actions
            r.logprobs[t], r.values[t] = logprobs, values.numpy()
            self.obs, rewards, dones, _, _ = self.env.step(actions)
            self.masks = self.env.action_masks()
            r.rewards[t], r.dones[t] = rewards, dones
            self.steps += len(actions)

    def update(self) -> None:
        """`n_epochs` passes over the rollout in shuffled minibatches (module docstring's loss)."""
        p, r = self.params, self.rollout
        with torch.no_grad():
            last = value_of(self.network, self.inputs(self.obs)).numpy()
        advantages, returns = r.advantages(last, p["gamma"], p["gae_lambda"])
        flat = {
            "masks": r.masks.reshape(-1, r.masks.shape[-1]),
            "actions": r.actions.reshape(-1),
            "logprobs": r.logprobs.reshape(-1),
            "advantages": advantages.reshape(-1),
            "returns": returns.reshape(-1),
        }
        batch: dict[str, Any] = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in flat.items()}
        batch["obs"] = self.inputs(r.obs.reshape(-1, r.obs.shape[-1]))
        size = len(flat["actions"])
        minibatch = max(1, size // p["num_minibatches"])
        for _ in range(p["n_epochs"]):
            order = self.rng.permutation(size)
            for start in range(0, size, minibatch):
                rows = torch.from_numpy(order[start : start + minibatch])
                self.step_on({k: v[rows] for k, v in batch.items()})

    def step_on(self, b: dict[str, Any]) -> None:
        p = self.params
        loss = ppo_loss(self.network, b, p)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.network.parameters(), p["max_grad_norm"])
        self.optimizer.step()

    def agent(self) -> Agent:
        """The current policy in the task's evaluation mode (greedy: its most likely legal action)."""
        sample = self.task.eval_mode == "sample"
        return policy_player(self.exported(), self.task.env, f"{self.family}:{self.task.name}", self.seed, sample)

    def save(self) -> None:
        write_state(self.folder, SAVE, self.state())
        export_policy(self.folder, self.exported(), self.task.env, self.family)

    def exported(self):
        """The network the policy file holds: the one `agent()` plays."""
        return self.network

    def state(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "params": self.params,
            "steps": self.steps,
            "snapshot_at": self.snapshot_at,
            "rng": rng_state(self.rng),
            "torch_rng": torch.get_rng_state(),
            "network": self.network.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "dense_rows": self.inputs.dense,
        }

    def load(self, state: dict[str, Any]) -> None:
        if state.get("dense_rows", False):
            self.inputs.go_dense()
        self.steps, self.snapshot_at = int(state["steps"]), int(state["snapshot_at"])
        self.rng = restore_rng(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        self.network.load_state_dict(state["network"])
        self.optimizer.load_state_dict(state["optimizer"])

    def frozen(self):
        """A frozen copy of the current network (psro's population members)."""
        return copy.deepcopy(self.network).eval().requires_grad_(False)


class PolicyGradientFamily:
    """A family whose learner is a `PolicyGradientLearner` (subclasses set the names and defaults)."""

    name = "ppo_core"
    description = ""
    defaults = DEFAULTS
    learner = PolicyGradientLearner

    def unsupported(self, task: Task) -> str | None:
        return None

    def start(self, task: Task, params: dict[str, Any], seed: int, folder: Path) -> PolicyGradientLearner:
        return self.learner(task, check_params(self.name, params, self.defaults), seed, Path(folder))

"""The network a guided search reads: a batch of observations and masks -> masked logits and, where it has one, the
value of each position for the seat it was encoded for.

`policy=pretrained` is the shipped ONNX export and `policy=onnx:DIR` any other (logits only: their leaf values come
from rollouts); `policy=ppo:PATH` a policy file or run folder of any backend, read with torch (logits and the
critic's value); the trainer hands its own `ActorCritic` in directly (`TorchNet`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop.agents.networks import MASKED_LOGIT


class TorchNet:
    """An `ActorCritic` (agents/networks): actor and critic in one pass, on one thread, without gradients."""

    def __init__(self, policy: Any, observation_options: dict | None, name: str, has_value: bool = True):
        """`has_value`: False for a file saved without the critic's weights (acting never needed them)."""
        self.policy, self.observation_options, self.name, self.has_value = policy, observation_options, name, has_value

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        import torch

        from tabletop.agents.policy_agent import one_thread

        with torch.no_grad(), one_thread(torch):
            obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
            extractor = self.policy.mlp_extractor
            logits = self.policy.action_net(extractor.forward_actor(obs)).numpy().astype(np.float64)
            values = self.policy.value_net(extractor.forward_critic(obs))[:, 0].numpy().astype(np.float64)
        return np.where(np.asarray(masks) > 0, logits, MASKED_LOGIT), values if self.has_value else None


class OnnxNet:
    """An exported policy (`OnnxAgent`): logits only, so a search over it evaluates leaves by rollouts."""

    has_value = False

    def __init__(self, agent: Any):
        self.agent, self.observation_options, self.name = agent, agent.observation_options, agent.name

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, None]:
        logits, _ = self.agent.logits_and_actions(
            np.asarray(observations, dtype=np.float32), np.asarray(masks, dtype=np.float32)
        )
        return np.where(np.asarray(masks) > 0, logits.astype(np.float64), MASKED_LOGIT), None


def load_net(env: Any, policy: str, exported: Callable[[str], Any]) -> TorchNet | OnnxNet:
    """The network `policy` names for the game `env` (an `EnvSpec`): `pretrained` or `onnx:DIR` (an export, which
    `exported(policy)` builds: agents.registry passes it) or `ppo:PATH`; a one-line ValueError for anything else,
    or for an export that plays this table only through an adapter."""
    kind, _, path = policy.partition(":")
    if policy == "pretrained" or (kind == "onnx" and path):
        agent = exported(policy)
        if not hasattr(agent, "logits_and_actions"):
            raise ValueError(
                f"search: the policy {policy} plays {env} through an adapter (another action layout); "
                "a guided search needs a policy of this table's own actions"
            )
        return OnnxNet(agent)
    if kind == "ppo" and path:
        from tabletop.agents.networks.actor_critic import CRITIC_PREFIXES
        from tabletop.agents.networks.runs import load_saved
        from tabletop.agents.policy_agent import PolicyAgent

        saved = load_saved(path, env)
        agent = PolicyAgent.from_saved(saved, env)
        critic = any(k.startswith(CRITIC_PREFIXES) for k in saved.weights)
        return TorchNet(agent.policy, agent.observation_options, f"ppo:{path}", has_value=critic)
    raise ValueError(f"search: policy must be pretrained, onnx:DIR or ppo:PATH, got {policy!r}")

"""The training side of the policy network: its SB3 architecture and the weights a snapshot keeps.

Acting (building a policy to load weights into, choosing an action) lives with the players, in
`tabletop.agents.policy_agent`.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def policy_kwargs(hidden: list[int], activation: str) -> dict:
    """SB3 `policy_kwargs`: separate policy and value MLPs of the same shape."""
    return {"net_arch": {"pi": list(hidden), "vf": list(hidden)}, "activation_fn": ACTIVATIONS[activation]}


def actor_weights(policy: MaskableActorCriticPolicy) -> dict[str, torch.Tensor]:
    """A detached CPU copy of the weights (what a snapshot keeps)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in policy.state_dict().items()}

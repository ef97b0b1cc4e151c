"""The training side of the policy network: its SB3 architecture and the weights a snapshot keeps.

Acting (building a policy to load weights into, choosing an action) lives with the players, in
`tabletop.agents.policy_agent`.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def policy_kwargs(hidden: list[int], activation: str) -> dict:
    """SB3 `policy_kwargs`: separate policy and value MLPs of the same shape."""
    return {"net_arch": {"pi": list(hidden), "vf": list(hidden)}, "activation_fn": ACTIVATIONS[activation]}


def actor_weights(policy: MaskableActorCriticPolicy) -> dict[str, torch.Tensor]:
    """A detached CPU copy of the weights (what a snapshot keeps)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in policy.state_dict().items()}


class HeadedPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy whose `mlp_extractor` slot holds a structured network (a `network.kind`)
    that already gives one logit per action, so SB3's action head is the identity. The network's
    `logit_heads()` start near zero, as SB3 starts its own action head: a near-uniform first policy."""

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        if self.ortho_init:
            for head in self.mlp_extractor.logit_heads():
                head.apply(lambda m: self.init_weights(m, gain=0.01))
        self.optimizer = self.optimizer_class(self.trained_parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def trained_parameters(self):
        """The weights PPO's optimiser updates: all of them, unless a network kind freezes some."""
        return self.parameters()


class StructuredPolicy(HeadedPolicy):
    """A HeadedPolicy whose network reads the game's observation `structure` through a trunk of `width` and
    `blocks`, beside a `critic` MLP: the `circles`, `board` and `moves` kinds, which differ only in the
    network their `_build_mlp_extractor` builds. The four arguments are saved with the policy."""

    def __init__(
        self,
        observation_space,
        action_space,
        lr_schedule,
        structure: dict,
        width: int,
        blocks: int,
        critic: tuple[int, ...],
        **kwargs,
    ):
        self.structure, self.width, self.blocks, self.critic = structure, width, blocks, list(critic)  # read by _build
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {
            **super()._get_constructor_parameters(),
            "structure": self.structure,
            "width": self.width,
            "blocks": self.blocks,
            "critic": self.critic,
        }

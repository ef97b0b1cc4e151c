"""One module for every network kind: the kind's network (`mlp_extractor`), the action head and the value head.

The names are the ones SB3's `MaskableActorCriticPolicy` gives the same weights, so a policy trained by SB3
(or renamed from RLlib's, `mlp.from_heads`) loads into it unchanged, and acting code
(`policy_agent.actor_logits`) runs either.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from tabletop.agents.networks import KINDS, board, circles, mlp, moves, roles
from tabletop.agents.networks.common import ACTIVATIONS
from tabletop.agents.networks.spec import DEFAULTS, network_spec
from tabletop.envs import EnvSpec

CRITIC_PREFIXES = (
    "value_net.",
    "mlp_extractor.value_net.",
    "mlp_extractor.critic.",
)  # the critic's weights, every kind


def build_extractor(spec: dict[str, Any]) -> nn.Module:
    """The kind's network: flat observation -> (actor latent, critic latent), in SB3's `mlp_extractor` slot."""
    kind, features, s = spec["kind"], spec["observation_size"], spec["structure"]
    activation, width, blocks, critic = ACTIVATIONS[spec["activation"]], spec["width"], spec["blocks"], spec["hidden"]
    if kind == "mlp":
        return mlp.MlpExtractor(features, critic, activation)
    if kind == "circles":
        pooled_critic = spec.get("critic", "full") == "pooled"  # a policy file older than the key: "full"
        return circles.CircleExtractor(features, s, width, blocks, critic, activation, pooled_critic)
    if kind == "board":
        return board.BoardExtractor(s, width, blocks, critic, activation)
    if kind == "moves":
        return moves.MoveExtractor(features, s, width, blocks, critic, activation)
    if kind == "roles":
        return roles.RoleExtractor(features, s, width, critic, activation)
    raise ValueError(f"unknown network.kind {kind!r}; allowed: {', '.join(KINDS)}")


class ActorCritic(nn.Module):
    """A policy of any kind, built from its `network_spec`; calling it gives the actor's logits."""

    def __init__(self, spec: dict[str, Any]):
        super().__init__()
        self.spec = spec
        self.mlp_extractor = build_extractor(spec)
        self.action_net = (
            nn.Linear(self.mlp_extractor.latent_dim_pi, spec["num_actions"]) if spec["kind"] == "mlp" else nn.Identity()
        )  # the structured kinds already give one logit per action
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        """The actor's logits (the critic runs only while training)."""
        return self.action_net(self.mlp_extractor.forward_actor(observation))

    def load_weights(self, weights: dict[str, torch.Tensor], source: str) -> ActorCritic:
        """Load `weights` (the critic's may be absent: acting never reads it); a ValueError naming `source` and
        the first weight missing, unexpected or of the wrong shape."""
        own = self.state_dict()
        missing = [k for k in own if k not in weights and not k.startswith(CRITIC_PREFIXES)]
        extra = [k for k in weights if k not in own]
        if missing or extra:
            what = f"lacks {missing[0]}" if missing else f"has {extra[0]}, which a {self.spec['kind']} network has not"
            raise ValueError(f"{source}: its weights do not fit its network ({what})")
        for key, value in weights.items():
            if not isinstance(value, torch.Tensor) or value.shape != own[key].shape:
                shape = list(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
                raise ValueError(f"{source}: weight {key} is {shape}, the network needs {list(own[key].shape)}")
        self.load_state_dict(weights, strict=False)
        return self.eval()


def retarget(policy: ActorCritic, env: EnvSpec) -> ActorCritic:
    """A `roles` policy's actor (an `ActorCritic`) for another configuration of the game `env` (another player
    count): no weight depends on it (`tabletop export --players N`)."""
    if policy.spec["kind"] != "roles":
        raise ValueError(
            f"a {policy.spec['kind']} policy's weights fit one player count only; "
            "--players needs a network kind shared across seats (network.kind: roles)"
        )
    target = ActorCritic(network_spec(env, "roles", **{k: policy.spec.get(k, v) for k, v in DEFAULTS.items()}))
    roles.transfer_actor(policy, target)
    return target.eval()

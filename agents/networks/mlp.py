"""The RLlib learner's networks in plain torch, so a trained actor loads, plays and exports without Ray.

The shapes are the SB3 path's `mlp` network (`network.hidden`, `network.activation`): separate policy and
value MLPs, each followed by a linear head.
"""

from __future__ import annotations

import torch
from torch import nn

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
MASKED_LOGIT = -1e8  # as sb3-contrib and the ONNX export: finite, so a softmax over a masked row never gives NaN


def mlp(inputs: int, hidden: list[int], outputs: int, activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(inputs, width), ACTIVATIONS[activation]()]
        inputs = width
    return nn.Sequential(*layers, nn.Linear(inputs, outputs))


def masked(logits: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions' logits (mask 0) set to MASKED_LOGIT: they are never sampled nor argmax."""
    return torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED_LOGIT))


class Actor(nn.Module):
    """The trained policy alone: observation -> logits. `actor_logits` is the hook `tabletop export` calls."""

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str):
        super().__init__()
        self.architecture = {
            "obs_size": obs_size,
            "num_actions": num_actions,
            "hidden": list(hidden),
            "activation": activation,
        }
        self.pi = mlp(obs_size, hidden, num_actions, activation)

    def actor_logits(self, observation: torch.Tensor) -> torch.Tensor:
        return self.pi(observation)

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.pi(observation)

    def to_file(self) -> dict:
        """What `policy.pt` holds: the architecture and the weights (torch.save-able, no Ray classes)."""
        return {
            **self.architecture,
            "state_dict": {k: v.detach().cpu().clone() for k, v in self.pi.state_dict().items()},
        }

    @classmethod
    def from_file(cls, saved: dict) -> Actor:
        actor = cls(saved["obs_size"], saved["num_actions"], saved["hidden"], saved["activation"])
        actor.pi.load_state_dict(saved["state_dict"])
        return actor.eval()

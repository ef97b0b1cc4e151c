"""What every network kind shares: the activations a config names, the masked logit, the MLP builder."""

from __future__ import annotations

import torch
from torch import nn

from tabletop.agents.networks import MASKED_LOGIT

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def masked(logits: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions' logits (mask 0) set to MASKED_LOGIT: they are never sampled nor argmax."""
    return torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED_LOGIT))


def hidden_layers(
    inputs: int, hidden: list[int], activation: type[nn.Module], first: type[nn.Linear] = nn.Linear
) -> nn.Sequential:
    """Linear + activation per width of `hidden` (SB3's `MlpExtractor` layout: a critic, or the MLP's trunk);
    `first` is the first layer's class (`sparse.BagLinear` reads sparse observations)."""
    sizes = [inputs, *hidden]
    layers = [first if k == 0 else nn.Linear for k in range(len(hidden))]
    return nn.Sequential(*[m for kind, a, b in zip(layers, sizes, sizes[1:]) for m in (kind(a, b), activation())])

"""The `mlp` kind: separate policy and value MLPs over the flat observation, each followed by a linear head.

`MlpExtractor` keeps SB3's names (`policy_net`, `value_net`), so an SB3 MLP policy's weights load as they are;
the RLlib learner keeps one `mlp` per head (`pi`, `vf`), renamed into the same layout when saved (`from_heads`).
With `sparse` the first layers are `BagLinear`s, which also read `SparseRows` (the SB3 learner's input).
"""

from __future__ import annotations

import torch
from torch import nn

from tabletop.agents.networks.common import ACTIVATIONS, hidden_layers
from tabletop.agents.networks.sparse import BagLinear, SparseRows


def mlp(inputs: int, hidden: list[int], outputs: int, activation: str) -> nn.Sequential:
    """Hidden layers and a linear head in one Sequential (the RLlib module's `pi` and `vf`)."""
    layers = hidden_layers(inputs, hidden, ACTIVATIONS[activation])
    return nn.Sequential(*layers, nn.Linear(hidden[-1] if hidden else inputs, outputs))


class MlpExtractor(nn.Module):
    """Flat observation -> (policy latent, value latent), as SB3's `MlpExtractor` with `net_arch={pi: h, vf: h}`."""

    def __init__(self, features: int, hidden: list[int], activation: type[nn.Module], sparse: bool = False):
        super().__init__()
        if sparse and not hidden:
            raise ValueError("a sparse input needs a hidden layer to read it: give network.hidden at least one width")
        first = BagLinear if sparse else nn.Linear
        self.policy_net = hidden_layers(features, hidden, activation, first)
        self.value_net = hidden_layers(features, hidden, activation, first)
        self.latent_dim_pi = self.latent_dim_vf = hidden[-1] if hidden else features

    def forward_actor(self, features: torch.Tensor | SparseRows) -> torch.Tensor:
        return self.policy_net(features)

    def forward_critic(self, features: torch.Tensor | SparseRows) -> torch.Tensor:
        return self.value_net(features)

    def forward(self, features: torch.Tensor | SparseRows) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


def from_heads(pi: dict[str, torch.Tensor], vf: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Weights of two `mlp` Sequentials (policy `pi`, value `vf`) under the names of `ActorCritic`'s mlp kind."""
    renamed = {}
    heads = ((pi, "mlp_extractor.policy_net", "action_net"), (vf, "mlp_extractor.value_net", "value_net"))
    for state, trunk, head in (h for h in heads if h[0]):  # an actor saved alone has no `vf`
        last = max(int(key.split(".")[0]) for key in state)
        for key, value in state.items():
            index, param = key.split(".")
            renamed[f"{head}.{param}" if int(index) == last else f"{trunk}.{index}.{param}"] = value
    return renamed

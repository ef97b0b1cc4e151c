"""A trained `mlp` policy as a player that scores the legal actions only: the benchmark's evaluation player.

Its choices (and its draws from the generator) are `PolicyAgent`'s, up to float rounding, at a fraction of the
cost: for one observation at a time the module calls of a batch-of-one pass cost more than its arithmetic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop.agents.networks.sparse import bag_pays
from tabletop.agents.policy_agent import PolicyAgent, one_thread


class LegalPolicyAgent(PolicyAgent):
    """`PolicyAgent`'s choice (and its draws from the generator) for one observation at a time, with the `mlp`
    kind's actor as a few products on one thread: its first layer reads the observation's nonzero inputs only,
    its head scores the legal actions only (a few dozen of Kings Cribbage's 5,098), and a forced move computes
    nothing. The module calls of a batch-of-one pass cost more than its arithmetic. The agent's `policy` stays
    the network (the exact track reads it); the layers are read once, as the agent holds a frozen copy."""

    def __init__(self, policy: nn.Module, name: str = "ppo", seed: int | None = None, sample: bool = False):
        super().__init__(policy, name, seed, sample)
        self.layers = actor_layers(policy)
        self.layers_tanh = getattr(policy, "spec", {}).get("activation") == "tanh"

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        legal = np.flatnonzero(action_mask)
        if observation is None or not len(legal) or self.layers is None:
            return super().act(observation, action_mask, view)
        noise = None if self.rng is None else self.rng.gumbel(size=len(action_mask))
        if len(legal) == 1:
            return int(legal[0])
        table, *layers, (head, head_bias) = self.layers
        obs = torch.from_numpy(np.asarray(observation, dtype=np.float32))
        active = obs.nonzero().squeeze(1)
        tanh = self.layers_tanh
        with torch.no_grad(), one_thread(torch):
            x = obs
            for k, (weight, bias) in enumerate(layers):
                if k == 0 and bag_pays(len(active), len(obs)):  # the rows of the active inputs, summed
                    x = torch.addmv(bias, table[active].t(), obs[active])
                else:
                    x = torch.addmv(bias, weight, x)
                x = x.tanh() if tanh else x.relu()
            index = torch.from_numpy(legal)
            logits = torch.addmv(head_bias[index], head[index], x).double().numpy()
        if noise is not None:  # Gumbel-max over the legal actions, drawn as choose_action draws it
            logits = logits + noise[legal]
        return int(legal[np.argmax(logits)])


def actor_layers(policy: Any) -> list | None:
    """The `mlp` actor's weights, detached: the first layer's as [in, out] (a row per input, for the sparse sum),
    then every layer's (weight [out, in], bias) and the head's; None for another kind."""
    spec = getattr(policy, "spec", {})
    if spec.get("kind") != "mlp" or not spec.get("hidden") or not isinstance(policy.action_net, nn.Linear):
        return None
    linear = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)] + [policy.action_net]
    layers = [(m.weight.detach().contiguous(), m.bias.detach()) for m in linear]
    return [linear[0].weight.detach().t().contiguous(), *layers]

"""The `circles` network kind (Cromlet): one small network shared by all 132 circles.

It reads the Observer's `circles` segment (one row of facts per circle) and a few global numbers
(scores, claims left, hand sizes, deck size, wilds held). Every circle is embedded by the same weights;
residual blocks let each circle see the mean of its cromlet and of the whole board. The logits of
"play / play and claim / wild / wild and claim on circle c" come from circle c's embedding alone, so
what is learnt about one circle holds for every circle in the same situation; the two trade actions
come from pooled embeddings. The critic is a separate MLP (`hidden`) over the whole observation, so
fitting values never moves the policy's weights (and a dense critic costs less than a second encoder);
with `critic: pooled` it reads the actor's pooled summary instead (means and maxima of the circle
embeddings, and the globals), detached so that fitting values still never moves the policy: its first
layer shrinks from 3,598 inputs to 2 x width + 14, the largest single cost of a PPO minibatch.
Everything is plain linear algebra, gathers and reductions: it exports to
ONNX like the MLP.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from tabletop.agents.networks.common import hidden_layers


class _Block(nn.Module):
    """One residual update: a circle's embedding, its cromlet's mean and the board's mean."""

    def __init__(self, width: int, activation: type[nn.Module]):
        super().__init__()
        self.own = nn.Linear(width, width)
        self.group = nn.Linear(width, width, bias=False)
        self.board = nn.Linear(width, width, bias=False)
        self.act = activation()


class EntityEncoder(nn.Module):
    """[batch, entities, channels] + [batch, globals] -> [batch, entities, width], weights shared by every entity."""

    def __init__(
        self, channels: int, num_globals: int, group_of: list[int], width: int, blocks: int, activation: type[nn.Module]
    ):
        super().__init__()
        group_of_t = torch.as_tensor(group_of, dtype=torch.long)
        groups = int(group_of_t.max()) + 1
        one_hot = torch.nn.functional.one_hot(group_of_t, groups).float()
        self.register_buffer("group_of", group_of_t, persistent=False)
        self.register_buffer("group_mean", (one_hot / one_hot.sum(0, keepdim=True)).T.contiguous(), persistent=False)
        self.entity_in = nn.Linear(channels, width)
        self.global_in = nn.Linear(num_globals, width, bias=False)
        self.blocks = nn.ModuleList(_Block(width, activation) for _ in range(blocks))
        self.act = activation()

    def forward(self, entities: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
        h = self.act(self.entity_in(entities) + self.global_in(globals_).unsqueeze(1))
        for block in self.blocks:
            group = torch.matmul(self.group_mean, h)  # [batch, groups, width]: each cromlet's mean
            board = h.mean(dim=1, keepdim=True)
            h = h + block.act(block.own(h) + block.group(group)[:, self.group_of] + block.board(board))
        return h


def pooled(h: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
    return torch.cat([h.mean(dim=1), h.amax(dim=1), globals_], dim=1)


class CircleExtractor(nn.Module):
    """SB3's `mlp_extractor` slot: flat observation -> (action logits, value latent).

    The actor's output already is one logit per action (the policy's `action_net` is the identity)."""

    def __init__(
        self,
        features: int,
        structure: dict[str, Any],
        width: int,
        blocks: int,
        critic: list[int],
        activation: type[nn.Module],
        pooled_critic: bool = False,
    ):
        super().__init__()
        s = structure
        self.offset, self.entities, self.channels = s["entity_offset"], s["entities"], s["channels"]
        self.entity_actions = s["entity_actions"]
        self.register_buffer("global_index", torch.as_tensor(s["global_index"], dtype=torch.long), persistent=False)
        num_globals, pooled_size = len(s["global_index"]), 2 * width + len(s["global_index"])
        self.actor = EntityEncoder(self.channels, num_globals, s["group_of"], width, blocks, activation)
        self.entity_logits = nn.Linear(width, self.entity_actions)
        self.extra_logits = nn.Sequential(
            nn.Linear(pooled_size, width), activation(), nn.Linear(width, s["extra_actions"])
        )
        self.pooled_critic = pooled_critic
        self.critic = hidden_layers(pooled_size if pooled_critic else features, critic, activation)
        self.latent_dim_pi = self.entity_actions * self.entities + s["extra_actions"]
        self.latent_dim_vf = critic[-1]

    def _inputs(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        end = self.offset + self.entities * self.channels
        entities = features[:, self.offset : end].reshape(-1, self.entities, self.channels)
        return entities, torch.index_select(features, 1, self.global_index)

    def _actor(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(the logits, the pooled summary they were computed from)."""
        entities, globals_ = self._inputs(features)
        h = self.actor(entities, globals_)
        summary = pooled(h, globals_)
        per_entity = self.entity_logits(h).transpose(1, 2).reshape(h.shape[0], -1)  # action = kind * 132 + circle
        return torch.cat([per_entity, self.extra_logits(summary)], dim=1), summary

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self._actor(features)[0]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        if not self.pooled_critic:
            return self.critic(features)
        with torch.no_grad():
            summary = self._actor(features)[1]
        return self.critic(summary)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.pooled_critic:
            return self.forward_actor(features), self.forward_critic(features)
        logits, summary = self._actor(features)  # one pass of the encoder for both heads
        return logits, self.critic(summary.detach())

    def logit_heads(self) -> list[nn.Module]:
        return [self.entity_logits, self.extra_logits[-1]]

"""The `roles` network kind (KRZ GRTN): one scorer per kind of choice, its weights shared across entities.

A clue giver's add-letter and return-letter logits come from one small network applied to every tile
kind's row of the Observer's `letter_facts` (what the giver knows about that tile and the target's words)
together with the seat's `role_globals`; the blank's add logit comes from the blank's row. X's logit for
picture c is the sum, over the revealed clues, of one scorer applied to `pair_match[c, clue]` (how that
clue's letters fit picture c's words). Vote and finish come from the globals and the mean tile embedding.
No weight depends on the number of pictures, tiles or players, so a policy trained at one player count
plays any other (`actor_critic.retarget`, `tabletop export --players N`). The critic is a separate MLP over the same three segments (the
globals hold the levels, lives and letters that decide the outlook), so fitting values never moves the
policy's weights and costs little. Everything is linear algebra and sums over fixed axes: it exports
to ONNX like the MLP.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop.agents.networks.common import hidden_layers

SEGMENTS = ("role_globals", "letter_facts", "pair_match")
ROLE_WEIGHTS = {  # the actor's weights of each role (X's picture scorer reads the raw globals, no shared part)
    "givers": ("mlp_extractor.context.", "mlp_extractor.tile", "mlp_extractor.choices."),
    "x": ("mlp_extractor.pair.",),
}
ACTOR = ROLE_WEIGHTS["givers"] + ROLE_WEIGHTS["x"]


def _mlp(sizes: list[int], activation: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class RoleExtractor(nn.Module):
    """SB3's `mlp_extractor` slot: flat observation -> (one logit per action, value latent)."""

    def __init__(
        self, features: int, structure: dict[str, Any], width: int, critic: list[int], activation: type[nn.Module]
    ):
        super().__init__()
        s = structure
        self.structure = s
        a = s["actions"]  # forward_actor lays its logits out in the game's order (envs/krz_grtn/actions.py)
        if (a["vote"], a["add"], a["finish"], a["return"], a["guess"]) != (
            0,
            2,
            2 + s["tile_kinds"],
            3 + s["tile_kinds"],
            2 + 2 * s["tile_kinds"],
        ):
            raise ValueError(f"the roles network does not know this KRZ GRTN action layout: {a}")
        g, w = s["globals"], width
        self.context = nn.Sequential(nn.Linear(g, w), activation())
        self.tile_in = nn.Linear(s["letter_facts"], w)
        self.tile = nn.Sequential(activation(), nn.Linear(w, w), activation())
        self.tile_logits = nn.Linear(w, 2)  # add this tile, return this tile
        self.choices = _mlp([2 * w, w, 3], activation)  # vote no, vote yes, finish the clue
        self.pair = _mlp([s["pair_facts"] + g, w, w, 1], activation)
        self.critic_inputs = sum(self._size(name) for name in SEGMENTS)
        self.critic = hidden_layers(self.critic_inputs, critic, activation)
        self.latent_dim_pi = s["actions"]["total"]
        self.latent_dim_vf = critic[-1]

    def _size(self, name: str) -> int:
        s = self.structure
        return {
            "role_globals": s["globals"],
            "letter_facts": s["tile_kinds"] * s["letter_facts"],
            "pair_match": s["candidates"] * s["clues"] * s["pair_facts"],
        }[name]

    def _segment(self, features: torch.Tensor, name: str, *shape: int) -> torch.Tensor:
        start = self.structure["offsets"][name]
        size = int(np.prod(shape))
        return features[:, start : start + size].reshape(-1, *shape)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        s = self.structure
        globals_ = self._segment(features, "role_globals", s["globals"])
        context = self.context(globals_)  # [batch, width]
        tiles = self._segment(features, "letter_facts", s["tile_kinds"], s["letter_facts"])
        h = self.tile(self.tile_in(tiles) + context.unsqueeze(1))  # [batch, tiles, width]
        per_tile = self.tile_logits(h)  # [batch, tiles, 2]
        choices = self.choices(torch.cat([context, h.mean(dim=1)], dim=1))  # [batch, 3]
        scores = self._pair_scores(features, globals_)  # [batch, candidates, clues]
        letters = s["tile_kinds"] - 1
        return torch.cat(
            [
                choices[:, :2],  # vote no, vote yes
                per_tile[:, :, 0],  # add B..Z, add a blank
                choices[:, 2:],  # finish
                per_tile[:, :letters, 1],  # return B..Z
                scores.sum(dim=2),  # guess picture c
            ],
            dim=1,
        )

    def _pair_scores(self, features: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
        """The picture scorer on every (picture, clue) pair of the positions where clues are laid out (X's guess),
        0 for absent clues and elsewhere. Only a few positions in a batch are guesses, so scoring those alone
        saves most of what the scorer would cost run over every position (its scores elsewhere count 0)."""
        s = self.structure
        pairs = self._segment(features, "pair_match", s["candidates"], s["clues"], s["pair_facts"])
        guesses = (pairs[..., 0].flatten(1).amax(dim=1) > 0).nonzero().squeeze(1)
        laid_out, context = pairs[guesses], globals_[guesses, None, None, :].expand(-1, s["candidates"], s["clues"], -1)
        scores = features.new_zeros(pairs.shape[:3])
        scores[guesses] = self.pair(torch.cat([laid_out, context], dim=3)).squeeze(3) * laid_out[..., 0]
        return scores

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        start = self.structure["offsets"]
        return self.critic(torch.cat([features[:, start[n] : start[n] + self._size(n)] for n in SEGMENTS], dim=1))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def logit_heads(self) -> list[nn.Module]:
        return [self.tile_logits, self.choices[-1], self.pair[-1]]


def transfer_actor(source: nn.Module, target: nn.Module) -> None:
    """Copy the actor's weights (every one shared across entities, so any player count fits) into `target`,
    a policy built for another player count; its critic is left as it is (acting never reads it)."""
    actor = {k: v for k, v in source.state_dict().items() if k.startswith(ACTOR)}
    missing = [k for k in target.state_dict() if k.startswith(ACTOR) and k not in actor]
    if missing:
        raise ValueError(f"the source policy has no {missing[0]}: both must be `roles` policies")
    target.load_state_dict(actor, strict=False)

"""The `roles` network kind (KRZ GRTN): one scorer per kind of choice, its weights shared across entities.

A clue giver's add-letter and return-letter logits come from one small network applied to every tile
kind's row of the Observer's `letter_facts` (what the giver knows about that tile and the target's words)
together with the seat's `role_globals`; the blank's add logit comes from the blank's row. X's logit for
picture c is the sum, over the revealed clues, of one scorer applied to `pair_match[c, clue]` (how that
clue's letters fit picture c's words). Vote and finish come from the globals and the mean tile embedding.
No weight depends on the number of pictures, tiles or players, so a policy trained at one player count
plays any other (`RolePolicy.retarget`, `tabletop export --players N`). The critic is a separate MLP over the same three segments (the
globals hold the levels, lives and letters that decide the outlook), so fitting values never moves the
policy's weights and costs little. Everything is linear algebra and sums over fixed axes: it exports
to ONNX like the MLP.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from tabletop.envs import EnvSpec
from tabletop.train.selfplay.policy import HeadedPolicy

SEGMENTS = ("role_globals", "letter_facts", "pair_match")
ROLE_WEIGHTS = {  # the actor's weights of each role (X's picture scorer reads the raw globals, no shared part)
    "givers": ("mlp_extractor.context.", "mlp_extractor.tile", "mlp_extractor.choices."),
    "x": ("mlp_extractor.pair.",),
}
ACTOR = ROLE_WEIGHTS["givers"] + ROLE_WEIGHTS["x"]


def krz_structure(env: EnvSpec) -> dict[str, Any]:
    """Where a KRZ GRTN observation keeps what the `roles` network reads, and the action layout, as plain data."""
    from tabletop.envs.krz_grtn import actions as act

    table = env.make_raw()
    layout, game = table.observer.layout, table.game
    blocks = {name: layout.block(np.zeros(layout.size), name).shape for name in SEGMENTS}
    return {
        "offsets": {name: layout.slice(name).start for name in SEGMENTS},
        "globals": blocks["role_globals"][0],
        "tile_kinds": blocks["letter_facts"][0],
        "letter_facts": blocks["letter_facts"][1],
        "candidates": blocks["pair_match"][0],
        "clues": blocks["pair_match"][1],
        "pair_facts": blocks["pair_match"][2],
        "actions": {
            "vote": act.VOTE_NO,
            "add": act.ADD_TILE,
            "finish": act.FINISH_CLUE,
            "return": act.RETURN_LETTER,
            "guess": act.GUESS,
            "total": game.num_actions,
        },
    }


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
        sizes = [self.critic_inputs, *critic]
        self.critic = nn.Sequential(*[m for a, b in zip(sizes, sizes[1:]) for m in (nn.Linear(a, b), activation())])
        self.latent_dim_pi = s["actions"]["total"]
        self.latent_dim_vf = sizes[-1]

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
        pairs = self._segment(features, "pair_match", s["candidates"], s["clues"], s["pair_facts"])
        expanded = globals_[:, None, None, :].expand(-1, s["candidates"], s["clues"], -1)
        scores = self.pair(torch.cat([pairs, expanded], dim=3)).squeeze(3) * pairs[..., 0]  # absent clues count 0
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

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        start = self.structure["offsets"]
        return self.critic(torch.cat([features[:, start[n] : start[n] + self._size(n)] for n in SEGMENTS], dim=1))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def logit_heads(self) -> list[nn.Module]:
        return [self.tile_logits, self.choices[-1], self.pair[-1]]


class RolePolicy(HeadedPolicy):
    """MaskableActorCriticPolicy with the `roles` network in its `mlp_extractor` slot."""

    def __init__(
        self,
        observation_space,
        action_space,
        lr_schedule,
        structure: dict,
        width: int = 32,
        critic: tuple[int, ...] = (256, 256),
        frozen_role: str | None = None,
        **kwargs,
    ):
        self.structure, self.width, self.critic, self.frozen_role = (
            structure,
            width,
            list(critic),
            frozen_role,
        )  # read by _build
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = RoleExtractor(
            self.features_dim, self.structure, self.width, self.critic, self.activation_fn
        )

    def trained_parameters(self) -> list[nn.Parameter]:
        """PPO's optimiser leaves a frozen role as the warm start made it (the warm start's own optimiser fits all)."""
        frozen = ROLE_WEIGHTS[self.frozen_role] if self.frozen_role else ()
        return [w for name, w in self.named_parameters() if not (frozen and name.startswith(frozen))]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {
            **super()._get_constructor_parameters(),
            "structure": self.structure,
            "width": self.width,
            "critic": self.critic,
            "frozen_role": self.frozen_role,
        }

    def retarget(self, env: EnvSpec) -> RolePolicy:
        """This policy's actor for another configuration of the game (another player count): no weight
        depends on it (`tabletop export --players N`)."""
        from tabletop.agents.policy_agent import build_policy

        table = env.make_raw()
        kwargs = {**self._get_constructor_parameters(), "structure": krz_structure(env)}
        for key in ("observation_space", "action_space", "lr_schedule", "use_sde"):
            kwargs.pop(key, None)
        target = build_policy(
            table.observation_space("player_0")["observation"], table.action_space("player_0"), kwargs, RolePolicy
        )
        transfer_actor(self, target)
        return target


def role_policy_kwargs(
    env: EnvSpec, width: int, critic: list[int], activation: type[nn.Module], frozen_role: str | None = None
) -> dict[str, Any]:
    return {
        "structure": krz_structure(env),
        "width": width,
        "critic": list(critic),
        "activation_fn": activation,
        "frozen_role": frozen_role,
    }


def transfer_actor(source: RolePolicy, target: RolePolicy) -> None:
    """Copy the actor's weights (every one shared across entities, so any player count fits) into `target`,
    a policy built for another player count; its critic is left as it is (acting never reads it)."""
    actor = {k: v for k, v in source.state_dict().items() if k.startswith(ACTOR)}
    missing = [k for k in target.state_dict() if k.startswith(ACTOR) and k not in actor]
    if missing:
        raise ValueError(f"the source policy has no {missing[0]}: both must be `roles` policies")
    target.load_state_dict(actor, strict=False)

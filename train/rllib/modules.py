"""The masked actor-critic RLModule that PPO and APPO train, and that frozen snapshots run.

RLlib's action-masking pattern: the observation is a dict of `observations` and `action_mask`, and the
module masks its own logits, so every sampler, learner and evaluator sees only legal actions. Unlike
RLlib's example module (PPO only, built on a deprecated class) this one is a plain `TorchRLModule` with
the value API (PPO, APPO) and the target-network API (APPO's old policy, masked the same way).
"""

from __future__ import annotations

from typing import Any

from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.utils import make_target_network
from ray.rllib.core.rl_module.apis import (
    TARGET_NETWORK_ACTION_DIST_INPUTS,
    InferenceOnlyAPI,
    TargetNetworkAPI,
    ValueFunctionAPI,
)
from ray.rllib.core.rl_module.torch import TorchRLModule

from tabletop.agents.networks.common import masked
from tabletop.agents.networks.mlp import mlp


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI, TargetNetworkAPI, InferenceOnlyAPI):
    """`model_config`: `hidden` (layer widths) and `activation`; separate policy and value MLPs."""

    def setup(self) -> None:
        size = self.observation_space["observations"].shape[0]
        hidden, activation = list(self.model_config["hidden"]), self.model_config["activation"]
        self.pi = mlp(size, hidden, self.action_space.n, activation)
        self.vf = mlp(size, hidden, 1, activation)  # dropped on samplers (inference only)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: masked(self.pi(obs["observations"]), obs["action_mask"])}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return self._forward(batch)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None):
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)

    # --- APPO: the old policy, as a target network ------------------------------------------------
    def make_target_networks(self) -> None:
        self._target_pi = make_target_network(self.pi)

    def get_target_network_pairs(self):
        return [(self.pi, self._target_pi)]

    def forward_target(self, batch: dict[str, Any]) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {TARGET_NETWORK_ACTION_DIST_INPUTS: masked(self._target_pi(obs["observations"]), obs["action_mask"])}

    def get_non_inference_attributes(self) -> list[str]:
        return ["vf", "_target_pi"]

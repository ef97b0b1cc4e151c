"""The policy network shared by the learner, its frozen snapshots and saved-policy players.

Acting outside PPO (opponent snapshots, evaluation) runs the actor head only, under `no_grad` on the
CPU, and samples with a seeded numpy generator so games are reproducible.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def policy_kwargs(hidden: list[int], activation: str) -> dict:
    """SB3 `policy_kwargs`: separate policy and value MLPs of the same shape."""
    return {"net_arch": {"pi": list(hidden), "vf": list(hidden)}, "activation_fn": ACTIVATIONS[activation]}


def build_policy(observation_space: spaces.Box, action_space: spaces.Discrete, kwargs: dict) -> MaskableActorCriticPolicy:
    """A fresh CPU policy of the learner's architecture, to load frozen weights into."""
    policy = MaskableActorCriticPolicy(observation_space, action_space, lambda _: 0.0, **kwargs)
    policy.set_training_mode(False)
    return policy


def actor_weights(policy: MaskableActorCriticPolicy) -> dict[str, torch.Tensor]:
    """A detached CPU copy of the weights (what a snapshot keeps)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in policy.state_dict().items()}


def choose_action(
    policy: MaskableActorCriticPolicy,
    observation: np.ndarray,
    action_mask: np.ndarray,
    rng: np.random.Generator | None,
) -> int:
    """A legal action: the most likely one when `rng` is None, else a sample from the masked policy."""
    legal = np.asarray(action_mask, dtype=bool)
    if not legal.any():
        raise ValueError("no legal action to choose from (all-zero action mask)")
    with torch.no_grad():
        obs = torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0)
        features = policy.extract_features(obs, policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))[0].numpy()
    logits = np.where(legal, logits.astype(np.float64), -np.inf)
    if rng is not None:  # Gumbel-max: an exact sample from softmax(logits) using our own generator
        logits = logits + rng.gumbel(size=logits.shape)
    return int(np.argmax(logits))

"""Policy-network helpers shared by the network tests: an untrained policy of a kind, and the never-masked check."""

from __future__ import annotations

import numpy as np
import torch

from tabletop.agents.policy_agent import choose_action
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import NetworkConfig
from tabletop.train.selfplay.policy import build_policy, network_policy


def untrained_policy(network: NetworkConfig, spec: EnvSpec, seed: int = 0):
    """An untrained policy of `network` for `spec`, its logit heads redrawn so that logits differ by whole units
    (the network kinds' tests share it)."""
    torch.manual_seed(seed)
    env = spec.make_raw()
    agent = env.possible_agents[0]
    policy_class, kwargs = network_policy(network, spec)
    policy = build_policy(env.observation_space(agent)["observation"], env.action_space(agent), kwargs, policy_class)
    with torch.no_grad():
        for head in policy.mlp_extractor.logit_heads():
            torch.nn.init.normal_(head.weight, std=1.0)
    return policy


def assert_never_masked(policy, observations, masks) -> None:
    """Neither the greedy nor the sampled choice is ever a masked action."""
    rng = np.random.default_rng(0)
    for observation, mask in zip(observations, masks):
        assert mask[choose_action(policy, observation, mask, None)] == 1
        assert mask[choose_action(policy, observation, mask, rng)] == 1

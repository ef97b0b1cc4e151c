"""GatheringRolloutBuffer (train/selfplay/rollout_buffer.py) against SB3's MaskableRolloutBuffer: the same
minibatches, in the same order, under the same seed, rollout after rollout, with its observation array kept and
one block for every minibatch's observations."""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from tabletop.train.selfplay.rollout_buffer import GatheringRolloutBuffer

STEPS, ENVS, OBS, ACTIONS = 12, 3, 5, 7


def _fill(buffers, rng: np.random.Generator) -> None:
    for _ in range(STEPS):
        obs = rng.normal(size=(ENVS, OBS)).astype(np.float32)
        action = rng.integers(ACTIONS, size=(ENVS, 1))
        reward = rng.normal(size=ENVS).astype(np.float32)
        start = rng.random(ENVS) < 0.2
        value, log_prob = torch.as_tensor(rng.normal(size=ENVS)), torch.as_tensor(rng.normal(size=ENVS))
        mask = rng.random((ENVS, ACTIONS)) < 0.6
        for buffer in buffers:
            buffer.add(obs, action, reward, start, value, log_prob, action_masks=mask)
    last = torch.as_tensor(rng.normal(size=ENVS))
    for buffer in buffers:
        buffer.compute_returns_and_advantage(last, np.zeros(ENVS, dtype=bool))


def test_minibatches_match_sb3s_rollout_after_rollout():
    space, actions = spaces.Box(-5, 5, (OBS,), np.float32), spaces.Discrete(ACTIONS)
    ours = GatheringRolloutBuffer(STEPS, space, actions, n_envs=ENVS)
    theirs = MaskableRolloutBuffer(STEPS, space, actions, n_envs=ENVS)
    rng = np.random.default_rng(0)
    kept = ours.observations
    for rollout in range(3):
        for buffer in (ours, theirs):
            buffer.reset()
        assert ours.observations is kept  # one array for every rollout
        _fill((ours, theirs), rng)
        np.random.seed(rollout)
        sb3_batches = list(theirs.get(batch_size=8))  # 36 samples: four of 8, one of 4
        np.random.seed(rollout)
        compared, blocks = 0, set()
        for mine, sb3 in zip(ours.get(batch_size=8), sb3_batches, strict=True):  # each used before the next is drawn
            for a, b in zip(mine, sb3):
                assert torch.equal(a, b)
            blocks.add(mine.observations.data_ptr())
            compared += 1
        assert compared == 5 and len(blocks) == 1  # one block holds every minibatch's observations in turn


def test_flat_observations_follow_sb3s_env_major_order():
    buffer = GatheringRolloutBuffer(STEPS, spaces.Box(-1, 1, (OBS,), np.float32), spaces.Discrete(2), n_envs=ENVS)
    buffer.observations[:] = np.arange(STEPS * ENVS * OBS, dtype=np.float32).reshape(STEPS, ENVS, OBS)
    flat = buffer.swap_and_flatten(buffer.observations.copy())
    indices = np.array([0, 1, STEPS, STEPS * ENVS - 1, 5])
    assert np.array_equal(buffer.flat_observations(indices), flat[indices])

"""`sb3.overlap`: the update on a thread while the next rollout is collected (train/selfplay/pipeline.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from tabletop.train.selfplay.config import ConfigError, load_config, parse_config
from tabletop.train.selfplay.pipeline import frozen_copy, reanchor
from tabletop.train.selfplay.trainer import train

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke" / "cromlet.yaml"


def _weights(model) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in model.policy.parameters()]


@pytest.mark.slow
def test_overlapped_learning_is_deterministic_and_differs_from_sequential(smoke_learner):
    runs = {}
    for name, overlap in (("a", True), ("b", True), ("sequential", False)):
        model = smoke_learner(overlap)
        model.learn(4 * 64 * 2)  # four rollouts: three of them collected while an update ran
        assert model._n_updates == 4  # n_epochs 1: one per rollout, the last one waited for
        runs[name] = _weights(model)
    assert all(np.array_equal(x, y) for x, y in zip(runs["a"], runs["b"]))
    assert not all(np.array_equal(x, y) for x, y in zip(runs["a"], runs["sequential"]))


def test_reanchor_gives_the_new_policys_log_probs_and_truncated_weights(smoke_learner):
    model = smoke_learner(False)
    model.learn(64 * 2)  # one rollout in the buffer, and the update that moved the policy off it
    buffer = model.rollout_buffer
    buffer.generator_ready = False  # `get` flattened it (all but the observations): rebuild [n_steps, n_envs]
    for name in ("actions", "action_masks"):
        array = getattr(buffer, name)
        setattr(buffer, name, array.reshape(2, 64, *array.shape[1:]).swapaxes(0, 1).copy())
    for name in ("log_probs", "advantages"):  # [n_steps, n_envs] in the buffer, a column once flattened
        setattr(buffer, name, getattr(buffer, name).reshape(2, 64).T.copy())
    behaviour, advantages = buffer.log_probs.copy(), buffer.advantages.copy()
    policy = frozen_copy(model.policy)
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=torch.Generator().manual_seed(1)))
    reanchor(policy, buffer, chunk=48)  # chunks that do not divide the rollout
    obs = buffer.flat_observations(np.array([1 * 64 + 5]))  # env 1, step 5 (an MLP's buffer keeps sparse rows)
    with torch.no_grad():
        dist = policy.get_distribution(obs, action_masks=buffer.action_masks[5, 1][None])
        expected = float(dist.log_prob(torch.as_tensor(buffer.actions[5, 1]).long()))
    assert buffer.log_probs[5, 1] == pytest.approx(expected, abs=1e-5)
    weight = np.minimum(1.0, np.exp(buffer.log_probs - behaviour))
    assert np.allclose(buffer.advantages, advantages * weight, atol=1e-6)
    assert weight.min() < 0.99  # the policy moved: some samples lost weight, none gained
    assert (np.abs(buffer.advantages) <= np.abs(advantages) + 1e-6).all()


@pytest.mark.slow
def test_overlapped_run_snapshots_evaluates_checkpoints_and_resumes(tmp_path):
    config = load_config(SMOKE)
    config.sb3.overlap = True
    first = train(config, out=tmp_path / "run", steps=128, progress=False)
    assert first.steps == 128
    second = train(config, steps=config.total_steps, resume=tmp_path / "run", progress=False)
    assert second.steps == config.total_steps - 128
    newest = sorted((tmp_path / "run" / "checkpoints").iterdir())[-1]
    pool = torch.load(newest / "pool.pt", weights_only=True)
    assert pool["step"] == config.total_steps
    assert [n for n, _ in pool["snapshots"]][-2:] == ["step_000000192", "step_000000256"]


def test_overlap_must_be_a_boolean():
    data = {"env_id": "cromlet_v0", "total_steps": 10, "sb3": {"overlap": "yes"}}
    with pytest.raises(ConfigError, match="overlap"):
        parse_config(data)

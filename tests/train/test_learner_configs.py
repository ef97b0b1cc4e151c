"""scripts/learner_configs.py: the one fresh learner that bench_learner.py, learning_ab.py and profile_learner.py
train (a suite task's ppo family or a training config, no warm start, the pool full of copies of it)."""

from __future__ import annotations

from pathlib import Path

import torch
from support.scripts import load_script

REPO = Path(__file__).resolve().parents[2]


def _script():
    return load_script("scripts/learner_configs.py")


def test_a_suite_task_and_a_config_name_their_source():
    script = _script()
    suite = REPO / "configs" / "benchmark" / "suite.yaml"
    assert script.split_task(f"{suite}:cromlet_2p") == (suite, "cromlet_2p")
    assert script.split_task(str(REPO / "configs" / "cromlet.yaml")) == (REPO / "configs" / "cromlet.yaml", None)
    config = script.learner_config(f"{suite}:cromlet_2p")
    assert (config.env.env_id, config.seed, config.network.kind) == ("cromlet_v0", 0, "mlp")


def test_a_fresh_learner_fills_every_pool_with_copies_of_itself():
    script = _script()
    config = script.learner_config(f"{REPO / 'configs' / 'benchmark' / 'suite.yaml'}:cromlet_2p")
    config.sb3.vec_env.num_envs = 2
    threads = torch.get_num_threads()
    try:
        model, vec_env = script.fresh_learner(config)
    finally:
        torch.set_num_threads(threads)
    weights = model.policy.state_dict()
    for game in vec_env.venv.games:
        snapshots = list(game.pool.snapshots.values())
        assert len(snapshots) == config.opponents.max_snapshots
        for key, value in snapshots[0].policy.state_dict().items():
            assert torch.equal(value, weights[key]), key
    assert model.num_timesteps == 0

"""End to end for every game that imports: train -> checkpoint -> resume -> evaluate, on the smoke configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from tabletop.agents import make_agent
from tabletop.train.evaluation.ratings import round_robin
from tabletop.train.selfplay.config import ConfigError, load_config
from tabletop.train.selfplay.logs import read_csv
from tabletop.train.selfplay.policy import actor_weights, network_policy
from tabletop.train.selfplay.trainer import SelfPlayPPO, make_vec_env, train

SMOKE = sorted(Path(__file__).resolve().parents[2].joinpath("configs", "smoke").glob("*.yaml"))


@pytest.fixture(params=SMOKE, ids=lambda p: p.stem)
def config(request):
    try:
        return load_config(request.param)
    except ConfigError as err:  # a game still being written: skip, don't fail
        pytest.skip(str(err))


@pytest.mark.slow
def test_train_checkpoint_resume_eval(config, tmp_path):
    run = tmp_path / "run"
    first = train(config, out=run, steps=128, progress=False)
    assert first.steps == 128 and (run / "final" / "model.zip").is_file()
    assert (run / "learning_curve.png").stat().st_size > 0
    assert [c.name for c in (run / "checkpoints").iterdir()] == ["step_000000128"]
    pool_before = torch.load(run / "checkpoints" / "step_000000128" / "pool.pt", weights_only=True)
    assert pool_before["step"] == 128

    second = train(config, steps=config.total_steps, resume=run, progress=False)
    assert second.run_dir == run and second.steps == config.total_steps - 128  # the step count carried over
    newest = sorted((run / "checkpoints").iterdir())[-1]
    pool_after = torch.load(newest / "pool.pt", weights_only=True)
    assert pool_after["step"] == config.total_steps
    if config.learner_seats == "one":  # the pool carried over, then grew
        every = config.opponents.snapshot_every
        added = [f"step_{s:09d}" for s in range(128 + every, config.total_steps + 1, every)]
        assert [n for n, _ in pool_after["snapshots"]] == [n for n, _ in pool_before["snapshots"]] + added
    steps = [int(r["time/total_timesteps"]) for r in read_csv(run / "logs" / "progress.csv")]
    assert steps == sorted(set(steps)) and steps[-1] == config.total_steps  # one log, continued
    final = json.loads((run / "final" / "eval.json").read_text())
    assert final["steps"] == config.total_steps and all(
        r["games"] == config.evaluation.final_games for r in final["results"]
    )

    agent = make_agent(config.env, f"ppo:{run}")
    assert agent.name == f"ppo:{run}"
    result = round_robin(config.env, [f"ppo:{run}", "random"], 2)
    assert result.win_rate.shape == (2, 2) and len(result.ratings) == 2


@pytest.mark.slow
def test_subprocess_envs_train_and_receive_snapshots(tmp_path):
    config = load_config(SMOKE[[p.stem for p in SMOKE].index("cromlet")])
    config.sb3.vec_env.kind = "subproc"
    config.opponents.weights = {"self": 1.0}  # every game needs a snapshot that reached the worker
    result = train(config, out=tmp_path / "run", steps=128, progress=False)
    assert result.steps == 128
    pool = torch.load(tmp_path / "run" / "checkpoints" / "step_000000128" / "pool.pt", weights_only=True)
    assert [n for n, _ in pool["snapshots"]] == ["step_000000000", "step_000000064", "step_000000128"]


def test_inference_mode_rollouts_train_the_same_weights():
    """SelfPlayPPO collects under torch.inference_mode and changes nothing else: after two rollouts and
    their updates its weights equal MaskablePPO's bit for bit (the rollout ran in the mode, MaskablePPO's not)."""
    config = load_config(SMOKE[[p.stem for p in SMOKE].index("cromlet")])
    policy_class, kwargs = network_policy(config.network, config.env)
    weights, modes = [], []

    class Mode(BaseCallback):
        def _on_step(self) -> bool:
            modes.append((type(self.model).__name__, torch.is_inference_mode_enabled()))
            return True

    for algorithm in (MaskablePPO, SelfPlayPPO):
        vec_env = make_vec_env(config, seed=0)
        rollout = {"n_steps": config.sb3.n_steps, "target_kl": config.sb3.target_kl}
        model = algorithm(
            policy_class, vec_env, **vars(config.ppo), **rollout, policy_kwargs=kwargs, seed=0, device="cpu"
        )
        vec_env.env_method("add_snapshot", "s0", actor_weights(model.policy))
        model.learn(2 * config.sb3.n_steps * config.sb3.vec_env.num_envs, callback=Mode())
        weights.append(model.policy.state_dict())
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert {mode for name, mode in modes if name == "SelfPlayPPO"} == {True}  # the rollout ran in the mode
    assert {mode for name, mode in modes if name == "MaskablePPO"} == {False}

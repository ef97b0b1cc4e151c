"""The dqn family: it learns on a toy game, plays legal moves only, is deterministic under a seed, and resumes."""

from __future__ import annotations

import pytest
import torch
from support.benchmark import register_toy, task, win_rate

from tabletop import envs
from tabletop.agents import PolicyAgent
from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec
from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW
from tabletop.train.benchmark.families.dqn import FAMILY

SMALL = {
    "hidden": [64],
    "num_envs": 8,
    "learning_starts": 200,
    "train_every": 2,
    "target_update": 100,
    "gamma": 1.0,
    "learning_rate": 1e-3,
    "batch_size": 64,
    "buffer_size": 4000,
    "exploration_fraction": 0.5,
}


@pytest.fixture(scope="module", autouse=True)
def toy():
    yield register_toy()
    envs.unregister("three_cards_v0")


def weights(learner) -> list[torch.Tensor]:
    return [w.clone() for w in learner.dqn.q.state_dict().values()]


@pytest.mark.slow
def test_it_learns_to_beat_random_at_three_cards(tmp_path):
    learner = FAMILY.start(task(budget=2000), SMALL, 0, tmp_path)
    before = win_rate(learner.agent())
    learner.train_until(2000)
    after = win_rate(learner.agent())  # 400 deals: a standard error of 0.025 around random's 0.5
    assert learner.steps >= 2000
    assert after >= 0.56 and after > before + 0.03, (before, after)


@pytest.mark.slow
def test_the_same_seed_trains_the_same_network_and_another_seed_another(tmp_path):
    runs = [FAMILY.start(task(), SMALL, seed, tmp_path / str(i)) for i, seed in enumerate((3, 3, 4))]
    for run in runs:
        run.train_until(400)
    same, other = (all(torch.equal(a, b) for a, b in zip(weights(runs[0]), weights(r))) for r in runs[1:])
    assert same and not other


def test_a_save_resumes_its_weights_steps_and_optimiser_and_writes_a_policy_file(tmp_path):
    learner = FAMILY.start(task(), SMALL, 1, tmp_path)
    learner.train_until(400)
    learner.save()
    resumed = FAMILY.start(task(), SMALL, 1, tmp_path)
    assert resumed.steps == learner.steps
    assert all(torch.equal(a, b) for a, b in zip(weights(learner), weights(resumed)))
    assert resumed.dqn.optimizer.state_dict()["state"].keys() == learner.dqn.optimizer.state_dict()["state"].keys()
    resumed.train_until(600)
    assert resumed.steps >= 600
    player = PolicyAgent.load(tmp_path / "policy.pt", EnvSpec("three_cards_v0"))
    assert win_rate(player, games=20) >= 0  # the exported greedy policy plays whole games, legally


def test_a_save_with_other_parameters_or_unknown_ones_is_refused(tmp_path):
    learner = FAMILY.start(task(), SMALL, 1, tmp_path)
    learner.save()
    with pytest.raises(ValueError, match="learning_rate=0.001, not 0.01"):
        FAMILY.start(task(), {**SMALL, "learning_rate": 1e-2}, 1, tmp_path)
    with pytest.raises(ValueError, match="dqn has no parameter 'lr'"):
        FAMILY.start(task(), {"lr": 1}, 1, tmp_path)


def test_a_cooperative_task_trains_over_every_seat_and_its_player_finishes_a_game(tmp_path):
    krz = EnvSpec("krz_grtn_v1")
    cooperative = task(krz, {}, learner_seats="all")
    assert FAMILY.unsupported(cooperative) is None
    learner = FAMILY.start(cooperative, {**SMALL, "num_envs": 2, "learning_starts": 32, "hidden": [16]}, 0, tmp_path)
    learner.train_until(96)
    assert learner.steps >= 96 and learner.replay.sample(8, learner.rng) is not None
    player, aec = learner.agent(), krz.make_raw()
    aec.reset(seed=TRAINING_SEEDS_BELOW)
    while not aec.game_state.is_terminal():  # every seat the greedy player's; an illegal move raises
        state = aec.game_state
        aec.step(act_for(player, aec, state, state.current_player))


def test_the_defaults_name_the_documented_hyperparameters():
    assert {"learning_rate", "buffer_size", "batch_size", "epsilon_start", "target_update", "hidden"} <= set(
        FAMILY.defaults
    )

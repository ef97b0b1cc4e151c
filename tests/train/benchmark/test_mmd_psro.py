"""The `mmd` and `psro` families' parts: PSRO's meta-solver and mixture, paired deals, and each family trained for
a few rollouts on the toy game, reproducible under a seed. The smoke grid (test_runner.py) runs both end to end."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from support.benchmark import register_toy, task, win_rate  # noqa: E402

from tabletop import envs  # noqa: E402
from tabletop.agents import RandomAgent  # noqa: E402
from tabletop.train.benchmark.families import load_family  # noqa: E402
from tabletop.train.benchmark.families.psro import regret_matching_nash, shares  # noqa: E402
from tabletop.train.benchmark.scoring import paired_deals  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def toy():
    yield register_toy()
    envs.unregister("three_cards_v0")


ROCK_PAPER_SCISSORS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)


def test_the_nash_meta_solver_finds_the_equilibria_of_small_symmetric_games():
    assert np.allclose(regret_matching_nash(ROCK_PAPER_SCISSORS, 20_000), 1 / 3, atol=0.01)
    dominated = np.array([[0, 1, 1], [-1, 0, 1], [-1, -1, 0]], dtype=float)  # strategy 0 beats both others
    assert regret_matching_nash(dominated, 2_000)[0] > 0.99


def test_mixture_shares_add_up_and_follow_the_weights():
    assert shares(np.array([0.5, 0.3, 0.2]), 20).tolist() == [10, 6, 4]
    assert shares(np.array([1.0, 1.0, 1.0]), 20).tolist() == [7, 7, 6]
    assert shares(np.array([0.999, 0.0005, 0.0005]), 20).sum() == 20


def test_paired_deals_play_each_deal_from_every_seat():
    env = task().env
    scores = paired_deals(RandomAgent(0), RandomAgent(1), env, 30, 10_000_000)
    assert scores.shape == (30,) and set(np.unique(scores)) <= {0.0, 0.5, 1.0}
    assert np.array_equal(scores, paired_deals(RandomAgent(0), RandomAgent(1), env, 30, 10_000_000))
    mirror = paired_deals(FirstLegal(), FirstLegal(), env, 30, 10_000_000)
    assert np.all(mirror == 0.5)


class FirstLegal:
    """Plays the lowest legal action: with itself in the other seat, each deal's two seatings mirror each other."""

    name = "first"
    needs_observation = False

    def act(self, observation, action_mask, view):
        return int(np.flatnonzero(action_mask)[0])


@pytest.mark.slow
def test_mmd_learns_to_beat_random_at_three_cards(tmp_path):
    params = {"num_envs": 8, "n_steps": 32, "hidden": [64], "learning_rate": 3e-3, "gamma": 1.0}
    learner = load_family("mmd").start(task(budget=4000), params, 0, tmp_path)
    before = win_rate(learner.agent())
    learner.train_until(4000)
    after = win_rate(learner.agent())  # 400 deals: a standard error of 0.025 around random's 0.5
    assert after >= 0.56 and after > before + 0.03, (before, after)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mmd", "psro"])
def test_a_family_trains_reproducibly_and_its_save_resumes(name, tmp_path):
    family = load_family(name)
    toy_task = task()
    params = {"num_envs": 4, "n_steps": 16, "n_epochs": 1, "hidden": [16]}
    params |= {"br_steps": 64, "meta_deals": 2} if name == "psro" else {"snapshot_every": 64}
    runs = []
    for folder in ("a", "b"):
        learner = family.start(toy_task, params, 3, tmp_path / folder)
        learner.train_until(192)
        learner.save()
        runs.append({k: v.clone() for k, v in learner.network.state_dict().items()})
    assert all(np.array_equal(runs[0][k].numpy(), runs[1][k].numpy()) for k in runs[0])
    other = family.start(toy_task, params, 4, tmp_path / "c")
    other.train_until(192)
    assert not all(np.array_equal(runs[0][k].numpy(), v.numpy()) for k, v in other.network.state_dict().items())
    resumed = family.start(toy_task, params, 3, tmp_path / "a")
    assert resumed.steps == learner.steps >= 192
    if name == "psro":
        assert len(resumed.members) == len(learner.members) == 4  # the start and three best responses
        assert np.isclose(sum(resumed.meta), 1.0)
    assert (tmp_path / "a/policy.pt").is_file()

"""The nfsp family: the average policy fits the best response's decisions, self-play against it, legal play,
determinism under a seed, resume, and a clear refusal of cooperative tasks."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
import torch.nn.functional as F
from support.benchmark import register_toy, task, win_rate

from tabletop import envs
from tabletop.agents.networks.common import masked
from tabletop.train.benchmark.families.nfsp import FAMILY

SMALL = {
    "hidden": [64],
    "num_envs": 8,
    "learning_starts": 200,
    "train_every": 2,
    "target_update": 100,
    "gamma": 1.0,
    "learning_rate": 1e-3,
    "sl_learning_rate": 1e-3,
    "batch_size": 64,
    "buffer_size": 4000,
    "reservoir_size": 4000,
    "refresh_every": 200,
    "anticipatory": 0.3,
}


@pytest.fixture(scope="module", autouse=True)
def toy():
    yield register_toy()
    envs.unregister("three_cards_v0")


def reservoir_loss(learner) -> float:
    """The average policy's masked cross-entropy on everything in its reservoir."""
    r = learner.reservoir
    filled = min(r.seen, r.capacity)
    obs, masks = torch.from_numpy(r.obs[:filled]), torch.from_numpy(r.mask[:filled])
    with torch.no_grad():
        return float(F.cross_entropy(masked(learner.average(obs), masks), torch.from_numpy(r.action[:filled])))


def uniform_loss(learner) -> float:
    """The same cross-entropy for the uniform legal policy: the mean log of the number of legal actions."""
    r = learner.reservoir
    return float(sum(math.log(m.sum()) for m in r.mask[: min(r.seen, r.capacity)]) / min(r.seen, r.capacity))


@pytest.mark.slow
def test_the_average_policy_fits_the_best_responses_and_opponents_get_refreshed_copies(tmp_path):
    learner = FAMILY.start(task(budget=1500), SMALL, 0, tmp_path)
    assert learner.env.opponents == {"self": 1.0} and learner.env.snapshots == ["average"]
    first = [w.clone() for w in learner.average.state_dict().values()]
    learner.train_until(1500)
    assert learner.reservoir.seen > 200  # about anticipatory * steps best-response decisions
    assert reservoir_loss(learner) < 0.8 * uniform_loss(learner)
    opponent = learner.env._batched.games[0].pool.snapshots["average"].policy.action_net.state_dict().values()
    assert not all(torch.equal(a, b) for a, b in zip(opponent, first))  # refreshed since the start
    assert win_rate(learner.agent(), games=100) > 0.4  # the average policy plays whole games, legally


@pytest.mark.slow
def test_the_same_seed_trains_the_same_networks(tmp_path):
    runs = [FAMILY.start(task(), SMALL, seed, tmp_path / str(i)) for i, seed in enumerate((2, 2, 5))]
    for run in runs:
        run.train_until(400)
    states = [[*r.average.state_dict().values(), *r.dqn.q.state_dict().values()] for r in runs]
    assert all(torch.equal(a, b) for a, b in zip(states[0], states[1]))
    assert not all(torch.equal(a, b) for a, b in zip(states[0], states[2]))


def test_a_save_resumes_both_networks_and_the_agent_plays_the_average_policy(tmp_path):
    learner = FAMILY.start(task(), SMALL, 1, tmp_path)
    learner.train_until(400)
    learner.save()
    resumed = FAMILY.start(task(), SMALL, 1, tmp_path)
    assert resumed.steps == learner.steps and resumed.refreshed_at == learner.refreshed_at
    for mine, theirs in ((learner.average, resumed.average), (learner.dqn.q, resumed.dqn.q)):
        assert all(torch.equal(a, b) for a, b in zip(mine.state_dict().values(), theirs.state_dict().values()))
    agent = resumed.agent()
    assert agent.needs_observation and agent.rng is None  # the suite's one evaluation mode: greedy
    sampled = FAMILY.start(dataclasses.replace(task(), eval_mode="sample"), SMALL, 1, tmp_path).agent()
    assert sampled.rng is not None  # eval_mode sample: a draw from the average policy, seeded
    assert all(
        torch.equal(a, b) for a, b in zip(agent.policy.state_dict().values(), resumed.average.state_dict().values())
    )


def test_cooperative_tasks_are_refused_with_the_reason():
    reason = FAMILY.unsupported(task(learner_seats="all"))
    assert "cooperative" in reason and FAMILY.unsupported(task()) is None
    assert "snapshot_every" not in FAMILY.defaults and "anticipatory" in FAMILY.defaults

"""The benchmark families read only what is there: bag first layers over the rows' nonzero inputs, heads on the
legal actions only, the actor on the rows with a choice. Each computes the dense masked network's outputs and
gradients (up to float rounding), and the evaluation's player makes the dense player's choices."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tabletop.agents import PolicyAgent
from tabletop.agents.networks.actor_critic import ActorCritic
from tabletop.agents.networks.common import masked
from tabletop.agents.networks.sparse import BagLinear, SparseRows
from tabletop.envs import EnvSpec
from tabletop.train.benchmark import vector
from tabletop.train.benchmark.families.hyperparameters import DQN, MMD
from tabletop.train.benchmark.families.nfsp import cross_entropy
from tabletop.train.benchmark.families.policy_gradient import ppo_loss
from tabletop.train.benchmark.families.qlearning import (
    DecisionReplay,
    DoubleDQN,
    Inputs,
    MlpSnapshot,
    build_network,
    policy_player,
    snapshot,
)
from tabletop.train.selfplay import batched

CHROMINO_SMALL = EnvSpec("chromino_v1", {"num_players": 2, "box": [7, 30, 52, 66], "hand_size": 2, "grid_size": 5})
ROWS = 64


def batch(network, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations mostly zero (up to 30 active inputs, one row all zero) and masks with forced rows."""
    rng = np.random.default_rng(seed)
    features, actions = network.spec["observation_size"], network.spec["num_actions"]
    obs = np.zeros((ROWS, features), dtype=np.float32)
    for row in range(1, ROWS):
        active = rng.choice(features, size=rng.integers(1, 30), replace=False)
        obs[row, active] = rng.choice([1.0, 0.5, 2.0, -1.0], size=len(active))
    masks = rng.random((ROWS, actions)) < 0.05
    masks[np.arange(ROWS), rng.integers(0, actions, ROWS)] = True
    masks[::3] = False
    masks[::3, 5] = True  # every third row is forced
    return obs, masks


def dense_twin(network: ActorCritic) -> ActorCritic:
    """The same weights in plain nn.Linear layers: the dense network the families trained before."""
    twin = ActorCritic(network.spec)
    twin.load_state_dict(network.state_dict())
    return twin


def gradients(network, loss: torch.Tensor) -> dict[str, torch.Tensor]:
    network.zero_grad()
    loss.backward()
    return {
        name: w.grad.clone() if w.grad is not None else torch.zeros_like(w) for name, w in network.named_parameters()
    }


def assert_same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-5, rtol=1e-4), name


@pytest.fixture
def network():
    torch.manual_seed(0)
    return build_network(CHROMINO_SMALL, MMD)


def test_the_mlp_kind_starts_with_bags_holding_the_dense_layers_initial_weights(network):
    assert all(
        isinstance(net[0], BagLinear) for net in (network.mlp_extractor.policy_net, network.mlp_extractor.value_net)
    )
    torch.manual_seed(0)
    dense = ActorCritic(network.spec)
    after_dense = torch.rand(3)
    torch.manual_seed(0)
    build_network(CHROMINO_SMALL, MMD)
    assert torch.equal(torch.rand(3), after_dense)  # the run's later draws are the dense network's
    assert all(torch.equal(w, dense.state_dict()[k]) for k, w in network.state_dict().items())


def test_the_policy_gradient_loss_and_its_gradients_are_the_dense_masked_ones(network):
    obs, masks = batch(network)
    rng = np.random.default_rng(2)
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    b = {
        "masks": torch.from_numpy(masks),
        "actions": torch.from_numpy(actions),
        "logprobs": torch.from_numpy(rng.normal(-1.0, 0.5, ROWS).astype(np.float32)),
        "advantages": torch.from_numpy(rng.normal(0.0, 1.0, ROWS).astype(np.float32)),
        "returns": torch.from_numpy(rng.normal(0.0, 1.0, ROWS).astype(np.float32)),
    }
    sparse = Inputs(network)(obs)
    assert isinstance(sparse, SparseRows)
    loss = ppo_loss(network, {**b, "obs": sparse}, MMD)

    twin = dense_twin(network)  # the loss as the dense learner wrote it: full-width masked logits
    logits = masked(twin(torch.from_numpy(obs)), b["masks"])
    logp_all = torch.log_softmax(logits, dim=1)
    log_ratio = logp_all.gather(1, b["actions"][:, None]).squeeze(1) - b["logprobs"]
    ratio = log_ratio.exp()
    adv = (b["advantages"] - b["advantages"].mean()) / (b["advantages"].std() + 1e-8)
    clipped = torch.clamp(ratio, 1 - MMD["clip_range"], 1 + MMD["clip_range"])
    values = twin.value_net(twin.mlp_extractor.forward_critic(torch.from_numpy(obs))).squeeze(-1)
    entropy = -(logp_all.exp() * torch.where(b["masks"], logp_all, torch.zeros_like(logp_all))).sum(dim=1).mean()
    dense = (
        torch.max(-adv * ratio, -adv * clipped).mean()
        + MMD["vf_coef"] * 0.5 * F.mse_loss(values, b["returns"])
        - MMD["ent_coef"] * entropy
        + MMD["kl_coef"] * (ratio * log_ratio - (ratio - 1)).mean()
    )
    assert torch.isclose(loss, dense, atol=1e-5)
    assert_same(gradients(network, loss), gradients(twin, dense))


def test_the_average_policys_cross_entropy_is_the_dense_masked_one(network):
    obs, masks = batch(network, seed=3)
    actions = torch.from_numpy(np.array([np.flatnonzero(m)[-1] for m in masks]))
    loss = cross_entropy(network, Inputs(network)(obs), torch.from_numpy(masks), actions)
    twin = dense_twin(network)
    dense = F.cross_entropy(masked(twin(torch.from_numpy(obs)), torch.from_numpy(masks)), actions)
    assert torch.isclose(loss, dense, atol=1e-5)
    assert_same(gradients(network, loss), gradients(twin, dense))


def test_a_double_dqn_step_is_the_dense_one():
    torch.manual_seed(1)
    dqn = DoubleDQN(CHROMINO_SMALL, DQN)
    obs, masks = batch(dqn.q, seed=4)
    replay = DecisionReplay(2 * ROWS, ROWS // 2, *obs.shape[1:], masks.shape[1])
    rng = np.random.default_rng(5)
    replay.add(obs[: ROWS // 2], masks[: ROWS // 2])
    acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks[: ROWS // 2]])
    replay.add(obs[ROWS // 2 :], masks[ROWS // 2 :], acts, rng.normal(size=ROWS // 2).astype(np.float32), acts % 2 == 0)
    slots = replay.sample(16, rng)
    q, target = dense_twin(dqn.q), dense_twin(dqn.target)
    loss = dqn.loss(replay, slots)

    def dense_loss() -> torch.Tensor:
        next_obs, next_masks = torch.from_numpy(replay.obs[slots]), torch.from_numpy(replay.mask[slots])
        best = masked(q(next_obs), next_masks).argmax(dim=1)
        alive = torch.from_numpy(~replay.done[slots]).float()
        next_value = target(next_obs).gather(1, best[:, None])[:, 0].detach()
        goal = torch.from_numpy(replay.reward[slots]) + DQN["gamma"] * alive * next_value
        actions = torch.from_numpy(replay.action[slots])[:, None]
        return F.smooth_l1_loss(q(torch.from_numpy(replay.obs[replay.prev[slots]])).gather(1, actions)[:, 0], goal)

    assert torch.isclose(loss, dense_loss(), atol=1e-6)
    assert_same(gradients(dqn.q, loss), gradients(q, dense_loss()))

    optimizer = torch.optim.Adam(q.parameters(), lr=DQN["learning_rate"])  # the dense learner's steps
    for _ in range(3):
        dqn.update(replay, slots)
        gradients(q, dense_loss())
        torch.nn.utils.clip_grad_norm_(q.parameters(), DQN["max_grad_norm"])
        optimizer.step()
    assert_same(dict(dqn.q.named_parameters()), dict(q.named_parameters()))


def test_snapshots_and_rows_too_dense_for_the_bag_give_the_dense_choices(network):
    obs, masks = batch(network, seed=6)
    twin = dense_twin(network)
    expected = twin(torch.from_numpy(obs))
    frozen = vector.frozen(snapshot(network))
    assert isinstance(frozen, MlpSnapshot) and frozen.legal_head
    greedy = masked(expected, torch.from_numpy(masks)).argmax(dim=1).numpy()
    assert np.array_equal(batched._legal_choice(frozen, obs, masks, [None] * ROWS), greedy)  # the head on legal only
    with torch.no_grad():
        assert torch.allclose(frozen(torch.from_numpy(obs)), expected, atol=1e-5)
        full = np.ones_like(obs)  # every input active: the bag does not pay, and the rows stay dense from then on
        inputs = Inputs(network)
        assert isinstance(inputs(full), torch.Tensor) and isinstance(inputs(obs), torch.Tensor) and inputs.dense
        assert torch.allclose(network(inputs(obs)), expected, atol=1e-5)
        assert network.mlp_extractor.policy_net[0].weight.is_contiguous()  # nn.Linear's layout again


@pytest.mark.parametrize(("sample", "activation"), [(False, "tanh"), (True, "tanh"), (False, "relu")])
def test_the_evaluation_player_makes_the_dense_players_choices(sample, activation):
    torch.manual_seed(0)
    network = build_network(CHROMINO_SMALL, {**MMD, "activation": activation})
    obs, masks = batch(network, seed=7)
    obs[1] = 1.0  # a row too dense for the bag: the dense product
    with torch.no_grad():
        for w in network.action_net.parameters():
            w.mul_(20.0)  # logits far apart: no near-tie for float rounding to turn
    fast = policy_player(network, CHROMINO_SMALL, "fast", seed=11, sample=sample)
    plain = PolicyAgent(dense_twin(network).eval(), name="dense", seed=11, sample=sample)
    fast_moves = [fast.act(o, m, {}) for o, m in zip(obs, masks)]
    assert fast_moves == [plain.act(o, m, {}) for o, m in zip(obs, masks)]
    assert all(masks[row, move] for row, move in enumerate(fast_moves))
    assert fast.policy is not network and copy.deepcopy(fast.policy)(torch.from_numpy(obs)).shape == masks.shape


def test_a_save_keeps_whether_the_rows_went_dense():
    dqn = DoubleDQN(CHROMINO_SMALL, DQN)
    assert not dqn.inputs.dense
    dqn.inputs.go_dense()
    resumed = DoubleDQN(CHROMINO_SMALL, DQN)
    resumed.load(dqn.state())
    assert resumed.inputs.dense and resumed.q.mlp_extractor.policy_net[0].weight.is_contiguous()
    assert all(torch.equal(w, dqn.q.state_dict()[k]) for k, w in resumed.q.state_dict().items())

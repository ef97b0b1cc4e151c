"""The sparse learner: the embedding-bag first layer, the legal-only action head and the sparse rollout buffer
compute the dense MLP policy's function and gradients (up to float rounding)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from tabletop.agents.networks.sparse import BagLinear, SparseRows, sparse_rows
from tabletop.train.selfplay.policy import (
    MlpPolicy,
    head_reads_legal_only,
    legal_log_softmax,
    legal_sample,
    legal_scores,
    policy_kwargs,
)
from tabletop.train.selfplay.rollout_buffer import GatheringRolloutBuffer

FEATURES, ACTIONS = 300, 40


def sparse_batch(rows: int, seed: int = 0) -> torch.Tensor:
    """Observations mostly zero, a few features set (counts and indicators), one row all zero."""
    rng = np.random.default_rng(seed)
    dense = np.zeros((rows, FEATURES), dtype=np.float32)
    for row in range(1, rows):
        active = rng.choice(FEATURES, size=rng.integers(1, 30), replace=False)
        dense[row, active] = rng.choice([1.0, 0.5, 2.0, -1.0], size=len(active))
    return torch.from_numpy(dense)


def legal_masks(rows: int, seed: int = 1, actions: int = ACTIONS, legal: float = 0.2) -> np.ndarray:
    """Masks with forced rows (one legal action) and rows with choices (about `legal` of the actions)."""
    rng = np.random.default_rng(seed)
    masks = rng.random((rows, actions)) < legal
    masks[np.arange(rows), rng.integers(0, actions, rows)] = True
    masks[::3] = False
    masks[::3, 5] = True  # every third row is forced
    return masks


def test_sparse_rows_hold_every_nonzero_value():
    dense = sparse_batch(12)
    rows = sparse_rows(dense)
    rebuilt = torch.zeros_like(dense).scatter_add_(1, rows.indices, rows.values)
    assert torch.equal(rebuilt, dense)
    assert rows.indices.shape[1] == int((dense != 0).sum(dim=1).max())


def test_bag_layer_equals_the_dense_linear_in_outputs_and_gradients():
    torch.manual_seed(0)
    bag = BagLinear(FEATURES, 16)
    linear = nn.Linear(FEATURES, 16)
    linear.load_state_dict(bag.state_dict())  # the same state dict: a Linear's names and shapes
    dense = sparse_batch(20)
    upstream = torch.randn(20, 16)
    bag(sparse_rows(dense)).mul(upstream).sum().backward()
    linear(dense).mul(upstream).sum().backward()
    torch.testing.assert_close(bag(sparse_rows(dense)), linear(dense))
    torch.testing.assert_close(bag.weight.grad, linear.weight.grad)
    torch.testing.assert_close(bag.bias.grad, linear.bias.grad)
    torch.testing.assert_close(bag(dense), linear(dense))  # the dense path too (ONNX export, acting)


def test_bag_layer_initialises_as_a_linear():
    torch.manual_seed(3)
    bag = BagLinear(FEATURES, 16)
    torch.manual_seed(3)
    linear = nn.Linear(FEATURES, 16)
    assert torch.equal(bag.weight, linear.weight) and torch.equal(bag.bias, linear.bias)
    assert bag.weight.t().is_contiguous()  # each feature's weights side by side, for the bag


@pytest.mark.parametrize("actions, legal, legal_only", [(ACTIONS, 0.2, False), (2000, 0.001, True)])
def test_legal_scores_equal_the_masked_categorical(actions, legal, legal_only):
    """Both ways of scoring: the whole head and a masked softmax, or the head on the legal actions alone."""
    torch.manual_seed(1)
    head = nn.Linear(8, actions)
    latent = torch.randn(30, 8, requires_grad=True)
    masks = torch.from_numpy(legal_masks(30, actions=actions, legal=legal))
    assert head_reads_legal_only(masks) == legal_only
    actions = torch.tensor([int(np.flatnonzero(m.numpy())[-1]) for m in masks])
    logits = head(latent).masked_fill(~masks, -1e8)
    log_p = torch.log_softmax(logits, dim=1)
    expected = (log_p.gather(1, actions[:, None]).squeeze(1), -(log_p.exp() * log_p).masked_fill(~masks, 0).sum(1))
    log_prob, entropy = legal_scores(latent, head, masks, actions)
    torch.testing.assert_close(log_prob, expected[0])
    torch.testing.assert_close(entropy, expected[1])
    (g1,) = torch.autograd.grad((log_prob + 0.1 * entropy).sum(), latent)
    (g2,) = torch.autograd.grad((expected[0] + 0.1 * expected[1]).sum(), latent)
    torch.testing.assert_close(g1, g2)
    row, action, log_p_legal = legal_log_softmax(latent, head, masks)
    assert torch.equal(torch.stack([row, action]), torch.stack(masks.nonzero(as_tuple=True)))
    torch.testing.assert_close(log_p_legal, log_p[row, action])
    best, best_log_p = legal_sample(latent, head, masks, deterministic=True)
    assert torch.equal(best, log_p.argmax(dim=1))
    torch.testing.assert_close(best_log_p, log_p.max(dim=1).values)


def policies() -> tuple[MaskableActorCriticPolicy, MlpPolicy]:
    """sb3-contrib's dense MLP policy and ours, the same seed: the same weights under the same names."""
    observation, action = spaces.Box(-np.inf, np.inf, (FEATURES,), np.float32), spaces.Discrete(ACTIONS)
    kwargs = policy_kwargs([32, 32], "tanh")
    torch.manual_seed(7)
    dense = MaskableActorCriticPolicy(observation, action, lambda _: 3e-4, **kwargs)
    torch.manual_seed(7)
    sparse = MlpPolicy(observation, action, lambda _: 3e-4, **kwargs)
    assert dense.state_dict().keys() == sparse.state_dict().keys()
    for key, value in dense.state_dict().items():
        assert torch.equal(value, sparse.state_dict()[key]), key
    return dense, sparse


def test_sparse_policy_evaluates_as_the_dense_policy():
    dense, sparse = policies()
    obs, masks = sparse_batch(24), legal_masks(24)
    actions = torch.tensor([int(np.flatnonzero(m)[0]) for m in masks])
    results = [p.evaluate_actions(obs, actions, action_masks=masks) for p in (dense, sparse)]
    for a, b in zip(*results):
        torch.testing.assert_close(a.flatten(), b.flatten())
    loss = [r[0].sum() + r[1].sum() + 0.01 * r[2].sum() for r in results]
    for policy, value in zip((dense, sparse), loss):
        policy.optimizer.zero_grad()
        value.backward()
    for (name, a), b in zip(dense.named_parameters(), sparse.parameters()):
        torch.testing.assert_close(a.grad, b.grad, msg=name)
    sparse_values = sparse.predict_values(sparse_rows(obs))
    torch.testing.assert_close(sparse_values, dense.predict_values(obs))


def test_sparse_policy_acts_as_the_dense_policy():
    dense, sparse = policies()
    obs, masks = sparse_batch(24), legal_masks(24)
    best = dense(obs, deterministic=True, action_masks=masks)
    mine = sparse(obs, deterministic=True, action_masks=masks)
    assert torch.equal(best[0], mine[0])
    for a, b in zip(best[1:], mine[1:]):
        torch.testing.assert_close(a, b)
    torch.manual_seed(5)
    actions, values, log_prob = sparse(obs, action_masks=masks)
    assert masks[np.arange(24), actions.numpy()].all()
    torch.testing.assert_close(log_prob, dense.evaluate_actions(obs, actions, action_masks=masks)[1])


def test_sparse_policy_samples_the_masked_softmax():
    _, sparse = policies()
    obs = sparse_batch(2).repeat(2000, 1)
    masks = np.tile(legal_masks(2, seed=4), (2000, 1))
    masks[:, :3] = True
    torch.manual_seed(9)
    actions, _, log_prob = sparse(obs, action_masks=masks)
    for row in range(2):  # the rows repeat: each action's frequency is close to its probability
        drawn = actions[row::2].numpy()
        for action in np.unique(drawn):
            expected = float(log_prob[row::2][drawn == action][0].detach().exp())
            assert abs((drawn == action).mean() - expected) < 4 * (expected / 2000) ** 0.5 + 0.005


@pytest.mark.parametrize("batch_size", [7, 32])
def test_sparse_buffer_gives_the_dense_buffers_minibatches(batch_size):
    observation, action = spaces.Box(-np.inf, np.inf, (FEATURES,), np.float32), spaces.Discrete(ACTIONS)
    buffers = [GatheringRolloutBuffer(8, observation, action, n_envs=4, sparse=flag) for flag in (False, True)]
    for step in range(8):
        obs = sparse_batch(4, seed=step).numpy()
        masks = legal_masks(4, seed=step)
        for buffer in buffers:
            buffer.add(obs, np.zeros(4), np.zeros(4), np.zeros(4), torch.zeros(4), torch.zeros(4), action_masks=masks)
    for buffer in buffers:
        buffer.compute_returns_and_advantage(torch.zeros(4), np.zeros(4))
    np.random.seed(11)
    dense_batches = [copy.deepcopy(b) for b in buffers[0].get(batch_size)]
    np.random.seed(11)
    for dense, sparse in zip(dense_batches, buffers[1].get(batch_size)):
        assert isinstance(sparse.observations, SparseRows)
        rebuilt = torch.zeros_like(dense.observations).scatter_add_(
            1, sparse.observations.indices, sparse.observations.values
        )
        assert torch.equal(rebuilt, dense.observations)
        assert torch.equal(dense.action_masks, sparse.action_masks)


def test_a_dense_batch_stays_dense_and_evaluates_the_same():
    dense, sparse = policies()
    obs = (torch.rand(16, FEATURES) < 0.3).float()  # a third of the inputs active: the bag would cost more
    assert isinstance(sparse.extract_features(sparse_batch(16)), SparseRows)
    assert isinstance(sparse.extract_features(obs), torch.Tensor)
    assert isinstance(sparse.extract_features(sparse_rows(obs)), torch.Tensor)
    assert isinstance(sparse.extract_features(sparse_batch(16)), torch.Tensor)  # once dense, the game's rows stay so
    masks = legal_masks(16)
    actions = torch.tensor([int(np.flatnonzero(m)[0]) for m in masks])
    for a, b in zip(*(p.evaluate_actions(obs, actions, action_masks=masks) for p in (dense, sparse))):
        torch.testing.assert_close(a.flatten(), b.flatten())


def test_export_folds_the_bag_into_a_dense_onnx_layer(tmp_path):
    """The exported model reads the dense observation (the bag's weight is a dense Linear's) and gives the logits
    the learner computes on sparse rows."""
    pytest.importorskip("onnxruntime")
    from tabletop.agents import OnnxAgent
    from tabletop.envs import EnvSpec
    from tabletop.train.selfplay.policy import build_policy
    from tabletop.train.serving import export

    spec = EnvSpec("chromino_v1", {"num_players": 2})
    env = spec.make_raw()
    agent = env.possible_agents[0]
    torch.manual_seed(0)
    policy = build_policy(
        env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([32], "tanh"), MlpPolicy
    )
    with torch.no_grad():
        torch.nn.init.normal_(policy.action_net.weight, std=1.0)
    export.export_policy(policy, tmp_path, spec)
    observations, masks = export.sample_positions(spec, 40, seed=5)
    logits, _ = OnnxAgent(tmp_path).logits_and_actions(observations, masks)
    features = policy.extract_features(torch.as_tensor(observations))
    assert isinstance(features, SparseRows)
    with torch.no_grad():
        learner = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
    legal = masks > 0
    assert np.max(np.abs(logits - learner)[legal]) <= 1e-5


def lazy_and_dense(batches: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(weights before, after lazy Adam, after torch's Adam) of a bag and a Linear with the same weights, one step
    per batch of `batches` on the same loss."""
    from tabletop.train.selfplay.lazy_adam import LazyBagAdam

    torch.manual_seed(2)
    bag, linear = BagLinear(FEATURES, 8), nn.Linear(FEATURES, 8)
    linear.load_state_dict(bag.state_dict())
    start = bag.weight.detach().clone()
    lazy = LazyBagAdam(list(bag.parameters()), [bag], lr=0.01, eps=1e-5, foreach=True)
    dense = torch.optim.Adam(linear.parameters(), lr=0.01, eps=1e-5)
    for step, batch in enumerate(batches):
        target = torch.randn(len(batch), 8, generator=torch.Generator().manual_seed(step))
        for layer, optimiser, x in ((bag, lazy, sparse_rows(batch)), (linear, dense, batch)):
            optimiser.zero_grad()
            ((layer(x) - target) ** 2).sum().backward()
            optimiser.step()
    return start, bag.weight.detach(), linear.weight.detach()


def test_lazy_adam_is_adam_on_inputs_read_at_every_step():
    half = FEATURES // 2
    batches = [torch.cat([torch.rand(16, half) + 0.5, torch.zeros(16, FEATURES - half)], dim=1) for _ in range(3)]
    start, lazy, dense = lazy_and_dense(batches)
    torch.testing.assert_close(lazy, dense)
    assert (lazy[:, :half] != start[:, :half]).all() and torch.equal(lazy[:, half:], start[:, half:])


def test_lazy_adam_moves_an_input_only_when_read():
    first, later = torch.zeros(4, FEATURES), torch.zeros(4, FEATURES)
    first[:, :10], later[:, 10:20] = 1.0, 1.0
    start, lazy, dense = lazy_and_dense([first, later, later])
    after_one = lazy_and_dense([first])[1]
    assert torch.equal(lazy[:, :10], after_one[:, :10])  # read once, then left as it was
    assert not torch.equal(dense[:, :10], after_one[:, :10])  # torch's Adam goes on moving it by its moments
    torch.testing.assert_close(lazy[:, 10:], dense[:, 10:])


def test_a_buffer_whose_first_rows_are_dense_keeps_dense_rows():
    observation, action = spaces.Box(-np.inf, np.inf, (FEATURES,), np.float32), spaces.Discrete(ACTIONS)
    buffer = GatheringRolloutBuffer(2, observation, action, n_envs=4, sparse=True)
    obs = (torch.rand(4, FEATURES, generator=torch.Generator().manual_seed(0)) < 0.3).float().numpy()
    for _ in range(2):
        buffer.add(obs, np.zeros(4), np.zeros(4), np.zeros(4), torch.zeros(4), torch.zeros(4), action_masks=None)
    assert not buffer.sparse
    assert torch.equal(buffer.flat_observations(np.array([0, 3])), torch.from_numpy(obs[[0, 1]]))


def test_a_snapshot_scores_legal_actions_only_and_chooses_as_before():
    from tabletop.agents.policy_agent import actor_logits
    from tabletop.train.selfplay.batched import _legal_choice, _masked_choice

    _, sparse = policies()
    with torch.no_grad():
        torch.nn.init.normal_(sparse.action_net.weight, std=1.0)
    obs, masks = sparse_batch(24).numpy(), legal_masks(24)
    with torch.no_grad():
        logits = actor_logits(sparse, torch.from_numpy(obs)).numpy()
    best = _masked_choice(logits, masks, [None] * 24)
    np.testing.assert_array_equal(_legal_choice(sparse, obs, masks, [None] * 24), best)
    drawn = _legal_choice(sparse, obs, masks, [np.random.default_rng(k) for k in range(24)])
    for k, (row, legal) in enumerate(zip(logits.astype(np.float64), masks)):  # Gumbel-max on the legal actions
        actions = np.flatnonzero(legal)
        expected = (
            actions[0]
            if len(actions) == 1
            else actions[np.argmax(row[actions] + np.random.default_rng(k).gumbel(size=len(actions)))]
        )
        assert drawn[k] == expected, k


def test_dense_rows_keep_the_weight_as_a_linear_does_and_train_the_same():
    dense, sparse = policies()
    obs = (torch.rand(16, FEATURES, generator=torch.Generator().manual_seed(1)) < 0.3).float()
    sparse.extract_features(obs)
    layer = sparse.mlp_extractor.policy_net[0]
    assert layer.weight.is_contiguous()
    assert any(p is layer.weight for p in sparse.optimizer.param_groups[0]["params"])  # the same Parameter
    masks = legal_masks(16)
    actions = torch.tensor([int(np.flatnonzero(m)[0]) for m in masks])
    for a, b in zip(*(p.evaluate_actions(obs, actions, action_masks=masks) for p in (dense, sparse))):
        torch.testing.assert_close(a.flatten(), b.flatten())

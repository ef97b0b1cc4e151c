"""`sb3.skip_forced`: the learner runs its actor only on decisions with a choice (rollout and update), and
nothing else changes.

A forced move (one legal action) has log-probability 0 and entropy 0 whatever the logits, so leaving it out
of the actor's pass must give the same values, log-probabilities, entropies and gradients (up to float
rounding: the weight gradients sum over fewer rows).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import NetworkConfig, load_config
from tabletop.train.selfplay.imitation import _clone_losses
from tabletop.train.selfplay.policy import build_policy, network_policy
from tabletop.train.selfplay.trainer import make_vec_env, new_model

CASES = {
    "mlp": ("cromlet_v0", {}, NetworkConfig(kind="mlp", hidden=[32, 32])),
    "circles": ("cromlet_v0", {}, NetworkConfig(kind="circles", width=8, hidden=[32, 32])),
    "circles-pooled": ("cromlet_v0", {}, NetworkConfig(kind="circles", width=8, hidden=[32, 32], critic="pooled")),
    "board": ("chromino_v1", {"features": ["lookahead"]}, NetworkConfig(kind="board", width=4, hidden=[32])),
}


def _policy(spec: EnvSpec, network: NetworkConfig):
    """A fresh learner policy of `network` for `spec`, seeded."""
    torch.manual_seed(0)
    table = spec.make_raw()
    agent = table.possible_agents[0]
    policy_class, policy_kwargs = network_policy(network, spec)
    space = table.observation_space(agent)["observation"]
    return build_policy(space, table.action_space(agent), policy_kwargs, policy_class)


def _decisions(spec: EnvSpec, rows: int):
    """(observations, masks, actions) of random play until `rows` decisions, forced ones among them."""
    env, rng = spec.make_raw(), np.random.default_rng(0)
    observations, masks, actions = [], [], []
    for seed in range(100):
        env.reset(seed=seed)
        while not env.game_state.is_terminal() and len(actions) < rows:
            seen = env.observe(env.agent_selection)
            action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
            observations.append(seen["observation"].copy())
            masks.append(seen["action_mask"].copy())
            actions.append(action)
            env.step(action)
        if len(actions) >= rows:
            break
    return torch.tensor(np.array(observations)), torch.tensor(np.array(masks)), torch.tensor(actions)


def _evaluate(policy, observations, masks, actions, skip: bool):
    policy.skip_forced = skip
    policy.zero_grad()
    values, log_prob, entropy = policy.evaluate_actions(observations, actions, masks)
    weights = torch.linspace(-1.0, 1.0, len(actions))  # stand-ins for advantages
    (-(log_prob * weights).mean() - 0.01 * entropy.mean() + values.square().mean()).backward()
    return (
        values.detach(),
        log_prob.detach(),
        entropy.detach(),
        {n: w.grad.clone() for n, w in policy.named_parameters()},
    )


@pytest.mark.parametrize("case", CASES)
def test_skipping_forced_moves_changes_no_action_loss_or_gradient(case):
    env_id, kwargs, network = CASES[case]
    spec = EnvSpec(env_id, kwargs)
    policy = _policy(spec, network)
    observations, masks, actions = _decisions(spec, 160)
    forced = int((masks.sum(dim=1) == 1).sum())
    assert 0 < forced < len(actions)  # both kinds of decision are in the batch

    full = _evaluate(policy, observations, masks, actions, skip=False)
    actor_rows = []
    extractor = policy.mlp_extractor
    forward_actor, split = extractor.forward_actor, getattr(extractor, "forward_split", None)
    extractor.forward_actor = lambda features: actor_rows.append(len(features)) or forward_actor(features)
    if split is not None:  # the actor's rows and the critic's all in one pass: the same as the two passes
        choices = (masks.sum(dim=1) > 1).nonzero().squeeze(1)
        with torch.no_grad():
            one_pass, two_passes = (
                split(observations, choices),
                (forward_actor(observations[choices]), extractor.forward_critic(observations)),
            )
        assert all(torch.equal(a, b) for a, b in zip(one_pass, two_passes))
        extractor.forward_split = lambda features, rows: actor_rows.append(len(rows)) or split(features, rows)
    skipped = _evaluate(policy, observations, masks, actions, skip=True)
    assert actor_rows == [len(actions) - forced]  # the actor saw the decisions with a choice only
    for name, a, b in zip(("values", "log-probabilities", "entropies"), full[:3], skipped[:3]):
        assert torch.allclose(a, b, atol=1e-6), name
    assert torch.equal(skipped[1][masks.sum(dim=1) == 1], torch.zeros(forced))  # a forced move's log-probability
    for name, grad in full[3].items():
        assert torch.allclose(grad, skipped[3][name], rtol=1e-4, atol=1e-7), name

    rollouts = []  # the rollout's forward pass: the same draws from the same generator
    for skip in (False, True):
        policy.skip_forced = skip
        torch.manual_seed(1)
        actor_rows.clear()
        with torch.no_grad():
            rollouts.append(policy(observations, action_masks=masks))
    assert actor_rows == [len(actions) - forced]
    assert torch.equal(rollouts[0][0], rollouts[1][0])  # actions
    assert torch.allclose(rollouts[0][1], rollouts[1][1], atol=1e-6)  # values
    assert torch.allclose(rollouts[0][2], rollouts[1][2], atol=1e-6)  # log-probabilities


def test_the_trainer_sets_the_switch_from_the_config():
    config = load_config(Path(__file__).resolve().parents[2] / "configs" / "smoke" / "cromlet.yaml")
    config.sb3.vec_env.kind = "batched"
    for skip in (False, True):
        config.sb3.skip_forced = skip
        vec_env = make_vec_env(config, seed=0)
        assert new_model(config, vec_env).policy.skip_forced is skip
        assert vec_env.venv.skip_forced is skip  # the snapshots' batched passes (tests/train/test_batched_env.py)


def test_a_batch_of_forced_moves_alone():
    env_id, kwargs, network = CASES["board"]  # the board network cannot run on zero rows
    spec = EnvSpec(env_id, kwargs)
    policy = _policy(spec, network)
    observations, masks, actions = _decisions(spec, 60)
    forced = masks.sum(dim=1) == 1
    policy.skip_forced = True
    with torch.no_grad():
        chosen, _, log_prob = policy(observations[forced], action_masks=masks[forced])
    assert torch.equal(chosen, actions[forced]) and not log_prob.any()


@pytest.mark.parametrize("case", ["mlp", "board"])
def test_the_warm_start_fit_leaves_forced_moves_out_too(case):
    """The imitation fit's cross-entropy and values with the switch: the same up to rounding, the actor run on
    the rows with a choice only (a forced move's cross-entropy is 0 whatever the weights)."""
    env_id, kwargs, network = CASES[case]
    spec = EnvSpec(env_id, kwargs)
    policy = _policy(spec, network)
    observations, masks, actions = _decisions(spec, 120)
    masks = masks.bool()  # as the fit reads them
    target = torch.nn.functional.one_hot(actions, masks.shape[1]).float()  # the teacher's move
    forced = int((masks.sum(dim=1) == 1).sum())
    results, actor_rows = [], []
    extractor = policy.mlp_extractor
    for name in ("forward_actor", "forward_split"):
        original = getattr(extractor, name, None)
        if original is not None:
            setattr(extractor, name, lambda *a, original=original: actor_rows.append(len(a[-1])) or original(*a))
    for skip in (False, True):
        policy.skip_forced = skip
        policy.zero_grad()
        actor_rows.clear()
        cross_entropy, values = _clone_losses(policy, observations, masks, target)
        (cross_entropy + values.square().mean()).backward()
        results.append(
            (cross_entropy.detach(), values.detach(), {n: w.grad.clone() for n, w in policy.named_parameters()})
        )
    assert actor_rows == [len(actions) - forced]  # the last pass, with the switch
    assert torch.allclose(results[0][0], results[1][0], atol=1e-6)
    assert torch.allclose(results[0][1], results[1][1], atol=1e-6)
    for name, grad in results[0][2].items():
        assert torch.allclose(grad, results[1][2][name], rtol=1e-4, atol=1e-7), name

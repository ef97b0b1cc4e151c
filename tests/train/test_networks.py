"""Network kinds (agents/networks/): shapes, weights shared across circles, masking, ONNX, loading."""

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from support.networks import assert_never_masked, untrained_policy

from tabletop.agents import OnnxAgent, make_agent
from tabletop.agents.policy_agent import actor_logits
from tabletop.envs import EnvSpec
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.observe import circle_channels
from tabletop.envs.cromlet.rules import NUM_ACTIONS, TRADE_ONE
from tabletop.train.selfplay.config import ConfigError, NetworkConfig, parse_config
from tabletop.train.selfplay.policy import NetworkPolicy
from tabletop.train.selfplay.trainer import train
from tabletop.train.serving import export

REPO = Path(__file__).resolve().parents[2]
torch.set_num_threads(1)  # one small forward at a time: on a busy machine more threads only wait for each other
CIRCLES = NetworkConfig(kind="circles", hidden=[16], width=8, blocks=1, activation="relu")


def circle_policy(spec: EnvSpec, seed: int = 0) -> NetworkPolicy:
    """An untrained `circles` policy with its heads redrawn."""
    return untrained_policy(CIRCLES, spec, seed)


@pytest.mark.parametrize("players", [2, 4])
def test_circles_policy_gives_one_logit_per_action_and_one_value(players):
    spec = EnvSpec("cromlet_v0", {"num_players": players})
    policy = circle_policy(spec)
    observations, _ = export.sample_positions(spec, 5)
    layout = spec.make_raw().observer.layout
    assert layout.block(observations[0], "circles").shape == (B.NUM_CIRCLES, len(circle_channels(players)))
    obs = torch.as_tensor(observations)
    assert actor_logits(policy, obs).shape == (5, NUM_ACTIONS)
    assert policy.predict_values(obs).shape == (5, 1)


def test_a_circles_logits_come_from_that_circle_with_weights_shared_by_all():
    """Swap the rows of two circles of one cromlet (same cromlet: its mean is unchanged) and their four
    logits swap with them, while no other logit moves."""
    spec = EnvSpec("cromlet_v0")
    policy = circle_policy(spec)
    layout = spec.make_raw().observer.layout
    observations, _ = export.sample_positions(spec, 3, seed=4)
    swapped = observations.copy()
    a, b = B.circles_of(23)[1], B.circles_of(23)[5]
    for row in swapped:
        circles = layout.block(row, "circles")
        circles[[a, b]] = circles[[b, a]]
    with torch.no_grad():
        before = actor_logits(policy, torch.as_tensor(observations)).numpy()
        after = actor_logits(policy, torch.as_tensor(swapped)).numpy()
    kinds = TRADE_ONE // B.NUM_CIRCLES
    permutation = np.arange(NUM_ACTIONS)
    for k in range(kinds):
        permutation[[k * B.NUM_CIRCLES + a, k * B.NUM_CIRCLES + b]] = [k * B.NUM_CIRCLES + b, k * B.NUM_CIRCLES + a]
    np.testing.assert_allclose(after, before[:, permutation], rtol=1e-5, atol=1e-5)
    assert not np.allclose(before[:, a], before[:, b])  # the test would be empty if they were equal


def test_circles_policy_never_chooses_a_masked_action():
    spec = EnvSpec("cromlet_v0")
    policy = circle_policy(spec, seed=3)
    assert_never_masked(policy, *export.sample_positions(spec, 300, seed=9))


def test_circles_policy_exports_to_onnx_and_agrees_with_torch(tmp_path):
    spec = EnvSpec("cromlet_v0")
    policy = circle_policy(spec, seed=5)
    meta = export.export_policy(policy, tmp_path, spec)  # refuses to finish if onnxruntime and torch disagree
    assert meta["verification"]["actions_agree"]
    observations, masks = export.sample_positions(spec, 200, seed=77)
    _, actions = OnnxAgent(tmp_path).logits_and_actions(observations, masks)
    with torch.no_grad():
        logits = actor_logits(policy, torch.as_tensor(observations)).numpy()
    np.testing.assert_array_equal(actions, np.argmax(np.where(masks > 0.5, logits, -np.inf), axis=1))


@pytest.mark.slow
def test_a_circles_run_trains_saves_and_plays_as_ppo_and_onnx(tmp_path, play_legal_game):
    data = yaml.safe_load((REPO / "configs/smoke/cromlet.yaml").read_text())
    data["network"] = {"kind": "circles", "width": 8, "blocks": 1, "hidden": [16]}
    config = parse_config(data)
    result = train(config, out=tmp_path / "run", progress=False)
    spec = EnvSpec("cromlet_v0")
    export.export_trained(result.run_dir, tmp_path / "export")
    for agent_spec in (f"ppo:{result.run_dir}", f"onnx:{tmp_path / 'export'}"):
        play_legal_game(make_agent(spec, agent_spec), spec, seed=3)


def test_circles_kind_is_refused_for_a_game_without_circles():
    data = yaml.safe_load((REPO / "configs/smoke/chromino.yaml").read_text())
    data["network"] = {"kind": "circles"}
    with pytest.raises(
        ConfigError,
        match="network.kind 'circles' does not read chromino_v1's observation; chromino_v1 offers: mlp, board",
    ):
        parse_config(data)
    data["network"] = {"kind": "transformer"}
    with pytest.raises(ConfigError, match="network: kind='transformer' is not allowed; allowed: 'mlp', 'circles'"):
        parse_config(data)


def test_a_pooled_critic_reads_the_actors_summary_and_never_moves_the_actor():
    spec = EnvSpec("cromlet_v0", {"num_players": 2})
    pooled = NetworkConfig(kind="circles", hidden=[16], width=8, blocks=1, activation="relu", critic="pooled")
    policy = untrained_policy(pooled, spec, 0)
    full = untrained_policy(CIRCLES, spec, 0)
    extractor = policy.mlp_extractor
    assert extractor.critic[0].in_features == 2 * 8 + len(extractor.global_index)  # not the 3,598 observation numbers
    assert full.mlp_extractor.critic[0].in_features == spec.make_raw().observer.layout.size
    observations, _ = export.sample_positions(spec, 4)
    obs = torch.as_tensor(observations)
    logits, latent = extractor(obs)
    assert torch.equal(logits, extractor.forward_actor(obs))
    assert torch.allclose(latent, extractor.forward_critic(obs))
    policy.value_net(latent).sum().backward()  # the value loss alone
    actor_grads = [p.grad for name, p in extractor.named_parameters() if not name.startswith("critic.")]
    assert all(g is None or not g.any() for g in actor_grads)
    assert any(p.grad is not None and p.grad.any() for p in extractor.critic.parameters())


def test_a_pooled_critic_is_refused_for_a_kind_without_a_summary():
    with pytest.raises(ConfigError, match="critic 'pooled' does not fit network.kind 'mlp'"):
        parse_config({"env_id": "cromlet_v0", "total_steps": 10, "network": {"critic": "pooled"}})
    with pytest.raises(ConfigError, match="critic=.half. is not allowed; allowed: .full., .pooled."):
        parse_config({"env_id": "cromlet_v0", "total_steps": 10, "network": {"critic": "half"}})

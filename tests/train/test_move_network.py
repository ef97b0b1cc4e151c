"""The `moves` network kind (agents/networks/moves.py): one scorer shared by every offered move, masking,
ONNX, config checks, and a tiny warm-started run that plays as ppo: and onnx:."""

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from support.networks import assert_never_masked, untrained_policy

from tabletop.agents import OnnxAgent, make_agent
from tabletop.agents.policy_agent import actor_logits
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import ConfigError, NetworkConfig, parse_config
from tabletop.train.selfplay.policy import NetworkPolicy
from tabletop.train.selfplay.trainer import train
from tabletop.train.serving import export

REPO = Path(__file__).resolve().parents[2]
torch.set_num_threads(1)
MOVES = EnvSpec("kings_cribbage_v0", {"action_mode": "moves", "max_moves": 40})
NETWORK = NetworkConfig(kind="moves", hidden=[16], width=8, blocks=1, activation="relu")


def move_policy(spec: EnvSpec = MOVES, seed: int = 0) -> NetworkPolicy:
    """An untrained `moves` policy with its heads redrawn."""
    return untrained_policy(NETWORK, spec, seed)


def positions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded random positions of the seat to move."""
    return export.sample_positions(MOVES, count, seed=seed)


def test_one_logit_per_action_and_one_value():
    policy = move_policy()
    observations, _ = positions(6, seed=1)
    obs = torch.as_tensor(observations)
    assert actor_logits(policy, obs).shape == (6, MOVES.new_game().num_actions)
    assert policy.predict_values(obs).shape == (6, 1)


def test_a_moves_logit_comes_from_its_row_with_weights_shared_by_every_slot():
    """Swap the rows of two offered moves and their logits swap with them, while no other logit moves (the
    pooled best of the moves is the same set either way)."""
    policy = move_policy(seed=2)
    layout = MOVES.make_raw().observer.layout
    observations, masks = positions(40, seed=3)
    busy = masks[:, :40].sum(1) >= 6
    observations = observations[busy][:8]
    swapped = observations.copy()
    a, b = 1, 5
    for row in swapped:
        moves = layout.block(row, "moves")
        moves[[a, b]] = moves[[b, a]]
    with torch.no_grad():
        before = actor_logits(policy, torch.as_tensor(observations)).numpy()
        after = actor_logits(policy, torch.as_tensor(swapped)).numpy()
    permutation = np.arange(before.shape[1])
    permutation[[a, b]] = [b, a]
    np.testing.assert_allclose(after, before[:, permutation], rtol=1e-5, atol=1e-5)
    assert not np.allclose(before[:, a], before[:, b])  # the test would be empty if they were equal


def test_a_move_is_judged_by_the_board_around_the_cells_it_fills():
    """Two offered moves with equal feature rows except where they go get different logits: the board read by
    the convolutions at their cells tells them apart."""
    policy = move_policy(seed=4)
    layout = MOVES.make_raw().observer.layout
    observations, masks = positions(40, seed=5)
    row = observations[np.flatnonzero(masks[:, :40].sum(1) >= 2)[-1]].copy()
    moves = layout.block(row, "moves")
    moves[1] = moves[0]
    moves[1, 28:30] = 1 - moves[0, 28:30]  # the first tile's row and column, mirrored on the board
    with torch.no_grad():
        logits = actor_logits(policy, torch.as_tensor(row[None])).numpy()[0]
    assert logits[0] != pytest.approx(logits[1], abs=1e-6)


def test_never_chooses_a_masked_action_with_moves_or_exchanges():
    """Real positions, and the same positions turned into "no move": the moves zeroed, some exchanges allowed."""
    policy = move_policy(seed=6)
    layout = MOVES.make_raw().observer.layout
    observations, masks = positions(120, seed=7)
    rng = np.random.default_rng(0)
    swaps, swap_masks = observations.copy(), np.zeros_like(masks)
    for observation, mask in zip(swaps, swap_masks):
        layout.block(observation, "moves")[:] = 0
        mask[40 + rng.choice(32, size=rng.integers(1, 33), replace=False)] = 1
    assert_never_masked(policy, np.concatenate([observations, swaps]), np.concatenate([masks, swap_masks]))


def test_exports_to_onnx_and_agrees_with_torch(tmp_path):
    policy = move_policy(seed=9)
    meta = export.export_policy(policy, tmp_path, MOVES)  # refuses to finish if onnxruntime and torch disagree
    assert meta["verification"]["actions_agree"]
    observations, masks = positions(120, seed=10)
    _, actions = OnnxAgent(tmp_path).logits_and_actions(observations, masks)
    with torch.no_grad():
        logits = actor_logits(policy, torch.as_tensor(observations)).numpy()
    np.testing.assert_array_equal(actions, np.argmax(np.where(masks > 0.5, logits, -np.inf), axis=1))


def smoke_config(**changes) -> dict:
    data = yaml.safe_load((REPO / "configs/smoke/kings_cribbage.yaml").read_text())
    data["env_kwargs"] = {"action_mode": "moves", "max_moves": 40}
    data["network"] = {"kind": "moves", "width": 8, "blocks": 1, "hidden": [16]}
    data["vec_env"] = {"kind": "batched", "num_envs": 2}
    data.update(changes)
    return data


def test_the_moves_kind_is_refused_outside_moves_mode_and_for_other_games():
    data = smoke_config(env_kwargs={})
    with pytest.raises(
        ConfigError, match="network.kind 'moves' reads the segment 'moves': add action_mode: moves to env_kwargs"
    ):
        parse_config(data)
    data = yaml.safe_load((REPO / "configs/smoke/chromino.yaml").read_text())
    data["network"] = {"kind": "moves"}
    with pytest.raises(
        ConfigError,
        match="network.kind 'moves' does not read chromino_v1's observation; chromino_v1 offers: mlp, board",
    ):
        parse_config(data)


@pytest.mark.slow
def test_a_warm_started_moves_run_trains_saves_and_plays_as_ppo_and_onnx(tmp_path, play_legal_game):
    warm = {"teacher": "leave", "games": 2, "opponents": ["greedy"], "epochs": 1, "eval_games": 0}
    config = parse_config(smoke_config(warm_start=warm))
    result = train(config, out=tmp_path / "run", progress=False)
    report = yaml.safe_load((result.run_dir / "warm_start.json").read_text())
    assert report["decisions"] > 0 and 0 <= report["fit"]["in_tie_accuracy"] <= 1
    export.export_trained(result.run_dir, tmp_path / "export")
    for agent_spec in (f"ppo:{result.run_dir}", f"onnx:{tmp_path / 'export'}"):
        play_legal_game(make_agent(MOVES, agent_spec), MOVES, seed=3)


def test_the_shipped_kings_cribbage_policy_is_the_pretrained_spec_of_both_action_modes(play_legal_game):
    """`pretrained` for kings_cribbage_v0 resolves with action_mode='moves' (what the policy reads) and, through
    its tiles-mode adapter, in the default tiles mode; another board gets an error naming what is shipped."""
    spec = EnvSpec("kings_cribbage_v0", {"num_players": 2, "action_mode": "moves"})
    play_legal_game(make_agent(spec, "pretrained"), spec, seed=5, seats=None)
    tiles = EnvSpec("kings_cribbage_v0")
    play_legal_game(make_agent(tiles, "pretrained"), tiles, seed=5, seats=None)
    with pytest.raises(ValueError, match=r"no pretrained policy for kings_cribbage_v0.*action_mode='moves'"):
        make_agent(EnvSpec("kings_cribbage_v0", {"board_size": 5}), "pretrained")

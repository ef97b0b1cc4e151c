"""The `board` network kind (agents/networks/board.py) and the Chromino Observer segments it reads:
shapes, weights shared across the board, the window crop, ONNX agreement, a Kings Cribbage smoke run."""

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from support.networks import assert_never_masked, untrained_policy

from tabletop.agents import make_agent
from tabletop.agents.policy_agent import actor_logits
from tabletop.envs import EnvSpec
from tabletop.envs.chromino import tiles as T
from tabletop.train.selfplay.config import ConfigError, NetworkConfig, parse_config
from tabletop.train.selfplay.policy import NetworkPolicy, network_policy
from tabletop.train.selfplay.trainer import train
from tabletop.train.serving import export

REPO = Path(__file__).resolve().parents[2]
torch.set_num_threads(1)
BOARD = NetworkConfig(kind="board", hidden=[16], width=8, blocks=1, activation="relu")
CHROMINO = EnvSpec("chromino_v1", {"num_players": 2, "features": ["lookahead"]})  # the board network reads them
PLANES = ("board", "cell_moves", "cell_contacts", "cell_after", "cell_blocks", "cell_shuts")


def board_policy(spec: EnvSpec, seed: int = 0) -> NetworkPolicy:
    """An untrained `board` policy with its heads redrawn."""
    return untrained_policy(BOARD, spec, seed)


def chromino_positions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the seat to move, from random games, only positions with a choice."""
    observations, masks = export.sample_positions(CHROMINO, count * 3, seed=seed)
    choice = masks.sum(axis=1) > 1
    return observations[choice][:count], masks[choice][:count]


@pytest.mark.parametrize("spec", [CHROMINO, EnvSpec("kings_cribbage_v0", {"num_players": 2})], ids=str)
def test_board_policy_gives_one_logit_per_action_and_one_value(spec):
    policy = board_policy(spec)
    observations, _ = export.sample_positions(spec, 5)
    obs = torch.as_tensor(observations)
    assert actor_logits(policy, obs).shape == (5, spec.make_raw().game.num_actions)
    assert policy.predict_values(obs).shape == (5, 1)


def test_chromino_cell_logits_move_with_the_position():
    """Shift every plane of a Chromino position one cell down and two right: the window follows the
    occupied area, so each "lay on cell" logit reappears on the shifted cell and no other logit moves."""
    policy = board_policy(CHROMINO, seed=1)
    layout, game = CHROMINO.make_raw().observer.layout, CHROMINO.make_raw().game
    observations, _ = chromino_positions(6, seed=2)
    shifted = observations.copy()
    for row in shifted:
        for name in PLANES:
            plane = layout.block(row, name)
            plane[...] = np.roll(plane, (1, 2), axis=(-2, -1))
    with torch.no_grad():
        before = actor_logits(policy, torch.as_tensor(observations)).numpy()
        after = actor_logits(policy, torch.as_tensor(shifted)).numpy()
    g, base = game.grid_size, game.actions.start("place")
    cells_before = before[:, base : base + g * g].reshape(-1, g, g)
    cells_after = after[:, base : base + g * g].reshape(-1, g, g)
    occupied = layout.block(observations[0], "board").sum(axis=0) > 0
    rows, cols = np.nonzero(occupied)
    inner = (slice(rows.min() - 2, rows.max() + 3), slice(cols.min() - 2, cols.max() + 3))
    np.testing.assert_allclose(
        np.roll(cells_before, (1, 2), axis=(1, 2))[0][inner], cells_after[0][inner], rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(after[:, :base], before[:, :base], rtol=1e-4, atol=1e-4)
    assert np.ptp(cells_before[0][inner]) > 0.1  # the test would be empty if every cell had one logit


def test_chromino_choose_logits_share_one_scorer_across_tiles():
    """Two choose actions with equal feature rows get equal logits: one network scores every row."""
    policy = board_policy(CHROMINO, seed=2)
    layout = CHROMINO.make_raw().observer.layout
    observations, _ = chromino_positions(3, seed=5)
    for row in observations:
        choices = layout.block(row, "choices")
        choices[7] = choices[200]
    with torch.no_grad():
        logits = actor_logits(policy, torch.as_tensor(observations)).numpy()
    np.testing.assert_allclose(logits[:, 7], logits[:, 200], rtol=1e-5, atol=1e-5)


def test_an_update_computes_the_logits_and_gradients_that_acting_does():
    """PPO's update runs the convolutions channels-last (training mode, gradients on); acting runs them as
    stored. The same logits and weight gradients up to float rounding."""
    policy = board_policy(CHROMINO, seed=3)
    obs = torch.as_tensor(chromino_positions(8, seed=4)[0])
    upstream = torch.randn(8, CHROMINO.make_raw().game.num_actions, generator=torch.Generator().manual_seed(5))
    results = []
    for training in (False, True):
        policy.set_training_mode(training)
        policy.zero_grad()
        logits = actor_logits(policy, obs)
        (logits * upstream).sum().backward()
        results.append(
            (logits.detach(), [w.grad.clone() for w in policy.mlp_extractor.parameters() if w.grad is not None])
        )
    (acting, acting_grads), (update, update_grads) = results
    torch.testing.assert_close(update, acting)
    assert len(update_grads) == len(acting_grads) > 0
    for a, b in zip(update_grads, acting_grads):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_board_policy_never_chooses_a_masked_action():
    policy = board_policy(CHROMINO, seed=3)
    assert_never_masked(policy, *export.sample_positions(CHROMINO, 150, seed=9))


def test_board_policy_with_a_window_exports_to_onnx_and_agrees_with_torch(tmp_path):
    policy = board_policy(CHROMINO, seed=5)
    assert policy.mlp_extractor.window < CHROMINO.make_raw().game.grid_size  # the crop is what this exports
    meta = export.export_policy(policy, tmp_path, CHROMINO)  # refuses to finish if onnxruntime and torch disagree
    assert meta["verification"]["actions_agree"]


def test_chromino_observation_shows_the_movers_placements_to_the_mover_only():
    env = CHROMINO.make_raw()
    layout, g = env.observer.layout, env.game.grid_size
    env.reset(seed=11)
    state = env.game_state
    for _ in range(9):  # a few turns in, several tiles on the table
        state.apply(int(np.flatnonzero(state.legal_action_mask())[0]))
    mover = state.current_player
    moves = state.legal_moves()
    mine, theirs = env.observer.encode(state, mover), env.observer.encode(state, 1 - mover)
    counts = np.bincount(moves[:, 2] * g + moves[:, 3], minlength=g * g).reshape(g, g)
    np.testing.assert_allclose(layout.block(mine, "cell_moves"), np.log1p(counts) / np.log1p(320), rtol=1e-6)
    choices = layout.block(mine, "choices")
    places = np.bincount(moves[:, 0] * 4 + moves[:, 1], minlength=320)
    np.testing.assert_allclose(choices[:, 0], np.log1p(places) / np.log1p(g * g), rtol=1e-6)
    hand = state.hands[mover]
    np.testing.assert_array_equal(choices.reshape(T.NUM_TILES, 4, -1)[hand, 0, 7], T.PALINDROME[hand])
    for name in PLANES[1:]:
        assert not layout.block(theirs, name).any()
    assert not layout.block(theirs, "choices")[:, :7].any()


@pytest.mark.slow
def test_a_kings_cribbage_board_run_trains_and_exports(tmp_path):
    data = yaml.safe_load((REPO / "configs/smoke/kings_cribbage.yaml").read_text())
    data["network"] = {"kind": "board", "width": 8, "blocks": 1, "hidden": [16]}
    data["total_steps"], data["evaluation"] = 128, {"every": 128, "games": 1, "final_games": 1}
    result = train(parse_config(data), out=tmp_path / "run", progress=False)
    meta = export.export_trained(result.run_dir, tmp_path / "export")
    assert meta["verification"]["actions_agree"]
    agent = make_agent(EnvSpec("kings_cribbage_v0"), f"onnx:{tmp_path / 'export'}")
    env = EnvSpec("kings_cribbage_v0").make_raw()
    env.reset(seed=3)
    mask = env.game_state.legal_action_mask()
    assert mask[agent.act(env.observer.encode(env.game_state, env.game_state.current_player), mask, None)]


def test_board_kind_is_refused_where_cells_are_not_actions():
    data = yaml.safe_load((REPO / "configs/smoke/cromlet.yaml").read_text())
    data["network"] = {"kind": "board"}
    with pytest.raises(
        ConfigError,
        match="network.kind 'board' does not read cromlet_v0's observation; cromlet_v0 offers: mlp, circles",
    ):
        parse_config(data)
    with pytest.raises(ValueError, match="action_mode='moves' offers whole moves: use network.kind 'moves'"):
        network_policy(BOARD, EnvSpec("kings_cribbage_v0", {"action_mode": "moves"}))

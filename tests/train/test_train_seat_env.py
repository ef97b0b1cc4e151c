"""The single-agent view: the learner only sees its own turns, gets its seat's reward, and the masks
reach the policy (an action the network prefers above all else is never chosen while illegal)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from tabletop.train.selfplay.config import ConfigError, load_config
from tabletop.train.selfplay.opponents import OpponentPool
from tabletop.train.selfplay.policy import actor_weights, policy_kwargs
from tabletop.train.selfplay.seat_env import SeatEnv

SMOKE = sorted(Path(__file__).resolve().parents[2].joinpath("configs", "smoke").glob("*.yaml"))


def smoke_config(path):
    try:
        return load_config(path)
    except ConfigError as err:  # a game still being written: skip, don't fail
        pytest.skip(str(err))


def seat_env(config, seed=0, weights=None):
    probe = config.env.make_raw()
    agent = probe.possible_agents[0]
    pool = None
    if config.learner_seats == "one":
        kwargs = policy_kwargs(config.network.hidden, config.network.activation)
        pool = OpponentPool(
            config.env,
            weights or config.opponents.weights,
            3,
            kwargs,
            probe.observation_space(agent)["observation"],
            probe.action_space(agent),
            seed=seed,
        )
    return SeatEnv(config.env, pool, config.learner_seats, seed=seed)


@pytest.fixture(params=SMOKE, ids=lambda p: p.stem)
def config(request):
    return smoke_config(request.param)


def play(env, episodes, seed):
    """First-legal-action episodes: (learner seats, rewards summed per episode, final returns, observations)."""
    seats, totals, finals, observations = [], [], [], []
    obs, total = env.reset(seed=seed)[0], 0.0
    while len(totals) < episodes:
        state = env.aec.game_state
        if env.learner_seats == "one":
            assert state.current_player == env.game.seat, "the learner was asked to act out of turn"
        observations.append(obs)
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        total += reward
        if terminated:
            seats.append(info["learner_seat"])
            totals.append(total)
            finals.append(env.aec.game_state.returns()[info["learner_seat"]])
            obs, total = env.reset()[0], 0.0
    return seats, totals, finals, observations


def test_rewards_seats_and_determinism(config):
    env = seat_env(config, weights={"random": 1.0})
    seats, totals, finals, obs = play(env, 4, seed=3)
    np.testing.assert_allclose(totals, finals)  # the seat's win/loss reward, however many moves others made
    if config.learner_seats == "one":
        n = len(env.agents)
        assert seats == [i % n for i in range(4)]  # rotates every episode
    again = play(seat_env(config, weights={"random": 1.0}), 4, seed=3)[3]
    assert len(again) == len(obs) and all(np.array_equal(a, b) for a, b in zip(obs, again))
    other = play(seat_env(config, weights={"random": 1.0}), 4, seed=4)[3]
    assert len(other) != len(obs) or not all(np.array_equal(a, b) for a, b in zip(obs, other))


def test_snapshot_opponents_play_from_the_pool(config):
    if config.learner_seats == "all":
        pytest.skip("cooperative: no opponents")
    env = seat_env(config, weights={"self": 1.0})
    model_policy = MaskablePPO(
        "MlpPolicy",
        DummyVecEnv([lambda: env]),
        n_steps=8,
        batch_size=8,
        policy_kwargs=policy_kwargs(config.network.hidden, config.network.activation),
        device="cpu",
    ).policy
    env.add_snapshot("s0", actor_weights(model_policy))
    _, _, finals, _ = play(env, 2, seed=1)
    assert len(finals) == 2
    assert {name for name, _ in env.game.opponents.values()} == {"self:s0"}


def test_masks_reach_the_policy(config, check_masks_reach_ppo):
    """Bias the network hard towards one action: PPO must pick it exactly when it is legal, never otherwise."""
    env = seat_env(config, weights={"random": 1.0})
    env.reset(seed=0)
    favourite = int(np.flatnonzero(env.action_masks() == 0)[0])  # illegal at the first decision
    model = MaskablePPO(
        "MlpPolicy",
        DummyVecEnv([lambda: env]),
        n_steps=96,
        batch_size=96,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs(config.network.hidden, config.network.activation),
    )
    with torch.no_grad():
        model.policy.action_net.bias[favourite] = 1e4
    unmasked, _ = model.predict(env.reset(seed=0)[0], deterministic=True)
    assert int(unmasked) == favourite  # without the mask the policy would play the illegal action
    check_masks_reach_ppo(model, favourite)


def test_margin_shaping_is_potential_based(config):
    """With gamma = 1 the shaping telescopes: an episode pays the win/loss reward minus w * phi(start)."""
    plain = play(seat_env(config, weights={"random": 1.0}), 3, seed=5)
    env = seat_env(config, weights={"random": 1.0})
    env.game.margin_shaping, env.game.gamma = 0.01, 1.0
    starts, totals, finals = [], [], []
    obs, _ = env.reset(seed=5)
    starts.append(env.game.potential)
    total, moves, shaped_moves = 0.0, 0, 0
    while len(totals) < 3:
        obs, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        total += reward
        moves += 1
        shaped_moves += reward != 0 and not terminated
        if terminated:
            totals.append(total)
            finals.append(env.aec.game_state.returns()[info["learner_seat"]])
            obs, _ = env.reset()
            starts.append(env.game.potential)
            total = 0.0
    np.testing.assert_allclose(totals, np.array(finals) - 0.01 * np.array(starts[:3]), atol=1e-9)
    np.testing.assert_allclose(finals, plain[2])  # same games: shaping changes rewards, not play
    assert shaped_moves > 0  # and it is a dense signal: rewards arrive before the end

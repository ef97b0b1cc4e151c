"""The public vector interface (train/benchmark/vector.py): gymnasium VectorEnv conventions, masks exact against
the env, same-step autoreset, determinism, opponents (snapshots included) that move legally only."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode
from support.benchmark import task
from torch import nn

from tabletop.envs import EnvSpec
from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW
from tabletop.train.benchmark.vector import TaskVectorEnv

CROMLET = EnvSpec("cromlet_v0")


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


def rollout(env: TaskVectorEnv, steps: int, seed: int = 0, reset_seed: int | None = None):
    """Every array the env returns over `steps` random legal steps."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=reset_seed)
    trace = [obs, env.action_masks()]
    for _ in range(steps):
        obs, rewards, terminations, _, _ = env.step(random_actions(env.action_masks(), rng))
        trace += [obs, rewards, terminations, env.action_masks()]
    return trace


class Prefers(nn.Module):
    """A snapshot that wants one action above all (usually an illegal one)."""

    def __init__(self, action: int, num_actions: int):
        super().__init__()
        self.logits = nn.Parameter(torch.full((num_actions,), -5.0).index_fill(0, torch.tensor([action]), 50.0))

    def forward(self, obs):
        return self.logits.expand(len(obs), -1)


def test_spaces_dtypes_and_the_autoreset_mode_follow_gymnasium():
    env = TaskVectorEnv(task(CROMLET), 3, seed=5)
    aec = CROMLET.make_raw()
    size, actions = aec.observer.layout.size, aec.game.num_actions
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_observation_space.shape == (size,) and env.single_action_space.n == actions
    assert env.observation_space.shape == (3, size) and env.action_space.shape == (3,)
    obs, infos = env.reset()
    masks = env.action_masks()
    assert obs.shape == (3, size) and obs.dtype == np.float32
    assert masks.shape == (3, actions) and masks.dtype == bool and masks.any(axis=1).all()
    obs, rewards, terminations, truncations, infos = env.step(random_actions(masks, np.random.default_rng(0)))
    assert rewards.shape == (3,) and rewards.dtype == np.float32
    assert terminations.dtype == bool and truncations.dtype == bool and not truncations.any()
    assert infos["seat"].shape == (3,)


def test_observations_and_masks_are_the_envs_own_for_the_learners_seat():
    env = TaskVectorEnv(task(CROMLET, {"heuristics": 1.0}), 4, seed=1)
    obs, _ = env.reset()
    rng = np.random.default_rng(3)
    for _ in range(40):
        masks = env.action_masks()
        for i, game in enumerate(env._batched.games):
            seen = game.aec.observe(game.agents[game.seat])
            assert game.state.current_player == game.seat  # the learner is to move in every game
            np.testing.assert_array_equal(obs[i], seen["observation"])
            np.testing.assert_array_equal(masks[i], seen["action_mask"].astype(bool))
        obs, *_ = env.step(random_actions(masks, rng))


def test_a_finished_game_is_dealt_again_in_the_same_step():
    env = TaskVectorEnv(task(CROMLET), 2, seed=2)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(400):
        obs, rewards, terminations, _, infos = env.step(random_actions(env.action_masks(), rng))
        if terminations.any():
            break
    assert terminations.any(), "no game ended in 400 learner moves"
    i = int(np.flatnonzero(terminations)[0])
    assert infos["_outcome"][i] and infos["outcome"][i] == rewards[i] and abs(rewards[i]) == 1  # win/loss reward
    assert infos["_final_obs"][i] and not infos["final_obs"][i].any()
    game = env._batched.games[i]
    assert not game.state.is_terminal() and game.state.current_player == game.seat == infos["seat"][i]
    np.testing.assert_array_equal(obs[i], game.aec.observe(game.agents[game.seat])["observation"])


def test_the_same_seed_gives_the_same_games_bit_for_bit():
    first = rollout(TaskVectorEnv(task(CROMLET, {"random": 1.0, "heuristics": 1.0}), 3, seed=7), 60)
    again = rollout(TaskVectorEnv(task(CROMLET, {"random": 1.0, "heuristics": 1.0}), 3, seed=7), 60)
    other = rollout(TaskVectorEnv(task(CROMLET, {"random": 1.0, "heuristics": 1.0}), 3, seed=8), 60)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_reset_with_a_seed_replays_the_same_games():
    env = TaskVectorEnv(task(CROMLET), 2, seed=0)
    env.add_snapshot("first", Prefers(0, env.single_action_space.n))
    first = rollout(env, 40, reset_seed=11)
    again = rollout(env, 40, reset_seed=11)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))


def test_training_deals_are_seeded_below_the_evaluation_seeds():
    env = TaskVectorEnv(task(CROMLET), 2, seed=0)
    seeds = []
    for game in env._batched.games:
        reset = game.aec.reset
        game.aec.reset = lambda seed=None, options=None, reset=reset: (seeds.append(seed), reset(seed=seed))[1]
    rollout(env, 200, reset_seed=None)
    assert len(seeds) > 2 and all(0 <= s < TRAINING_SEEDS_BELOW for s in seeds)


def test_snapshot_opponents_sampled_or_greedy_play_legal_moves_only():
    env = TaskVectorEnv(task(CROMLET, {"self": 1.0}), 4, seed=3)
    n = env.single_action_space.n
    with pytest.raises(RuntimeError, match="add a snapshot"):
        env.reset()
    env.add_snapshot("wants-0", Prefers(0, n))  # action 0 is illegal most of the time: the mask must win
    env.add_snapshot("wants-last", Prefers(n - 1, n), greedy=True)
    assert env.snapshots == ["wants-0", "wants-last"]
    rollout(env, 150)  # the raw env raises on any illegal move, the learner's or an opponent's
    for game in env._batched.games:
        names = {name for name, _ in game.opponents.values()}
        assert names <= {"self:wants-0", "self:wants-last"}


def test_an_illegal_or_malformed_learner_action_is_refused_with_the_game_named():
    env = TaskVectorEnv(task(CROMLET), 2, seed=0)
    env.reset()
    masks = env.action_masks()
    actions = random_actions(masks, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(ValueError, match="game 1: action .* is illegal"):
        env.step(actions)
    with pytest.raises(ValueError, match="2 integers"):
        env.step(np.zeros(3, dtype=np.int64))


def test_a_cooperative_task_plays_every_seat_with_its_mask():
    spec = EnvSpec("krz_grtn_v1")
    env = TaskVectorEnv(task(spec, {}, learner_seats="all"), 2, seed=4)
    obs, infos = env.reset()
    rng = np.random.default_rng(1)
    seats = set()
    for _ in range(60):
        masks = env.action_masks()
        for i, game in enumerate(env._batched.games):
            mover = game.state.current_player
            assert infos["seat"][i] == mover
            np.testing.assert_array_equal(masks[i], game.aec.observe(game.agents[mover])["action_mask"].astype(bool))
            seats.add(mover)
        obs, _, _, _, infos = env.step(random_actions(masks, rng))
    assert len(seats) > 1


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="num_envs=0"):
        TaskVectorEnv(task(CROMLET), 0)
    with pytest.raises(ValueError, match="needs opponents with a positive weight"):
        TaskVectorEnv(task(CROMLET, {"random": 0.0}), 2)
    with pytest.raises(ValueError, match="training seeds lie in"):
        TaskVectorEnv(task(CROMLET), 2, seed=TRAINING_SEEDS_BELOW)

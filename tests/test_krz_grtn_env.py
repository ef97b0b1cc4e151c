"""KRZ GRTN through the PettingZoo API: contract tests, determinism, rewards, bad input, rendering."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop import envs
from tabletop.envs.core import IllegalActionError
from tabletop.envs.krz_grtn import KrzGrtn
from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn_v0 import env, raw_env
from test_krz_grtn_support import load, random_states, scenario


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_pettingzoo_api_and_seed_tests(n):
    api_test(env(num_players=n), num_cycles=200)
    seed_test(lambda: env(num_players=n), num_cycles=200)


def test_registry_builds_the_env():
    e = envs.make("krz_grtn_v0", num_players=3)
    e.reset(seed=0)
    assert e.unwrapped.possible_agents == ["player_0", "player_1", "player_2"]


def test_same_seed_same_game_bit_for_bit_and_other_seeds_differ(aec_trace):
    assert aec_trace("krz_grtn_v0", 11, num_players=4) == aec_trace("krz_grtn_v0", 11, num_players=4)
    assert aec_trace("krz_grtn_v0", 11, num_players=4) != aec_trace("krz_grtn_v0", 12, num_players=4)


def test_json_round_trip_continues_the_same_game():
    for state, action in random_states(4, games=6, seed=9):
        if action is None or state.current_player < 0:
            continue
        data = state.to_json()
        copy = state.game.state_from_json(data)
        assert copy.to_json() == data
        a, b = state.clone(), copy
        for _ in range(30):  # the saved generator reproduces the draws, cuts and shuffles that follow
            if a.is_terminal():
                break
            step = int(np.flatnonzero(a.legal_action_mask())[0])
            a.apply(step)
            b.apply(step)
        assert a.to_json() == b.to_json()


@pytest.mark.parametrize(
    "kwargs, allowed",
    [
        ({"num_players": 7}, "2, 3, 4, 5, 6"),
        ({"num_players": 1}, "2, 3, 4, 5, 6"),
        ({"blanks_per_player": 3}, "0, 1, 2"),
        ({"lives": 6}, "0, 1, 2, 3, 4, 5"),
        ({"levels": (1, 1, 2, 3, 4, 5)}, "ascending"),
        ({"tile_limit": 4}, "start_letters"),
        ({"level_candidates": (3, 4, 5, 6, 7, 20)}, "2..12"),
        ({"reward": "points"}, "'win_loss', 'score'"),
        ({"observation_mode": "god"}, "'private', 'omniscient'"),
    ],
)
def test_bad_arguments_say_what_is_allowed(kwargs, allowed):
    with pytest.raises(ValueError, match=allowed.replace("(", r"\(").replace(".", r"\.")):
        raw_env(**kwargs)


def test_illegal_actions_raise_through_the_adapter_or_penalise():
    e = raw_env(num_players=3)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match="player_1"):
        e.step(act.guess(0))  # a giver cannot point at pictures
    with pytest.raises(IllegalActionError):
        e.step(10_000)
    p = raw_env(num_players=3, illegal_action="penalize")
    p.reset(seed=0)
    p.step(act.FINISH_CLUE)
    assert p.rewards["player_1"] == -1 and all(p.terminations.values())


def _scripted_pass(reward: str):
    game_env = raw_env(num_players=3, reward=reward)
    game_env.reset(seed=0)
    game = game_env.game
    data = scenario(game, ["BCDFG", "ST", "RST"], phase="guess", clues=["", "GR_N", "W_K"],
                    candidates=["pedestrian light", "cat", "dog"], target_position=0, clues_done=2, level_index=5)
    game_env.load_json(data)
    game_env.step(act.guess(0))
    return game_env


def test_rewards_are_shared_by_the_team():
    won = _scripted_pass("win_loss")
    assert won.rewards == {"player_0": 1.0, "player_1": 1.0, "player_2": 1.0}
    scored = _scripted_pass("score")
    assert scored.rewards == {"player_0": 1.0, "player_1": 1.0, "player_2": 1.0}  # +1 per level passed


def test_score_reward_over_a_game_sums_to_the_levels_passed():
    e = raw_env(num_players=4, reward="score")
    for seed in range(20):
        e.reset(seed=seed)
        total = dict.fromkeys(e.agents, 0.0)
        rng = np.random.default_rng(seed)
        while not e.game_state.is_terminal():
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
            for agent in e.agents:
                total[agent] += e.rewards[agent]
        assert set(total.values()) == {float(e.game_state.level_index)}
        if e.game_state.level_index:
            return
    raise AssertionError("no random game passed a level")


def test_observation_says_the_role_so_one_policy_can_play_every_seat():
    e = raw_env(num_players=3)
    e.reset(seed=0)
    layout = e.game.observation_layout
    role = layout.slice("role")
    assert e.observe("player_0")["observation"][role].tolist() == [1.0, 0.0]  # X
    assert e.observe("player_1")["observation"][role].tolist() == [0.0, 1.0]
    assert e.observe("player_0")["observation"][layout.slice("target")].sum() == 0
    assert e.observe("player_1")["observation"][layout.slice("target")].sum() > 0


def test_omniscient_mode_and_state_include_hidden_facts():
    e = raw_env(num_players=3, observation_mode="omniscient")
    e.reset(seed=0)
    game = e.game
    assert e.observe("player_0")["observation"].shape == (game.omniscient_layout.size,)
    assert e.state()[game.omniscient_layout.slice("true_target")].sum() > 0


def test_action_to_string_names_tiles_and_pictures():
    game = KrzGrtn(num_players=3)
    state = load(game, scenario(game, ["BCDFG", "ST", "RST"], phase="guess", clues=["", "GR_N", "W_K"],
                                candidates=["pedestrian light", "cat", "dog"], target_position=0, clues_done=2))
    assert state.action_to_string(act.guess(2)) == "point at picture 3 (dog)"
    assert act.describe(act.add_tile(5)) == "add H to the clue"
    assert act.describe(act.return_letter(0)) == "return B to the middle"
    assert act.describe(act.VOTE_YES) == 'raise your hand: "Life!"'


def test_render_ansi_and_rgb():
    e = raw_env(num_players=4, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "KRZ GRTN" in text and "X is player_0" in text and "target" in text
    e = raw_env(num_players=4, render_mode="rgb_array")
    e.reset(seed=1)
    picture = e.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 4

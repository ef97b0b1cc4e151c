"""KRZ GRTN through the environment: shared team rewards, what the observations hold, saved generators, text."""

from __future__ import annotations

import numpy as np
from support.krz_grtn import load, random_states, scenario

from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.rules import KrzGrtnGame
from tabletop.envs.krz_grtn_v1 import raw_env


def test_json_keeps_the_generator_so_a_loaded_game_continues_identically():
    for state, action in random_states(4, games=6, seed=9):
        if action is None or state.current_player < 0:
            continue
        copy = state.game.state_from_json(state.to_json())
        a, b = state.clone(), copy
        for _ in range(30):  # the saved generator reproduces the draws, cuts and shuffles that follow
            if a.is_terminal():
                break
            step = int(np.flatnonzero(a.legal_action_mask())[0])
            a.apply(step)
            b.apply(step)
        assert a.to_json() == b.to_json()


def _scripted_pass(reward: str):
    game_env = raw_env(num_players=3, reward=reward)
    game_env.reset(seed=0)
    game = game_env.game
    data = scenario(
        game,
        ["BCDFG", "ST", "RST"],
        phase="guess",
        clues=["", "GR_N", "W_K"],
        candidates=["pedestrian light", "cat", "dog", "cow", "pig", "sheep", "goat", "horse"],
        target_position=0,
        clues_done=2,
        level_index=5,
    )  # A = 8 on level 6
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
    layout = e.observer.layout
    role = layout.slice("role")
    assert e.observe("player_0")["observation"][role].tolist() == [1.0, 0.0]  # X
    assert e.observe("player_1")["observation"][role].tolist() == [0.0, 1.0]
    assert e.observe("player_0")["observation"][layout.slice("target")].sum() == 0
    assert e.observe("player_1")["observation"][layout.slice("target")].sum() > 0


def test_omniscient_mode_and_state_include_hidden_facts():
    e = raw_env(num_players=3, observation_mode="omniscient")
    e.reset(seed=0)
    layout = e.omniscient_observer.layout
    assert e.observer.layout == layout
    assert e.observe("player_0")["observation"].shape == (layout.size,)
    assert e.observe("player_0")["observation"][layout.slice("true_target")].sum() > 0  # X, too, sees it
    assert e.state()[layout.slice("true_target")].sum() > 0


def test_action_to_string_names_tiles_and_pictures():
    game = KrzGrtnGame(num_players=3)
    state = load(
        game,
        scenario(
            game,
            ["BCDFG", "ST", "RST"],
            phase="guess",
            clues=["", "GR_N", "W_K"],
            candidates=["pedestrian light", "cat", "dog"],
            target_position=0,
            clues_done=2,
        ),
    )
    assert state.action_to_string(act.guess(2)) == "point at picture 3 (dog)"
    assert act.describe(act.add_tile(5)) == "add H to the clue"
    assert act.describe(act.return_letter(0)) == "return B to the middle"
    assert act.describe(act.VOTE_YES) == 'raise your hand: "Life!"'


def test_render_ansi_shows_the_level_the_guesser_and_the_target():
    e = raw_env(num_players=4, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "KRZ GRTN" in text and "X is player_0" in text and "target" in text

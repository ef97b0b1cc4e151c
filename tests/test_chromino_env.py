"""Chromino through the PettingZoo API: api/seed tests, determinism, hidden information, errors,
rendering, agents."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop import envs
from tabletop.agents import make_agent
from tabletop.envs.chromino import ChrominoGame
from tabletop.envs.chromino_v0 import env, raw_env
from tabletop.envs.core import IllegalActionError
from tabletop.train.tournament import run_tournament

CONFIGS = [{"variant": v, "num_players": n} for v in ("standard", "junior", "expert") for n in range(2, 9)]
CONFIGS.append({"variant": "solo", "num_players": 1})


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['variant']}-{c['num_players']}")
def test_pettingzoo_api_and_seed(config):
    api_test(env(**config), num_cycles=60)
    seed_test(lambda: env(**config), num_cycles=60)


def test_registry_and_default_configuration():
    e = envs.make("chromino_v0")
    e.reset(seed=1)
    assert e.unwrapped.game.num_actions == 320 + 45 * 45 + 2
    assert e.unwrapped.game.grid_size == 45


def _play(seed: int, **config):
    e = raw_env(**config)
    e.reset(seed=seed)
    agent = make_agent("chromino_v0", "random", seed=seed)
    trace = []
    for name in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        action = None if term or trunc else agent.act(obs["observation"], obs["action_mask"], e.view(name))
        trace.append((name, action, reward, float(obs["observation"].sum())))
        e.step(action)
    return trace, e.game_state.to_json()


def test_same_seed_same_game_bit_for_bit():
    assert _play(7, num_players=3) == _play(7, num_players=3)
    assert _play(7, num_players=3) != _play(8, num_players=3)


def test_json_round_trip_mid_game_continues_identically():
    game = ChrominoGame(num_players=3, variant="expert")
    rng = np.random.default_rng(4)
    state = game.new_initial_state(rng)
    for _ in range(25):
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    data = json.loads(json.dumps(state.to_json()))
    copy = game.state_from_json(data)
    assert copy.to_json() == state.to_json()
    np.testing.assert_array_equal(game.encode(copy, 1, True), game.encode(state, 1, True))
    twin, other = state.clone(), copy
    while not twin.is_terminal():
        np.testing.assert_array_equal(twin.legal_action_mask(), other.legal_action_mask())
        a = int(rng.choice(np.flatnonzero(twin.legal_action_mask())))
        twin.apply(a)
        other.apply(a)
    assert twin.to_json() == other.to_json()
    assert state.to_json() == data  # the clone left the original alone


def test_json_rejects_a_state_that_loses_tiles():
    game = ChrominoGame()
    data = game.new_initial_state(np.random.default_rng(0)).to_json()
    data["bag"].pop()
    with pytest.raises(ValueError, match="80 tiles"):
        game.state_from_json(data)


def _hide_differently(state, seat, rng):
    """The same public situation with other hands and the bag dealt differently."""
    data = state.to_json()
    mover_busy = state.phase != 0
    others = [s for s, h in enumerate(data["hands"]) if s != seat and len(h) > 1 and not (mover_busy and s == state.current)]
    pool = data["bag"] + [t for s in others for t in data["hands"][s]]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for s in others:
        k = len(data["hands"][s])
        data["hands"][s], pool = pool[:k], pool[k:]
    data["bag"] = pool
    return state.game.state_from_json(data)


def _comparable(view):
    return {k: (np.asarray(v).tolist() if isinstance(v, np.ndarray) else v) for k, v in view.items()}


def test_private_observation_and_view_ignore_hidden_facts():
    game = ChrominoGame(num_players=3)
    rng = np.random.default_rng(9)
    compared = changed = 0
    for _ in range(15):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            for seat in range(3):
                other = _hide_differently(state, seat, rng)
                np.testing.assert_array_equal(game.encode(state, seat), game.encode(other, seat))
                assert _comparable(state.view(seat)) == _comparable(other.view(seat))
                changed += not np.array_equal(game.encode(state, seat, True), game.encode(other, seat, True))
                compared += 1
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert compared > 1000 and changed > compared // 2  # the omniscient encoding does see the difference


def test_illegal_actions_raise_or_penalise():
    e = env()
    e.reset(seed=0)
    mask = e.last()[0]["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="player_"):
        e.step(bad)
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(10**6)
    p = raw_env(illegal_action="penalize")
    p.reset(seed=0)
    agent = p.agent_selection
    p.step(bad)
    assert p.rewards[agent] == -1.0 and all(p.terminations.values())


@pytest.mark.parametrize("kwargs", [{"reward": "points"}, {"observation_mode": "spy"}, {"num_players": 9}, {"variant": "speed"}])
def test_bad_env_arguments_list_what_is_allowed(kwargs):
    with pytest.raises(ValueError, match="allowed"):
        env(**kwargs)


def test_score_reward_pays_expert_points():
    e = raw_env(variant="expert", reward="score")
    e.reset(seed=3)
    total = dict.fromkeys(e.possible_agents, 0.0)
    agent = make_agent("chromino_v0", "most_points", seed=0)
    for name in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[name] += reward
        e.step(None if term or trunc else agent.act(None, obs["action_mask"], e.view(name)))
    assert [total[a] for a in e.possible_agents] == e.game_state.scores().tolist()


def test_render_ansi_and_rgb():
    e = raw_env(render_mode="ansi")
    e.reset(seed=2)
    assert "\x1b[4" in e.render() and "bag" in e.render()
    e = raw_env(render_mode="rgb_array")
    e.reset(seed=2)
    picture = e.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert (picture == (215, 48, 39)).all(axis=2).any() or (picture == (245, 200, 40)).all(axis=2).any()


@pytest.mark.parametrize("name", ["most_contacts", "shed_hardest", "most_points", "keep_options"])
def test_heuristics_play_legal_games(name):
    result = run_tournament("chromino_v0", [name, "random"], 20, seed=5)
    assert result.records[name].seats_played == 20


def test_action_strings_are_plain_words():
    e = raw_env()
    e.reset(seed=1)
    mask = e.last()[0]["action_mask"]
    action = int(np.flatnonzero(mask)[0])
    assert e.action_to_string(action).startswith("take ")
    e.step(action)
    action = int(np.flatnonzero(e.last()[0]["action_mask"])[0])
    assert e.action_to_string(action).startswith("place ") and "centred on row" in e.action_to_string(action)


class _ViewOnly(dict):
    """A view that fails the test if a heuristic asks for anything a seat may not know."""

    def __getitem__(self, key):
        assert key not in ("hands", "bag"), f"a heuristic read {key!r}"
        return super().__getitem__(key)


def test_keep_options_picks_legal_actions_from_the_seat_view_alone():
    """Every action is legal; the agent gets the seat's view, never the full state, and the same view
    with other hands and bag dealt differently gets the same action (it cannot depend on them)."""
    agent = make_agent("chromino_v0", "keep_options", seed=0)
    for config in ({"num_players": 2}, {"num_players": 3, "variant": "junior"}, {"num_players": 2, "variant": "expert"}):
        game = ChrominoGame(**config)
        rng = np.random.default_rng(12)
        for _ in range(2):
            state = game.new_initial_state(rng)
            while not state.is_terminal():
                seat, mask = state.current_player, state.legal_action_mask()
                view = state.view(seat)
                assert "hands" not in view and "bag" not in view
                twin = _hide_differently(state, seat, rng)
                probe = copy.deepcopy(agent)  # same memory and random generator
                action = agent.act(None, mask, _ViewOnly(view))
                assert mask[action], state.action_to_string(action)
                assert probe.act(None, twin.legal_action_mask(), _ViewOnly(twin.view(seat))) == action
                state.apply(action)


def test_keep_options_beats_random():
    """Seeded, so deterministic: over 60 two-player games the lookahead wins clearly more often."""
    result = run_tournament("chromino_v0", ["keep_options", "random"], 60, seed=0)
    mine, theirs = result.records["keep_options"], result.records["random"]
    assert mine.wins > theirs.wins + 10, result.table()

"""Kings Cribbage as an environment: PettingZoo's contract, determinism, hidden information, fuzz invariants,
rendering and the heuristics."""

from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop import envs
from tabletop.agents import make_agent
from tabletop.envs.core import IllegalActionError
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame, is_valid_hand
from tabletop.envs.kings_cribbage.tiles import FACE_KIND, NUM_KINDS, TILES_PER_KIND
from tabletop.train.tournament import run_tournament

CONFIGS = [{"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"variant": "solitaire"}]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_pettingzoo_api(config):
    api_test(envs.make("kings_cribbage_v0", **config), num_cycles=120)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_pettingzoo_seed(config):
    seed_test(lambda: envs.make("kings_cribbage_v0", **config), num_cycles=120)


def test_omniscient_mode_passes_the_api_test_too():
    api_test(envs.make("kings_cribbage_v0", num_players=3, observation_mode="omniscient"), num_cycles=60)


# --- determinism and JSON ------------------------------------------------------------------------------
def _random_game(config: dict, seed: int, hook=None):
    rng = np.random.default_rng(seed + 1000)
    game = KingsCribbageGame(**config)
    state = game.new_initial_state(np.random.default_rng(seed))
    steps = []
    while not state.is_terminal():
        if hook is not None:
            hook(state)
        action = int(rng.choice(np.flatnonzero(state.legal_action_mask())))
        steps.append(action)
        state.apply(action)
    return state, steps


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_same_seed_same_game_bit_for_bit(config):
    a, steps_a = _random_game(config, 11)
    b, steps_b = _random_game(config, 11)
    assert steps_a == steps_b and a.to_json() == b.to_json()
    c, steps_c = _random_game(config, 12)
    assert steps_c != steps_a


def test_json_round_trip_mid_move_continues_identically():
    game = KingsCribbageGame(num_players=3)
    rng = np.random.default_rng(5)
    state = game.new_initial_state(np.random.default_rng(4))
    saved = 0
    while not state.is_terminal():
        if state.pending or state.marked or rng.random() < 0.1:
            copy = game.state_from_json(state.to_json())
            assert copy.to_json() == state.to_json()
            np.testing.assert_array_equal(copy.legal_action_mask(), state.legal_action_mask())
            endings = []
            for replica in (state.clone(), copy):  # the same future from a clone and from the saved state
                future = np.random.default_rng(saved)
                while not replica.is_terminal():
                    replica.apply(int(future.choice(np.flatnonzero(replica.legal_action_mask()))))
                endings.append(replica.to_json())
            assert endings[0] == endings[1]
            saved += 1
            if saved >= 8:
                break
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert saved >= 8


def test_clone_is_independent():
    game = KingsCribbageGame()
    state = game.new_initial_state(np.random.default_rng(2))
    before = state.to_json()
    twin = state.clone()
    twin.apply(int(np.flatnonzero(twin.legal_action_mask())[0]))
    assert state.to_json() == before and twin.to_json() != before


# --- hidden information ----------------------------------------------------------------------------------
def _perturbed(state, observer: int, rng) -> "object | None":
    """The same public position with every fact hidden from `observer` redrawn: others' free rack tiles
    swapped with the bag, the bag reshuffled. None if the redraw breaks the move being built."""
    data = state.to_json()
    game = state.game
    cells = game.cells
    locked = Counter(int(FACE_KIND[a // cells]) for a in state.pending) + Counter(state.marked)
    for seat in range(game.num_players):
        if seat == observer:
            continue
        bag = data["bags"][game.bag_of[seat]]
        rack = list(data["racks"][seat])
        keep = Counter(locked) if seat == state.current else Counter()
        free = []
        for k in rack:
            if keep[k]:
                keep[k] -= 1
            else:
                free.append(k)
        fixed = list((Counter(rack) - Counter(free)).elements())
        pool = free + bag
        order = rng.permutation(len(pool))
        pool = [pool[i] for i in order]
        data["racks"][seat] = sorted(fixed + pool[: len(free)])
        data["bags"][game.bag_of[seat]] = pool[len(free) :]
    for b in range(len(data["bags"])):
        data["bags"][b] = [data["bags"][b][i] for i in rng.permutation(len(data["bags"][b]))]
    try:
        return game.state_from_json(data)
    except IllegalActionError:
        return None


@pytest.mark.parametrize("config", [{"num_players": 3}, {"variant": "solitaire"}], ids=str)
def test_private_observation_ignores_hidden_facts(config):
    rng = np.random.default_rng(8)
    checked = 0
    for seed in range(2):
        state = KingsCribbageGame(**config).new_initial_state(np.random.default_rng(seed))
        game = state.game
        while not state.is_terminal():
            for observer in range(game.num_players):
                other = _perturbed(state, observer, rng)
                if other is None or other.is_terminal():
                    continue
                np.testing.assert_array_equal(game.encode(state, observer), game.encode(other, observer))
                a, b = state.view(observer), other.view(observer)
                assert a.keys() == b.keys()
                for key in a:
                    np.testing.assert_array_equal(a[key], b[key], err_msg=key)
                checked += 1
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert checked > 200


def test_omniscient_observation_does_show_the_racks():
    game = KingsCribbageGame()
    state = game.new_initial_state(np.random.default_rng(0))
    full = game.encode(state, 0, omniscient=True)
    racks = game.omniscient_layout.block(full, "all_racks")
    assert racks[1].sum() * 4 == len(state.racks[1])
    assert full.shape == (game.omniscient_layout.size,) and full.dtype == np.float32


# --- fuzz invariants ---------------------------------------------------------------------------------------
def _lines(values):
    """Maximal runs of 2+ tiles in every row and column."""
    for grid in (values, values.T):
        for row in grid:
            run = []
            for v in list(row) + [0]:
                if v:
                    run.append(int(v))
                else:
                    if len(run) >= 2:
                        yield run
                    run = []


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS + [{"board_size": 9}], ids=str)
def test_fuzz_invariants(config):
    for seed in range(6):
        rng = np.random.default_rng(seed)
        game = KingsCribbageGame(**config)
        state = game.new_initial_state(np.random.default_rng(seed))
        earned = [0] * game.num_players
        while not state.is_terminal():
            mask = state.legal_action_mask()
            action = int(rng.choice(np.flatnonzero(mask)))
            if action == game.commit_action:
                earned[state.current] += state.pending_points()
            state.apply(action)
            tiles = Counter()
            for r, c in zip(*np.nonzero(state.values)):
                tiles[int(state.colours[r, c]) * 13 + int(state.printed[r, c]) - 1] += 1
            for holder in state.racks + state.bags:
                tiles.update(holder)
            assert all(tiles[k] == TILES_PER_KIND for k in range(NUM_KINDS)) and sum(tiles.values()) == 104
            assert all(len(line) <= 5 and is_valid_hand(line) for line in _lines(state.values))
            assert all(len(rack) <= 5 for rack in state.racks)
        assert state.score == [e - d for e, d in zip(earned, state.deductions)]
        assert state.legal_action_mask().sum() == 0 and state.current_player == -1


# --- rendering ---------------------------------------------------------------------------------------------
def test_render_ansi_and_rgb():
    env = envs.make("kings_cribbage_v0", render_mode="ansi")
    env.reset(seed=1)
    for _ in range(12):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = env.render()
    assert " A  B  C" in text and "player_1" in text and "bag" in text
    rgb_env = envs.make("kings_cribbage_v0", render_mode="rgb_array")
    rgb_env.reset(seed=1)
    empty = rgb_env.render()
    obs, *_ = rgb_env.last()
    rgb_env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # one pending tile
    picture = rgb_env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape == empty.shape
    assert (picture != empty).any()


# --- heuristics --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["greedy", "leave"])
def test_heuristics_play_legal_games_and_beat_random(name):
    agent = make_agent("kings_cribbage_v0", name, seed=0)
    assert agent.name == name and agent.needs_observation is False
    result = run_tournament("kings_cribbage_v0", [name, "random"], 6, seed=3)
    assert result.records[name].wins >= 5


def test_heuristics_also_play_three_players_and_solitaire():
    run_tournament("kings_cribbage_v0", ["greedy", "leave", "random"], 3, seed=1, env_kwargs={"num_players": 3})
    run_tournament("kings_cribbage_v0", ["leave", "greedy"], 2, seed=1, env_kwargs={"variant": "solitaire"})

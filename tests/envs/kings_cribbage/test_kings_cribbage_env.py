"""Kings Cribbage beyond the rules scenarios: saved states that continue identically, hidden information,
fuzz invariants, the pending tiles in the pictures, and the heuristics. (PettingZoo's api/seed tests,
seeded traces, JSON round trips, clones, render smoke tests and argument checks are the contract test's.)"""

from collections import Counter

import numpy as np
import pytest
from support.kings_cribbage import perturbed

from tabletop.agents import make_agent
from tabletop.envs import EnvSpec
from tabletop.envs.kings_cribbage.observe import KingsCribbageObserver
from tabletop.envs.kings_cribbage.render import KingsCribbageRenderer
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.scoring import is_valid_hand
from tabletop.envs.kings_cribbage.tiles import NUM_KINDS, TILES_PER_KIND
from tabletop.train.evaluation.tournament import run_tournament

CONFIGS = [{"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"variant": "solitaire"}]


# --- saved states ----------------------------------------------------------------------------------------
def test_saved_state_mid_move_continues_identically():
    """The move being built and the exchange choices are replayed from JSON, and the bag-shuffle generator
    travels with the state, so a saved game goes on exactly as the original would."""
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


# --- hidden information ----------------------------------------------------------------------------------


@pytest.mark.parametrize("config", [{"num_players": 3}, {"variant": "solitaire"}], ids=str)
def test_private_observation_ignores_hidden_facts(config):
    rng = np.random.default_rng(8)
    checked = 0
    for seed in range(2):
        state = KingsCribbageGame(**config).new_initial_state(np.random.default_rng(seed))
        game = state.game
        private = KingsCribbageObserver(game, omniscient=False)
        while not state.is_terminal():
            for observer in range(game.num_players):
                other = perturbed(state, observer, rng)
                if other is None or other.is_terminal():
                    continue
                np.testing.assert_array_equal(private.encode(state, observer), private.encode(other, observer))
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
    omniscient = KingsCribbageObserver(game, omniscient=True)
    full = omniscient.encode(state, 0)
    racks = omniscient.layout.block(full, "all_racks")
    assert racks[1].sum() * 4 == len(state.racks[1])
    assert full.shape == (omniscient.layout.size,) and full.dtype == np.float32


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
def test_renders_show_the_move_being_built():
    game = KingsCribbageGame()
    renderer = KingsCribbageRenderer(game)
    state = game.new_initial_state(np.random.default_rng(1))
    empty_text, empty_picture = renderer.ansi(state), renderer.rgb(state)
    assert " A  B  C" in empty_text and "player_1" in empty_text and "bag" in empty_text
    state.apply(int(np.flatnonzero(state.legal_action_mask())[0]))  # one pending tile
    text, picture = renderer.ansi(state), renderer.rgb(state)
    assert sum(text.count(mark) for mark in "<{") == 1 and not any(mark in empty_text for mark in "<{")
    assert picture.shape == empty_picture.shape and (picture != empty_picture).any()


# --- heuristics --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["greedy", "leave", "reply"])
def test_heuristics_play_legal_games_and_beat_random(name):
    agent = make_agent(EnvSpec("kings_cribbage_v0"), name, seed=0)
    assert agent.name == name and agent.needs_observation is False
    result = run_tournament(EnvSpec("kings_cribbage_v0"), [name, "random"], 6, seed=3)
    assert result.records[name].wins >= 5


def test_heuristics_also_play_three_players_and_solitaire():
    run_tournament(EnvSpec("kings_cribbage_v0", {"num_players": 3}), ["greedy", "leave", "random"], 3, seed=1)
    run_tournament(EnvSpec("kings_cribbage_v0", {"variant": "solitaire"}), ["leave", "reply"], 2, seed=1)

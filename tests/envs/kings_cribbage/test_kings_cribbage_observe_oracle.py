"""Kings Cribbage's encoder against a plain numpy one (tests/oracles/kings_cribbage_observe.py): the same
float32 vector, bit for bit, for every seat of positions from random games of both action modes and every
player count, private and omniscient, into a fresh vector and into a reused dirty one.

The board planes, the part a kernel writes (`kernels.board_planes`), are also compared alone with the
plain numpy gathers on random boards no game reaches (of every size and fill). CI checks a few
hundred positions and boards; `KC_OBS_DIFF_POSITIONS=N python -m pytest -q -n 0
tests/envs/kings_cribbage/test_kings_cribbage_observe_oracle.py` runs a large check (docs/testing.md records
its last runs).
"""

from __future__ import annotations

import os

import numpy as np
from oracles.kings_cribbage_observe import OracleObserver
from support.encoders import assert_same_encoding

from tabletop.envs.kings_cribbage import kernels
from tabletop.envs.kings_cribbage.observe import KingsCribbageObserver
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame

POSITIONS = int(os.environ.get("KC_OBS_DIFF_POSITIONS", "200"))
CONFIGS = (
    {},
    {"action_mode": "moves"},
    {"num_players": 3, "board_size": 9},
    {"num_players": 4, "action_mode": "moves", "board_size": 9},
    {"variant": "solitaire", "board_size": 7},
    {"board_size": 5},
)


def _positions(count: int):
    """(state, where) along seeded random games, the configurations taking turns game by game."""
    seen = 0
    for seed in range(10**6):
        config = CONFIGS[seed % len(CONFIGS)]
        game = KingsCribbageGame(**config)
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng)
        while True:
            yield state, f"{config} seed {seed}"
            seen += 1
            if seen >= count:
                return
            if state.is_terminal():
                break
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


def test_the_encoder_matches_the_oracle_on_random_positions():
    observers = {}
    compared = 0
    for state, where in _positions(POSITIONS):
        game = state.game
        for omniscient in (False, True):
            key = (repr(game.config()), omniscient)
            if key not in observers:
                observers[key] = (KingsCribbageObserver(game, omniscient), OracleObserver(game, omniscient))
            ours, oracle = observers[key]
            for seat in range(game.num_players):
                assert_same_encoding(ours, oracle, state, seat, f"{where}, omniscient={omniscient}")
                compared += 1
    assert compared >= POSITIONS * 2 * 2


def _numpy_board_planes(obs, values, colours, rank_at, colour_at) -> int:
    """The numpy gathers `kernels.board_planes` replaced (as tests/oracles/kings_cribbage_observe.py has them)."""
    flat = values.reshape(-1)
    occupied = flat.nonzero()[0]
    obs[rank_at.take(flat.take(occupied)) + occupied] = 1
    obs[colour_at.take(colours.reshape(-1).take(occupied)) + occupied] = 1
    return len(occupied)


def test_the_board_planes_match_the_numpy_gathers_on_random_boards():
    rng = np.random.default_rng(3)
    observers = {}
    for i in range(POSITIONS):
        size = int(rng.integers(5, 27))
        if size not in observers:
            observers[size] = KingsCribbageObserver(KingsCribbageGame(board_size=size), False)
        observer = observers[size]
        filled = rng.random((size, size)) < rng.random()
        values = np.where(filled, rng.integers(1, 14, (size, size)), 0).astype(np.int8)
        colours = np.where(filled, rng.integers(0, 2, (size, size)), 0).astype(np.int8)
        got, expected = observer.layout.zeros(), observer.layout.zeros()
        tiles = kernels.board_planes(got, values, colours, observer._rank_at, observer._colour_at)
        assert tiles == _numpy_board_planes(expected, values, colours, observer._rank_at, observer._colour_at)
        assert np.array_equal(got, expected), f"board {i} of size {size}"

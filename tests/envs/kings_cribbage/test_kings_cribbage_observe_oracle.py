"""Kings Cribbage's encoder against the one it replaced (tests/oracles/kings_cribbage_observe.py): the same
float32 vector, bit for bit, for every seat of positions from random games of both action modes and every
player count, private and omniscient, into a fresh vector and into a reused dirty one.

CI checks a few hundred positions; `KC_OBS_DIFF_POSITIONS=100000 python -m pytest -q -n 0
tests/envs/kings_cribbage/test_kings_cribbage_observe_oracle.py` runs the large differential check
(docs/testing.md records its last run).
"""

from __future__ import annotations

import os

import numpy as np
from oracles.kings_cribbage_observe import OracleObserver
from support.encoders import assert_same_encoding

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

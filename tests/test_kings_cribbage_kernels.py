"""Kings Cribbage's compiled kernels against the numpy code they replaced (tests/oracles/kings_cribbage_*.py):
the same moves, points and order for every rack on boards from random games of both action modes and every
player count.

A position is one (board, rack) pair: its moves are checked in the players' order and in the rules' own. CI
checks a few hundred; `KC_DIFF_POSITIONS=100000 python -m pytest -q -n 0 tests/test_kings_cribbage_kernels.py` runs the
large differential check (docs/kings_cribbage.md, Speed, records its last run).
"""

from __future__ import annotations

import os

import numpy as np

from oracles.kings_cribbage_movegen import oracle_moves
from tabletop.envs.kings_cribbage.movegen import generate_moves
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.tiles import RACK_SIZE

POSITIONS = int(os.environ.get("KC_DIFF_POSITIONS", "600"))
CONFIGS = (
    {},
    {"action_mode": "moves"},
    {"num_players": 3},
    {"num_players": 4, "action_mode": "moves", "board_size": 9},
    {"variant": "solitaire", "board_size": 7},
    {"board_size": 5},
    {"board_size": 26, "num_players": 3, "action_mode": "moves"},
    {"num_players": 4, "board_size": 11},
)


def _assert_same(actual, expected, where: str) -> None:
    for name in ("actions", "lengths", "points"):
        a, e = getattr(actual, name), getattr(expected, name)
        assert a.dtype == e.dtype and a.shape == e.shape and np.array_equal(a, e), f"{name} differ: {where}"


def _racks(state, rng):
    """Every seat's rack, and a random one of 1-5 tiles from what the mover cannot see (short racks, turned 6s
    and 9s and colours the game has not dealt yet)."""
    yield from state.racks
    unseen = [kind for bag in state.bags for kind in bag] + [k for s, r in enumerate(state.racks) if s for k in r]
    if unseen:
        size = int(rng.integers(1, min(RACK_SIZE, len(unseen)) + 1))
        yield sorted(int(k) for k in rng.choice(unseen, size=size, replace=False))


def _positions(count: int):
    """(state, rack, where) from seeded random games until `count` positions: each turn's start, every rack."""
    seen = 0
    for seed in range(10**9):
        config = CONFIGS[seed % len(CONFIGS)]
        game = KingsCribbageGame(**config)
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng)
        turn = 0
        while not state.is_terminal():
            if not state.pending and not state.marked:
                for rack in _racks(state, rng):
                    yield state, rack, f"{config} seed {seed} turn {turn} rack {rack}"
                    seen += 1
                    if seen >= count:
                        return
                turn += 1
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


def test_moves_match_the_numpy_generator_on_random_positions():
    checked = 0
    for state, rack, where in _positions(POSITIONS):
        for ordered in (True, False):
            moves = generate_moves(state.values, state.colours, rack, ordered)
            _assert_same(moves, oracle_moves(state.values, state.colours, rack, ordered), f"{where} ordered={ordered}")
        checked += 1
    assert checked == POSITIONS


"""Cromlet's compiled kernels against the numpy formulas they replaced (tests/oracles/cromlet_mask.py).

Positions come from random play over many configurations (every player count, teams, low claim limits and
small hands, so that limits, closings and an empty deck come up often), and from random board facts that no
game reaches. CI compares a few thousand; for the recorded run set CROMLET_DIFF_POSITIONS, e.g.
`CROMLET_DIFF_POSITIONS=100000 python -m pytest -q -n 0 tests/envs/cromlet/test_cromlet_kernels.py`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
from oracles.cromlet_mask import dead_cards, legal_mask

from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet import kernels
from tabletop.envs.cromlet.actions import NUM_ACTIONS
from tabletop.envs.cromlet.rules import CromletGame, CromletState

POSITIONS = int(os.environ.get("CROMLET_DIFF_POSITIONS", "4000"))
CONFIGS = (
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 6},
    {"num_players": 4, "teams": 2},
    {"num_players": 6, "teams": 3},
    {"num_players": 2, "claim_limit": 2},
    {"num_players": 3, "claim_limit": 1, "hand_size": 3},
    {"num_players": 2, "hand_size": 1},
    {"num_players": 6, "hand_size": 23},
)


def reachable_positions(count: int, seed: int) -> Iterator[CromletState]:
    """`count` positions (not over) of seeded random games, cycling through CONFIGS game by game."""
    rng = np.random.default_rng(seed)
    games = [CromletGame(**config) for config in CONFIGS]
    seen = 0
    while True:
        state = games[seen % len(games)].new_initial_state(rng)  # a new game per config turn
        while not state.is_terminal():
            yield state
            seen += 1
            if seen == count:
                return
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


def oracle_mask(state: CromletState) -> np.ndarray:
    p = state.current_player
    return legal_mask(
        state.hands[p],
        int(state.hand_sizes[p]),
        state.open_,
        state.is_lowest,
        state.open_count,
        state.can_claim(p),
        len(state.deck),
    )


def test_the_mask_and_dead_cards_of_reachable_positions_match_the_oracle():
    compared = 0
    for state in reachable_positions(POSITIONS, seed=2026):
        assert np.array_equal(state.legal_action_mask(), oracle_mask(state)), state.to_json()
        for seat in range(state.game.num_players):
            assert np.array_equal(state.dead_cards(seat), dead_cards(state.hands[seat], state.open_)), state.to_json()
        compared += 1
    assert compared == POSITIONS


def test_the_mask_kernel_matches_the_oracle_on_arbitrary_board_facts():
    """Facts no game reaches too (a lowest circle that is not open, counts that disagree with the circles):
    the kernel is the oracle's formula, not just right where the rules' invariants hold."""
    rng = np.random.default_rng(7)
    for _ in range(POSITIONS):
        hand = rng.integers(0, 2, B.NUM_CIRCLES + 1) * rng.integers(0, 2, B.NUM_CIRCLES + 1)
        hand[B.WILD] = rng.integers(0, 3)
        open_ = rng.random(B.NUM_CIRCLES) < rng.random()
        is_lowest = rng.random(B.NUM_CIRCLES) < 0.2
        open_count = rng.integers(0, 3, B.NUM_CROMLETS)
        can_claim, deck_size, hand_size = bool(rng.integers(2)), int(rng.integers(4)), int(hand.sum())
        expected = legal_mask(hand, hand_size, open_, is_lowest, open_count, can_claim, deck_size)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        legal = kernels.fill_mask(mask, hand, hand_size, open_, is_lowest, open_count, can_claim, deck_size)
        assert np.array_equal(mask, expected) and legal == np.count_nonzero(expected)
        assert np.array_equal(kernels.dead_cards(hand, open_), dead_cards(hand, open_))

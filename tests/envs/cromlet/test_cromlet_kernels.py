"""Cromlet's compiled kernels against plain numpy and Python oracles (tests/oracles/cromlet_*.py):
the mask and dead cards, a whole move (`kernels.play`), the deal, and the observer's catch-up (`kernels.catch_up`).

Positions come from random play over many configurations (every player count, teams, low claim limits and
small hands, so that limits, closings and an empty deck come up often), and from random board facts that no
game reaches. CI compares a few thousand; for the recorded run set CROMLET_DIFF_POSITIONS, e.g.
`CROMLET_DIFF_POSITIONS=100000 python -m pytest -q -n 0 tests/envs/cromlet/test_cromlet_kernels.py`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import oracles.cromlet_rules as python_rules
from oracles.cromlet_mask import dead_cards, legal_mask
from oracles.cromlet_observe import OracleObserver, changes

from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet import kernels
from tabletop.envs.cromlet.actions import NUM_ACTIONS, TRADE_ONE
from tabletop.envs.cromlet.observe import REBUILD_AFTER, CromletObserver
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
        state.deck_size,
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


def test_every_move_matches_the_python_rules():
    """From each position, a random legal move (a trade whenever one is legal, a third of the time) played by
    `kernels.play` and by the Python oracle: every fact, the logged changes and the next mask alike."""
    rng = np.random.default_rng(11)
    compared = trades = ends = 0
    for state in reachable_positions(POSITIONS, seed=2027):
        legal = np.flatnonzero(state.legal_action_mask())
        trading = legal[legal >= TRADE_ONE]
        action = int(rng.choice(trading if len(trading) and rng.random() < 1 / 3 else legal))
        ours = state.clone()  # a clone's log starts empty, as the oracle's does
        oracle = python_rules.PythonMove(ours)
        ours.apply(action)
        oracle.apply(action)
        assert oracle.matches(ours), (state.to_json(), action)
        compared += 1
        trades += action >= TRADE_ONE
        ends += ours.is_terminal()
    assert compared == POSITIONS and trades > POSITIONS // 20 and ends > 0


def test_the_deal_matches_the_python_rules():
    rng = np.random.default_rng(12)
    for config in CONFIGS:
        game = CromletGame(**config)
        for _ in range(20):
            deck, dealer = np.minimum(rng.permutation(B.NUM_CARDS), B.WILD).tolist(), int(rng.integers(4))
            state = CromletState.deal(game, deck, dealer % game.num_players)
            hands, sizes, rest, log = python_rules.deal(game, deck, dealer % game.num_players)
            assert np.array_equal(state.hands, hands) and np.array_equal(state.hand_sizes, sizes)
            assert state.deck == rest and changes(state) == log


def test_the_observer_catch_up_matches_the_python_one():
    """Every seat's observation, private and omniscient, kept up to date by the kernel and by the Python
    oracle's catch-up, looking after one move, after several, and after gaps long enough for a rebuild."""
    rng = np.random.default_rng(13)
    observers = {}
    compared = gap = 0
    for state in reachable_positions(POSITIONS, seed=2028):
        game = state.game
        if id(game) not in observers:
            pairs = [CromletObserver(game, False), CromletObserver(game, True)]
            observers[id(game)] = [(o, OracleObserver(o)) for o in pairs]
        if gap == 0 and rng.random() < 0.02:
            gap = 30  # 30 moves unseen: over REBUILD_AFTER changes, a rebuild
        if gap or rng.random() < 0.3:  # skipped looks: catch-ups over several moves
            gap = max(gap - 1, 0)
            continue
        seats = range(game.num_players) if rng.random() < 0.5 else [state.current_player]
        for ours, oracle in observers[id(game)]:
            for seat in seats:
                expected = oracle.encode(state, seat)
                assert np.array_equal(ours.encode(state, seat), expected), (state.to_json(), seat)
                dirty = np.full(ours.layout.size, 7.0, dtype=np.float32)
                assert np.array_equal(ours.encode(state, seat, dirty), expected)
        compared += 1
    assert compared > POSITIONS // 4 and 30 * 3 > REBUILD_AFTER  # a move logs at least three changes

"""The engine against independent oracles: brute-force hand scoring, exhaustive move search, exact masks.

The oracles are deliberately written without the engine's shortcuts (no hand keys or tables, no windows, no
count formulas): every combination of tiles is tried, every line of the finished board is read back cell by cell.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

import numpy as np
import pytest
from support.kings_cribbage import brute_hand, brute_moves

from tabletop.envs.kings_cribbage.render import KingsCribbageRenderer
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.scoring import HAND_POINTS, INVALID, hand_key, is_valid_hand, score_crib_hand


def test_score_crib_hand_against_brute_force_on_every_rank_multiset():
    checked = 0
    for size in range(2, 6):
        for ranks in combinations_with_replacement(range(1, 14), size):
            points, ok = brute_hand(ranks)
            assert score_crib_hand(ranks) == points, ranks
            assert is_valid_hand(ranks) == ok, ranks
            assert HAND_POINTS[hand_key(ranks)] == (points if ok else INVALID), ranks
            checked += 1
    assert checked == 91 + 455 + 1820 + 6188


def _engine_moves(state) -> dict:
    cells = state.game.cells
    moves = state.moves
    return {
        tuple((int(a) % cells, int(a) // cells) for a in acts[:n]): int(p)
        for acts, n, p in zip(moves.actions, moves.lengths, moves.points)
    }


def _expected_mask(state, brute: dict) -> np.ndarray:
    """The mask from the oracle's move set (or, without moves, from every possible exchange)."""
    g = state.game
    cells = g.cells
    mask = np.zeros(g.num_actions, dtype=np.int8)
    if brute:
        prefix = tuple((a % cells, a // cells) for a in state.pending)
        depth = len(prefix)
        for move in brute:
            if move[:depth] == prefix:
                if len(move) == depth:
                    mask[g.commit_action] = 1
                else:
                    cell, face = move[depth]
                    mask[face * cells + cell] = 1
        return mask
    rack = state.racks[state.current]
    limit = min(5, len(rack), len(state.bags[g.bag_of[state.current]]))
    mask[g.exchange_action] = 1
    marked = tuple(state.marked)
    for size in range(len(marked) + 1, limit + 1):
        for chosen in set(combinations(sorted(rack), size)):
            if chosen[: len(marked)] == marked:
                mask[g.mark_base + chosen[len(marked)]] = 1
    return mask


def _play_and_check(game, seed: int, max_turns: int = 10_000) -> int:
    """Random play; at every turn start the move sets must agree, at every sub-step the masks."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    checked, turns, brute = 0, 0, None
    while not state.is_terminal() and turns < max_turns:
        if not state.pending and not state.marked:
            brute = brute_moves(state.values, state.colours, state.racks[state.current], game.board_size)
            assert _engine_moves(state) == brute, (
                f"seed {seed} turn {turns}\n{KingsCribbageRenderer(game).ansi(state)}"  # the table, on failure only
            )
            turns += 1
        mask = state.legal_action_mask()
        np.testing.assert_array_equal(mask, _expected_mask(state, brute), err_msg=f"seed {seed} turn {turns}")
        checked += 1
        legal = np.flatnonzero(mask)
        # Lean towards committing early so that many short and long moves are both visited.
        commit = game.commit_action
        action = commit if mask[commit] and rng.random() < 0.5 else int(rng.choice(legal))
        state.apply(int(action))
    return checked


@pytest.mark.slow
@pytest.mark.parametrize(
    "config, seeds",
    [
        ({"board_size": 7}, range(0, 10)),
        ({"board_size": 7, "num_players": 3}, range(100, 104)),
        ({"board_size": 7, "num_players": 4}, range(200, 204)),
        ({"board_size": 7, "variant": "solitaire"}, range(300, 304)),
        ({"board_size": 5}, range(400, 416)),
    ],
)
def test_moves_and_masks_match_exhaustive_search(config, seeds):
    game = KingsCribbageGame(**config)
    checked = sum(_play_and_check(game, seed) for seed in seeds)
    assert checked >= 250  # about 2,500 states over the five configurations


@pytest.mark.slow
def test_moves_match_exhaustive_search_on_the_full_board():
    game = KingsCribbageGame()
    assert _play_and_check(game, 7, max_turns=12) > 12

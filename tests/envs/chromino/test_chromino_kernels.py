"""Chromino's compiled kernels against plain numpy and Python oracles (tests/oracles/chromino_engine.py).

Random positions of every variant, on the default grid and on small grids whose edges the layout reaches. At each
one: the engine's table (laid by the kernels) equals the oracle's, laid alongside; the stage's legal moves and mask
equal the oracle's, row for row, whichever is asked for first; searches of a random tile list in random order agree by either rule; a random
placement near the layout (overlapping, off the grid, or breaking the contact rules: laying checks none of those
rules) is laid alike or refused by both; and now and then the whole layout loaded in one pass, in a shuffled order,
equals the oracle's.

CI checks CHROMINO_DIFF_POSITIONS positions (default 700), shared out among the configurations; the large run sets it to
100000 (docs/chromino.md, "Speed", records it).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from oracles import chromino_engine as oracle

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.chromino.table import PAD, Placement, Table

POSITIONS = int(os.environ.get("CHROMINO_DIFF_POSITIONS", "700"))
CONFIGS = [
    {"variant": "standard", "num_players": 2},
    {"variant": "standard", "num_players": 5, "grid_size": 11, "hand_size": 6},
    {"variant": "junior", "num_players": 3},
    {"variant": "junior", "num_players": 2, "grid_size": 9},
    {"variant": "expert", "num_players": 2, "grid_size": 15},
    {"variant": "solo", "num_players": 1},
    {"variant": "solo", "num_players": 1, "grid_size": 7},
]
GRIDS = ("colour", "tile_at", "contacts", "accept", "ends")


def assert_same_table(table: Table, expected: oracle.Table) -> None:
    for name in GRIDS:
        got, want = getattr(table, name), getattr(expected, name)
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)
    assert table.bbox == expected.bbox


def assert_same_rows(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def check_position(state, table: oracle.Table, rng: np.random.Generator) -> None:
    """Everything the kernels compute at this position, against the oracle's `table` for it."""
    assert_same_table(state.table, table)
    mask = state.legal_action_mask()  # first: a choose stage's search marks the mask as it goes
    moves = oracle.legal_moves(state, table)
    assert_same_rows(state.legal_moves(), moves)
    assert_same_rows(mask, oracle.legal_action_mask(state, moves))
    again = state.clone()
    again._moves = again._mask = None  # the moves asked for first (as a view does), the mask marked from them
    assert_same_rows(again.legal_moves(), moves)
    assert_same_rows(again.legal_action_mask(), mask)
    tiles = rng.permutation(T.NUM_TILES)[: rng.integers(13)].tolist()
    for junior in (False, True):
        assert_same_rows(state.table.search(tiles, junior), table.search(tiles, junior))
    r0, r1, c0, c1 = np.array(table.bbox) - PAD
    p = Placement(
        int(rng.integers(T.NUM_TILES)),
        int(rng.integers(4)),
        int(rng.integers(r0 - 3, r1 + 4)),
        int(rng.integers(c0 - 3, c1 + 4)),
    )
    try:
        expected = table.place(p)
    except ValueError:
        with pytest.raises(ValueError):
            state.table.place(p)
    else:
        assert_same_table(state.table.place(p), expected)
    if state.is_terminal() or rng.random() < 0.05:
        order = [state.placements[i] for i in rng.permutation(len(state.placements))]
        assert_same_table(Table.laid(state.game.grid_size, order), oracle.Table.laid(state.game.grid_size, order))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_the_kernels_agree_with_the_oracle_on_random_positions(config):
    game = ChrominoGame(**config)
    rng = np.random.default_rng(CONFIGS.index(config))
    wanted, positions, games = -(-POSITIONS // len(CONFIGS)), 0, 0  # at least POSITIONS in all
    while positions < wanted:
        state, games = game.new_initial_state(rng), games + 1
        table = oracle.Table.laid(game.grid_size, state.placements)
        while positions < wanted:
            check_position(state, table, rng)
            positions += 1
            if state.is_terminal():
                break
            laid = len(state.placements)
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
            if len(state.placements) > laid:
                table = table.place(state.placements[-1])
    print(f"chromino kernels vs oracle, {config}: {positions} positions in {games} games")


def test_an_empty_table_offers_nothing_and_loads_as_the_oracle_does():
    assert_same_rows(Table(9).search(range(T.NUM_TILES)), oracle.Table(9).search(range(T.NUM_TILES)))
    assert_same_table(Table.laid(9, []), oracle.Table.laid(9, []))

"""Chromino masks against an exhaustive placement search (standard and junior rules), and a fuzz of whole
games for invariants."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame

try:
    from support.chromino import brute_fits, brute_junior_fits, brute_mask, cells_of
except ModuleNotFoundError:  # tests/ imported as a package
    from tests.test_chromino_helpers import brute_fits, brute_junior_fits, brute_mask, cells_of

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3, "variant": "junior"},
    {"num_players": 2, "variant": "junior", "grid_size": 11},  # small grid: branches reach the edge
    {"num_players": 2, "variant": "expert", "grid_size": 15},  # small grid: the edge matters
    {"num_players": 1, "variant": "solo"},
]


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_mask_equals_brute_force_search_on_random_states(config):
    game = ChrominoGame(**config)
    rng = np.random.default_rng(11)
    states = 0
    while states < 500:
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            mask = state.legal_action_mask()
            np.testing.assert_array_equal(mask, brute_mask(state), err_msg=str(state.to_json()))
            states += 1
            state.apply(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.slow
def test_mask_agrees_with_a_square_by_square_check_of_sampled_placements():
    game = ChrominoGame(num_players=2)
    rng = np.random.default_rng(5)
    a = game.actions
    checked = 0
    for _ in range(6):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            if state.phase == 2:  # laying a chosen tile: check every cell
                board = state.view(None)["board"]
                for row in range(game.grid_size):
                    for col in range(game.grid_size):
                        expected = brute_fits(board, state.chosen, state.orientation, row, col, 2)
                        assert state.legal_action_mask()[a.encode("place", row, col)] == expected
                        checked += 1
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert checked > 20_000


@pytest.mark.slow
def test_fuzz_games_keep_the_invariants():
    """Thousands of random games: 80 tiles conserved, no overlap, every placement legal when made.

    The test keeps its own colour board, updated placement by placement from the rules' colours, so
    each placement is checked against the table as it is without copying the engine's view; at the end
    that board and the placement list must equal the engine's (so they were the same all along)."""
    rng = np.random.default_rng(2024)
    games = [
        ChrominoGame(num_players=n, variant=v)
        for n, v in ((2, "standard"), (4, "standard"), (3, "junior"), (2, "expert"), (8, "standard"))
    ]
    games.append(ChrominoGame(num_players=1, variant="solo"))
    for g in range(2000):
        game = games[g % len(games)]
        state = game.new_initial_state(rng)
        board = np.full((game.grid_size, game.grid_size), T.EMPTY, dtype=np.int8)
        tiles = np.full((game.grid_size, game.grid_size), -1, dtype=np.int16)
        made = list(state.placements)  # the start tile, then every placement in the order made
        _lay(board, tiles, made[0])
        steps = 0
        while not state.is_terminal():
            legal = np.flatnonzero(state.legal_action_mask())
            action = int(legal[rng.integers(legal.size)])
            if state.phase == 2:  # a placement: legal by the rules on the table as it is now
                row, col = divmod(action - game.actions.start("place"), game.grid_size)
                if game.junior:
                    assert brute_junior_fits(board, tiles, state.chosen, state.orientation, row, col)
                else:
                    assert brute_fits(board, state.chosen, state.orientation, row, col, 2)
                assert not (len(state.hands[state.current]) == 1 and T.IS_CHAMELEON[state.chosen])
                made.append((state.chosen, state.orientation, row, col))
                _lay(board, tiles, made[-1])
            state.apply(action)
            steps += 1
            assert steps < 2000
        every = sorted([t for h in state.hands for t in h] + state.bag + [p.tile for p in state.placements])
        assert every == list(range(T.NUM_TILES))
        assert [tuple(p) for p in state.placements] == [tuple(p) for p in made]
        np.testing.assert_array_equal(state.view(None)["board"], board)
        assert (board != T.EMPTY).sum() == 3 * len(state.placements)  # no square covered twice
        assert any(state.finished) or state.idle_turns == game.num_players


def _lay(board: np.ndarray, tiles: np.ndarray, placement) -> None:
    """Colour the placement's three cells on the test's own boards; they must have been empty."""
    tile, orientation, row, col = placement
    colours = T.TILE_COLOURS[tile][::-1] if orientation % 2 else T.TILE_COLOURS[tile]
    for (r, c), colour in zip(cells_of(orientation, row, col), colours):
        assert board[r, c] == T.EMPTY, f"{placement} covers a square twice"
        board[r, c] = colour
        tiles[r, c] = tile

"""Every heuristic plays whole games legally on the smallest tables its game allows.

An opponent pool (the benchmark's vector env, self-play) keeps one agent object for game after game and seats it
in whichever seat the deal gives, so an agent that remembers the game it follows must notice a new one even when
it missed the first moves. Here one agent plays game after game in turn around the seats beside random players,
every move checked against the mask."""

from __future__ import annotations

import numpy as np
import pytest
from support.chromino import scenario

from tabletop.agents.base import RandomAgent, act_for
from tabletop.agents.chromino import HEURISTICS as CHROMINO_HEURISTICS
from tabletop.agents.chromino import BoardTracker
from tabletop.agents.registry import heuristics
from tabletop.envs import ENV_IDS, EnvSpec
from tabletop.envs.chromino.rules import ChrominoGame

CHROMINO_SMALL = {"num_players": 2, "box": [7, 30, 52, 66], "hand_size": 2, "grid_size": 5}  # SMALL["chromino_small"]

CHROMINO_TABLES = [  # the small variant and the smallest grid, in every variant and at the most players
    CHROMINO_SMALL,
    {"grid_size": 5},
    {"grid_size": 5, "hand_size": 1},
    {"grid_size": 5, "variant": "junior"},
    {"grid_size": 5, "variant": "expert", "num_players": 8},
    {"grid_size": 5, "variant": "solo", "num_players": 1},
    {"grid_size": 5, "box": [7, 30, 52, 66, 0, 1, 2, 3], "hand_size": 3},
]

SMALLEST = {  # every size-like argument at the low end of its declared range
    "cromlet_v0": [{"claim_limit": 1, "hand_size": 1}],
    "chromino_v1": [{"grid_size": 5, "hand_size": 1, "out_bonus": 0, "tile_penalty": 0}],
    "kings_cribbage_v0": [
        {"board_size": 5, "stall_rounds": 1},
        {"board_size": 5, "stall_rounds": 1, "action_mode": "moves", "max_moves": 1},
    ],
    "krz_grtn_v1": [{"start_letters": 2, "tile_limit": 2}, {"num_players": 2, "start_letters": 2, "tile_limit": 2}],
}


def play_games(env_id: str, kwargs: dict, name: str, games: int, seed: int) -> None:
    """`games` seeded games of one agent `name` (kept from game to game, in seat g mod players) beside random
    players; an illegal move or an exception fails with the game and move that caused it."""
    env = EnvSpec(env_id, kwargs).make_raw()
    agent, others = heuristics(env_id)[name](seed=seed), RandomAgent(seed=seed + 1)
    for g in range(games):
        state = env.game.new_initial_state(np.random.default_rng(seed * 1000 + g))
        seat, moves = g % env.game.num_players, 0
        while not state.is_terminal():
            mover = state.current_player
            action = act_for(agent if mover == seat else others, env, state, mover)
            assert state.legal_action_mask()[action], f"{name} game {g} move {moves}: illegal action {action}"
            state.apply(action)
            moves += 1


@pytest.mark.parametrize("kwargs", CHROMINO_TABLES, ids=lambda k: ",".join(f"{a}={v}" for a, v in k.items()))
@pytest.mark.parametrize("name", CHROMINO_HEURISTICS)
def test_every_chromino_heuristic_plays_legally_on_the_small_variant_and_the_smallest_grid(name, kwargs):
    games = 150 if kwargs is CHROMINO_SMALL else 20  # a few dozen small games meet a layout seen before
    for seed in range(2):
        play_games("chromino_v1", kwargs, name, games, seed)


@pytest.mark.parametrize(
    "env_id, kwargs, name",
    [(e, k, n) for e in ENV_IDS for k in [{}, *SMALLEST[e]] for n in heuristics(e)],
    ids=lambda v: v if isinstance(v, str) else ",".join(f"{a}={b}" for a, b in v.items()) or "default",
)
def test_every_heuristic_of_every_game_plays_legally_at_the_default_and_the_smallest_table(env_id, kwargs, name):
    play_games(env_id, kwargs, name, games=3, seed=0)


def test_the_board_tracker_starts_afresh_when_a_tracked_tile_lies_elsewhere():
    """A new game that already holds the tiles tracked last game, laid elsewhere, is a new table."""
    game = ChrominoGame(grid_size=5)
    start = ("R*Y", 0, 2, 2)  # the start chameleon on the middle cell
    seen = scenario(game, [start, ("YYG", 0, 1, 2)], [["RRR"], ["BBB"]])
    new = scenario(game, [start, ("YYG", 0, 3, 2)], [["RRR"], ["BBB"]])
    tracker = BoardTracker()
    tracker.update(seen.view(0))
    table = tracker.update(new.view(0))
    assert np.array_equal(table.grid()[1], new.view(0)["tiles"])
    assert np.array_equal(table.grid()[0], new.view(0)["board"])

"""Chromino's look-ahead heuristics play a search rollout through `play_out`, which reads the state and runs the
look-ahead compiled on the state's own table; it must play the same moves as one `act` a move through the views
(`act_out`, the tracker's table and the numpy scoring), tie draws included.

Positions come from random play (every turn stage: choose, drawn, place, as a search's rollout starts after its
candidate's choose step) over configurations where lone tiles, chameleons, draws, big hands (the look-ahead's
sums over eight or more tiles), a cramped grid and the junior and expert rules come up."""

from __future__ import annotations

import numpy as np
import pytest
from support.play_out import assert_plays_as_act_out, random_states

from tabletop.agents import chromino as heuristics
from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import CHOOSE
from tabletop.envs.chromino.rules import ChrominoGame, ChrominoState

CONFIGS = (
    {},
    {"num_players": 3, "hand_size": 4},  # rivals down to one public tile, lone chameleons
    {"num_players": 4, "variant": "junior", "hand_size": 6},
    {"variant": "expert", "hand_size": 13},  # rests of 8 and more tiles
    {"num_players": 2, "hand_size": 3, "grid_size": 9},  # edges and a blocked table
    {"num_players": 1, "variant": "solo", "hand_size": 10},
)
POSITIONS = 60  # per configuration and heuristic: each two rollouts, up to a whole game


@pytest.mark.slow
@pytest.mark.parametrize("name", ["keep_options", "block_rivals"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()) or "default")
def test_play_out_plays_the_moves_of_act(name, config):
    policy = heuristics.HEURISTICS[name]
    for i, state in enumerate(random_states(ChrominoGame(**config), POSITIONS, seed=31, share=0.15)):
        depth = (0, 1, 2, 9)[i % 4]  # to the end, and cut short (inside a turn, too)
        assert_plays_as_act_out(policy, state, seed=i, depth=depth)


def lone_chameleon_states(config: dict, count: int, seed: int):
    """Positions of random play at a choose step, one seat's hand swapped into the bag for a chameleon from it:
    that seat must draw before it may lay (random play reaches such a hand about once in 400 positions)."""
    rng = np.random.default_rng(seed)
    game = ChrominoGame(**config)
    for state in random_states(game, 4 * count, seed, share=0.15):
        chameleons = [t for t in state.bag if T.IS_CHAMELEON[t]]
        if state.phase != CHOOSE or any(state.finished) or not chameleons:
            continue
        seat, bag, hands = int(rng.integers(game.num_players)), list(state.bag), [list(h) for h in state.hands]
        bag.remove(chameleons[0])
        bag[:0], hands[seat] = hands[seat], [chameleons[0]]  # the hand goes to the bottom of the bag
        lone = ChrominoState(game, hands, bag, state.placements, state.first_player, state.table)
        lone.current, lone.idle_turns, lone.points = state.current, state.idle_turns, list(state.points)
        yield lone
        count -= 1
        if not count:
            return


@pytest.mark.parametrize("name", ["keep_options", "block_rivals"])
def test_play_out_draws_for_a_lone_chameleon(name):
    policy, config = heuristics.HEURISTICS[name], {"num_players": 3, "hand_size": 5}
    for i, state in enumerate(lone_chameleon_states(config, 12, seed=37)):
        assert_plays_as_act_out(policy, state, seed=i, depth=(0, 3)[i % 2])
    assert i == 11


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 79])
def test_numpy_sum_adds_as_numpy_does(n):
    values = np.log1p(np.random.default_rng(n).integers(0, 300, n))
    assert heuristics.numpy_sum(values) == values.sum()

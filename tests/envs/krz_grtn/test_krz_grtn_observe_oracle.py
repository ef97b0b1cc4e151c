"""KRZ GRTN's encoder against a plain Python one (tests/oracles/krz_grtn_observe.py): the same float32
vector, bit for bit, for every seat of positions from random games of every player count, private and
omniscient, with and without the `roles` feature group, and with an output buffer reused dirty.

CI checks a few hundred positions per variant; `KRZ_DIFF_POSITIONS=100000 python -m pytest -q -n 0
tests/envs/krz_grtn/test_krz_grtn_observe_oracle.py -k "private and not roles"` runs the large differential
check on the default observation (docs/testing.md records its last runs).
"""

from __future__ import annotations

import os

import pytest
from oracles.krz_grtn_observe import OracleObserver
from support.encoders import assert_same_encoding
from support.krz_grtn import random_states

from tabletop.envs.krz_grtn.observe import ROLES, KrzGrtnObserver

POSITIONS = int(os.environ.get("KRZ_DIFF_POSITIONS", "400"))
CONFIGS = ({"num_players": 4}, {"num_players": 2}, {"num_players": 6}, {"num_players": 3}, {"num_players": 5})


def _positions(count: int):
    """(state, where) along seeded random games, the player counts taking turns game by game."""
    seen = 0
    for seed in range(10**6):
        config = CONFIGS[seed % len(CONFIGS)]
        for state, _ in random_states(config["num_players"], games=1, seed=seed):
            yield state, f"{config} seed {seed}"
            seen += 1
            if seen >= count:
                return


VARIANTS = {
    "private": (False, ()),
    "private-roles": (False, (ROLES,)),
    "omniscient": (True, ()),
    "omniscient-roles": (True, (ROLES,)),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_encoder_matches_the_oracle_on_random_positions(variant):
    omniscient, features = VARIANTS[variant]
    observers = {}
    compared = 0
    for state, where in _positions(POSITIONS):
        game = state.game
        if game.num_players not in observers:
            observers[game.num_players] = (
                KrzGrtnObserver(game, omniscient, features),
                OracleObserver(game, omniscient, features),
            )
        ours, oracle = observers[game.num_players]
        for seat in range(game.num_players):
            assert_same_encoding(ours, oracle, state, seat, where)
        compared += 1
    assert compared == POSITIONS

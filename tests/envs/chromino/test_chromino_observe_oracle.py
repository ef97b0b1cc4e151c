"""Chromino's `lookahead` feature group against a plain Python look-ahead (tests/oracles/chromino_observe.py):
the same float32 vector, bit for bit, for every seat of positions along random games of every variant (hands
grow past eight tiles, where numpy sums a row in pairs), private and omniscient, with an output buffer reused
dirty.

CI checks CHROMINO_OBS_DIFF_POSITIONS positions (default 300) per variant, shared out among the
configurations; `CHROMINO_OBS_DIFF_POSITIONS=100000 python -m pytest -q -n 0
tests/envs/chromino/test_chromino_observe_oracle.py -k private` runs the large check (docs/testing.md).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from oracles.chromino_observe import OracleObserver
from support.encoders import assert_same_encoding

from tabletop.envs.chromino.observe import LOOKAHEAD, ChrominoObserver
from tabletop.envs.chromino.rules import ChrominoGame

POSITIONS = int(os.environ.get("CHROMINO_OBS_DIFF_POSITIONS", "300"))
CONFIGS = [
    {"variant": "standard", "num_players": 2},
    {"variant": "standard", "num_players": 5, "grid_size": 11, "hand_size": 6},
    {"variant": "junior", "num_players": 3},
    {"variant": "expert", "num_players": 2, "grid_size": 15},
    {"variant": "solo", "num_players": 1, "grid_size": 7},
]


@pytest.mark.parametrize("omniscient", [False, True], ids=["private", "omniscient"])
def test_the_lookahead_matches_the_oracle_on_random_positions(omniscient):
    compared, largest_hand = 0, 0
    for k, config in enumerate(CONFIGS):
        game, rng = ChrominoGame(**config), np.random.default_rng(k)
        ours, oracle = (cls(game, omniscient, (LOOKAHEAD,)) for cls in (ChrominoObserver, OracleObserver))
        wanted = compared + -(-POSITIONS // len(CONFIGS))
        while compared < wanted:
            state = game.new_initial_state(rng)
            while not state.is_terminal() and compared < wanted:
                for seat in range(game.num_players):
                    assert_same_encoding(ours, oracle, state, seat, f"{config}, {len(state.placements)} laid")
                largest_hand = max(largest_hand, max(len(h) for h in state.hands))
                compared += 1
                state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert largest_hand > 8  # a hand summed in numpy's pairs was among them
    print(f"chromino lookahead vs oracle: {compared} positions, hands up to {largest_hand} tiles")

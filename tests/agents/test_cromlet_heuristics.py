"""Cromlet's heuristics score every legal action over arrays; the one-action-at-a-time scoring
(tests/oracles/cromlet_heuristics.py) must give the same scores, hence the same moves from the same seeds. Their
compiled `play_out` (a search player's rollout) must play the same moves as one `act` a move through the views.

Positions come from random play over configurations where claim limits, closings, wilds and an empty deck come
up often. CI compares a few thousand; for the recorded run set CROMLET_DIFF_POSITIONS, e.g.
`CROMLET_DIFF_POSITIONS=100000 python -m pytest -q -n 0 tests/agents/test_cromlet_heuristics.py`.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from oracles import cromlet_heuristics as oracle
from support.cromlet import random_states
from support.play_out import assert_plays_as_act_out

from tabletop.agents import cromlet as arrays

POSITIONS = int(os.environ.get("CROMLET_DIFF_POSITIONS", "3000"))
CONFIGS = (  # claim limits reached early, small hands, teams, many players: blocking and closing come up often
    {"num_players": 2},
    {"num_players": 4},
    {"num_players": 4, "teams": 2},
    {"num_players": 2, "claim_limit": 1},
    {"num_players": 3, "claim_limit": 1, "hand_size": 3},
    {"num_players": 6, "hand_size": 23},
)


@pytest.mark.parametrize("name", sorted(arrays.HEURISTICS))
def test_array_scores_equal_the_one_action_scores(name):
    scored, reference = arrays.HEURISTICS[name](seed=1), oracle.HEURISTICS[name](seed=1)
    compared = 0
    share = -(-POSITIONS // len(CONFIGS))
    positions = (s for i, c in enumerate(CONFIGS) for s in random_states(c, share, seed=11 + i))
    for state in positions:
        view, mask = state.view(state.current_player), state.legal_action_mask()
        legal, scores = scored.scored(mask, view)
        facts = oracle.BoardFacts(view)
        expected = np.array([reference.score(int(a), facts, view) for a in legal])
        np.testing.assert_array_equal(scores, expected)  # bit for bit: the same ties, the same draws
        assert scored.act(None, mask, view) == reference.act(None, mask, view)
        compared += 1
    assert compared == share * len(CONFIGS)


PLAY_OUTS = 60  # per configuration and heuristic: each a whole rollout, hundreds of moves


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(arrays.HEURISTICS))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_compiled_play_out_plays_the_moves_of_act(name, config):
    policy = arrays.HEURISTICS[name]
    for i, state in enumerate(random_states(config, PLAY_OUTS, seed=29)):
        depth = (0, 1, 7)[i % 3]  # to the end, and cut short
        assert_plays_as_act_out(policy, state, seed=i, depth=depth)

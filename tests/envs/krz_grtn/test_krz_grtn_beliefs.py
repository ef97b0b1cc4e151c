"""KRZ GRTN's evidence for a belief: the clues replayed in a world are the positions the givers really saw.

In seeded games of the skeleton team (some moves random, so clues of every length and blanks occur), every
giver's observation before each clue move is recorded; at X's guess, `evidence` on the true state must give
the same positions (every observation byte equal, under both feature sets), the same givers, the same moves,
each legal there. A resampled world's evidence has the same shape, and `alternatives` put the target on every
laid-out picture once.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.agents.krz_grtn import SkeletonTeammate
from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.phases import CLUE, GUESS
from tabletop.envs.krz_grtn_v1 import raw_env

CONFIGS = (
    {"num_players": 2},
    {"num_players": 3, "features": ["roles"]},
    {"num_players": 4, "features": ["roles"]},
    {"num_players": 6, "blanks_per_player": 1},
    {"num_players": 2, "blanks_per_player": 0, "levels": (3, 4, 5, 5, 6, 6), "lives": 2},
)


def guesses(config: dict, seed: int):
    """Each X guess of one game: (state, recorded [(observation, giver, move)] of this attempt's clues)."""
    table = raw_env(**config)
    table.reset(seed=seed)
    state, observer = table.game_state, table.observer_for(None)
    agent, rng = SkeletonTeammate(seed=seed), np.random.default_rng(seed)
    recorded = []
    while not state.is_terminal():
        seat, mask = state.current_player, state.legal_action_mask()
        if state.phase == GUESS:
            yield state, recorded
            recorded = []
        move = agent.act(None, mask, state.view(seat))
        if state.phase == CLUE and rng.random() < 0.3:
            move = int(rng.choice(np.flatnonzero(mask)))
        if state.phase == CLUE:
            recorded.append((observer.encode(state, seat).copy(), seat, move))
        state.apply(move)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_replayed_clues_are_the_positions_the_givers_saw(config):
    observer = raw_env(**config).observer_for(None)
    checked = 0
    for seed in range(3):
        for state, recorded in guesses(config, seed):
            evidence = state.evidence(state.x)
            assert [(giver, move) for _, giver, move in evidence] == [(giver, move) for _, giver, move in recorded]
            for (position, giver, move), (seen, _, _) in zip(evidence, recorded):
                assert position.legal_action_mask()[move]
                np.testing.assert_array_equal(observer.encode(position, giver), seen)
            checked += len(evidence)
    assert checked > 20


def test_worlds_drawn_for_x_replay_the_same_moves():
    state, _ = next(guesses({"num_players": 4}, 0))
    moves = [(giver, move) for _, giver, move in state.evidence(state.x)]
    rng = np.random.default_rng(1)
    for _ in range(10):
        world = state.resample(state.x, rng)
        assert [(giver, move) for _, giver, move in world.evidence(state.x)] == moves
        alternatives = world.alternatives(state.x)
        assert [w.target_position for w in alternatives] == list(range(len(state.candidates)))
        assert [w.target for w in alternatives] == state.candidates
        assert all(w.candidates == state.candidates for w in alternatives)


def test_no_evidence_outside_x_guess():
    state, _ = next(guesses({"num_players": 3}, 2))
    for giver in state.givers():
        assert state.evidence(giver) == [] and state.alternatives(giver) == [state]
    state.apply(act.GUESS)
    assert state.evidence(state.current_player) == []

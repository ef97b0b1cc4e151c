"""Helpers for the tests that hold a heuristic's `play_out` (a search player's rollout in one call) to `act_out`
(one `act` a move through the views): positions from random play, and the comparison."""

from __future__ import annotations

import numpy as np

from tabletop.agents.search.player import act_out


def random_states(game, count: int, seed: int, share: float = 0.3):
    """`count` states of `game` reached by random play, each visited state kept with probability `share`."""
    rng = np.random.default_rng(seed)
    produced = 0
    while produced < count:
        state = game.new_initial_state(rng)
        while not state.is_terminal() and produced < count:
            if rng.random() < share:
                produced += 1
                yield state
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


def assert_plays_as_act_out(policy: type, state, seed: int, depth: int) -> None:
    """`policy.play_out` from a copy of `state` reaches the position `act_out` reaches from another (the saved
    state, the seat to move, the end and the mask), and that position plays on alike."""
    compiled, acted = state.clone(), state.clone()
    policy.play_out(compiled, seed=seed, depth=depth)
    act_out(policy, acted, seed=seed, depth=depth)
    assert compiled.to_json() == acted.to_json()
    assert compiled.current_player == acted.current_player
    assert compiled.is_terminal() == acted.is_terminal()
    np.testing.assert_array_equal(compiled.legal_action_mask(), acted.legal_action_mask())
    if not compiled.is_terminal():  # the state plays on from where the loop left it
        action = int(np.flatnonzero(compiled.legal_action_mask())[0])
        compiled.apply(action)
        acted.apply(action)
        assert compiled.to_json() == acted.to_json()

"""Cromlet helpers shared by its tests."""

from __future__ import annotations

import numpy as np

from tabletop.envs.cromlet.rules import CromletGame


def random_states(config: dict, count: int, seed: int):
    """States reached by random play, sampled along many games."""
    rng = np.random.default_rng(seed)
    game = CromletGame(**config)
    produced = 0
    while produced < count:
        state = game.new_initial_state(rng)
        while not state.is_terminal() and produced < count:
            if rng.random() < 0.3:
                produced += 1
                yield state
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))

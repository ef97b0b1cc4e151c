"""Positions for the search players' tests, and a state's facts without its generator (what a seat may not see
is compared through them)."""

from __future__ import annotations

import numpy as np

from tabletop import envs


def positions(env_id: str, config: dict, seed: int, every: int) -> list:
    """Positions along a seeded random game (clones), every `every`-th, unfinished."""
    rng = np.random.default_rng(seed)
    state = envs.make_raw(env_id, **config).game.new_initial_state(rng)
    out, step = [], 0
    while not state.is_terminal():
        if step % every == every - 1:
            out.append(state.clone())
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
        step += 1
    return out


def hidden(state) -> dict:
    """The state's facts, its generator left out (two draws of one world may differ only there)."""
    data = state.to_json()
    data.pop("rng", None)
    return data

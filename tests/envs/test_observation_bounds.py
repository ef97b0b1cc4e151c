"""Observation spaces are the Boxes of the layouts' declared ranges, and every observation lies inside.

The configurations are the contract test's (every variant, smallest and largest tables, both modes);
each random game is encoded for every seat, privately and omnisciently, at every step.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.contract import CASES, IDS

from tabletop.envs import EnvSpec
from tabletop.envs.core import Layout
from tabletop.envs.testing import random_game

GAMES_PER_CONFIG = 3


def _outside(layout: Layout, vector: np.ndarray) -> list[str]:
    """The segments holding a value outside their declared range, with the extreme values seen."""
    low, high = layout.bounds()
    bad = []
    for segment in layout.segments:
        part = layout.slice(segment.name)
        values = vector[part]
        if not (np.all(values >= low[part]) and np.all(values <= high[part])):
            bad.append(f"{segment.name}: [{values.min()}, {values.max()}] outside [{segment.low}, {segment.high}]")
    return bad


@pytest.mark.parametrize("env_id,config", CASES, ids=IDS)
def test_every_observation_of_random_games_lies_in_its_space(env_id, config):
    spec = EnvSpec(env_id, config)
    env = spec.make_raw()
    agent = env.possible_agents[0]
    observation_space = env.observation_space(agent)["observation"]
    observers = [(env.observer, observation_space), (env.omniscient_observer, env.state_space)]
    for seed in range(GAMES_PER_CONFIG):
        for state in random_game(spec, seed=seed):
            for observer, space in observers:
                for seat in range(env.game.num_players):
                    vector = observer.encode(state, seat)
                    assert space.contains(vector), (
                        f"{spec} seed {seed}, seat {seat}: {_outside(observer.layout, vector)}"
                    )


@pytest.mark.parametrize("env_id,config", CASES, ids=IDS)
def test_bounds_are_finite_and_the_env_observes_inside_them(env_id, config):
    env = EnvSpec(env_id, config).make()
    env.reset(seed=0)
    for space in (env.observation_space(env.possible_agents[0])["observation"], env.state_space):
        assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
        assert (space.low <= 0).all() and (space.high >= 0).all()  # an empty table encodes as zeros
    for agent in env.agent_iter(max_iter=50):  # the AEC path: observations as PettingZoo hands them out
        obs, _, term, trunc, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        assert env.state_space.contains(env.state())
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_a_segment_declares_its_range_and_describes_it():
    layout = Layout.of(("flags", 2, "zero or one"), ("score", (2, 3), "points / 100", (-0.5, 3.57)))
    assert [(d["name"], d["low"], d["high"]) for d in layout.describe()] == [("flags", 0.0, 1.0), ("score", -0.5, 3.57)]
    low, high = layout.bounds()
    assert low.dtype == np.float32 and low.tolist()[:2] == [0, 0] and high.tolist()[:2] == [1, 1]
    # 3.57 has no exact float32: the bound is rounded outward, so 357 / 100 in float32 or float64 lies inside
    assert high[2] >= np.float32(357) / np.float32(100) and high[2] >= np.float32(357 / 100)
    assert float(high[2]) >= 3.57 > float(np.nextafter(high[2], np.float32(0)))  # the nearest float32 above


@pytest.mark.parametrize("bounds", [(0, np.inf), (-np.inf, 1), (1, 0), (np.nan, 1)])
def test_a_segment_refuses_infinite_or_inverted_bounds(bounds):
    with pytest.raises(ValueError, match="bounds"):
        Layout.of(("x", 1, "anything", bounds))

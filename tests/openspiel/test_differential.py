"""The OpenSpiel game and the PettingZoo env play the same games: fed the chance outcomes of the env's seeded deal
and the same player actions, they offer the same legal actions, name them the same, show each seat the same
observation and pay the same returns, on every contract configuration."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra is not installed (pip install tabletop-rl[openspiel])"
)

from support.contract import CASES, IDS  # noqa: E402

from tabletop.envs import registry  # noqa: E402
from tabletop.envs.core.chance import SeededChance  # noqa: E402
from tabletop.envs.openspiel import PREFIX  # noqa: E402
from tabletop.envs.openspiel.game import openspiel_params  # noqa: E402

FAST_GAMES = 2  # per configuration: the fast test plays games [0, FAST_GAMES), the slow test up to FULL_GAMES,
FULL_GAMES = 24  # and the soak test (pytest --soak) the rest, up to SOAK_GAMES
SOAK_GAMES = 192
UNDRAWN_ORDER = ("deck_order", "next_draw")
"""Omniscient segments that show the order of cards not drawn yet, which OpenSpiel chooses only when they are drawn."""


def comparable(env) -> np.ndarray:
    """Where the env's observation and OpenSpiel's must agree: everywhere but the undrawn order."""
    layout = env.observer.layout
    where = np.ones(layout.size, dtype=bool)
    for segment in layout.segments:
        if segment.name in UNDRAWN_ORDER:
            where[layout.slice(segment.name)] = False
    return where


def play_both(env_id: str, config: dict, seed: int) -> int:
    """One game played in lockstep on the env (its seeded deal, outcomes recorded) and on the OpenSpiel game; the
    number of decisions compared."""
    env = registry.make_raw(env_id, **config)
    env.reset(seed=seed)
    recorded: list[int] = []
    state = env.game.new_initial_state(SeededChance(np.random.default_rng(seed), recorded))
    assert state.to_json() == env.game_state.to_json(), "the recorded deal is the env's seeded deal"
    env.set_state(state)
    game = pyspiel.load_game(PREFIX + env_id, openspiel_params(env_id, config))
    spiel = game.new_initial_state()
    fed, decisions, choose, where = 0, 0, np.random.default_rng(seed + 1), comparable(env)
    while True:
        while spiel.is_chance_node():
            assert recorded[fed] in dict(spiel.chance_outcomes()), "the env's outcome is one OpenSpiel offers"
            spiel.apply_action(recorded[fed])
            fed += 1
        assert fed == len(recorded), "every outcome the env drew was asked for, in order"
        if state.is_terminal():
            break
        seat = state.current_player
        assert spiel.current_player() == seat
        legal = state.legal_actions().tolist()
        assert spiel.legal_actions() == legal
        for other in range(game.num_players()):
            observed = env.observe(env.possible_agents[other])["observation"]
            np.testing.assert_array_equal(np.array(spiel.observation_tensor(other))[where], observed[where])
        action = legal[choose.integers(len(legal))]
        assert spiel.action_to_string(seat, action) == env.action_to_string(action)
        env.step(action)
        spiel.apply_action(action)
        decisions += 1
    assert spiel.is_terminal()
    assert spiel.returns() == state.returns().tolist()
    return decisions


@pytest.mark.parametrize(("env_id", "config"), CASES, ids=IDS)
def test_openspiel_plays_the_envs_games(env_id, config):
    assert sum(play_both(env_id, config, seed) for seed in range(FAST_GAMES)) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "config"), CASES, ids=IDS)
def test_openspiel_plays_the_envs_games_many(env_id, config):
    for seed in range(FAST_GAMES, FULL_GAMES):
        play_both(env_id, config, seed)


@pytest.mark.soak
@pytest.mark.parametrize(("env_id", "config"), CASES, ids=IDS)
def test_openspiel_plays_the_envs_games_soak(env_id, config):
    for seed in range(FULL_GAMES, SOAK_GAMES):
        play_both(env_id, config, seed)

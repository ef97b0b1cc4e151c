"""Chromino through the environment: game-specific checks the contract test (tests/envs/test_contract.py) does
not make: the default grid, hidden information, expert score rewards, renders in the
tiles' colours, action strings and the heuristics."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from support.chromino import hide_differently

from tabletop import envs
from tabletop.agents import make_agent
from tabletop.agents.chromino import BlockRivals, KeepOptions
from tabletop.envs import EnvSpec
from tabletop.envs.chromino.actions import layout
from tabletop.envs.chromino.observe import ChrominoObserver
from tabletop.envs.chromino.render import RGB
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.chromino.table import Placement
from tabletop.envs.chromino_v1 import raw_env
from tabletop.train.evaluation.tournament import run_tournament

CHROMINO = EnvSpec("chromino_v1")


def test_default_configuration_is_the_45_cell_grid():
    e = envs.make("chromino_v1")
    e.reset(seed=1)
    assert e.unwrapped.game.num_actions == 320 + 45 * 45 + 2
    assert e.unwrapped.game.grid_size == 45


def _comparable(view):
    return {k: (np.asarray(v).tolist() if isinstance(v, np.ndarray) else v) for k, v in view.items()}


@pytest.mark.slow
def test_private_observation_and_view_ignore_hidden_facts():
    game = ChrominoGame(num_players=3)
    private, omniscient = ChrominoObserver(game, omniscient=False), ChrominoObserver(game, omniscient=True)
    rng = np.random.default_rng(9)
    compared = changed = 0
    for _ in range(15):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            for seat in range(3):
                other = hide_differently(state, seat, rng)
                np.testing.assert_array_equal(private.encode(state, seat), private.encode(other, seat))
                assert _comparable(state.view(seat)) == _comparable(other.view(seat))
                changed += not np.array_equal(omniscient.encode(state, seat), omniscient.encode(other, seat))
                compared += 1
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert compared > 1000 and changed > compared // 2  # the omniscient encoding does see the difference


def test_score_reward_pays_expert_points():
    e = raw_env(variant="expert", reward="score")
    e.reset(seed=3)
    total = dict.fromkeys(e.possible_agents, 0.0)
    agent = make_agent(CHROMINO, "most_points", seed=0)
    for name in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[name] += reward
        e.step(None if term or trunc else agent.act(None, obs["action_mask"], e.view(name)))
    assert [total[a] for a in e.possible_agents] == e.game_state.scores().tolist()


def test_renders_draw_the_tiles_in_their_colours():
    e = raw_env()
    e.reset(seed=2)
    start = e.game_state.placements[0]  # a chameleon: two colours around a wild centre
    text, picture = e.renderer.ansi(e.game_state), e.renderer.rgb(e.game_state)
    assert "\x1b[4" in text and "bag" in text
    for colour in {int(c) for c in start.colours()}:
        assert (picture == RGB[colour]).all(axis=2).any()


@pytest.mark.parametrize("name", ["most_contacts", "shed_hardest", "most_points", "keep_options", "block_rivals"])
def test_heuristics_play_legal_games(name):
    result = run_tournament(CHROMINO, [name, "random"], 20, seed=5)
    assert result.records[name].seats == 20


def test_action_strings_are_plain_words():
    e = raw_env()
    e.reset(seed=1)
    mask = e.last()[0]["action_mask"]
    action = int(np.flatnonzero(mask)[0])
    assert e.action_to_string(action).startswith("take ")
    e.step(action)
    action = int(np.flatnonzero(e.last()[0]["action_mask"])[0])
    assert e.action_to_string(action).startswith("place ") and "centred on row" in e.action_to_string(action)


class _ViewOnly(dict):
    """A view that fails the test if a heuristic asks for anything a seat may not know."""

    def __getitem__(self, key):
        assert key not in ("hands", "bag"), f"a heuristic read {key!r}"
        return super().__getitem__(key)


@pytest.mark.parametrize("name", ["keep_options", "block_rivals"])
def test_lookahead_heuristics_pick_legal_actions_from_the_seat_view_alone(name):
    """Every action is legal; the agent gets the seat's view, never the full state, and the same view
    with other hands and bag dealt differently gets the same action (it cannot depend on them)."""
    agent = make_agent(CHROMINO, name, seed=0)
    for config in (
        {"num_players": 2},
        {"num_players": 3, "variant": "junior"},
        {"num_players": 2, "variant": "expert"},
    ):
        game = ChrominoGame(**config)
        rng = np.random.default_rng(12)
        for _ in range(2):
            state = game.new_initial_state(rng)
            while not state.is_terminal():
                seat, mask = state.current_player, state.legal_action_mask()
                view = state.view(seat)
                assert "hands" not in view and "bag" not in view
                twin = hide_differently(state, seat, rng)
                probe = copy.deepcopy(agent)  # same memory and random generator
                action = agent.act(None, mask, _ViewOnly(view))
                assert mask[action], state.action_to_string(action)
                assert probe.act(None, twin.legal_action_mask(), _ViewOnly(twin.view(seat))) == action
                state.apply(action)


def test_block_rivals_leaves_the_fewest_unseen_tiles_a_place():
    """Checked on the real game: the tiles `block_rivals` cannot see are the other hands and the bag, and among
    the placements `keep_options` ranks within the window of the best it takes one after which the fewest of
    them still fit (each candidate laid on a copy of the true table)."""
    game = ChrominoGame(num_players=2)
    agent, ranker = BlockRivals(seed=0), KeepOptions(seed=0)
    checked = 0
    state = game.new_initial_state(np.random.default_rng(3))
    while not state.is_terminal():
        seat, mask, view = state.current_player, state.legal_action_mask(), state.view(state.current_player)
        moves = view["legal_moves"]
        if view["phase"] == "choose" and moves is not None and len(moves) > 1:
            hidden = [tile for s, hand in enumerate(state.hands) if s != seat for tile in hand] + list(state.bag)
            ranked = ranker._score(moves, view)
            window = np.flatnonzero(ranked >= ranked.max() - BlockRivals.WINDOW)
            spoiled = {
                i: ranked[i]
                - BlockRivals.SPOIL
                * len(
                    {int(t) for t in ranker.tracker.table.place(Placement(*moves[i, :4].tolist())).search(hidden)[:, 0]}
                )
                / len(hidden)
                for i in window.tolist()
            }
            action = agent.act(None, mask, view)
            best = max(spoiled.values())
            assert any(
                v == best and layout(game.grid_size).encode("choose", *moves[i, :2].tolist()) == action
                for i, v in spoiled.items()
            )
            checked += 1
        else:
            action = agent.act(None, mask, view)
        state.apply(action)
    assert checked >= 10


def test_keep_options_beats_random():
    """Seeded, so deterministic: over 60 two-player games the lookahead wins clearly more often."""
    result = run_tournament(CHROMINO, ["keep_options", "random"], 60, seed=0)
    mine, theirs = result.records["keep_options"], result.records["random"]
    assert mine.wins > theirs.wins + 10, result.table()

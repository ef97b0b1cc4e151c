"""Cromlet beyond the shared contract: masks against the rulings, hidden information, invariants, layout, agents."""

import numpy as np
import pytest
from support.cromlet import random_states

from tabletop import envs
from tabletop.agents import make_agent
from tabletop.envs import EnvSpec
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.observe import CromletObserver
from tabletop.envs.cromlet.rules import NUM_ACTIONS, CromletGame, decode_action

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 6},
    {"num_players": 4, "teams": 2},
    {"num_players": 6, "teams": 2},
    {"num_players": 6, "teams": 3},
]


# --- exact masks --------------------------------------------------------------------------------------
def brute_force_mask(view: dict) -> np.ndarray:
    """Legality read straight off the rulings with plain loops, one action at a time."""
    hand = view["hand"]
    team = view["team_of"][view["player"]]
    can_claim = view["team_claims"][team] < view["claim_limit"]
    is_open = [view["cover"][x] < 0 and not view["closed"][B.CIRCLE_CROMLET[x]] for x in range(B.NUM_CIRCLES)]
    circles = [list(B.circles_of(B.CIRCLE_CROMLET[x])) for x in range(B.NUM_CIRCLES)]
    lower_covered = [all(view["cover"][y] >= 0 for y in circles[x] if y < x) for x in range(B.NUM_CIRCLES)]
    only_open = [[y for y in circles[x] if is_open[y]] == [x] for x in range(B.NUM_CIRCLES)]
    forced = [x for x in range(B.NUM_CIRCLES) if hand[x] and is_open[x] and lower_covered[x]]
    dead = sum(1 for x in range(B.NUM_CIRCLES) if hand[x] and not is_open[x])

    def legal(action: int) -> bool:
        kind, arg = decode_action(action)
        if kind == "trade":
            return not forced and dead >= arg and view["deck_size"] >= arg
        if not is_open[arg]:
            return False
        if kind.startswith("wild"):
            if hand[B.WILD] == 0:
                return False
        elif not hand[arg] or (forced and arg not in forced):
            return False
        if kind.endswith("claim"):
            return can_claim and lower_covered[arg]
        return not (only_open[arg] and can_claim)

    return np.array([legal(a) for a in range(NUM_ACTIONS)], dtype=np.int8)


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 2},
        {"num_players": 5},
        {"num_players": 6, "teams": 3},
        {"num_players": 2, "cromlets": ["A", "D", "Q"], "wilds": 2, "hand_size": 3, "claim_limit": 1},
    ],
    ids=str,
)
def test_masks_equal_a_brute_force_legality_check(config):
    checked = 0
    for state in random_states(config, 700, seed=11):
        np.testing.assert_array_equal(state.legal_action_mask(), brute_force_mask(state.view(state.current_player)))
        checked += 1
    assert checked == 700


# --- hidden information -------------------------------------------------------------------------------------
def test_private_observation_ignores_other_hands_and_deck_order():
    game = CromletGame(num_players=3)
    private, omniscient = CromletObserver(game, False), CromletObserver(game, True)
    rng = np.random.default_rng(2)
    for state in random_states({"num_players": 3}, 60, seed=2):
        me = state.current_player
        other = (me + 1) % 3
        data = state.to_json()
        # swap an opponent's hand with an equal number of deck cards, and shuffle the deck
        pool = data["hands"][other] + data["deck"]
        rng.shuffle(pool)
        size = len(data["hands"][other])
        data["hands"][other], data["deck"] = pool[:size], pool[size:]
        changed = game.state_from_json(data)
        np.testing.assert_array_equal(private.encode(changed, me), private.encode(state, me))
        mine = changed.view(me)
        theirs = state.view(me)
        assert mine.keys() == theirs.keys()
        for key in mine:
            np.testing.assert_array_equal(np.asarray(mine[key], dtype=object), np.asarray(theirs[key], dtype=object))
        if changed.to_json()["hands"] != state.to_json()["hands"]:
            assert not np.array_equal(omniscient.encode(changed, me), omniscient.encode(state, me))


def test_view_shows_own_hand_only_and_full_view_shows_all():
    state = CromletGame(num_players=3).new_initial_state(np.random.default_rng(1))
    view = state.view(1)
    assert "hand" in view and "hands" not in view and "deck" not in view
    full = state.view(None)
    assert full["hands"].shape == (3, 133) and len(full["deck"]) == 138 - 21


# --- fuzz -----------------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_fuzz_invariants_over_random_games(config):
    game = CromletGame(**config)
    rng = np.random.default_rng(99)
    for _ in range(250):
        state = game.new_initial_state(rng)
        crowns_ever = np.zeros(B.NUM_CIRCLES, dtype=np.int64)
        while not state.is_terminal():
            before = state.cover.copy()
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
            crowns_ever += (before < 0) & (state.cover >= 0)
            check_invariants(game, state)
        assert crowns_ever.max() <= 1, "a circle is covered at most once"
        to_move = state.view(state._current)  # the seat that was to move when the game ended
        assert state.closed.all() or not brute_force_mask(to_move).any(), "ended while a play was possible"


def check_invariants(game, state):
    cards = state.hands.sum(axis=0) + state.discard_counts.sum(axis=0)
    cards += np.bincount(np.asarray(state.deck, dtype=np.int64), minlength=133)
    assert cards[: B.NUM_CIRCLES].tolist() == [1] * B.NUM_CIRCLES and cards[B.WILD] == B.NUM_WILDS, "138 cards"
    assert (state.team_claims <= game.claim_limit).all()
    claimed = np.flatnonzero(state.claimed_by >= 0)
    team_points = np.zeros(game.num_teams)
    np.add.at(team_points, game.team_of[state.claimed_by[claimed]], B.CIRCLE_VALUE[state.claim_circle[claimed]])
    np.testing.assert_array_equal(team_points, state.team_scores)
    for k in claimed:
        assert all(state.cover[x] >= 0 for x in B.circles_of(k) if x < state.claim_circle[k])
    assert (state.hand_sizes <= game.hand_size).all()
    assert state.wild.sum() <= state.discard_counts[:, B.WILD].sum()


# --- rendering and agents -----------------------------------------------------------------------------------------
def test_renders_draw_the_table():
    env = envs.make("cromlet_v0", num_players=4, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "Q " in text and "deck:" in text and "P3" in text
    env = envs.make("cromlet_v0", num_players=4, render_mode="rgb_array")
    env.reset(seed=1)
    assert len(np.unique(env.render().reshape(-1, 3), axis=0)) > 4


@pytest.mark.parametrize("name", ["greedy", "patient", "blocker", "random"])
def test_agents_choose_legal_actions_from_the_view(name):
    agent = make_agent("cromlet_v0", name, seed=0)
    for state in random_states({"num_players": 4}, 150, seed=3):
        p = state.current_player
        action = agent.act(None, state.legal_action_mask(), state.view(p))
        assert state.legal_action_mask()[action]


def test_patient_beats_random_and_greedy():
    from tabletop.train.evaluation.tournament import run_tournament

    result = run_tournament(EnvSpec("cromlet_v0"), ["patient", "random"], 60, seed=1)
    assert result.records["patient"].win_rate > 0.75
    result = run_tournament(EnvSpec("cromlet_v0"), ["patient", "greedy"], 60, seed=1)
    assert result.records["patient"].win_rate > 0.75


def test_observation_segments_hold_what_the_layout_says():
    observer = CromletObserver(CromletGame(num_players=3), omniscient=True)
    layout = observer.layout
    for state in random_states({"num_players": 3}, 40, seed=8):
        me = state.current_player
        obs = observer.encode(state, me)
        assert obs.shape == (layout.size,)
        hand = layout.block(obs, "hand")
        np.testing.assert_array_equal(hand[:132], state.hands[me, :132])
        assert hand[132] == np.float32(state.hands[me, 132] / 6)
        crowns = layout.block(obs, "circle_crown")
        for rel in range(3):
            np.testing.assert_array_equal(crowns[rel], state.cover == (me + rel) % 3)
        claims = layout.block(obs, "circle_claim")
        assert claims.sum() == (state.claimed_by >= 0).sum()
        np.testing.assert_array_equal(layout.block(obs, "circle_open"), state.open_circles())
        np.testing.assert_array_equal(layout.block(obs, "cromlet_closed"), state.closed)
        assert layout.block(obs, "deck_size")[0] == np.float32(len(state.deck) / 138)
        np.testing.assert_array_equal(layout.block(obs, "hand_sizes") * 7, state.hand_sizes[(me + np.arange(3)) % 3])
        np.testing.assert_array_equal(layout.block(obs, "all_hands")[0], hand)
        depth = layout.block(obs, "deck_order")
        assert (depth > 0).sum() == len(state.deck)
        if state.deck and state.deck[0] != 132:
            assert depth[state.deck[0]] == 1.0

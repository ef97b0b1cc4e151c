"""Cromlet's observer keeps a table of the position's facts up to date move by move (from
`state.changes`) and gathers each observation from it. Whatever the order of moves and looks, every
observation must equal, bit for bit, the one computed from scratch by the plain formulas below (the
layout's definitions, written out one segment at a time)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from tabletop.envs import EnvSpec
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet import kernels
from tabletop.envs.cromlet.observe import MAX_SIZE, MAX_VALUE, REBUILD_AFTER, CromletObserver

SCALE = np.ones(B.NUM_CIRCLES + 1)
SCALE[B.WILD] = 1 / B.NUM_WILDS
CONFIGS = [{}, {"num_players": 3}, {"num_players": 4, "teams": 2}, {"num_players": 6, "teams": 3}, {"num_players": 6}]


def reference(state, player: int, omniscient: bool) -> np.ndarray:
    """The observation from scratch, segment by segment, as the layout documents it."""
    g = state.game
    n = g.num_players
    order = (player + np.arange(n)) % n
    team = g.team_of[order]
    seats = order[:, None]
    open_, cromlet, values = state.open_circles(), B.CIRCLE_CROMLET, B.CIRCLE_VALUE
    claim_owner = np.full(B.NUM_CIRCLES, -1)
    claimed = state.claimed_by >= 0
    claim_owner[state.claim_circle[claimed]] = state.claimed_by[claimed]
    best = np.maximum.reduceat(np.where(open_, values, 0), B.CROMLET_START)[cromlet]
    index = np.arange(B.NUM_CIRCLES)
    first_open = np.minimum.accumulate(np.where(open_, index, B.NUM_CIRCLES)[::-1])[::-1]
    above = np.append(first_open, B.NUM_CIRCLES)[np.append(index[1:], B.NUM_CIRCLES)]
    in_hand = state.hands[player, : B.NUM_CIRCLES] > 0
    discarded = state.discard_counts[order, : B.NUM_CIRCLES] > 0
    sizes = np.array([len(v) for v in B.VALUES_BY_CROMLET])[cromlet]
    circles = [
        values / MAX_VALUE,
        (index - B.CROMLET_START[cromlet]) / (sizes - 1),
        open_,
        state.is_lowest,
        in_hand,
        ~in_hand & ~discarded.any(axis=0),
        state.wild,
        *(state.cover == seats),
        *(state.claimed_by[cromlet] == seats),
        *discarded,
        state.closed[cromlet] & (state.claimed_by[cromlet] < 0),
        best / MAX_VALUE,
        np.where(open_, values / np.maximum(best, 1), 0),
        np.where(np.append(cromlet, -1)[above] == cromlet, np.append(values, 0)[above], 0) / MAX_VALUE,
        state.open_count[cromlet] / MAX_SIZE,
    ]
    parts = [
        state.hands[player] * SCALE,
        open_,
        (state.cover == seats).ravel(),
        state.wild,
        (claim_owner == seats).ravel(),
        state.closed,
        state.team_scores[team] / 100,
        (g.claim_limit - state.team_claims[team]) / g.claim_limit,
        state.hand_sizes[order] / g.hand_size,
        [len(state.deck) / B.NUM_CARDS],
        (state.discard_counts[order] * SCALE).ravel(),
        np.stack([np.asarray(c, dtype=float) for c in circles], axis=1).ravel(),
    ]
    if omniscient:
        deck = np.zeros(B.NUM_CARDS)
        cards = np.asarray(state.deck, dtype=np.int64)
        depth = 1 - np.arange(len(cards)) / B.NUM_CARDS
        deck[cards[cards < B.WILD]] = depth[cards < B.WILD]
        deck[B.NUM_CIRCLES : B.NUM_CIRCLES + int((cards == B.WILD).sum())] = depth[cards == B.WILD]
        parts += [(state.hands[order] * SCALE).ravel(), deck]
    return np.concatenate(parts, dtype=np.float32)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("omniscient", [False, True], ids=["private", "omniscient"])
def test_observations_kept_up_to_date_equal_the_plain_formulas(config, omniscient):
    """Looks after one move or several, after a gap long enough for a rebuild (moves 10-40 unseen: over
    REBUILD_AFTER changes), and at fresh copies."""
    assert 30 * 3 > REBUILD_AFTER  # a move makes at least three changes (card out, card covered, card in)
    game = EnvSpec("cromlet_v0", config).new_game()
    observer = CromletObserver(game, omniscient)
    rng = np.random.default_rng(len(config))
    for deal in range(2):
        state = game.new_initial_state(np.random.default_rng(deal))
        moves = 0
        while not state.is_terminal():
            if not 10 <= moves < 40 and rng.random() < 0.5:
                for seat in range(game.num_players):
                    expected = reference(state, seat, omniscient)
                    np.testing.assert_array_equal(observer.encode(state, seat), expected)
                    np.testing.assert_array_equal(observer.encode(state.clone(), seat), expected)
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
            moves += 1
        np.testing.assert_array_equal(observer.encode(state, 0), reference(state, 0, omniscient))


def test_encode_writes_into_out_and_json_positions_read_alike():
    game = EnvSpec("cromlet_v0", {"num_players": 4, "teams": 2}).new_game()
    observer = CromletObserver(game, omniscient=False)
    state = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(3)
    for _ in range(40):
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    out = np.full(observer.layout.size, np.nan, dtype=np.float32)
    assert observer.encode(state, 2, out=out) is out
    np.testing.assert_array_equal(out, observer.encode(state, 2))
    restored = game.state_from_json(state.to_json())
    np.testing.assert_array_equal(observer.encode(restored, 2), out)
    restored.apply(int(np.flatnonzero(restored.legal_action_mask())[0]))  # the restored position moves on alone
    np.testing.assert_array_equal(observer.encode(restored, 2), reference(restored, 2, False))
    np.testing.assert_array_equal(observer.encode(state, 2), out)


def test_envs_still_pickle_and_copy_after_looking():
    """The tables hold weak references, which do not pickle: a copied env rebuilds its table and reads alike."""
    env = EnvSpec("cromlet_v0").make()
    env.reset(seed=4)
    for _ in range(12):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    expected = env.observe(env.agent_selection)["observation"]
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        np.testing.assert_array_equal(twin.observe(twin.agent_selection)["observation"], expected)
        twin.step(int(np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"])[0]))
        state = twin.unwrapped.game_state
        np.testing.assert_array_equal(
            twin.observe(twin.agent_selection)["observation"], reference(state, state.current_player, False)
        )


def test_an_event_log_run_past_its_end_makes_the_observer_rebuild():
    """The log holds every event a legal game can make; a position edited by hand may make more: the count
    then grows past the log's end, nothing is written there, and the observer rebuilds at every look."""
    game = EnvSpec("cromlet_v0").new_game()
    observer = CromletObserver(game, omniscient=False)
    state = game.new_initial_state(np.random.default_rng(5))
    state.events = state.events[:20]  # the deal logged 14 of them
    rng = np.random.default_rng(5)
    for _ in range(12):
        for seat in range(game.num_players):
            np.testing.assert_array_equal(observer.encode(state, seat), reference(state, seat, False))
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert state.counters[kernels.EVENTS] > 30

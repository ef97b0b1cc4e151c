"""Kings Cribbage's compiled kernels against plain numpy oracles (tests/oracles/kings_cribbage_*.py):
the same moves, points and order for every rack on boards from random games of both action modes and every
player count, the same offered moves, and the same sub-step narrowing and masks.

The rack templates (every combo of a rack and its orderings) are compared with the plain numpy code
on as many random racks of 0-5 tiles. A position is one (board, rack) pair: its moves are checked in the players' order and in the rules' own, and
the offer made from them at several limits. The sub-steps are checked along whole games, the opening's (kept as
orderings, `movegen.Opening`) against its moves written out. CI checks a few hundred; `KC_DIFF_POSITIONS=100000 python -m pytest -q -n 0 tests/envs/kings_cribbage/test_kings_cribbage_kernels.py` runs the
large differential check (docs/kings_cribbage.md, Speed, records its last run). What a turn starts from (its
moves, first mask, legal actions and offer) is checked on 2,000 positions, or on `KC_DIFF_POSITIONS`.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from oracles import kings_cribbage_rules as rules_oracle
from oracles.kings_cribbage_movegen import oracle_moves
from oracles.kings_cribbage_offer import offered_moves as oracle_offer
from oracles.kings_cribbage_rack import template as oracle_template

from tabletop.envs.kings_cribbage import kernels
from tabletop.envs.kings_cribbage.actions import tiles_layout
from tabletop.envs.kings_cribbage.movegen import MoveSet, generate_moves, turn_moves
from tabletop.envs.kings_cribbage.offer import offered_moves
from tabletop.envs.kings_cribbage.rack import _TEMPLATES, KIND_FACES, _template, rack_options, rack_template
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.tiles import NUM_KINDS, RACK_SIZE
from tabletop.envs.openspiel import SMALL

POSITIONS = int(os.environ.get("KC_DIFF_POSITIONS", "600"))
CONFIGS = (
    {},
    {"action_mode": "moves"},
    {"num_players": 3},
    {"num_players": 4, "action_mode": "moves", "board_size": 9},
    {"variant": "solitaire", "board_size": 7},
    {"board_size": 5},
    {"board_size": 26, "num_players": 3, "action_mode": "moves"},
    {"num_players": 4, "board_size": 11},
    dict(SMALL["kings_cribbage_small"][1], box=[3, 4, 9, 9, 10]),  # the 3x3 board, racks of 2, a box of 5 tiles
    {"board_size": 3, "rack_size": 2, "box": [3, 4, 9, 9, 10]},
)


def _assert_same(actual, expected, where: str) -> None:
    for name in ("actions", "lengths", "points"):
        a, e = getattr(actual, name), getattr(expected, name)
        assert a.dtype == e.dtype and a.shape == e.shape and np.array_equal(a, e), f"{name} differ: {where}"


def _racks(state, rng):
    """Every seat's rack, and a random one of 1-5 tiles from what the mover cannot see (short racks, turned 6s
    and 9s and colours the game has not dealt yet)."""
    yield from state.racks
    unseen = [kind for bag in state.bags for kind in bag] + [k for s, r in enumerate(state.racks) if s for k in r]
    if unseen:
        size = int(rng.integers(1, min(RACK_SIZE, len(unseen)) + 1))
        yield sorted(int(k) for k in rng.choice(unseen, size=size, replace=False))


def _positions(count: int):
    """(state, rack, where) from seeded random games until `count` positions: each turn's start, every rack."""
    seen = 0
    for seed in range(10**9):
        config = CONFIGS[seed % len(CONFIGS)]
        game = KingsCribbageGame(**config)
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng)
        turn = 0
        while not state.is_terminal():
            if not state.pending and not state.marked:
                for rack in _racks(state, rng):
                    yield state, rack, f"{config} seed {seed} turn {turn} rack {rack}"
                    seen += 1
                    if seen >= count:
                        return
                turn += 1
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


@pytest.mark.slow
def test_moves_and_offers_match_the_numpy_code_on_random_positions():
    checked = 0
    for state, rack, where in _positions(POSITIONS):
        for ordered in (True, False):
            moves = generate_moves(state.values, state.colours, rack, ordered)
            _assert_same(moves, oracle_moves(state.values, state.colours, rack, ordered), f"{where} ordered={ordered}")
        size = state.game.board_size
        for limit in (1, 7, 31, 64, 1024):
            _assert_same(
                offered_moves(moves, rack, size, limit),
                oracle_offer(moves, rack, size, limit),
                f"{where} offer limit {limit}",
            )
        checked += 1
    assert checked == POSITIONS


def test_a_turns_moves_and_first_mask_match_the_numpy_code():
    """What a turn starts from: its moves in both orders, the first mask and legal actions marked in the same
    pass, and the mask or offer the state shows its mover, against the numpy generator and rules, at every turn
    of seeded random games over the configurations above (both modes; the small variant's board of 3)."""
    count = max(2_000, POSITIONS)
    checked = 0
    for state, rack, where in _positions(count):
        game, size = state.game, state.game.board_size
        layout = tiles_layout(size)
        commit = layout.start("commit")
        for ordered in (False, True):
            expected = oracle_moves(state.values, state.colours, rack, ordered)
            mask = np.zeros(layout.num_actions, dtype=np.int8)
            moves, legal = turn_moves(state.values, state.colours, rack, ordered, mask)
            _assert_same(moves, expected, f"{where} ordered={ordered}")
            first = rules_oracle.place_mask(expected, 0, layout.num_actions, commit)
            if legal is None:  # no move, or the opening, whose first actions come from its orderings
                assert not mask.any(), where
                legal = moves.mark(mask, 0, commit) if len(moves) else np.flatnonzero(mask)
            np.testing.assert_array_equal(mask, first, err_msg=f"{where} ordered={ordered}")
            np.testing.assert_array_equal(legal if legal is not None else np.flatnonzero(mask), np.flatnonzero(first))
        if rack == state.racks[state.current] and len(expected):  # what the mover is shown
            if game.moves_mode:
                _assert_same(state.offered, oracle_offer(expected, rack, size, game.max_moves), f"{where} offer")
            else:
                np.testing.assert_array_equal(state.legal_action_mask(), first, err_msg=where)
                np.testing.assert_array_equal(state.legal_actions(), np.flatnonzero(first), err_msg=where)
        checked += 1
    assert checked == count


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"num_players": 4, "board_size": 7},
        {"board_size": 5},
        {"board_size": 3, "rack_size": 2, "box": [3, 4, 9, 9, 10]},
    ],
)
def test_sub_steps_narrow_and_mask_as_the_numpy_rules_did(config):
    game = KingsCribbageGame(**config)
    checked = 0
    for seed in range(10**6):  # CI: 6 games (more on the smallest board); the large check: 1,000
        if seed >= max(6, POSITIONS // 100) and checked >= 100:
            break
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            if len(state.moves):
                depth = len(state.pending)
                expected = rules_oracle.place_mask(state.alive, depth, game.num_actions, game.commit_action)
                np.testing.assert_array_equal(state.legal_action_mask(), expected)
                np.testing.assert_array_equal(state.legal_actions(), np.flatnonzero(expected))
                mask = np.zeros(game.num_actions, dtype=np.int8)
                legal = state.alive.mark(
                    mask, depth, game.commit_action
                )  # None: the opening's first, read off the mask
                np.testing.assert_array_equal(mask, expected)
                if legal is not None:
                    np.testing.assert_array_equal(legal, np.flatnonzero(expected))
                legal = np.flatnonzero(expected[: game.commit_action])  # first, last and between: edge cells too
                for action in np.unique(legal[np.linspace(0, len(legal) - 1, 5).astype(int)]) if len(legal) else ():
                    alive = state.alive  # the opening's narrowing reads its orderings, not its moves (an `Opening`)
                    narrowed = rules_oracle.narrow(alive, depth, int(action))
                    _assert_same(alive.narrow(depth, int(action)), narrowed, f"seed {seed} depth {depth}")
                    explicit = MoveSet(*kernels.narrow(alive.actions, alive.lengths, alive.points, depth, int(action)))
                    _assert_same(explicit, narrowed, f"seed {seed} depth {depth}")
                    mask = np.zeros(game.num_actions, dtype=np.int8)  # the place step: narrowed, masked and listed
                    kept, legal = alive.place_step(depth, int(action), mask, game.commit_action)
                    _assert_same(kept, narrowed, f"seed {seed} depth {depth}, with its mask")
                    after = rules_oracle.place_mask(narrowed, depth + 1, game.num_actions, game.commit_action)
                    np.testing.assert_array_equal(mask, after)
                    np.testing.assert_array_equal(legal, np.flatnonzero(after))
                checked += 1
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert checked >= 100


def test_a_racks_pattern_code_names_its_choices_and_its_label_lists_its_faces():
    """`kernels.rack_pattern` keys the templates: equal codes exactly for equal `rack_options`, in any tile order."""
    rng = np.random.default_rng(11)
    options_of_code, code_of_options = {}, {}
    for _ in range(POSITIONS):
        rack = [int(k) for k in rng.integers(NUM_KINDS, size=int(rng.integers(RACK_SIZE + 1)))]
        code, label = kernels.rack_pattern(np.array(rack, dtype=np.int64), KIND_FACES)
        options, faces = rack_options(tuple(sorted(rack)))
        assert label.tolist() == [*faces, -1], rack
        assert options_of_code.setdefault(code, options) == options, f"one code, two patterns: rack {rack}"
        assert code_of_options.setdefault(options, code) == code, f"one pattern, two codes: rack {rack}"
        assert rack_template(rack)[0] is rack_template(sorted(rack))[0] is _TEMPLATES[code]
    assert len(options_of_code) > 50


def test_rack_templates_match_the_numpy_code_on_random_racks():
    rng = np.random.default_rng(7)
    for _ in range(POSITIONS):
        rack = tuple(sorted(int(k) for k in rng.integers(NUM_KINDS, size=int(rng.integers(RACK_SIZE + 1)))))
        options, _ = rack_options(rack)
        built, expected = _template(options), oracle_template(options)
        for name in ("faces", "size", "start", "count", "orderings", "combos_of"):
            a, e = getattr(built, name), getattr(expected, name)
            assert a.dtype == e.dtype and np.array_equal(a, e), f"{name} differ: rack {rack}"

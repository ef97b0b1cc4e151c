"""KRZ GRTN masks against a brute force read from the JSON text, fuzz invariants, honest hidden information."""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest
from support.krz_grtn import lengthen_clue, random_states, swap_letters

from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.observe import KrzGrtnObserver
from tabletop.envs.krz_grtn.pictures import NUM_CARDS
from tabletop.envs.krz_grtn.rules import CLUE, GUESS, OVER, RETURN, KrzGrtnGame
from tabletop.envs.krz_grtn.tiles import LETTERS, TOTAL_LETTERS


def brute_force_mask(data: dict, game: KrzGrtnGame) -> np.ndarray:
    """Legality from the JSON text alone: which sub-step can still lead to a finished turn."""
    mask = np.zeros(game.num_actions, dtype=np.int8)
    n, x, seat = data["num_players"], data["x"], data["current_player"]
    givers = [(x + k) % n for k in range(1, n)]
    behind_screen = Counter(data["supplies"][seat])
    if data["phase"] == "vote":
        mask[act.VOTE_YES] = 1  # a life can always be spent during a vote (the vote is only held with lives)
        # "no" starts the clues at once: every giver must be able to lay two letters
        mask[act.VOTE_NO] = all(len(data["supplies"][g]) >= 2 for g in givers)
    elif data["phase"] == "clue":
        laid = data["clues"][seat]
        for i, letter in enumerate(LETTERS):
            mask[act.ADD_TILE + i] = behind_screen[letter] > 0
        mask[act.add_tile(len(LETTERS))] = data["blanks"][seat] > 0
        mask[act.FINISH_CLUE] = len(laid.replace("_", "")) >= 2
        # every addition keeps the clue completable: letters laid + letters left >= 2
        assert len(laid.replace("_", "")) + sum(behind_screen.values()) >= 2
    elif data["phase"] == "return":
        assert len(data["supplies"][seat]) > game.tile_limit
        for i, letter in enumerate(LETTERS):
            mask[act.RETURN_LETTER + i] = behind_screen[letter] > 0
    elif data["phase"] == "guess":
        mask[act.GUESS : act.GUESS + len(data["candidates"])] = 1
    return mask


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_masks_equal_brute_force_and_never_lead_to_a_dead_end(n):
    game = KrzGrtnGame(num_players=n)
    checked = 0
    for state, action in random_states(n, games=25, seed=n):
        mask = state.legal_action_mask()
        if action is None:
            assert not mask.any()
            continue
        data = state.to_json()
        assert np.array_equal(mask, brute_force_mask(data, game)), (data, np.flatnonzero(mask))
        checked += 1
        if checked % 5 == 0:  # every legal action leaves a playable (or finished) state
            for legal in np.flatnonzero(mask):
                child = state.clone()
                child.apply(int(legal))
                assert child.is_terminal() or child.legal_action_mask().any()
    assert checked > 600


@pytest.mark.parametrize("n", [2, 4, 6])
@pytest.mark.parametrize("variant", [{}, {"blanks_per_player": 0, "levels": (3, 4, 5, 5, 6, 6), "lives": 2}])
def test_fuzz_invariants(n, variant):
    """Tiles and blanks conserved, the tile limit holds after returns, lives and levels monotone."""
    previous = None
    for state, action in random_states(n, games=30, seed=100 + n, **variant):
        state.check_conservation()
        assert int(state.bag.sum() + state.supply.sum()) + sum(state.clue_letters) == TOTAL_LETTERS
        over = [p for p in range(n) if state.letters(p) > state.game.tile_limit]
        assert over == ([state.current] if state.phase == RETURN else [])
        assert len(state.deck) + len(state.discard) + len(state.candidates) == NUM_CARDS
        if previous is not None and previous[0] is not None:
            lives, level, x, phase = previous[1:]
            assert state.lives in (lives, lives - 1) and state.level_index in (level, level + 1)
            if phase == GUESS:
                assert state.x == (x + 1) % n or state.phase == OVER
                passed = state.level_index == level + 1
                assert state.lives == lives if passed else (state.lives == lives - 1 or state.outcome == -1)
            else:
                assert state.x == x and state.level_index == level
        if state.phase == CLUE:
            assert state.letters(state.current) + state.clue_letters[state.current] >= 2
        previous = (action, state.lives, state.level_index, state.x, state.phase)
        if action is None:
            assert state.phase == OVER and state.returns()[0] == state.outcome != 0
            assert (state.outcome == 1) == (state.level_index == 6)
            previous = None


# --- hidden information ----------------------------------------------------------------------------------
@cache
def _observer(game: KrzGrtnGame, omniscient: bool) -> KrzGrtnObserver:
    return KrzGrtnObserver(game, omniscient)


def encode(state, seat: int, omniscient: bool = False) -> np.ndarray:
    return _observer(state.game, omniscient).encode(state, seat)


def _same_views(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k] for k in a)


def _perturb_and_compare(state, changed_seat: int, observers: list[int], rng, how: str) -> bool:
    other = state.clone()
    changed = (
        lengthen_clue(other, changed_seat, rng)
        if how == "lengthen"
        else swap_letters(other, changed_seat, rng, in_clue=how == "clue")
    )
    if not changed:
        return False
    other.deck = list(rng.permutation(other.deck))  # deck order is nobody's knowledge
    other.check_conservation()
    for seat in observers:
        assert np.array_equal(encode(state, seat), encode(other, seat))
        assert _same_views(state.view(seat), other.view(seat))
    assert not np.array_equal(  # the omniscient encoding does see the change
        encode(state, observers[0], omniscient=True), encode(other, observers[0], omniscient=True)
    )
    return True


@pytest.mark.parametrize("n", [3, 5])
def test_a_seat_does_not_see_other_screens_clues_in_progress_bag_or_deck(n):
    rng = np.random.default_rng(n)
    clue_checks = screen_checks = 0
    for state, _ in random_states(n, games=20, seed=200 + n):
        if state.phase == OVER:
            continue
        seat = int(rng.integers(n))
        observers = [p for p in range(n) if p != seat]
        screen_checks += _perturb_and_compare(state, seat, observers, rng, "screen")
        if state.phase == CLUE:  # clues are hidden until all are laid
            clue_checks += _perturb_and_compare(state, seat, observers, rng, "clue")
            clue_checks += _perturb_and_compare(state, seat, observers, rng, "lengthen")
    assert clue_checks > 100 and screen_checks > 500


@pytest.mark.parametrize("n", [2, 4, 6])
def test_x_cannot_tell_which_picture_is_the_target(n):
    checks = 0
    for state, _ in random_states(n, games=20, seed=300 + n):
        if state.target < 0 or state.phase == OVER:
            continue
        other = state.clone()
        if state.phase == GUESS:  # the target is another of the laid-out pictures
            other.target_position = (state.target_position + 1) % len(state.candidates)
            other.target = other.candidates[other.target_position]
        else:  # a different card is the target
            swap = other.deck.pop()
            other.deck.append(other.target // 2)
            other.target = 2 * swap
            other.candidates = [other.target]
        other.check_conservation()
        assert np.array_equal(encode(state, state.x), encode(other, state.x))
        assert _same_views(state.view(state.x), other.view(state.x))
        giver = (state.x + 1) % n
        assert not np.array_equal(encode(state, giver), encode(other, giver))
        checks += 1
    assert checks > 300


def test_views_hold_only_what_the_seat_knows():
    game = KrzGrtnGame(num_players=3)
    state = game.new_initial_state(np.random.default_rng(0))
    x_view, giver_view = state.view(0), state.view(1)
    assert x_view["role"] == "X" and x_view["target"] is None and "supplies" not in x_view
    assert giver_view["role"] == "giver" and giver_view["target"] == state.target
    assert "bag" not in giver_view and "deck" not in giver_view and "all_clues" not in giver_view

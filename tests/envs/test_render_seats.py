"""Seat renders (`Renderer.ansi(state, seat)`) show what the seat may know and nothing more: they ignore
the facts each game's hidden-information tests redraw, and show the seat's own hand; the full render
(`seat=None`) does show those facts. `tabletop play` draws the human's table this way."""

from __future__ import annotations

import numpy as np
from support.chromino import hide_differently
from support.cromlet import random_states as cromlet_states
from support.kings_cribbage import perturbed
from support.krz_grtn import lengthen_clue, swap_letters
from support.krz_grtn import random_states as krz_states

from tabletop.envs import definition
from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.cromlet.rules import CromletGame
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.krz_grtn.rules import CLUE, GUESS, OVER
from tabletop.envs.krz_grtn.tiles import counts_string


def _random_play(game, seed: int, games: int):
    """Every state along `games` seeded random games."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            yield state
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


def _ansi(state, seat: int | None = None) -> str:
    """The game's text render of `state` for `seat` (everything for None)."""
    return definition(state.game.name).renderer(state.game).ansi(state, seat)


def _check(state, other, seat: int) -> bool:
    """The seat's render is unchanged by the redraw; True if the full render saw it."""
    assert _ansi(other, seat) == _ansi(state, seat)
    return _ansi(other) != _ansi(state)


def test_cromlet_seat_render_shows_own_hand_only():
    game = CromletGame(num_players=3)
    rng = np.random.default_rng(2)
    seen = 0
    for state in cromlet_states({"num_players": 3}, 60, seed=2):
        me = state.current_player
        other_seat = (me + 1) % 3
        data = state.to_json()
        assert f"hand: {' '.join(data['hands'][me]) or '-'}" in _ansi(state, me)
        pool = data["hands"][other_seat] + data["deck"]
        rng.shuffle(pool)
        size = len(data["hands"][other_seat])
        data["hands"][other_seat], data["deck"] = pool[:size], pool[size:]
        seen += _check(state, game.state_from_json(data), me)
    assert seen > 30


def test_chromino_seat_render_shows_own_hand_only():
    game = ChrominoGame(num_players=3)
    rng = np.random.default_rng(9)
    seen = compared = 0
    for state in _random_play(game, seed=9, games=2):
        for seat in range(3):
            hand = " ".join(T.tile_name(t) for t in state.hands[seat]) or "-"
            assert f"hand P{seat}: {hand}" in _ansi(state, seat)
            seen += _check(state, hide_differently(state, seat, rng), seat)
            compared += 1
    assert compared > 100 and seen > compared // 2


def test_kings_cribbage_seat_render_shows_own_rack_only():
    game = KingsCribbageGame(num_players=3)
    rng = np.random.default_rng(8)
    seen = compared = 0
    for state in _random_play(game, seed=8, games=1):
        full = _ansi(state).splitlines()
        for seat in range(3):
            text = _ansi(state, seat)
            own = next(line for line in full if f"player_{seat}:" in line)
            assert own in text.splitlines() and text.count(" tiles") == 3  # two rack sizes and the bags
            other = perturbed(state, seat, rng)
            if other is not None and not other.is_terminal():
                seen += _check(state, other, seat)
                compared += 1
    assert compared > 50 and seen > compared // 2


def test_krz_grtn_seat_render_hides_other_screens_clues_in_progress_and_the_target_from_x():
    n = 4
    rng = np.random.default_rng(n)
    screens = clues = targets = 0
    for state, _ in krz_states(n, games=10, seed=200 + n):
        if state.phase == OVER:
            continue
        seat = int(rng.integers(n))
        assert f"letters {counts_string(state.supply[seat]) or '-':<10}" in _ansi(state, seat)
        for how in ("screen", "clue", "lengthen") if state.phase == CLUE else ("screen",):
            other = state.clone()
            if how == "lengthen":
                changed = lengthen_clue(other, seat, rng)
            else:
                changed = swap_letters(other, seat, rng, in_clue=how == "clue")
            if not changed:
                continue
            other.deck = list(rng.permutation(other.deck))
            for observer in (p for p in range(n) if p != seat):
                assert _ansi(other, observer) == _ansi(state, observer)
            assert _ansi(other) != _ansi(state)
            screens += how == "screen"
            clues += how != "screen"
        if state.target >= 0:  # another picture (or card) as the target: X cannot tell, a giver can
            other = state.clone()
            if state.phase == GUESS:
                other.target_position = (state.target_position + 1) % len(state.candidates)
                other.target = other.candidates[other.target_position]
            else:
                swap = other.deck.pop()
                other.deck.append(other.target // 2)
                other.target, other.candidates = 2 * swap, [2 * swap]
            assert _check(state, other, state.x)
            assert _ansi(other, (state.x + 1) % n) != _ansi(state, (state.x + 1) % n)
            targets += 1
    assert screens > 200 and clues > 50 and targets > 200

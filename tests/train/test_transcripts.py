"""Seat-true transcripts: `Renderer.describe(state, action, seat)` tells a seat exactly what it may learn of
another seat's move ("Every interface shows a seat only what that seat may know", docs/transcripts.md).

The check is the same for every game: within one position, two moves get the same line for a seat
exactly when that seat cannot tell them apart afterwards (its `view` after the move is the same). So a
line never carries what the view hides (which letter went into a clue, which tile was set aside), and
never hides what the view shows (a placement, a guess, how many tiles were exchanged)."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from tabletop.envs import EnvSpec, definition
from tabletop.train.serving import play

CASES = {
    "cromlet_v0": {"num_players": 3},
    "chromino_v1": {"num_players": 3},
    "kings_cribbage_v0": {"num_players": 3, "board_size": 7},  # a small board: players run out of moves and exchange
    "krz_grtn_v1": {"num_players": 4},
}
ACTIONS_PER_STATE = 12
"""Legal actions compared in each position (all of them where there are fewer)."""
PRIVATE_MOVES = {  # a kind of move each game hides from the other seats, as action_to_string begins
    "chromino_v1": "take ",
    "kings_cribbage_v0": "choose ",
    "krz_grtn_v1": "add ",
}


def _seen(view) -> str:
    """A view as canonical text, so two views compare equal exactly when they hold the same facts."""
    return json.dumps(view, sort_keys=True, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))


def _positions(spec: EnvSpec, games: int, seed: int):
    """Every position along `games` seeded random games."""
    game, rng = spec.new_game(), np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            yield state
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


@pytest.mark.parametrize("env_id", CASES)
def test_a_line_shows_a_seat_what_its_view_shows_and_nothing_more(env_id):
    spec = EnvSpec(env_id, CASES[env_id])
    renderer = definition(env_id).renderer(spec.new_game())
    rng = np.random.default_rng(17)
    hidden = compared = 0
    for state in _positions(spec, games=3, seed=5):
        legal = np.flatnonzero(state.legal_action_mask())
        actions = [int(a) for a in rng.choice(legal, min(len(legal), ACTIONS_PER_STATE), replace=False)]
        mover = state.current_player
        after = {}
        for a in actions:
            full = renderer.describe(state, a, None)  # everything: the rulebook's words, with any public detail
            assert full.startswith(state.action_to_string(a)) and renderer.describe(state, a, mover) == full
            moved = state.clone()
            moved.apply(a)
            after[a] = moved
        for seat in (s for s in range(spec.new_game().num_players) if s != mover):
            lines = {a: renderer.describe(state, a, seat) for a in actions}
            views = {a: _seen(after[a].view(seat)) for a in actions}
            for i, a in enumerate(actions):
                for b in actions[i + 1 :]:
                    same_view, same_line = views[a] == views[b], lines[a] == lines[b]
                    assert same_view == same_line, (
                        f"{seat=}: {state.action_to_string(a)!r} -> {lines[a]!r}, {state.action_to_string(b)!r} -> "
                        f"{lines[b]!r}, views {'equal' if same_view else 'differ'}"
                    )
                    hidden += same_line and state.action_to_string(a) != state.action_to_string(b)
                    compared += 1
    assert compared > 500
    if env_id in PRIVATE_MOVES:  # the game has private moves, and the check met many of them
        assert hidden > 100, hidden
    else:
        assert hidden == 0  # Cromlet: every move is public, every line is the rulebook's


@pytest.mark.parametrize("env_id", PRIVATE_MOVES)
def test_private_moves_read_as_an_onlooker_sees_them(env_id):
    """Each game's private move, as another seat reads it (docs/transcripts.md lists them)."""
    spec = EnvSpec(env_id, CASES[env_id])
    renderer = definition(env_id).renderer(spec.new_game())
    expected = {
        "chromino_v1": "take a tile to lay it",
        "kings_cribbage_v0": "choose a tile for the exchange",
        "krz_grtn_v1": None,
    }
    seen = 0
    for state in _positions(spec, games=3, seed=8):
        seat = (state.current_player + 1) % state.game.num_players
        for a in np.flatnonzero(state.legal_action_mask()):
            if state.action_to_string(a).startswith(PRIVATE_MOVES[env_id]):
                assert renderer.describe(state, a, seat) == expected[env_id]
                seen += 1
    assert seen > 50


def test_krz_grtn_letters_put_back_are_not_named():
    spec = EnvSpec("krz_grtn_v1", {"num_players": 4})
    renderer = definition("krz_grtn_v1").renderer(spec.new_game())
    returns = 0
    for state in _positions(spec, games=12, seed=3):
        for a in np.flatnonzero(state.legal_action_mask()):
            if state.action_to_string(a).startswith("return "):
                assert renderer.describe(state, a, (state.current_player + 1) % 4) == "return a letter to the middle"
                returns += 1
    assert returns > 0


def test_cromlet_trade_in_names_the_cards_that_go_face_up():
    """Trading in is public, and so are the dead cards traded: they land face up on the discard pile."""
    spec = EnvSpec("cromlet_v0", CASES["cromlet_v0"])
    renderer = definition("cromlet_v0").renderer(spec.new_game())
    trades = 0
    for state in _positions(spec, games=8, seed=2):
        mover = state.current_player
        for a in np.flatnonzero(state.legal_action_mask()):
            words = state.action_to_string(a)
            if words.startswith("trade in"):
                after = state.clone()
                after.apply(int(a))
                names = after.to_json()["discards"][mover][len(state.discards[mover]) :]
                assert len(names) == (1 if "one" in words else 2)
                line = renderer.describe(state, int(a), (mover + 1) % 3)
                assert line == f"{words}: {' '.join(names)} face up on the discard pile"
                trades += 1
    assert trades > 10


@pytest.mark.parametrize("env_id, seat", [("krz_grtn_v1", 1), ("kings_cribbage_v0", 0), ("chromino_v1", 2)])
def test_play_prints_other_seats_moves_as_the_humans_seat_sees_them(env_id, seat):
    """A whole `tabletop play` game: no line about another seat names what that seat keeps private."""
    out = io.StringIO()
    play.play(EnvSpec(env_id, CASES[env_id]), "random", seat=seat, seed=4, lines=io.StringIO("1\n" * 5000), out=out)
    others = re.findall(rf"^player_(?!{seat} )\d+ \(random\): (.*)$", out.getvalue(), flags=re.M)
    assert others
    private = {
        "krz_grtn_v1": r"^add |^return [A-Z] ",
        "kings_cribbage_v0": r"^choose (light|dark) ",
        "chromino_v1": r"^take [A-Z*]{3} ",
    }[env_id]
    assert not [line for line in others if re.search(private, line)]

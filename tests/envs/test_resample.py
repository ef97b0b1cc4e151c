"""`State.resample(seat, rng)` (determinization) for every game: the contract along random games, and on small
positions the hidden parts drawn against their exact distribution (chi-square, level 0.001: the statistic must
stay below the 0.999 quantile; seeds are fixed, so the outcome is deterministic).

Contract, for each configuration (the game parameters of tests/envs/test_contract.py's CONFIGS; adapter-only
options such as observation modes change no rule): along one seeded random game, at every few positions and
for each seat, the resample shows that seat the same view, loads through the saved-state validator, is the
same under the same seed (and the same from any world the seat cannot tell apart: the draw reads only what the
seat knows), and (at a few positions) plays on legally to the end under random play; over the
game the hidden parts differ from the true state at least once.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop import envs
from tabletop.envs.testing import random_game

GAME_CONFIGS: dict[str, list[dict]] = {
    "cromlet_v0": [{}, {"num_players": 6}, {"num_players": 4, "teams": 2}, {"num_players": 6, "teams": 3}],
    "chromino_v1": [
        {},
        {"variant": "junior"},
        {"variant": "expert", "num_players": 8},
        {"variant": "solo", "num_players": 1},
        {"num_players": 8},
        {"variant": "expert", "grid_size": 15, "hand_size": 5, "out_bonus": 5, "tile_penalty": 3},
    ],
    "kings_cribbage_v0": [
        {},
        {"num_players": 4},
        {"variant": "solitaire"},
        {"board_size": 5},
        {"board_size": 5, "stall_rounds": 1},
        {"action_mode": "moves", "max_moves": 3, "board_size": 5, "num_players": 4},
        {"action_mode": "moves", "variant": "solitaire"},
    ],
    "krz_grtn_v1": [
        {},
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 6},
        {"blanks_per_player": 0, "levels": [3, 4, 5, 5, 6, 6], "lives": 2},
        {"lives": 0},
        {"level_candidates": [3, 4, 5, 6, 7, 12]},
    ],
}
CASES = [(env_id, config) for env_id, configs in GAME_CONFIGS.items() for config in configs]
STRIDE = {"cromlet_v0": 3, "chromino_v1": 3, "kings_cribbage_v0": 5, "krz_grtn_v1": 6}  # positions checked: every k-th
PLAY_ON = 2  # positions per game from which a resample is played to the end


def _game(env_id: str, **config):
    return envs.make_raw(env_id, **config).game


def _same_view(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert np.array_equal(np.asarray(x), np.asarray(y)), key
        else:
            assert x == y, key


def _hidden(state) -> dict:
    """The JSON form less the generator (which every resample replaces)."""
    data = state.to_json()
    data.pop("rng", None)
    return data


def _play_out(state, rng: np.random.Generator) -> None:
    while not state.is_terminal():
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


@pytest.mark.parametrize(("env_id", "config"), CASES, ids=[f"{e}-{c}" for e, c in CASES])
def test_resample_contract(env_id, config):
    game = _game(env_id, **config)
    states = [s.clone() for s in random_game(envs.EnvSpec(env_id, config), seed=7)][:: STRIDE[env_id]]
    rng = np.random.default_rng(11)
    varied = 0
    played = set(np.linspace(0, len(states) - 1, PLAY_ON).astype(int).tolist())
    for i, state in enumerate(states):
        before = _hidden(state)
        for seat in range(game.num_players):
            seed = int(rng.integers(2**32))
            sample = state.resample(seat, np.random.default_rng(seed))
            _same_view(sample.view(seat), state.view(seat))
            game.state_from_json(sample.to_json())  # the saved-state validator accepts it
            assert _hidden(state.resample(seat, np.random.default_rng(seed))) == _hidden(sample)  # seeded: same
            again = sample.resample(seat, np.random.default_rng(seed))  # a world the seat cannot tell apart
            assert _hidden(again) == _hidden(sample), "the draw read something the seat does not know"
            varied += _hidden(sample) != before
            if i in played and seat == 0:
                _play_out(sample, rng)
        assert _hidden(state) == before, "resample changed the state it was drawn from"
    one_player = game.num_players == 1
    assert varied or one_player and env_id != "chromino_v1", "every resample was the true state"


# --- the exact distributions -------------------------------------------------------------------------------
def _chi_square(observed: dict, expected: dict, samples: int) -> tuple[float, int]:
    """Pearson's statistic and the degrees of freedom; every observed outcome must have positive probability."""
    assert set(observed) <= set(expected), f"impossible outcomes drawn: {set(observed) - set(expected)}"
    stat = sum((observed.get(k, 0) - samples * p) ** 2 / (samples * p) for k, p in expected.items())
    return stat, len(expected) - 1


def _check(observed: dict, expected: dict, samples: int) -> None:
    stats = pytest.importorskip("scipy.stats", reason="scipy (not a declared dependency) gives the chi-square quantile")
    total = sum(expected.values())
    expected = {k: v / total for k, v in expected.items()}
    stat, df = _chi_square(observed, expected, samples)
    print(f"chi-square {stat:.1f}, {df} degrees of freedom, 0.999 quantile {stats.chi2.ppf(0.999, df):.1f}")
    assert stat < stats.chi2.ppf(0.999, df), f"chi-square {stat:.1f} with {df} degrees of freedom"


def _counts(values) -> dict:
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def test_cromlet_mover_hand_holds_a_live_card_once_the_deck_is_out():
    """3 players, deck empty: the hidden mover's hand is uniform over the deals of the unseen cards that leave
    it a live card (an all-dead hand would have ended the game)."""
    from itertools import combinations

    from tabletop.envs.cromlet import board as B
    from tabletop.envs.cromlet.resample import unseen_cards

    game = _game("cromlet_v0", num_players=3, hand_size=3)
    rng = np.random.default_rng(0)
    state = game.new_initial_state(rng)
    while state.deck or state.hand_sizes[state.current_player] < 3:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    mover = state.current_player
    seat = (mover + 1) % 3
    pool = np.repeat(np.arange(B.NUM_CIRCLES + 1), unseen_cards(state, seat)).tolist()
    live = {c for c in pool if c == B.WILD or state.open_[c]}
    expected: dict = {}
    for hand in combinations(range(len(pool)), 3):
        cards = tuple(sorted(pool[i] for i in hand))
        if live & set(cards):
            expected[cards] = expected.get(cards, 0) + 1
    assert len(expected) < len(set(combinations(sorted(pool), 3))), "the constraint rules nothing out here"
    samples = 800
    draws = [state.resample(seat, rng) for _ in range(samples)]
    observed = _counts(tuple(int(c) for c in np.repeat(np.arange(B.NUM_CIRCLES + 1), d.hands[mover])) for d in draws)
    _check(observed, expected, samples)


def test_chromino_drawn_tile_and_the_hand_before_the_draw():
    """A hidden mover that drew: its other tiles fit nowhere (else it could not draw), and the drawn tile is
    uniform over the unseen tiles those leave: P(t) = 1/(N-h) for a tile that fits, (B-h)/B/(N-h) for one that
    does not (N unseen tiles, B of them fit nowhere, h tiles held before the draw)."""
    from tabletop.envs.chromino.actions import DRAWN
    from tabletop.envs.chromino.resample import fitting_choices

    game = _game("chromino_v1")
    rng = np.random.default_rng(3)
    state = game.new_initial_state(rng)
    while state.phase != DRAWN or len(state.hands[state.current]) < 3:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    mover, seat = state.current, 1 - state.current
    fits = set(fitting_choices(state)[:, 0].tolist())
    unseen = set(range(80)) - set(state.hands[seat]) - {p.tile for p in state.placements}
    n, h = len(unseen), len(state.hands[mover]) - 1
    b = len(unseen - fits)
    expected = {t: (1 / (n - h) if t in fits else (b - h) / b / (n - h)) for t in unseen}
    samples = 3000
    draws = [state.resample(seat, rng) for _ in range(samples)]
    for d in draws[:200]:
        assert not fits & (set(d.hands[mover]) - {d.drawn})
    _check(_counts(d.drawn for d in draws), expected, samples)
    assert len({tuple(d.hands[mover]) for d in draws}) > 1


def test_kings_cribbage_hidden_rack_is_hypergeometric():
    """Standard 2 players, the seat to move resampling: the other rack is 5 uniform unseen tiles, so its count of
    light tiles is hypergeometric. Solitaire: the own bag's contents are known (only its order is drawn), the
    other rack holds the other colour only."""
    from math import comb

    from tabletop.envs.kings_cribbage.resample import unseen_tiles

    game = _game("kings_cribbage_v0")
    rng = np.random.default_rng(5)
    state = game.new_initial_state(rng)
    for _ in range(6):
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    while state.pending or state.marked:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    seat = state.current_player
    pool = unseen_tiles(state, seat)[0]
    light = sum(c for k, c in pool.items() if k < 13)
    total = sum(pool.values())
    expected = {k: comb(light, k) * comb(total - light, 5 - k) for k in range(6)}
    samples = 400
    draws = [state.resample(seat, rng) for _ in range(samples)]
    _check(_counts(sum(k < 13 for k in d.racks[1 - seat]) for d in draws), expected, samples)

    game = _game("kings_cribbage_v0", variant="solitaire")
    state = game.new_initial_state(np.random.default_rng(1))
    for d in (state.resample(0, np.random.default_rng(s)) for s in range(20)):
        assert sorted(d.bags[0]) == sorted(state.bags[0]) and all(k >= 13 for k in d.racks[1] + d.bags[1])


def test_krz_grtn_target_and_letters_for_x():
    """X before the layout: the target is a uniform unseen picture (grouped in 8 bins of the unseen cards) with a
    uniform side; another player's count of its most common unseen letter is hypergeometric. During the guess:
    the target is a uniform laid-out picture."""
    from math import comb

    from tabletop.envs.krz_grtn.phases import CLUE, GUESS
    from tabletop.envs.krz_grtn.resample import unseen_letters

    game = _game("krz_grtn_v1", num_players=3)
    rng = np.random.default_rng(2)
    state = game.new_initial_state(rng)
    while state.phase != CLUE:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    x, giver = state.x, state.givers()[0]
    cards = sorted(state.deck + [state.target // 2])
    bins = {c: i * 8 // len(cards) for i, c in enumerate(cards)}
    letters = unseen_letters(state, x)
    kind, total, owned = int(np.argmax(letters)), int(letters.sum()), state.owned_letters(giver)
    samples = 1000
    draws = [state.resample(x, rng) for _ in range(samples)]
    _check(_counts(bins[d.target // 2] for d in draws), _counts(bins.values()), samples)
    _check(_counts(d.target % 2 for d in draws), {0: 1, 1: 1}, samples)
    held = _counts(int(d.supply[giver, kind]) + d.clues[giver].count(kind) for d in draws)
    most = min(owned, int(letters[kind]))
    _check(
        held,
        {k: comb(int(letters[kind]), k) * comb(total - int(letters[kind]), owned - k) for k in range(most + 1)},
        samples,
    )

    while state.phase != GUESS:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    draws = [state.resample(state.x, rng) for _ in range(300)]
    _check(_counts(d.target_position for d in draws), dict.fromkeys(range(len(state.candidates)), 1), 300)
    assert all(d.candidates[d.target_position] == d.target for d in draws)

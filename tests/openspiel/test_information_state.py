"""The information-state tensor: perfect recall of what a seat saw and did, as distinct as the information-state
string, offered where its size stays within the limit and refused with a one-line reason elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra is not installed (pip install tabletop-rl[openspiel])"
)

from open_spiel.python.observation import make_observation  # noqa: E402

from tabletop.envs.openspiel import SMALL, load  # noqa: E402
from tabletop.envs.openspiel.game import RECALL, RECALL_LIMIT, configuration  # noqa: E402

PERFECT_RECALL = pyspiel.IIGObservationType(perfect_recall=True)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"


def random_decisions(game: pyspiel.Game, seed: int):
    """Every decision state of one random game."""
    rng, state = np.random.default_rng(seed), game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0])
        else:
            yield state
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


def with_tensor(name: str) -> pyspiel.Game:
    return load(name, {RECALL: True})


@pytest.mark.parametrize("name", list(SMALL))
def test_every_small_variant_has_the_tensor_when_asked(name):
    game = with_tensor(name)
    assert configuration(game).recall_size <= RECALL_LIMIT, configuration(game).no_recall_tensor()
    assert game.get_type().provides_information_state_tensor


def test_the_tensor_is_off_unless_asked_and_then_says_how():
    """Off by default: OpenSpiel's TabularPolicy (CFR) would keep a tensor per information state."""
    game = load("chromino_small")
    assert not game.get_type().provides_information_state_tensor
    with pytest.raises(ValueError, match=f"loaded with {RECALL}=True"):
        game.new_initial_state().information_state_tensor(0)


@pytest.mark.parametrize("name", list(SMALL))
def test_the_tensor_is_the_seat_and_its_observation_and_own_action_after_every_step(name):
    """Along a random game, each seat's tensor holds its seat, a flag per settled step, the seat to move after it,
    its own actions in the rows of the steps they made and its observation after every step so far; the rows past
    the last step are empty."""
    game = with_tensor(name)
    if not game.get_type().provides_information_state_tensor:
        pytest.skip(f"{name} has no information-state tensor")
    ours = configuration(game)
    seats, rows = game.num_players(), ours.max_steps
    actions, width = game.num_distinct_actions(), game.observation_tensor_size()
    assert game.information_state_tensor_size() == ours.recall_size == seats + rows * (1 + seats + actions + width)
    assert ours.recall_size <= RECALL_LIMIT
    seen: list[list[list[float]]] = [[] for _ in range(seats)]
    own: list[dict[int, int]] = [{} for _ in range(seats)]
    movers: list[int] = []  # the seat to move after each settled step
    rng, state = np.random.default_rng(3), game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0])
            continue
        for seat in range(seats):
            seen[seat].append(state.observation_tensor(seat))
            tensor = np.asarray(state.information_state_tensor(seat), dtype=np.float32)
            seat_piece, tensor = np.split(tensor, [seats])
            step, to_move, acted, views = np.split(tensor, [rows, rows * (1 + seats), rows * (1 + seats + actions)])
            to_move, acted, views = (
                to_move.reshape(rows, seats),
                acted.reshape(rows, actions),
                views.reshape(rows, width),
            )
            taken = len(seen[seat])
            assert seat_piece.tolist() == [float(s == seat) for s in range(seats)]
            assert step.tolist() == [1.0] * taken + [0.0] * (rows - taken)
            assert {int(r): int(s) for r, s in zip(*np.nonzero(to_move), strict=True)} == dict(
                enumerate([*movers, state.current_player()])
            )
            assert {int(r): int(a) for r, a in zip(*np.nonzero(acted), strict=True)} == own[seat]
            np.testing.assert_array_equal(views[:taken], np.asarray(seen[seat], dtype=np.float32))
            assert not views[taken:].any()
        mover, legal = state.current_player(), state.legal_actions()
        movers.append(mover)
        action = legal[rng.integers(len(legal))]
        own[mover][len(seen[mover])] = action  # the row of the step this action makes
        state.apply_action(action)


def test_the_openspiel_tensor_is_the_python_observers():
    game = with_tensor("chromino_small")
    observer = make_observation(game, PERFECT_RECALL)
    for state in random_decisions(game, seed=1):
        for seat in range(game.num_players()):
            observer.set_from(state, seat)
            np.testing.assert_array_equal(state.information_state_tensor(seat), observer.tensor)


@pytest.mark.parametrize("name", ["tabletop_cromlet_v0", "tabletop_chromino_v1", "tabletop_kings_cribbage_v0"])
def test_a_game_over_the_limit_says_why_it_has_no_tensor(name):
    with pytest.raises(ValueError, match=f"over the limit of {RECALL_LIMIT:,}"):
        pyspiel.load_game(name, {RECALL: True})
    game = pyspiel.load_game(name)
    assert not game.get_type().provides_information_state_tensor
    assert configuration(game).recall_size > RECALL_LIMIT
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="no information_state_tensor") as raised:
        state.information_state_tensor(0)
    message = str(raised.value)
    assert "\n" not in message and f"{RECALL_LIMIT:,}" in message and "information_state_string" in message
    with pytest.raises(ValueError, match="no information_state_tensor"):
        game.information_state_tensor_size()
    assert state.information_state_string(0)


def test_the_documented_tensor_sizes_are_the_games():
    section = DOCS.read_text().split("### The information-state tensor", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([\d,]+) \| ([\d,]+) \| (yes|no) \|$", section, re.MULTILINE)
    assert len(rows) >= 5
    for name, steps, values, provided in rows:
        ours = configuration(load(name))
        documented = (int(steps.replace(",", "")), int(values.replace(",", "")), provided == "yes")
        assert (ours.max_steps, ours.recall_size, ours.recall_size <= RECALL_LIMIT) == documented


def test_a_game_loaded_without_the_tensor_leaves_nothing_behind_for_one_loaded_with_it():
    """The two loads of a variant keep separate records of what each history settles to: one walked first without
    the tensor must not hand its step-less records to the other."""
    for _ in random_decisions(load("chromino_small"), seed=5):
        pass
    game = with_tensor("chromino_small")
    seats, rows = game.num_players(), configuration(game).max_steps
    for taken, state in enumerate(random_decisions(game, seed=5), start=1):
        steps = np.asarray(state.information_state_tensor(0))[seats : seats + rows]
        assert steps.sum() == taken  # the deal and every decision so far

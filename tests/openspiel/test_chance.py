"""The chance source's two faces: the seeded one makes the generator's own calls and records the outcomes as the
explicit one asks for them; the explicit one plays them back and asks for the next with exact probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.envs.core.chance import ChanceNeeded, ExplicitChance, SeededChance


def outcomes_of(play) -> list:
    with pytest.raises(ChanceNeeded) as wanted:
        play(ExplicitChance())
    return wanted.value.outcomes


def test_a_draw_is_uniform_over_the_cards_left_by_kind():
    assert outcomes_of(lambda c: c.draw([3, 1, 3, 3])) == [(1, 0.25), (3, 0.75)]
    deck = [3, 1, 3, 3]
    assert ExplicitChance([3]).draw(deck) == 3 and sorted(deck) == [1, 3, 3]


def test_reveal_fixes_the_next_cards_without_touching_the_given_deck():
    deck = np.array([0, 1, 2, 2])
    fixed = ExplicitChance([2, 1]).reveal(deck, 1, 2)
    assert fixed.tolist() == [0, 2, 1, 2] and deck.tolist() == [0, 1, 2, 2]
    assert outcomes_of(lambda c: c.reveal(deck, 1, 1)) == [(1, 1 / 3), (2, 2 / 3)]


def test_letters_are_drawn_one_by_one_in_proportion_to_the_bag():
    bag = np.array([2, 0, 1])
    assert outcomes_of(lambda c: c.hypergeometric(bag, 2)) == [(0, 2 / 3), (2, 1 / 3)]
    assert ExplicitChance([2, 0]).hypergeometric(bag, 2).tolist() == [1, 0, 1]


@pytest.mark.parametrize("seed", range(5))
def test_the_seeded_face_records_what_the_explicit_face_replays(seed):
    recorded: list[int] = []
    seeded = SeededChance(np.random.default_rng(seed), recorded)
    deck = [int(c) for c in seeded.shuffled(6)]
    results = [seeded.draw(deck), seeded.integers(2, 5), seeded.permutation(4).tolist()]
    results.append(seeded.hypergeometric(np.array([2, 1, 3]), 3).tolist())
    explicit = ExplicitChance(recorded)
    replayed = [explicit.draw(list(range(6))), explicit.integers(2, 5), explicit.permutation(4).tolist()]
    replayed.append(explicit.hypergeometric(np.array([2, 1, 3]), 3).tolist())
    assert replayed == results and explicit.used == len(recorded)


def test_the_seeded_face_makes_the_generators_own_calls():
    rng, twin = np.random.default_rng(7), np.random.default_rng(7)
    chance = SeededChance(rng)
    assert chance.shuffled(10).tolist() == twin.permutation(10).tolist()
    assert chance.integers(1, 9) == int(twin.integers(1, 9))
    assert chance.hypergeometric(np.array([3, 4]), 2).tolist() == twin.multivariate_hypergeometric([3, 4], 2).tolist()

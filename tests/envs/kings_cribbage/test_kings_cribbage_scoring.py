"""Crib hand scoring: the rulebook's table and the rulings' examples (the oracle check is in test_kings_cribbage_oracle)."""

import pytest

from tabletop.envs.kings_cribbage.scoring import contributing_tiles, is_valid_hand, score_crib_hand

A, J, Q, K = 1, 11, 12, 13


@pytest.mark.parametrize(
    "ranks, points",
    [
        ((7, 8), 2),  # fifteen
        ((5, K), 2),  # face tiles count 10 for fifteens
        ((A, 4, J), 2),  # ace counts 1: A+4+J = 15
        ((3, 4, 5), 3),  # run of 3 (3+4+5 = 12, no fifteen)
        ((2, 3, 4, 5), 4),  # run of 4, not the two runs of 3 inside it
        ((9, 10, J, Q, K), 5),  # run of 5 scores 5, not the runs of 3 and 4 inside it
        ((6, 6), 2),  # one pair
        ((6, 6, 6), 6),  # three of a kind = 3 pairs
        ((2, 2, 2, 2), 12),  # four of a kind = 6 pairs
        ((7, 7, 7, 7, 7), 20),  # five of a kind = 10 pairs (plus no fifteen: 7s never make 15)
        ((3, 3, 4, 5), 10),  # two runs of three, a pair, one fifteen
    ],
)
def test_table_examples(ranks, points):
    assert score_crib_hand(ranks) == points


def test_combined_examples():
    assert score_crib_hand([4, 5, 6]) == 3 + 2  # run of 3, 4+5+6 = 15
    assert score_crib_hand([5, 5, 5, 5, J]) == 12 + 8 * 2  # four 5s: 6 pairs; fifteens: 5+5+5 (4) and 5+J (4)
    assert score_crib_hand([3, 3, 4, 5]) == 10
    assert score_crib_hand([7, 7, 7, 7, 7]) == 20


def test_every_tile_must_contribute():
    assert not is_valid_hand([6, 7, 8, 9, Q])  # Q scores nothing
    assert contributing_tiles([6, 7, 8, 9, Q]) == (True, True, True, True, False)
    assert not is_valid_hand([4, 5, 6, 8])  # the 8 scores nothing
    assert is_valid_hand([4, 5, 6])
    assert is_valid_hand([6, 7, 8, 9])  # run of 4, 6+9, 7+8
    assert not is_valid_hand([A, 2])
    assert is_valid_hand([7, 7, 7, 7, 7])


def test_orientation_and_order_do_not_matter():
    assert score_crib_hand([5, 3, 4, 3]) == score_crib_hand([3, 3, 4, 5])


@pytest.mark.parametrize("bad", [[5], [1, 2, 3, 4, 5, 6], [0, 5], [14, 1], [5.0, 10]])
def test_bad_hands_raise(bad):
    with pytest.raises(ValueError):
        score_crib_hand(bad)

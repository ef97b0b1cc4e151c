"""Scoring a crib hand (2-5 tiles in one line) and the rule that every tile in it must contribute.

Standard cribbage counting without the bonuses: 2 per distinct combination of tiles summing to 15 (J, Q, K
count 10, A counts 1); 2 per pair of equal ranks; each maximal run of 3-5 consecutive ranks scores its
length once per distinct combination of tiles (3-3-4-5 holds two runs of three), and a run never scores the
shorter runs inside it. Ranks are 1 (A) .. 13 (K) with no wrap-around; order on the board is irrelevant.

Move generation looks hands up by a *key*: the product of one prime per rank, which identifies a multiset of
ranks and can be extended tile by tile with one multiplication.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from envs.kings_cribbage.tiles import NUM_RANKS, face_value

MIN_HAND, MAX_HAND = 2, 5
PRIMES = (0, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)  # PRIMES[rank], rank 1..13
INVALID = -1


def _check(ranks: Sequence[int]) -> None:
    if not MIN_HAND <= len(ranks) <= MAX_HAND:
        raise ValueError(f"a crib hand has {MIN_HAND}-{MAX_HAND} tiles, got {len(ranks)}")
    if any(not isinstance(r, int) or not 1 <= r <= NUM_RANKS for r in ranks):
        raise ValueError(f"ranks must be ints 1 (A) .. 13 (K), got {list(ranks)}")


def _fifteen_masks(ranks: Sequence[int]) -> list[int]:
    """Bit masks (over tile positions) of every combination of tiles summing to 15."""
    values = [face_value(r) for r in ranks]
    masks = []
    for mask in range(1, 1 << len(ranks)):
        if sum(v for i, v in enumerate(values) if mask >> i & 1) == 15:
            masks.append(mask)
    return masks


def _runs(counts: Counter) -> list[tuple[int, int]]:
    """Maximal runs of 3+ consecutive ranks as (lowest rank, length)."""
    runs, rank = [], 1
    while rank <= NUM_RANKS:
        length = 0
        while rank + length <= NUM_RANKS and counts[rank + length]:
            length += 1
        if length >= 3:
            runs.append((rank, length))
        rank += max(length, 1)
    return runs


def score_crib_hand(ranks: Sequence[int]) -> int:
    """Points of a crib hand of 2-5 ranks (1-13): fifteens, pairs and runs, no bonuses."""
    ranks = list(ranks)
    _check(ranks)
    counts = Counter(ranks)
    points = 2 * len(_fifteen_masks(ranks))
    points += sum(c * (c - 1) for c in counts.values())  # c tiles of a rank make c(c-1)/2 pairs
    for low, length in _runs(counts):
        combos = 1
        for rank in range(low, low + length):
            combos *= counts[rank]
        points += length * combos
    return points


def contributing_tiles(ranks: Sequence[int]) -> tuple[bool, ...]:
    """For each tile of the hand: is it part of at least one scoring combination?"""
    ranks = list(ranks)
    _check(ranks)
    counts = Counter(ranks)
    in_fifteen = 0
    for mask in _fifteen_masks(ranks):
        in_fifteen |= mask
    in_run = {r for low, length in _runs(counts) for r in range(low, low + length)}
    return tuple(
        bool(in_fifteen >> i & 1) or counts[r] >= 2 or r in in_run for i, r in enumerate(ranks)
    )


def is_valid_hand(ranks: Sequence[int]) -> bool:
    """A legal crib hand: 2-5 tiles, every one of them contributing to the score."""
    return MIN_HAND <= len(ranks) <= MAX_HAND and all(contributing_tiles(ranks))


def hand_key(ranks: Iterable[int]) -> int:
    key = 1
    for r in ranks:
        key *= PRIMES[r]
    return key


def _ranks_of_key(key: int) -> list[int]:
    ranks = []
    for rank in range(1, NUM_RANKS + 1):
        while key % PRIMES[rank] == 0:
            ranks.append(rank)
            key //= PRIMES[rank]
    return ranks


class _HandTable(dict):
    """key -> points of the hand, or INVALID if some tile does not contribute; filled on first use."""

    def __missing__(self, key: int) -> int:
        ranks = _ranks_of_key(key)
        value = score_crib_hand(ranks) if is_valid_hand(ranks) else INVALID
        self[key] = value
        return value


HAND_POINTS = _HandTable()

"""Scoring a crib hand (2-5 tiles in one line) and the rule that every tile in it must contribute.

Standard cribbage counting without the bonuses: 2 per distinct combination of tiles summing to 15 (J, Q, K
count 10, A counts 1); 2 per pair of equal ranks; each maximal run of 3-5 consecutive ranks scores its
length once per distinct combination of tiles (3-3-4-5 holds two runs of three), and a run never scores the
shorter runs inside it. Ranks are 1 (A) .. 13 (K) with no wrap-around; order on the board is irrelevant.

Move generation looks hands up by a *key*: the sum of one weight per tile, `TILE_OFFSET + RANK_WEIGHT[rank]`.
The weights are a B5 set (greedy: every sum of five weights, repeats allowed, is distinct), so a key
identifies a multiset of up to 5 ranks; the offset separates hands by size. A key is extended tile by tile
with one addition and is an index into `HAND_TABLE`, which holds every hand of 2-5 tiles, scored once at
import; `hand_points` reads a batch of keys, INVALID for keys of 0, 1 or 6+ tiles.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations_with_replacement, product

import numpy as np

from tabletop.envs.kings_cribbage.tiles import NUM_RANKS, face_value

MIN_HAND, MAX_HAND = 2, 5
RANK_WEIGHT = (0, 0, 1, 6, 31, 108, 366, 926, 2286, 5733, 12905, 27316, 44676, 94545)  # [rank]; [0] unused
TILE_OFFSET = MAX_HAND * RANK_WEIGHT[-1] + 1  # more than the weights of any hand: key // offset = tiles
TILE_KEY = tuple(TILE_OFFSET + w for w in RANK_WEIGHT)  # [rank]: a tile's share of the key
INVALID = -1
# the game's bonuses on top of its hands: the first move, a move of all five rack tiles, a hand of five tiles
# of one colour
FIRST_MOVE_BONUS = FULL_RACK_BONUS = ONE_COLOUR_BONUS = 10


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
    return tuple(bool(in_fifteen >> i & 1) or counts[r] >= 2 or r in in_run for i, r in enumerate(ranks))


def is_valid_hand(ranks: Sequence[int]) -> bool:
    """A legal crib hand: 2-5 tiles, every one of them contributing to the score."""
    return MIN_HAND <= len(ranks) <= MAX_HAND and all(contributing_tiles(ranks))


def hand_key(ranks: Iterable[int]) -> int:
    """The key of a multiset of ranks (the index of its entry in HAND_TABLE)."""
    return sum(TILE_KEY[r] for r in ranks)


def _every_hand() -> np.ndarray:
    """Every multiset of 2-5 ranks (8,554) as a row of 5 sorted ranks padded with 0."""
    rows = [
        hand + (0,) * (MAX_HAND - size)
        for size in range(MIN_HAND, MAX_HAND + 1)
        for hand in combinations_with_replacement(range(1, NUM_RANKS + 1), size)
    ]
    return np.array(rows, dtype=np.int64)


def _table() -> tuple[np.ndarray, np.ndarray]:
    """(every hand's key, points or INVALID by key), counted over the 31 subsets of its tiles at once.

    The same count as `score_crib_hand`, written for numpy so the table costs milliseconds, not a Python
    call per hand: fifteens and pairs are subsets, runs are the subsets of the longest run length present
    (with at most 5 tiles there is only one run of distinct ranks). A tile contributes if a scoring subset
    holds it."""
    ranks = _every_hand()
    real = ranks > 0
    subsets = np.array(list(product((False, True), repeat=MAX_HAND))[1:])  # (31, 5)
    size = subsets.sum(1)
    usable = ~(subsets[None] & ~real[:, None]).any(2)  # (hands, subsets): only real tiles
    picked = np.where(subsets[None], ranks[:, None], 0)
    low = np.where(subsets[None], ranks[:, None], NUM_RANKS + 1).min(2)
    high = picked.max(2)
    seen = np.bitwise_or.reduce(np.where(subsets[None], 1 << ranks[:, None], 0), axis=2)  # a bit per rank
    fifteen = usable & (np.minimum(picked, 10).sum(2) == 15)
    pair = usable & (size == 2) & (low == high)
    run = usable & (size >= 3) & (high - low == size - 1) & (seen == (1 << (high + 1)) - (1 << low))
    longest = np.where(run, size, 0).max(1)
    run &= size == longest[:, None]
    points = 2 * fifteen.sum(1) + 2 * pair.sum(1) + longest * run.sum(1)
    scoring = fifteen | pair | run
    contributes = (scoring[:, :, None] & subsets[None]).any(1)
    valid = (contributes | ~real).all(1)
    keys = np.array(TILE_KEY, dtype=np.int64)[ranks].sum(1, where=real)
    assert len(np.unique(keys)) == len(keys), "RANK_WEIGHT must give every hand its own key"
    table = np.full(MAX_HAND * TILE_KEY[-1] + 2, INVALID, dtype=np.int8)  # the last entry: 6+ tiles
    table[keys] = np.where(valid, points, INVALID)
    return keys, table


_HAND_KEYS, HAND_TABLE = _table()
HAND_POINTS = dict(zip(_HAND_KEYS.tolist(), HAND_TABLE[_HAND_KEYS].tolist()))  # key -> points or INVALID


def hand_points(keys: np.ndarray) -> np.ndarray:
    """Points of a batch of hand keys (any number of tiles): INVALID unless a valid hand of 2-5 tiles."""
    return HAND_TABLE[np.minimum(keys, len(HAND_TABLE) - 1)].astype(np.int64)

"""Cromlet's legal-action mask and dead cards as they were written in numpy before the kernels
(`envs/cromlet/kernels.py`) took over their loops: the oracle the differential test holds the kernels to.

Whole-board array formulas, one rule a line, over the same board facts the kernels read.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.actions import NUM_ACTIONS, PLAY, PLAY_CLAIM, TRADE_ONE, TRADE_TWO, WILD_CLAIM, WILD_PLAY


def legal_mask(
    hand: np.ndarray,
    hand_size: int,
    open_: np.ndarray,
    is_lowest: np.ndarray,
    open_count: np.ndarray,
    can_claim: bool,
    deck_size: int,
) -> np.ndarray:
    """The mover's legal actions from their hand's card-type counts and the board facts (rules 4-8)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    playable = (hand[: B.NUM_CIRCLES] > 0) & open_
    forced = playable & is_lowest
    any_forced = forced.any()
    cards = forced if any_forced else playable
    # the last open circle of a cromlet forces the claim, unless the player is at the claim limit
    keep_ok = ~(is_lowest & (open_count[B.CIRCLE_CROMLET] == 1)) if can_claim else True
    mask[PLAY:PLAY_CLAIM] = cards & keep_ok
    if can_claim:
        mask[PLAY_CLAIM:WILD_PLAY] = cards & is_lowest
    if hand[B.WILD] > 0:
        mask[WILD_PLAY:WILD_CLAIM] = open_ & keep_ok
        if can_claim:
            mask[WILD_CLAIM:TRADE_ONE] = is_lowest
    if not any_forced:
        dead = hand_size - hand[B.WILD] - np.count_nonzero(playable)
        mask[TRADE_ONE] = dead >= 1 and deck_size >= 1
        mask[TRADE_TWO] = dead >= 2 and deck_size >= 2
    return mask


def dead_cards(hand: np.ndarray, open_: np.ndarray) -> np.ndarray:
    """Held circle cards whose circle is not open (covered, or its cromlet closed), lowest first."""
    return np.flatnonzero((hand[: B.NUM_CIRCLES] > 0) & ~open_)

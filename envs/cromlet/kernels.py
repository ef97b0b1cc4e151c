"""Cromlet's compiled inner loops (numba, cached on disk): one pass over the circles instead of a dozen
small numpy operations, each of which costs more than the whole loop at this size.

`rules.py` stays the readable source of truth and calls these; the numpy formulas they replaced are kept
in `tests/oracles/cromlet_mask.py`, and `tests/envs/cromlet/test_cromlet_kernels.py` holds the kernels to them.
"""

from __future__ import annotations

import numba
import numpy as np

from tabletop.envs.cromlet.actions import PLAY, PLAY_CLAIM, TRADE_ONE, TRADE_TWO, WILD_CLAIM, WILD_PLAY
from tabletop.envs.cromlet.board import CIRCLE_CROMLET, NUM_CIRCLES, WILD


@numba.njit(cache=True)
def fill_mask(
    mask: np.ndarray,
    hand: np.ndarray,
    hand_size: int,
    open_: np.ndarray,
    is_lowest: np.ndarray,
    open_count: np.ndarray,
    can_claim: bool,
    deck_size: int,
) -> int:
    """Write the mover's legal actions into the zeroed int8 `mask`; return how many there are.

    `hand` is the mover's card-type counts (wilds last) and `hand_size` their sum; the board facts are the
    state's. The rules (docs/cromlet.md, rules 4-8): holding the card of a lowest open circle forces
    playing such a card (or a wild) and rules out trading; covering a lowest open circle may claim its
    cromlet, and covering a cromlet's last open circle must, unless the mover's team is at its claim
    limit; wilds go on any open circle; a mover without a forced card may trade one or two dead cards
    (held circle cards whose circle is not open) while the deck has as many.
    """
    forced = False
    playable = 0
    for c in range(NUM_CIRCLES):
        if hand[c] > 0 and open_[c]:
            playable += 1
            forced |= is_lowest[c]
    has_wild = hand[WILD] > 0
    legal = 0
    for c in range(NUM_CIRCLES):
        lowest = is_lowest[c]
        keep_ok = not (can_claim and lowest and open_count[CIRCLE_CROMLET[c]] == 1)
        claim_ok = can_claim and lowest
        card = hand[c] > 0 and open_[c] and (lowest or not forced)
        if card and keep_ok:
            mask[PLAY + c] = 1
            legal += 1
        if card and claim_ok:
            mask[PLAY_CLAIM + c] = 1
            legal += 1
        if has_wild and open_[c] and keep_ok:
            mask[WILD_PLAY + c] = 1
            legal += 1
        if has_wild and claim_ok:
            mask[WILD_CLAIM + c] = 1
            legal += 1
    if not forced:
        dead = hand_size - hand[WILD] - playable
        if dead >= 1 and deck_size >= 1:
            mask[TRADE_ONE] = 1
            legal += 1
        if dead >= 2 and deck_size >= 2:
            mask[TRADE_TWO] = 1
            legal += 1
    return legal


@numba.njit(cache=True)
def dead_cards(hand: np.ndarray, open_: np.ndarray) -> np.ndarray:
    """The held circle cards (`hand`: card-type counts) whose circle is not open, lowest first."""
    dead = np.empty(NUM_CIRCLES, dtype=np.int64)
    count = 0
    for c in range(NUM_CIRCLES):
        if hand[c] > 0 and not open_[c]:
            dead[count] = c
            count += 1
    return dead[:count]

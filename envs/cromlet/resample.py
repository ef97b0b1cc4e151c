"""Determinization: a full Cromlet position drawn from what one seat knows (OpenSpiel's `resample_from_infostate`).

Hidden from `seat`: the other hands and the deck order. Known to it: its own hand, the board, every discard
pile (face up), the hand sizes and the deck size. The unseen cards are every card less the seat's hand and
the discard piles (of the cards the game's configuration deals); they are dealt at random into the other hands (their sizes kept) and the deck (in random
order), uniformly over the deals that the position allows:

- the game is still on, so the player to move can play: with the deck empty (no trade-in) its hand holds
  at least one live card (an open circle's card or a wild);
- the game is over with a cromlet still open, so the player to move could not play: its hand is dead cards
  only (the deck is then empty).

The history is not in the position and is not used (see docs/cromlet.md, "Determinization").
"""

from __future__ import annotations

from math import comb

import numpy as np

from tabletop.envs.core.chance import IN_ORDER
from tabletop.envs.cromlet import board as B


def unseen_cards(state, seat: int) -> np.ndarray:
    """Counts per card type of the cards `seat` has not seen: in the other hands or the deck."""
    return state.game.copies - state.hands[seat] - state.discard_counts.sum(axis=0)


def resample(state, seat: int, rng: np.random.Generator):
    """A copy of `state` with the other hands and the deck redrawn from what `seat` knows."""
    n = state.game.num_players
    if not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
        raise ValueError(f"seat must be an int in [0, {n}), got {seat!r}")
    pool = np.repeat(np.arange(B.NUM_CIRCLES + 1), unseen_cards(state, seat))
    rng.shuffle(pool)
    live = (pool == B.WILD) | state.open_[np.minimum(pool, B.NUM_CIRCLES - 1)]
    hands: dict[int, np.ndarray] = {}
    mover = state._current  # the player to move (also once the game is over, when `current_player` is -1)
    if mover != seat and state.hand_sizes[mover] > 0:
        need = _mover_needs(state)
        if need is not None:
            hands[mover], pool = _draw_hand(pool, live, int(state.hand_sizes[mover]), need, rng)
    new = state.clone()
    for p in range(n):
        if p == seat:
            continue
        if p not in hands:
            size = int(state.hand_sizes[p])
            hands[p], pool = pool[:size], pool[size:]
        new.hands[p] = np.bincount(hands[p], minlength=B.NUM_CIRCLES + 1)
    new.deck = pool.tolist()  # the rest, already in random order
    new.chance = IN_ORDER  # the world's refills take its deck's cards in order (its source may be OpenSpiel's)
    new._mask = None
    return new


def _mover_needs(state) -> bool | None:
    """True: the mover's hand must hold a live card; False: only dead cards; None: anything goes."""
    if not state.is_terminal():
        return True if not state.deck else None
    return None if state.closed.all() else False


def _draw_hand(pool: np.ndarray, live: np.ndarray, size: int, need_live: bool, rng: np.random.Generator):
    """A uniform hand of `size` from the shuffled `pool` with at least one live card (`need_live`) or none; the
    rest of the pool, still in random order."""
    live_at, dead_at = np.flatnonzero(live), np.flatnonzero(~live)
    k = _live_count(len(live_at), len(dead_at), size, rng) if need_live else 0
    if k > len(live_at) or size - k > len(dead_at):
        raise ValueError("no deal of the unseen cards fits this position")
    chosen = np.concatenate([live_at[:k], dead_at[: size - k]])  # a uniform choice within each kind
    return pool[chosen], rng.permutation(np.delete(pool, chosen))  # the rest in a fresh random order


def _live_count(live: int, dead: int, size: int, rng: np.random.Generator) -> int:
    """How many live cards a uniform hand of `size` holds, given that it holds at least one (hypergeometric
    conditioned on k >= 1)."""
    weights = np.array([comb(live, k) * comb(dead, size - k) for k in range(1, size + 1)], dtype=float)
    if weights.sum() == 0:
        raise ValueError("no deal of the unseen cards gives the player to move a live card")
    return 1 + int(rng.choice(size, p=weights / weights.sum()))

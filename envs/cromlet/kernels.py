"""Cromlet's compiled inner loops (numba, cached on disk): one pass over the circles instead of a dozen
small numpy operations, each of which costs more than the whole loop at this size, and a whole move (the
cards, the board, the next mask) and an observer's catch-up in one call each instead of a Python statement
per card.

`rules.py` stays the readable source of truth and calls these; the numpy formulas and the Python move they
replaced are kept in `tests/oracles/cromlet_mask.py` and `tests/oracles/cromlet_rules.py`, and
`tests/envs/cromlet/test_cromlet_kernels.py` holds the kernels to them.

A move logs what it changed, in order, as rows `(kind, a, b)` of the state's `events` array: HAND (seat a's
count of card type b changed), DISCARD (card type b went onto seat a's pile), COVER (circle a got a crown),
CLAIM (cromlet a was claimed), CLOSE (cromlet a closed). Every card is drawn once and leaves a hand once, so
a game logs at most MAX_EVENTS rows. The state's `counters` hold the deck's top, the events logged and the
cromlets closed.
"""

from __future__ import annotations

import numba
import numpy as np

from tabletop.envs.cromlet.actions import PLAY, PLAY_CLAIM, TRADE_ONE, TRADE_TWO, WILD_CLAIM, WILD_PLAY
from tabletop.envs.cromlet.board import (
    CIRCLE_CROMLET,
    CIRCLE_VALUE,
    CROMLET_START,
    CROMLET_STOP,
    MAX_SIZE,
    MAX_VALUE,
    NUM_CARDS,
    NUM_CIRCLES,
    NUM_CROMLETS,
    NUM_WILDS,
    WILD,
)

HAND, DISCARD, COVER, CLAIM, CLOSE = range(5)  # the kinds of logged events
MAX_EVENTS = 3 * NUM_CARDS + NUM_CIRCLES + 2 * NUM_CROMLETS  # drawn, left a hand, discarded; covers; claims, closes
DECK_TOP, EVENTS, CLOSED = range(3)  # the state's counters


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


# --- a move ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _log(events: np.ndarray, counters: np.ndarray, kind: int, a: int, b: int) -> None:
    """One event row; past the log's end (only a position whose cards were changed by hand gets there) the
    count still grows, which tells a view to rebuild instead of catching up."""
    i = counters[EVENTS]
    if i < events.shape[0]:
        events[i, 0] = kind
        events[i, 1] = a
        events[i, 2] = b
    counters[EVENTS] = i + 1


@numba.njit(cache=True)
def _draw(p: int, hands: np.ndarray, hand_sizes: np.ndarray, deck: np.ndarray, counters, events) -> None:
    """The deck's top card into `p`'s hand."""
    card = deck[counters[DECK_TOP]]
    counters[DECK_TOP] += 1
    hands[p, card] += 1
    hand_sizes[p] += 1
    _log(events, counters, HAND, p, card)


@numba.njit(cache=True)
def deal(dealer: int, hand_size: int, hands, hand_sizes, deck, counters, events) -> None:
    """`hand_size` rounds of one card each, starting left of the dealer."""
    n = hands.shape[0]
    for _ in range(hand_size):
        for k in range(n):
            _draw((dealer + 1 + k) % n, hands, hand_sizes, deck, counters, events)


@numba.njit(cache=True)
def _discard(p: int, card: int, hands, hand_sizes, piles, pile_sizes, discard_counts, counters, events) -> None:
    """From `p`'s hand onto `p`'s face-up discard pile."""
    hands[p, card] -= 1
    hand_sizes[p] -= 1
    _log(events, counters, HAND, p, card)
    piles[p, pile_sizes[p]] = card
    pile_sizes[p] += 1
    discard_counts[p, card] += 1
    _log(events, counters, DISCARD, p, card)


@numba.njit(cache=True)
def _close(k: int, closed, open_, is_lowest, open_count, counters, events) -> None:
    closed[k] = True
    counters[CLOSED] += 1
    for c in range(CROMLET_START[k], CROMLET_STOP[k]):
        open_[c] = False
        is_lowest[c] = False
    open_count[k] = 0
    _log(events, counters, CLOSE, k, 0)


@numba.njit(cache=True)
def play(
    action: int,
    p: int,
    hand_size: int,
    claim_limit: int,
    team_of: np.ndarray,
    cover: np.ndarray,
    wild: np.ndarray,
    closed: np.ndarray,
    claimed_by: np.ndarray,
    claim_circle: np.ndarray,
    open_: np.ndarray,
    open_count: np.ndarray,
    is_lowest: np.ndarray,
    hands: np.ndarray,
    hand_sizes: np.ndarray,
    deck: np.ndarray,
    piles: np.ndarray,
    pile_sizes: np.ndarray,
    discard_counts: np.ndarray,
    team_scores: np.ndarray,
    team_claims: np.ndarray,
    counters: np.ndarray,
    events: np.ndarray,
    mask: np.ndarray,
) -> bool:
    """Play seat `p`'s legal `action`, refill its hand, and write the next seat's legal actions into the
    zeroed `mask`; return whether the game is over (then `mask` stays zero).

    A card goes onto its circle (a wild onto any open one) and from the hand onto the mover's discard
    pile; a claim scores the circle's value for the mover's team and closes the cromlet, and so does
    covering its last open circle without a claim (at the claim limit: nobody scores); otherwise covering
    the lowest open circle makes the next open one above it the lowest. A trade discards that many dead
    cards, lowest first. Hands are topped up from the deck while it lasts. The game ends when the next
    player cannot play or every cromlet is closed.
    """
    if action >= TRADE_ONE:
        left = action - TRADE_ONE + 1
        for c in range(NUM_CIRCLES):
            if left == 0:
                break
            if hands[p, c] > 0 and not open_[c]:  # a dead card (circle cards are unique: one of each)
                _discard(p, c, hands, hand_sizes, piles, pile_sizes, discard_counts, counters, events)
                left -= 1
    else:
        block, circle = action // NUM_CIRCLES, action % NUM_CIRCLES
        is_wild, claim = block >= 2, block % 2 == 1  # PLAY, PLAY_CLAIM, WILD_PLAY, WILD_CLAIM
        _discard(p, WILD if is_wild else circle, hands, hand_sizes, piles, pile_sizes, discard_counts, counters, events)
        cover[circle] = p
        wild[circle] = is_wild
        _log(events, counters, COVER, circle, 0)
        k = CIRCLE_CROMLET[circle]
        open_[circle] = False
        open_count[k] -= 1
        if claim:
            team = team_of[p]
            claimed_by[k] = p
            claim_circle[k] = circle
            team_claims[team] += 1
            team_scores[team] += CIRCLE_VALUE[circle]
            _log(events, counters, CLAIM, k, 0)
            _close(k, closed, open_, is_lowest, open_count, counters, events)
        elif open_count[k] == 0:
            _close(k, closed, open_, is_lowest, open_count, counters, events)  # at the claim limit: nobody scores
        elif is_lowest[circle]:
            is_lowest[circle] = False
            above = circle + 1
            while not open_[above]:  # an open circle remains above: every lower one is covered
                above += 1
            is_lowest[above] = True
    for _ in range(min(len(deck) - counters[DECK_TOP], hand_size - hand_sizes[p])):
        _draw(p, hands, hand_sizes, deck, counters, events)
    nxt = (p + 1) % hands.shape[0]
    can_claim = team_claims[team_of[nxt]] < claim_limit
    deck_size = len(deck) - counters[DECK_TOP]
    legal = fill_mask(mask, hands[nxt], hand_sizes[nxt], open_, is_lowest, open_count, can_claim, deck_size)
    if legal == 0 or counters[CLOSED] == NUM_CROMLETS:
        mask[:] = 0
        return True
    return False


# --- an observer's table ---------------------------------------------------------------------------------
# the table segments the catch-up writes; the observer passes their offsets in this order
T_HANDS, T_DISCARDS, T_CROWN, T_CLAIM, T_CLAIMED_BY, T_UNSEEN, T_FACTS = range(7)
T_WILD, T_CLOSED_NO_POINTS, T_CLOSED, T_SCORES, T_CLAIMS_LEFT, T_HAND_SIZES, T_DECK = range(7, 14)
CARD_TYPES = NUM_CIRCLES + 1
FACT_COLUMNS = 6  # open, lowest, best, offer, next, count (observe.py's `cromlet_facts`)


@numba.njit(cache=True)
def _put(values, rows, starts, targets, t: int, value: float) -> None:
    """Write the table's entry `t`, and the same value wherever the seats' observation rows hold it."""
    values[t] = value
    for i in range(starts[t], starts[t + 1]):
        rows[targets[i]] = value


@numba.njit(cache=True)
def _card_value(count: int, card: int) -> float:
    return count * (1.0 / NUM_WILDS) if card == WILD else count * 1.0  # wilds counted out of six


@numba.njit(cache=True)
def _cromlet_facts(k: int, open_, values, rows, starts, targets, at: int) -> None:
    """Cromlet `k`'s `cromlet_facts` rows from which of its circles are open."""
    best = 0
    count = 0
    for c in range(CROMLET_START[k], CROMLET_STOP[k]):
        if open_[c]:
            best = max(best, CIRCLE_VALUE[c])
            count += 1
    above = 0  # value of the next open circle above (0 if none), walking down from the top
    first = True
    lowest_at = -1
    for c in range(CROMLET_START[k], CROMLET_STOP[k]):
        if open_[c] and first:
            lowest_at = c
            first = False
    for c in range(CROMLET_STOP[k] - 1, CROMLET_START[k] - 1, -1):
        row = at + FACT_COLUMNS * c
        is_open = open_[c]
        _put(values, rows, starts, targets, row, 1.0 if is_open else 0.0)
        _put(values, rows, starts, targets, row + 1, 1.0 if c == lowest_at else 0.0)
        _put(values, rows, starts, targets, row + 2, best / MAX_VALUE)
        _put(values, rows, starts, targets, row + 3, CIRCLE_VALUE[c] / max(best, 1) if is_open else 0.0)
        _put(values, rows, starts, targets, row + 4, above / MAX_VALUE)
        _put(values, rows, starts, targets, row + 5, count / MAX_SIZE)
        if is_open:
            above = CIRCLE_VALUE[c]


@numba.njit(cache=True)
def _teams(team_scores, team_claims, team_of, claim_limit: int, values, rows, starts, targets, at) -> None:
    for s in range(len(team_of)):
        _put(values, rows, starts, targets, at[T_SCORES] + s, team_scores[team_of[s]] / 100)
        left = (claim_limit - team_claims[team_of[s]]) / claim_limit
        _put(values, rows, starts, targets, at[T_CLAIMS_LEFT] + s, left)


@numba.njit(cache=True)
def catch_up(
    values: np.ndarray,
    rows: np.ndarray,
    starts: np.ndarray,
    targets: np.ndarray,
    at: np.ndarray,
    events: np.ndarray,
    seen: int,
    count: int,
    hands: np.ndarray,
    hand_sizes: np.ndarray,
    discard_counts: np.ndarray,
    cover: np.ndarray,
    wild: np.ndarray,
    claimed_by: np.ndarray,
    claim_circle: np.ndarray,
    open_: np.ndarray,
    team_scores: np.ndarray,
    team_claims: np.ndarray,
    team_of: np.ndarray,
    claim_limit: int,
    hand_size: int,
    deck_size: int,
) -> None:
    """Bring an observer's table (`values`, segment offsets `at` in T_* order) up to date with events
    `seen`..`count`, each entry written from the state's present values, and every seat's observation row
    (`rows`, flat) with it: table entry `t` sits at `rows[targets[starts[t]:starts[t + 1]]]`.

    A circle card goes deck -> one hand -> a discard pile, never back: it stops being unseen for the seat
    that draws it, and for everyone once discarded."""
    n = len(team_of)
    for e in range(seen, count):
        kind, a, b = events[e, 0], events[e, 1], events[e, 2]
        if kind == HAND:
            _put(values, rows, starts, targets, at[T_HANDS] + a * CARD_TYPES + b, _card_value(hands[a, b], b))
            _put(values, rows, starts, targets, at[T_HAND_SIZES] + a, hand_sizes[a] / hand_size)
            if b < NUM_CIRCLES:
                _put(values, rows, starts, targets, at[T_UNSEEN] + a * NUM_CIRCLES + b, 0.0)
        elif kind == DISCARD:
            value = _card_value(discard_counts[a, b], b)
            _put(values, rows, starts, targets, at[T_DISCARDS] + a * CARD_TYPES + b, value)
            if b < NUM_CIRCLES:
                for s in range(n):
                    _put(values, rows, starts, targets, at[T_UNSEEN] + s * NUM_CIRCLES + b, 0.0)
        elif kind == COVER:
            _put(values, rows, starts, targets, at[T_CROWN] + cover[a] * NUM_CIRCLES + a, 1.0)
            _put(values, rows, starts, targets, at[T_WILD] + a, 1.0 if wild[a] else 0.0)
            _cromlet_facts(CIRCLE_CROMLET[a], open_, values, rows, starts, targets, at[T_FACTS])
        elif kind == CLAIM:
            owner = claimed_by[a]
            _put(values, rows, starts, targets, at[T_CLAIM] + owner * NUM_CIRCLES + claim_circle[a], 1.0)
            for c in range(CROMLET_START[a], CROMLET_STOP[a]):
                _put(values, rows, starts, targets, at[T_CLAIMED_BY] + owner * NUM_CIRCLES + c, 1.0)
            _teams(team_scores, team_claims, team_of, claim_limit, values, rows, starts, targets, at)
        else:  # CLOSE
            _put(values, rows, starts, targets, at[T_CLOSED] + a, 1.0)
            no_points = 1.0 if claimed_by[a] < 0 else 0.0
            for c in range(CROMLET_START[a], CROMLET_STOP[a]):
                _put(values, rows, starts, targets, at[T_CLOSED_NO_POINTS] + c, no_points)
            _cromlet_facts(a, open_, values, rows, starts, targets, at[T_FACTS])
    _put(values, rows, starts, targets, at[T_DECK], deck_size / NUM_CARDS)

"""Reading a saved Cromlet position (what `CromletState.to_json` writes), checked field by field.

`read` accepts what the rules can leave on the table in the game's configuration, judged from the position
itself: every card exactly once; hands full while the deck lasts and, once it is empty, shrinking one card
a turn; crowns, wilds, claims, closed cromlets, scores and discard piles that agree with one another; and
a player to move who fits the moves on the table. Anything else is an `InvalidStateError` naming the field.
The order of the discard piles is not checked (a pile's history is not in the position). What the rules
derive from a position, the end of the game and the mover's legal actions, `CromletState.from_json` checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from tabletop.envs.core.errors import InvalidStateError
from tabletop.envs.core.validate import check_header, get, require, seat
from tabletop.envs.cromlet import board as B

KEYS = (
    "game",
    "config",
    "dealer",
    "current_player",
    "terminal",
    "covered",
    "wild_covered",
    "claims",
    "closed",
    "hands",
    "deck",
    "discards",
    "team_scores",
    "team_claims",
)
_CARD_TYPES = {B.card_name(card): card for card in range(B.NUM_CIRCLES + 1)}  # the names `to_json` writes
_CROMLETS = {letter: k for k, letter in enumerate(B.LETTERS)}


@dataclass
class Position:
    """A saved position as arrays, every field checked. Cards are card types (circle, or `B.WILD`)."""

    dealer: int
    current: int
    terminal: bool
    cover: np.ndarray  # per circle: the seat whose crown is on it, -1 if none
    wild: np.ndarray  # per circle: covered by a wild
    claimed_by: np.ndarray  # per cromlet: seat, -1 if unclaimed
    claim_circle: np.ndarray  # per cromlet: circle, -1 if unclaimed
    closed: np.ndarray  # per cromlet
    hands: list[list[int]]
    deck: list[int]
    discards: list[list[int]]
    team_scores: np.ndarray
    team_claims: np.ndarray


def read(game: Any, data: Any) -> Position:
    """The position in `data`, or `InvalidStateError` for anything the rules cannot reach in `game`."""
    check_header(data, "cromlet", game.config())
    unknown = sorted(map(str, set(data) - set(KEYS)))
    if unknown:
        raise InvalidStateError(unknown[0], f"unknown key; a saved Cromlet state has {', '.join(KEYS)}")
    n = game.num_players
    dealer = seat(get(data, "dealer", int), "dealer", n)
    current = seat(get(data, "current_player", int), "current_player", n)
    terminal = get(data, "terminal", bool)
    cover, wild = _crowns(data, n)
    for circle in np.flatnonzero((cover >= 0) & ~game.in_play[B.CIRCLE_CROMLET]):
        raise InvalidStateError(f"covered.{B.CIRCLE_NAMES[circle]}", f"its cromlet is not in play{_in_play(game)}")
    claimed_by, claim_circle = _claims(data, n, cover)
    team_claims = np.bincount(game.team_of[claimed_by[claimed_by >= 0]], minlength=game.num_teams)
    for team in np.flatnonzero(team_claims > game.claim_limit):
        raise InvalidStateError(
            "claims", f"team {team} holds {team_claims[team]} claims; the claim limit is {game.claim_limit}"
        )
    closed = _closed(data, game, cover, claimed_by, team_claims)
    team_scores = np.zeros(game.num_teams)
    np.add.at(team_scores, game.team_of[claimed_by[claimed_by >= 0]], B.CIRCLE_VALUE[claim_circle[claimed_by >= 0]])
    _check_totals(data, "team_claims", team_claims)
    _check_totals(data, "team_scores", team_scores)
    hands, deck, discards = (
        _piles(data, "hands", n),
        _cards(get(data, "deck", list), "deck"),
        _piles(data, "discards", n),
    )
    _check_every_card_once(hands, deck, discards, game)
    _check_hand_sizes(hands, deck, game.hand_size, current)
    _check_discards(discards, cover, wild, closed)
    _check_turn(discards, cover, dealer, current)
    return Position(
        dealer,
        current,
        terminal,
        cover,
        wild,
        claimed_by,
        claim_circle,
        closed,
        hands,
        deck,
        discards,
        team_scores,
        team_claims,
    )


# --- the board ------------------------------------------------------------------------------------------
def _crowns(data: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    cover = np.full(B.NUM_CIRCLES, -1, dtype=np.int64)
    for name, who in get(data, "covered", dict).items():
        if not (type(who) is int and 0 <= who < n):
            seat(who, f"covered.{name}", n)  # raises
        cover[_circle(name, f"covered.{name}")] = who
    wild = np.zeros(B.NUM_CIRCLES, dtype=bool)
    for i, name in enumerate(get(data, "wild_covered", list)):
        field = f"wild_covered[{i}]"
        circle = _circle(name, field)
        require(not wild[circle], field, f"{name} is listed twice")
        require(cover[circle] >= 0, field, f"{name} has no crown on it ('covered' does not list it)")
        wild[circle] = True
    return cover, wild


def _claims(data: Any, n: int, cover: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    claimed_by = np.full(B.NUM_CROMLETS, -1, dtype=np.int64)
    claim_circle = np.full(B.NUM_CROMLETS, -1, dtype=np.int64)
    for letter, claim in get(data, "claims", dict).items():
        field = f"claims.{letter}"
        k = _cromlet(letter, "claims")
        by = seat(get(claim, "by", int, f"{field}.by"), f"{field}.by", n)
        name = get(claim, "circle", str, f"{field}.circle")
        extra = sorted(map(str, set(claim) - {"by", "circle"}))
        if extra:
            raise InvalidStateError(field, f"unknown key {extra[0]!r}; a claim is {{'by': seat, 'circle': circle}}")
        circle = _circle(name, f"{field}.circle")
        require(B.CIRCLE_CROMLET[circle] == k, f"{field}.circle", f"{name} is not a circle of cromlet {letter}")
        require(
            cover[circle] == by,
            f"{field}.circle",
            f"a claim is made by covering {name}, so seat {by}'s crown must be on it",
        )
        for below in B.circles_of(k):
            if below < circle and cover[below] < 0:
                raise InvalidStateError(
                    f"{field}.circle", f"{name} cannot have been claimed while {B.CIRCLE_NAMES[below]} below it is open"
                )
        claimed_by[k], claim_circle[k] = by, circle
    return claimed_by, claim_circle


def _closed(data: Any, game: Any, cover: np.ndarray, claimed_by: np.ndarray, team_claims: np.ndarray) -> np.ndarray:
    closed = np.zeros(B.NUM_CROMLETS, dtype=bool)
    for i, letter in enumerate(get(data, "closed", list)):
        k = _cromlet(letter, f"closed[{i}]")
        require(not closed[k], f"closed[{i}]", f"{letter} is listed twice")
        require(game.in_play[k], f"closed[{i}]", f"{letter} is not in play{_in_play(game)}")
        closed[k] = True
    claimed = claimed_by >= 0
    full = np.minimum.reduceat(cover, B.CROMLET_START) >= 0
    for k in np.flatnonzero(claimed & ~closed):
        raise InvalidStateError("closed", f"{B.LETTERS[k]} is claimed, so it is closed")
    for k in np.flatnonzero(full & ~closed):
        raise InvalidStateError("closed", f"every circle of {B.LETTERS[k]} is covered, so {B.LETTERS[k]} is closed")
    for k in np.flatnonzero(closed & ~claimed):
        letter = B.LETTERS[k]
        require(
            full[k],
            "closed",
            f"{letter} is closed without a claim, which happens only once every circle of it is covered",
        )
        at_limit = team_claims[game.team_of[cover[B.CROMLET_SLICES[k]]]] == game.claim_limit
        require(
            at_limit.any(),
            "closed",
            f"{letter} is closed without a claim, so the crown on its last circle is of a player "
            f"(team) at the claim limit ({game.claim_limit}); no crown on it is",
        )
    return closed | ~game.in_play  # the cromlets out of play stay closed


def _in_play(game: Any) -> str:
    return f"; this game plays {', '.join(game.cromlets)}" if game.cromlets else ""


def _check_totals(data: Any, key: str, implied: np.ndarray) -> None:
    """`team_claims` and `team_scores` must be what the claims add up to."""
    values = get(data, key, list)
    require(len(values) == len(implied), key, f"must list {len(implied)} numbers (one per team), got {len(values)}")
    for team, value in enumerate(values):
        field = f"{key}[{team}]"
        require(
            isinstance(value, (int, float)) and not isinstance(value, bool), field, f"must be a number, got {value!r}"
        )
        require(value == implied[team], field, f"is {value}, but the claims give team {team} {float(implied[team]):g}")


# --- the cards ------------------------------------------------------------------------------------------
def _piles(data: Any, key: str, n: int) -> list[list[int]]:
    piles = get(data, key, list)
    require(len(piles) == n, key, f"must list {n} piles of cards (one per seat), got {len(piles)}")
    return [_cards(pile, f"{key}[{p}]") for p, pile in enumerate(piles)]


def _cards(value: Any, field: str) -> list[int]:
    require(isinstance(value, list), field, f"must be a list of cards, got {type(value).__name__}")
    try:
        cards = [_CARD_TYPES[name] for name in value]
    except (KeyError, TypeError):  # a name to explain, or one written differently ('WILD')
        cards = [_card(name, f"{field}[{i}]") for i, name in enumerate(value)]
    return cards


def _check_every_card_once(hands: list[list[int]], deck: list[int], discards: list[list[int]], game: Any) -> None:
    copies = game.copies  # of each card type in the game's deck
    places = [(f"hands[{p}]", h) for p, h in enumerate(hands)] + [("deck", deck)]
    places += [(f"discards[{p}]", d) for p, d in enumerate(discards)]
    seen = np.bincount(
        np.asarray([card for _, cards in places for card in cards], dtype=np.int64), minlength=len(copies)
    )
    if (seen > copies).any():  # name the place where a card turns up once too often
        seen[:] = 0
        for field, cards in places:
            seen += np.bincount(np.asarray(cards, dtype=np.int64), minlength=len(copies))
            extra = np.flatnonzero(seen > copies)
            if extra.size:
                card = int(extra[0])
                if card == B.WILD:
                    what = f"a wild too many: there are {copies[B.WILD]}"
                elif copies[card] == 0:
                    what = f"{B.card_name(card)} is not in this game's deck: its cromlet is not in play{_in_play(game)}"
                else:
                    what = f"{B.card_name(card)} is here again: each circle card exists once"
                raise InvalidStateError(field, what)
    missing = np.flatnonzero(seen < copies)
    if missing.size:
        card = int(missing[0])
        if card == B.WILD:
            raise InvalidStateError(
                "cards",
                f"only {seen[card]} of the {copies[B.WILD]} wilds are in the hands, the deck and the discard piles",
            )
        raise InvalidStateError(
            "cards", f"{B.card_name(card)} is missing: in no hand, not in the deck, on no discard pile"
        )


def _check_hand_sizes(hands: list[list[int]], deck: list[int], hand_size: int, current: int) -> None:
    """Hands are topped up while the deck lasts; once it is empty, every turn plays one card from a hand."""
    for p, hand in enumerate(hands):
        require(len(hand) <= hand_size, f"hands[{p}]", f"holds {len(hand)} cards; a full hand is {hand_size}")
        require(
            not deck or len(hand) == hand_size,
            f"hands[{p}]",
            f"holds {len(hand)} cards while the deck still has "
            f"{len(deck)}: hands are topped up to {hand_size} after every turn while the deck lasts",
        )
    if not deck:  # full when the deck ran out; since then each turn took one card, going round from the mover
        n = len(hands)
        sizes = [len(hands[(current + i) % n]) for i in range(n)]
        ordered = all(a >= b for a, b in pairwise(sizes)) and sizes[0] - sizes[-1] <= 1
        require(
            ordered,
            "hands",
            f"with the deck empty each turn plays one card, so the hand sizes read in turn order "
            f"from the player to move (seat {current}) fall by at most one in all; got {sizes}",
        )


def _check_discards(discards: list[list[int]], cover: np.ndarray, wild: np.ndarray, closed: np.ndarray) -> None:
    """A pile holds the cards its seat played (a wild for each wild it played) and the dead cards it traded in."""
    dead = wild | closed[B.CIRCLE_CROMLET]
    for p, pile in enumerate(discards):
        field = f"discards[{p}]"
        own = cover == p
        wilds = int(np.count_nonzero(own & wild))
        require(
            pile.count(B.WILD) == wilds,
            field,
            f"holds {pile.count(B.WILD)} wilds, but seat {p} covered {wilds} circles with a wild",
        )
        played = set(np.flatnonzero(own & ~wild).tolist())
        for circle in sorted(played - set(pile)):
            raise InvalidStateError(
                field, f"seat {p} covered {B.CIRCLE_NAMES[circle]} with its card, so that card is on its pile"
            )
        for card in pile:
            if not (card == B.WILD or card in played or dead[card]):
                raise InvalidStateError(
                    field,
                    f"{B.card_name(card)} is neither a card seat {p} played nor a dead card it "
                    "traded in (a traded card's circle is under a wild or its cromlet is closed)",
                )


def _check_turn(discards: list[list[int]], cover: np.ndarray, dealer: int, current: int) -> None:
    """Turns go round from the dealer's left: seat p has moved q or q + 1 times, covering a circle or trading in
    one or two cards each time, and the next in turn is `current`."""
    n = len(discards)
    covers = np.bincount(cover[cover >= 0], minlength=n)
    traded = np.array([len(pile) for pile in discards]) - covers
    first = (np.arange(n) - dealer - 1) % n  # each seat's place in the first round
    ahead = first < (current - dealer - 1) % n  # seats that have moved once more than the mover
    low = np.max(covers + (traded + 1) // 2 - ahead)
    high = np.min(covers + traded - ahead)
    require(
        max(low, 0) <= high,
        "current_player",
        f"turns go round from the dealer's left (dealer: seat {dealer}), and each "
        f"move covers a circle or trades in one or two cards; the crowns {covers.tolist()} and the cards traded "
        f"in {traded.tolist()} per seat do not leave seat {current} to move",
    )


# --- names -----------------------------------------------------------------------------------------------
def _card(name: Any, field: str) -> int:
    if not isinstance(name, str):
        raise InvalidStateError(field, f"a card is a circle name such as 'Q8' or 'wild', got {name!r}")
    try:
        return B.card_type(name)
    except ValueError as error:
        raise InvalidStateError(field, str(error)) from None


def _circle(name: Any, field: str) -> int:
    card = _CARD_TYPES[name] if type(name) is str and name in _CARD_TYPES else _card(name, field)
    require(card != B.WILD, field, f"{name!r} is not a circle; circles are named like 'Q8'")
    return card


def _cromlet(letter: Any, field: str) -> int:
    if type(letter) is str and letter in _CROMLETS:
        return _CROMLETS[letter]
    require(isinstance(letter, str), field, f"a cromlet is a letter {B.LETTERS[0]}-{B.LETTERS[-1]}, got {letter!r}")
    try:
        return B.cromlet_index(letter)
    except ValueError as error:
        raise InvalidStateError(field, str(error)) from None

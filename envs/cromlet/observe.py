"""Cromlet observations: the seat's private view as a float32 vector (seats relative to the observer).

Seat-indexed blocks list the observer first, then the players to its left in turn order.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.core import Layout
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.rules import CromletGame, CromletState

CARD_TYPES = B.NUM_CIRCLES + 1


def private_layout(n: int) -> Layout:
    return Layout.of(
        ("hand", CARD_TYPES, "own hand: 1 per circle card held; last entry = wilds held / 6"),
        ("circle_open", B.NUM_CIRCLES, "1 if the circle has no crown and its cromlet is unclaimed"),
        ("circle_crown", (n, B.NUM_CIRCLES), "1 where that (relative) seat's crown covers the circle"),
        ("circle_wild", B.NUM_CIRCLES, "1 if the circle was covered with a wild card"),
        ("circle_claim", (n, B.NUM_CIRCLES), "1 on the circle with which that seat claimed its cromlet"),
        ("cromlet_closed", B.NUM_CROMLETS, "1 if the cromlet is claimed or closed without points"),
        ("scores", n, "each seat's (team) score / 100"),
        ("claims_left", n, "claims each seat's team may still make / claim limit"),
        ("hand_sizes", n, "cards in each seat's hand / 7"),
        ("deck_size", 1, "cards left in the deck / 138"),
        ("discards", (n, CARD_TYPES), "face-up discard piles: circle cards 0/1, last entry = wilds / 6"),
    )


def omniscient_layout(n: int) -> Layout:
    return private_layout(n) + Layout.of(
        ("all_hands", (n, CARD_TYPES), "every seat's hand, same coding as `hand`"),
        ("deck_order", B.NUM_CARDS, "deck position of each circle card, then of each wild (top first): "
         "1 - position/138 if in the deck, else 0"),
    )


_CARD_SCALE = np.ones(CARD_TYPES)
_CARD_SCALE[B.WILD] = 1 / B.NUM_WILDS  # circle cards are unique (0/1); wilds are counted out of six


class CromletObserver:
    """Builds observation vectors for one game configuration, in layout order, in one concatenation."""

    def __init__(self, game: CromletGame, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        self.layout = omniscient_layout(game.num_players) if omniscient else private_layout(game.num_players)
        n = game.num_players
        self.orders = [(p + np.arange(n)) % n for p in range(n)]  # absolute seat at each relative position
        self.teams = [game.team_of[order] for order in self.orders]

    def encode(self, state: CromletState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        g = self.game
        order, team = self.orders[player], self.teams[player]
        claim_owner = np.full(B.NUM_CIRCLES, -1)
        claimed = state.claimed_by >= 0
        claim_owner[state.claim_circle[claimed]] = state.claimed_by[claimed]
        seats = order[:, None]
        parts = [
            state.hands[player] * _CARD_SCALE,
            state.open_circles(),
            (state.cover == seats).ravel(),
            state.wild,
            (claim_owner == seats).ravel(),
            state.closed,
            state.team_scores[team] / 100,
            (g.claim_limit - state.team_claims[team]) / g.claim_limit,
            state.hand_sizes[order] / g.hand_size,
            [len(state.deck) / B.NUM_CARDS],
            (state.discard_counts[order] * _CARD_SCALE).ravel(),
        ]
        if self.omniscient:
            parts += [(state.hands[order] * _CARD_SCALE).ravel(), _deck_order(state.deck)]
        return np.concatenate(parts, dtype=np.float32, out=out)


def _deck_order(deck: list[int]) -> np.ndarray:
    out = np.zeros(B.NUM_CARDS)
    depth = 1 - np.arange(len(deck)) / B.NUM_CARDS
    cards = np.asarray(deck, dtype=np.int64)
    is_wild = cards == B.WILD
    out[cards[~is_wild]] = depth[~is_wild]
    out[B.NUM_CIRCLES : B.NUM_CIRCLES + int(is_wild.sum())] = depth[is_wild]
    return out

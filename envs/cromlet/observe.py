"""Cromlet observations: the seat's private view as a float32 vector (seats relative to the observer).

Seat-indexed blocks list the observer first, then the players to its left in turn order.
"""

from __future__ import annotations

import numpy as np

from envs.core import Layout
from envs.cromlet import board as B

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


class Encoder:
    """Fills observation vectors for one game configuration; segment views are resolved once."""

    def __init__(self, game, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        self.layout = omniscient_layout(game.num_players) if omniscient else private_layout(game.num_players)
        n = game.num_players
        self.orders = [(p + np.arange(n)) % n for p in range(n)]  # absolute seat at each relative position
        self.ranks = [(np.arange(n) - p) % n for p in range(n)]  # relative position of each absolute seat
        self.teams = [game.team_of[order] for order in self.orders]

    def __call__(self, state, player: int) -> np.ndarray:
        g, layout = self.game, self.layout
        obs = layout.zeros()
        block = lambda name: layout.block(obs, name)  # noqa: E731 - a view into obs
        order, rank, team = self.orders[player], self.ranks[player], self.teams[player]

        _put_cards(block("hand"), state.hands[player])
        block("circle_open")[:] = state.open_circles()
        covered = np.flatnonzero(state.cover >= 0)
        block("circle_crown")[rank[state.cover[covered]], covered] = 1
        block("circle_wild")[:] = state.wild
        claimed = np.flatnonzero(state.claimed_by >= 0)
        block("circle_claim")[rank[state.claimed_by[claimed]], state.claim_circle[claimed]] = 1
        block("cromlet_closed")[:] = state.closed
        block("scores")[:] = state.team_scores[team] / 100
        block("claims_left")[:] = (g.claim_limit - state.team_claims[team]) / g.claim_limit
        block("hand_sizes")[:] = state.hand_sizes[order] / g.hand_size
        block("deck_size")[0] = len(state.deck) / B.NUM_CARDS
        _put_cards(block("discards"), state.discard_counts[order])
        if self.omniscient:
            _put_cards(block("all_hands"), state.hands[order])
            deck = block("deck_order")
            depth = 1 - np.arange(len(state.deck)) / B.NUM_CARDS
            cards = np.asarray(state.deck, dtype=np.int64)
            is_wild = cards == B.WILD
            deck[cards[~is_wild]] = depth[~is_wild]
            deck[B.NUM_CIRCLES : B.NUM_CIRCLES + int(is_wild.sum())] = depth[is_wild]
        return obs


def _put_cards(block: np.ndarray, counts: np.ndarray) -> None:
    """Circle cards are unique (0/1); the wild column holds a count, scaled by the six wilds."""
    block[:] = counts
    block[..., B.WILD] /= B.NUM_WILDS

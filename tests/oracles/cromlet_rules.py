"""Cromlet's move in plain Python (one statement per card, the deck and discard piles as lists, the change log
as tuples): the oracle of the differential test against `kernels.play`.

`PythonMove(state)` copies a position's facts; `apply(action)` plays the action in plain Python and
`matches(state)` compares every fact, the logged changes and the next mask with a state that played it
through the kernel.
"""

from __future__ import annotations

import numpy as np
from oracles.cromlet_mask import dead_cards, legal_mask
from oracles.cromlet_observe import changes

from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.actions import NUM_ACTIONS, decode_action
from tabletop.envs.cromlet.rules import ARRAY_FIELDS


class PythonMove:
    """A copy of a position's facts that moves as the Python rules did."""

    def __init__(self, state):
        self.game = state.game
        for name in ARRAY_FIELDS:
            setattr(self, name, getattr(state, name).copy())
        self.deck = list(state.deck)
        self.discards = [list(d) for d in state.discards]
        self.num_closed = state.num_closed
        self.current = state.current_player
        self.terminal = False
        self.mask: np.ndarray | None = None
        self.changes: list[tuple] = []

    def apply(self, action: int) -> None:
        p = self.current
        kind, arg = decode_action(action)
        if kind == "trade":
            self._trade(p, arg)
        else:
            self._play(p, arg, wild=kind.startswith("wild"), claim=kind.endswith("claim"))
        self.current = (p + 1) % self.game.num_players
        self._check_end()

    def matches(self, state) -> bool:
        """Every fact, the changes logged since `state` was copied (its log starts empty: a clone) and the mask."""
        same = all(np.array_equal(getattr(self, name), getattr(state, name)) for name in ARRAY_FIELDS)
        return (
            same
            and self.deck == state.deck
            and self.discards == state.discards
            and self.num_closed == state.num_closed
            and self.current == state._current
            and self.terminal == state.is_terminal()
            and np.array_equal(self.mask, state.legal_action_mask())
            and self.changes == changes(state)
        )

    # --- the transitions, as they were -------------------------------------------------------------
    def _draw(self, player: int) -> None:
        card = self.deck.pop(0)
        self.hands[player, card] += 1
        self.hand_sizes[player] += 1
        self.changes.append(("hand", player, card))

    def _refill(self, player: int) -> None:
        for _ in range(min(len(self.deck), self.game.hand_size - self.hand_sizes.item(player))):
            self._draw(player)

    def _discard(self, p: int, card_type: int) -> None:
        """From `p`'s hand onto `p`'s face-up discard pile."""
        self.hands[p, card_type] -= 1
        self.hand_sizes[p] -= 1
        self.changes.append(("hand", p, card_type))
        self.discards[p].append(card_type)
        self.discard_counts[p, card_type] += 1
        self.changes.append(("discard", p, card_type))

    def _play(self, p: int, circle: int, wild: bool, claim: bool) -> None:
        self._discard(p, B.WILD if wild else circle)
        self.cover[circle] = p
        self.wild[circle] = wild
        self.changes.append(("cover", circle))
        k = int(B.CIRCLE_CROMLET[circle])
        self.open_[circle] = False
        self.open_count[k] -= 1
        if claim:
            team = self.game.team_of[p]
            self.claimed_by[k] = p
            self.claim_circle[k] = circle
            self.team_claims[team] += 1
            self.team_scores[team] += int(B.CIRCLE_VALUE[circle])
            self.changes.append(("claim", k))
            self._close(k)
        elif self.open_count[k] == 0:
            self._close(k)  # last circle covered at the claim limit: closed, nobody scores
        elif self.is_lowest[circle]:
            self.is_lowest[circle] = False
            above = circle + 1
            while not self.open_[above]:  # an open circle remains above: every lower one is covered
                above += 1
            self.is_lowest[above] = True
        self._refill(p)

    def _close(self, k: int) -> None:
        self.closed[k] = True
        self.num_closed += 1
        self.open_[B.CROMLET_SLICES[k]] = False
        self.is_lowest[B.CROMLET_SLICES[k]] = False
        self.open_count[k] = 0
        self.changes.append(("close", k))

    def _trade(self, p: int, count: int) -> None:
        """Dead cards are useless whichever they are, so the lowest-numbered ones go first."""
        for card in dead_cards(self.hands[p], self.open_)[:count].tolist():
            self._discard(p, card)
        self._refill(p)

    def _check_end(self) -> None:
        """The game ends when the player to move cannot play, or once every cromlet is closed."""
        p = self.current
        can_claim = self.team_claims[self.game.team_of[p]] < self.game.claim_limit
        self.mask = legal_mask(
            self.hands[p],
            int(self.hand_sizes[p]),
            self.open_,
            self.is_lowest,
            self.open_count,
            can_claim,
            len(self.deck),
        )
        if not self.mask.any() or self.num_closed == B.NUM_CROMLETS:
            self.terminal = True
            self.mask = np.zeros(NUM_ACTIONS, dtype=np.int8)


def deal(game, deck: list[int], dealer: int) -> tuple[np.ndarray, np.ndarray, list[int], list[tuple]]:
    """The hands, their sizes, the rest of the deck and the changes of the deal, one card at a time starting
    left of the dealer, as the Python rules dealt."""
    n = game.num_players
    hands = np.zeros((n, B.NUM_CIRCLES + 1), dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    deck, log = list(deck), []
    for _ in range(game.hand_size):
        for k in range(n):
            p = (dealer + 1 + k) % n
            card = deck.pop(0)
            hands[p, card] += 1
            sizes[p] += 1
            log.append(("hand", p, card))
    return hands, sizes, deck, log

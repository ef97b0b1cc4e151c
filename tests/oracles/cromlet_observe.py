"""Cromlet's observer as it was written in Python before `kernels.catch_up` took over its catch-up: a table of
the position's facts caught up one change at a time, and every look a gather from it. The oracle the
differential test holds the observer to, bit for bit.

The rules logged changes as tuples then; they log rows of `state.events` now, read here as those tuples.
"""

from __future__ import annotations

import weakref

import numpy as np

from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet import kernels
from tabletop.envs.cromlet.observe import _SCALE, REBUILD_AFTER, _cromlet_facts, _deck_order, _Table
from tabletop.envs.cromlet.rules import CromletState

_KINDS = {kernels.HAND: "hand", kernels.DISCARD: "discard", kernels.COVER: "cover", kernels.CLAIM: "claim"}


def changes(state: CromletState) -> list[tuple]:
    """The logged events as the tuples the rules appended before: ("hand" | "discard", seat, card type),
    ("cover", circle), ("claim" | "close", cromlet)."""
    return [
        (_KINDS[kind], a, b) if kind in (kernels.HAND, kernels.DISCARD) else (_KINDS.get(kind, "close"), a)
        for kind, a, b in state.events[: state.counters[kernels.EVENTS]].tolist()
    ]


class OracleTable(_Table):
    """One position's table (built as the observer builds it), caught up change by change in plain Python."""

    def catch_up(self, state: CromletState) -> None:
        """Apply what changed since the last look (each handler reads the state's present values)."""
        log = changes(state)
        if len(log) - self.seen > REBUILD_AFTER:
            self.rebuild(state)
            return
        for change in log[self.seen :]:
            kind = change[0]
            # a circle card goes deck -> one hand -> a discard pile, never back: it stops being unseen
            # for the seat that draws it, and for everyone once discarded
            if kind == "hand":
                _, p, card = change
                self.hands[p, card] = state.hands.item(p, card) * _SCALE[card]
                self.hand_sizes[p] = state.hand_sizes.item(p) / self.game.hand_size
                if card < B.NUM_CIRCLES:
                    self.unseen[p, card] = 0.0
            elif kind == "discard":
                _, p, card = change
                self.discards[p, card] = state.discard_counts.item(p, card) * _SCALE[card]
                if card < B.NUM_CIRCLES:
                    self.unseen[:, card] = 0.0
            elif kind == "cover":
                circle = change[1]
                self.crown[state.cover[circle], circle] = 1.0
                self.wild[circle] = state.wild[circle]
                self._cromlet(state, B.CIRCLE_CROMLET[circle])
            elif kind == "claim":
                k = change[1]
                self.claim[state.claimed_by[k], state.claim_circle[k]] = 1.0
                self.claimed_by[state.claimed_by[k], B.CROMLET_SLICES[k]] = 1.0
                self._teams(state)
            else:  # "close"
                k = change[1]
                self.closed[k] = 1.0
                self.closed_no_points[B.CROMLET_SLICES[k]] = state.claimed_by[k] < 0
                self._cromlet(state, k)
        self.seen = len(log)
        self.deck[0] = len(state.deck) / B.NUM_CARDS
        self.gathered = [False] * self.game.num_players  # the observer's rows are not kept here

    def _cromlet(self, state: CromletState, k: int) -> None:
        where = B.CROMLET_SLICES[k]
        self.values[self._facts_at[k]] = _cromlet_facts(k)[state.open_[where].tobytes()]

    def _teams(self, state: CromletState) -> None:
        g = self.game
        self.scores[:] = state.team_scores[g.team_of] / 100
        self.claims_left[:] = (g.claim_limit - state.team_claims[g.team_of]) / g.claim_limit


class OracleObserver:
    """The observer's former `encode`: catch the table up, gather the seat's observation from it."""

    def __init__(self, observer):
        self.observer, self.omniscient, self.layout, self.index = (
            observer,
            observer.omniscient,
            observer.layout,
            observer.index,
        )
        self._tables: weakref.WeakKeyDictionary[CromletState, OracleTable] = weakref.WeakKeyDictionary()

    def encode(self, state: CromletState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        table = self._tables.get(state)
        if table is None:
            table = self._tables[state] = OracleTable(self.observer, state)
        else:
            table.catch_up(state)
        if out is None:
            out = np.empty(self.layout.size, dtype=np.float32)
        index = self.index[player]
        table.values.take(index, out=out[: len(index)], mode="clip")  # every index is valid: no checks
        if self.omniscient:
            out[len(index) :] = _deck_order(state.deck)
        return out

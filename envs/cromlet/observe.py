"""Cromlet observations: the seat's private view as a float32 vector (seats relative to the observer).

Seat-indexed blocks list the observer first, then the players to its left in turn order. An observation
is gathered from a table of the position's facts (`table_layout`) that the observer keeps up to date
move by move from the changes the rules log (`CromletState.changes`), instead of rebuilding it.
"""

from __future__ import annotations

import weakref
from functools import cache

import numpy as np

from tabletop.envs.core import Layout
from tabletop.envs.core.structures import indices, shape
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.rules import CromletGame, CromletState

CARD_TYPES = B.NUM_CIRCLES + 1
MAX_TEAM_SCORE = sum(max(values) for values in B.VALUES_BY_CROMLET)  # every cromlet claimed at its top circle
MAX_VALUE = int(B.CIRCLE_VALUE.max())
MAX_SIZE = max(len(v) for v in B.VALUES_BY_CROMLET)


def circle_channels(n: int) -> list[str]:
    """The per-circle facts of the `circles` segment, in channel order (seat channels relative, observer first).

    What a player reads off the board about one circle and its cromlet, precomputed so that a network
    with weights shared across circles sees each circle's situation in one row."""
    return [
        "value / 24",
        "rank in its cromlet (0 lowest, 1 highest)",
        "open",
        "lowest open circle of its cromlet (covering it may claim)",
        "its card is in the own hand",
        "its card is unseen (in another hand or the deck)",
        "covered by a wild",
        *[f"crown of seat +{r}" for r in range(n)],
        *[f"its cromlet claimed by seat +{r}" for r in range(n)],
        *[f"its card on the discard pile of seat +{r}" for r in range(n)],
        "its cromlet closed without points",
        "best open value of its cromlet / 24",
        "offer: value / best open value of its cromlet (0 if not open)",
        "value of the next open circle above it in its cromlet / 24 (0 if none)",
        "open circles left in its cromlet / 8",
    ]


def private_layout(n: int) -> Layout:
    return Layout.of(
        ("hand", CARD_TYPES, "own hand: 1 per circle card held; last entry = wilds held / 6"),
        ("circle_open", B.NUM_CIRCLES, "1 if the circle has no crown and its cromlet is unclaimed"),
        ("circle_crown", (n, B.NUM_CIRCLES), "1 where that (relative) seat's crown covers the circle"),
        ("circle_wild", B.NUM_CIRCLES, "1 if the circle was covered with a wild card"),
        ("circle_claim", (n, B.NUM_CIRCLES), "1 on the circle with which that seat claimed its cromlet"),
        ("cromlet_closed", B.NUM_CROMLETS, "1 if the cromlet is claimed or closed without points"),
        ("scores", n, "each seat's (team) score / 100", (0, MAX_TEAM_SCORE / 100)),
        ("claims_left", n, "claims each seat's team may still make / claim limit"),
        ("hand_sizes", n, "cards in each seat's hand / 7"),
        ("deck_size", 1, "cards left in the deck / 138"),
        ("discards", (n, CARD_TYPES), "face-up discard piles: circle cards 0/1, last entry = wilds / 6"),
        (
            "circles",
            (B.NUM_CIRCLES, len(circle_channels(n))),
            "per-circle facts, one row per circle: " + "; ".join(circle_channels(n)),
        ),
    )


def omniscient_layout(n: int) -> Layout:
    return private_layout(n) + Layout.of(
        ("all_hands", (n, CARD_TYPES), "every seat's hand, same coding as `hand`"),
        (
            "deck_order",
            B.NUM_CARDS,
            "deck position of each circle card, then of each wild (top first): 1 - position/138 if in the deck, else 0",
        ),
    )


_CARD_SCALE = np.ones(CARD_TYPES)
_CARD_SCALE[B.WILD] = 1 / B.NUM_WILDS  # circle cards are unique (0/1); wilds are counted out of six
_SCALE = _CARD_SCALE.tolist()  # the same, as Python floats for one card at a time
_SIZES = np.array([len(v) for v in B.VALUES_BY_CROMLET])
_RANK = (np.arange(B.NUM_CIRCLES) - B.CROMLET_START[B.CIRCLE_CROMLET]) / (_SIZES[B.CIRCLE_CROMLET] - 1)
_VALUE = B.CIRCLE_VALUE / MAX_VALUE
OPEN, LOWEST, BEST, OFFER, NEXT, COUNT = range(6)  # columns of the table's `cromlet_facts` block
REBUILD_AFTER = 64  # changes to catch up on beyond which a rebuild is cheaper


def table_layout(n: int) -> Layout:
    """Every fact an observation holds, once, with absolute seats: the observer's table.

    An observation is a gather from it (seats turned relative to the observer, the seat's own rows
    picked out). A circle's `cromlet_facts` depend on nothing but which circles of its cromlet are open."""
    return Layout.of(
        ("hands", (n, CARD_TYPES), "each seat's hand, coded as `hand`"),
        ("discards", (n, CARD_TYPES), "each seat's discard pile, coded as `discards`"),
        ("crown", (n, B.NUM_CIRCLES), "1 where that seat's crown covers the circle"),
        ("claim", (n, B.NUM_CIRCLES), "1 on the circle with which that seat claimed its cromlet"),
        ("claimed_by", (n, B.NUM_CIRCLES), "1 on every circle of a cromlet that seat claimed"),
        ("unseen", (n, B.NUM_CIRCLES), "1 where the circle's card is neither in that seat's hand nor discarded"),
        (
            "cromlet_facts",
            (B.NUM_CIRCLES, 6),
            "per circle: open; lowest open of its cromlet; its cromlet's best "
            "open value / 24; offer; value of the next open circle above / 24; open circles left in its cromlet / 8",
        ),
        ("wild", B.NUM_CIRCLES, "1 if covered with a wild"),
        ("closed_no_points", B.NUM_CIRCLES, "1 if its cromlet closed without a claim"),
        ("value", B.NUM_CIRCLES, "value / 24"),
        ("rank", B.NUM_CIRCLES, "rank in its cromlet"),
        ("closed", B.NUM_CROMLETS, "1 if the cromlet is closed"),
        ("scores", n, "each seat's (team) score / 100", (0, MAX_TEAM_SCORE / 100)),
        ("claims_left", n, "claims each seat's team may still make / claim limit"),
        ("hand_sizes", n, "cards in each seat's hand / hand size"),
        ("deck", 1, "cards left in the deck / 138"),
    )


def _gather_index(table: Layout, layout: Layout, n: int, player: int) -> np.ndarray:
    """Table positions of `player`'s observation, in layout order (without the computed `deck_order`)."""
    at = {seg.name: table.block(np.arange(table.size), seg.name) for seg in table.segments}
    order = (player + np.arange(n)) % n  # absolute seat at each relative position
    rows = at["cromlet_facts"].T
    channels = [  # the `circles` segment, channel by channel as `circle_channels` lists them
        at["value"],
        at["rank"],
        rows[OPEN],
        rows[LOWEST],
        at["hands"][player, : B.NUM_CIRCLES],
        at["unseen"][player],
        at["wild"],
        *at["crown"][order],
        *at["claimed_by"][order],
        *at["discards"][order, : B.NUM_CIRCLES],
        at["closed_no_points"],
        rows[BEST],
        rows[OFFER],
        rows[NEXT],
        rows[COUNT],
    ]
    assert len(channels) == len(circle_channels(n)), "every `circles` channel needs its table source here"
    segments = {
        "hand": at["hands"][player],
        "circle_open": rows[OPEN],
        "circle_crown": at["crown"][order],
        "circle_wild": at["wild"],
        "circle_claim": at["claim"][order],
        "cromlet_closed": at["closed"],
        "scores": at["scores"][order],
        "claims_left": at["claims_left"][order],
        "hand_sizes": at["hand_sizes"][order],
        "deck_size": at["deck"],
        "discards": at["discards"][order],
        "circles": np.stack(channels, axis=1),
        "all_hands": at["hands"][order],
    }
    return np.concatenate([segments[seg.name].ravel() for seg in layout.segments if seg.name != "deck_order"])


@cache
def _cromlet_facts(k: int) -> dict[bytes, np.ndarray]:
    """Cromlet `k`'s `cromlet_facts` (flat, circle by circle) for every way its circles can be open,
    keyed by the open flags' bytes; built once, on first use."""
    values = B.CIRCLE_VALUE[B.CROMLET_SLICES[k]]
    size = len(values)
    is_open = (np.arange(2**size)[:, None] >> np.arange(size)) & 1 == 1  # every pattern, one per row
    best = np.where(is_open, values, 0).max(axis=1)[:, None]
    above = np.zeros(is_open.shape, dtype=np.int64)  # value of the next open circle above (0 if none)
    for i in range(size - 2, -1, -1):
        above[:, i] = np.where(is_open[:, i + 1], values[i + 1], above[:, i + 1])
    lowest = np.zeros(is_open.shape, dtype=bool)
    lowest[np.arange(len(is_open)), is_open.argmax(axis=1)] = is_open.any(axis=1)
    columns = [
        is_open,
        lowest,
        np.broadcast_to(best / MAX_VALUE, is_open.shape),
        np.where(is_open, values / np.maximum(best, 1), 0),
        above / MAX_VALUE,
        np.broadcast_to(is_open.sum(axis=1, keepdims=True) / MAX_SIZE, is_open.shape),
    ]
    facts = np.stack(columns, axis=2).astype(np.float32)  # [pattern, circle, column]
    facts.setflags(write=False)
    return {pattern.tobytes(): row.ravel() for pattern, row in zip(is_open, facts)}


class _Table:
    """One position's table, caught up move by move from `state.changes` (rebuilt when it is new)."""

    def __init__(self, game: CromletGame, layout: Layout, state: CromletState):
        self.game = game
        self.values = layout.zeros()
        for seg in layout.segments:
            setattr(self, seg.name, layout.block(self.values, seg.name))
        self.value[:] = _VALUE
        self.rank[:] = _RANK
        start = layout.slice("cromlet_facts").start
        self._facts_at = [slice(start + 6 * r.start, start + 6 * r.stop) for r in B.CROMLET_SLICES]
        self.rebuild(state)

    def rebuild(self, state: CromletState) -> None:
        seats = np.arange(self.game.num_players)[:, None]
        cromlet = B.CIRCLE_CROMLET
        np.multiply(state.hands, _CARD_SCALE, out=self.hands)
        np.multiply(state.discard_counts, _CARD_SCALE, out=self.discards)
        self.crown[:] = state.cover == seats
        self.claim[:] = 0.0
        for k in np.flatnonzero(state.claimed_by >= 0):
            self.claim[state.claimed_by[k], state.claim_circle[k]] = 1.0
        self.claimed_by[:] = state.claimed_by[cromlet] == seats
        self.unseen[:] = ~(state.hands[:, : B.NUM_CIRCLES] > 0) & ~(state.discard_counts[:, : B.NUM_CIRCLES] > 0).any(
            axis=0
        )
        for k in range(B.NUM_CROMLETS):
            self._cromlet(state, k)
        self.wild[:] = state.wild
        self.closed_no_points[:] = state.closed[cromlet] & (state.claimed_by[cromlet] < 0)
        self.closed[:] = state.closed
        self._teams(state)
        self.hand_sizes[:] = state.hand_sizes / self.game.hand_size
        self.deck[0] = len(state.deck) / B.NUM_CARDS
        self.seen = len(state.changes)

    def catch_up(self, state: CromletState) -> None:
        """Apply what changed since the last look (each handler reads the state's present values)."""
        changes = state.changes
        if len(changes) - self.seen > REBUILD_AFTER:
            self.rebuild(state)
            return
        for change in changes[self.seen :]:
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
        self.seen = len(changes)
        self.deck[0] = len(state.deck) / B.NUM_CARDS

    def _cromlet(self, state: CromletState, k: int) -> None:
        where = B.CROMLET_SLICES[k]
        self.values[self._facts_at[k]] = _cromlet_facts(k)[state.open_[where].tobytes()]

    def _teams(self, state: CromletState) -> None:
        g = self.game
        self.scores[:] = state.team_scores[g.team_of] / 100
        self.claims_left[:] = (g.claim_limit - state.team_claims[g.team_of]) / g.claim_limit


CIRCLE_GLOBALS = ("scores", "claims_left", "hand_sizes", "deck_size")


def circles_structure(table) -> dict:
    """Where the observation keeps what the `circles` network reads: one row of facts per circle, and the
    global numbers (wilds held, scores, claims left, hand sizes, deck size); actions "kind k on circle c"."""
    from tabletop.envs.cromlet.rules import NUM_ACTIONS, TRADE_ONE

    layout = table.observer.layout
    entities, channels = shape(layout, "circles")
    return {
        "entity_offset": layout.slice("circles").start,
        "entities": entities,
        "channels": channels,
        "global_index": [layout.slice("hand").stop - 1, *indices(layout, CIRCLE_GLOBALS)],  # wilds held first
        "group_of": B.CIRCLE_CROMLET.tolist(),
        "entity_actions": TRADE_ONE // entities,
        "extra_actions": NUM_ACTIONS - TRADE_ONE,
    }


class CromletObserver:
    """Observation vectors for one game configuration, gathered from a table of the position's facts that
    is kept up to date move by move (one table per position, held as long as the position lives)."""

    network_structures = {"circles": circles_structure}  # network kinds besides `mlp`, and what they read

    def __init__(self, game: CromletGame, omniscient: bool):
        self.game = game
        self.omniscient = omniscient
        n = game.num_players
        self.layout = omniscient_layout(n) if omniscient else private_layout(n)
        self.table_layout = table_layout(n)
        self.index = [_gather_index(self.table_layout, self.layout, n, p) for p in range(n)]
        self._tables: weakref.WeakKeyDictionary[CromletState, _Table] = weakref.WeakKeyDictionary()

    def __getstate__(self) -> dict:
        """Pickled without the tables (weak references do not pickle; a table is rebuilt at the next look)."""
        return {k: v for k, v in self.__dict__.items() if k != "_tables"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._tables = weakref.WeakKeyDictionary()

    def encode(self, state: CromletState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        table = self._tables.get(state)
        if table is None:
            table = self._tables[state] = _Table(self.game, self.table_layout, state)
        else:
            table.catch_up(state)
        if out is None:
            out = np.empty(self.layout.size, dtype=np.float32)
        index = self.index[player]
        table.values.take(index, out=out[: len(index)], mode="clip")  # every index is valid: no checks
        if self.omniscient:
            out[len(index) :] = _deck_order(state.deck)
        return out


def _deck_order(deck: list[int]) -> np.ndarray:
    out = np.zeros(B.NUM_CARDS)
    depth = 1 - np.arange(len(deck)) / B.NUM_CARDS
    cards = np.asarray(deck, dtype=np.int64)
    is_wild = cards == B.WILD
    out[cards[~is_wild]] = depth[~is_wild]
    out[B.NUM_CIRCLES : B.NUM_CIRCLES + int(is_wild.sum())] = depth[is_wild]
    return out

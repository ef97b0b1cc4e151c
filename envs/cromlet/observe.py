"""Cromlet observations: the seat's private view as a float32 vector (seats relative to the observer).

Seat-indexed blocks list the observer first, then the players to its left in turn order. An observation
is gathered from a table of the position's facts (`table_layout`) that the observer keeps up to date
move by move from the events the rules log (`CromletState.events`), instead of rebuilding it; a compiled
catch-up (`kernels.catch_up`) writes each changed fact into the table and into every seat's gathered
observation at once, so a look is a copy.
"""

from __future__ import annotations

import weakref
from functools import cache

import numpy as np

from tabletop.envs.core import Layout
from tabletop.envs.core.structures import indices, shape
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet import kernels
from tabletop.envs.cromlet.board import MAX_SIZE, MAX_VALUE
from tabletop.envs.cromlet.rules import CromletGame, CromletState

CARD_TYPES = B.NUM_CIRCLES + 1
MAX_TEAM_SCORE = sum(max(values) for values in B.VALUES_BY_CROMLET)  # every cromlet claimed at its top circle


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
# the table segments the catch-up kernel writes, in the order of its offsets (kernels.T_HANDS ... T_DECK)
_KERNEL_SEGMENTS = (
    "hands",
    "discards",
    "crown",
    "claim",
    "claimed_by",
    "unseen",
    "cromlet_facts",
    "wild",
    "closed_no_points",
    "closed",
    "scores",
    "claims_left",
    "hand_sizes",
    "deck",
)


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
    """One position's table and every seat's observation gathered from it (`rows`), caught up move by move
    from `state.events` (rebuilt when it is new)."""

    def __init__(self, observer: CromletObserver, state: CromletState):
        self.game = game = observer.game
        self.index = observer.index
        self.where = (observer.starts, observer.targets, observer.offsets)  # `kernels.catch_up`'s map of the table
        layout = observer.table_layout
        self.values = layout.zeros()
        for seg in layout.segments:
            setattr(self, seg.name, layout.block(self.values, seg.name))
        self.value[:] = _VALUE
        self.rank[:] = _RANK
        start = layout.slice("cromlet_facts").start
        self._facts_at = [slice(start + 6 * r.start, start + 6 * r.stop) for r in B.CROMLET_SLICES]
        self.rows = np.empty((game.num_players, len(self.index[0])), dtype=np.float32)
        self.gathered = [False] * game.num_players  # whether a seat's row is up to date
        self.rebuild(state)

    def row(self, player: int) -> np.ndarray:
        """`player`'s observation (less `deck_order`), gathered from the table on the first look after a rebuild."""
        if not self.gathered[player]:
            self.values.take(self.index[player], out=self.rows[player], mode="clip")  # every index valid
            self.gathered[player] = True
        return self.rows[player]

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
        seen = (state.hands[:, : B.NUM_CIRCLES] > 0) | (state.discard_counts[:, : B.NUM_CIRCLES] > 0).any(axis=0)
        self.unseen[:] = ~seen & self.game.in_play[cromlet]  # a card out of play is in no hand and not in the deck
        for k in range(B.NUM_CROMLETS):
            where = B.CROMLET_SLICES[k]
            self.values[self._facts_at[k]] = _cromlet_facts(k)[state.open_[where].tobytes()]
        self.wild[:] = state.wild
        self.closed_no_points[:] = state.closed[cromlet] & (state.claimed_by[cromlet] < 0)
        self.closed[:] = state.closed
        g = self.game
        self.scores[:] = state.team_scores[g.team_of] / 100
        self.claims_left[:] = (g.claim_limit - state.team_claims[g.team_of]) / g.claim_limit
        self.hand_sizes[:] = state.hand_sizes / self.game.hand_size
        self.deck[0] = state.deck_size / B.NUM_CARDS
        self.seen = state.counters.item(kernels.EVENTS)
        self.gathered = [False] * g.num_players

    def catch_up(self, state: CromletState) -> None:
        """Apply what changed since the last look (`kernels.catch_up`: each fact read from the state's present
        values), to the table and to every seat's row."""
        count = state.counters.item(kernels.EVENTS)
        if count - self.seen > REBUILD_AFTER or count > len(state.events):
            self.rebuild(state)
            return
        g = self.game
        starts, targets, offsets = self.where
        kernels.catch_up(
            self.values,
            self.rows.reshape(-1),
            starts,
            targets,
            offsets,
            state.events,
            self.seen,
            count,
            state.hands,
            state.hand_sizes,
            state.discard_counts,
            state.cover,
            state.wild,
            state.claimed_by,
            state.claim_circle,
            state.open_,
            state.team_scores,
            state.team_claims,
            g.team_of,
            g.claim_limit,
            g.hand_size,
            state.deck_size,
        )
        self.seen = count


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
        # where each table entry sits in the seats' rows (flat, seat after seat): rows[targets[starts[t]:starts[t+1]]]
        where = np.concatenate(self.index)
        self.targets = np.argsort(where, kind="stable")
        self.starts = np.zeros(self.table_layout.size + 1, dtype=np.int64)
        np.cumsum(np.bincount(where, minlength=self.table_layout.size), out=self.starts[1:])
        self.offsets = np.array([self.table_layout.slice(name).start for name in _KERNEL_SEGMENTS], dtype=np.int64)
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
            table = self._tables[state] = _Table(self, state)
        else:
            table.catch_up(state)
        row = table.row(player)
        if not self.omniscient:
            if out is None:
                return row.copy()
            out[:] = row
            return out
        if out is None:
            out = np.empty(self.layout.size, dtype=np.float32)
        out[: len(row)] = row
        out[len(row) :] = _deck_order(state.deck)
        return out


def _deck_order(deck: list[int]) -> np.ndarray:
    out = np.zeros(B.NUM_CARDS)
    depth = 1 - np.arange(len(deck)) / B.NUM_CARDS
    cards = np.asarray(deck, dtype=np.int64)
    is_wild = cards == B.WILD
    out[cards[~is_wild]] = depth[~is_wild]
    out[B.NUM_CIRCLES : B.NUM_CIRCLES + int(is_wild.sum())] = depth[is_wild]
    return out

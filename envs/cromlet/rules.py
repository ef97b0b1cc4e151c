"""Cromlet's rules: the game configuration and the state it plays on.

The action layout (N = 530) is in `actions`; a move (`kernels.play`: the cards, the board, the refill and
the next mask) and the loop over circles that builds the mask (`kernels.fill_mask`) are compiled.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.core import BaseState, Param, ParameterError, Parameters, is_int, win_loss_returns
from tabletop.envs.core.chance import IN_ORDER, Chance, as_chance
from tabletop.envs.core.params import int_range, int_words, per_player_count
from tabletop.envs.core.state import ILLEGAL, UNNAMED
from tabletop.envs.core.validate import check_playable, require
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet import kernels, saved
from tabletop.envs.cromlet.actions import (  # noqa: F401 (the layout, importable from the rules too)
    LAYOUT,
    NUM_ACTIONS,
    PLAY,
    PLAY_CLAIM,
    TRADE_ONE,
    TRADE_TWO,
    WILD_CLAIM,
    WILD_PLAY,
    decode_action,
)
from tabletop.envs.cromlet.resample import resample

DEFAULT_CLAIM_LIMITS = {2: 12, 3: 8, 4: 6, 5: 5, 6: 4}
TEAM_LAYOUTS = {2: (4, 6), 3: (6,)}  # teams -> allowed player counts (seated alternately)
_ARANGE = np.arange(B.NUM_CIRCLES)
_NONE = B.NUM_CIRCLES  # "no circle" sentinel for per-cromlet minima
ARRAY_FIELDS = (  # the position's public arrays (a clone copies them)
    "cover",
    "wild",
    "closed",
    "claimed_by",
    "claim_circle",
    "hands",
    "hand_sizes",
    "discard_counts",
    "team_scores",
    "team_claims",
    "open_",
    "open_count",
    "is_lowest",
)

PARAMETERS = Parameters(
    Param("num_players", 2, "players at the table", choices=tuple(DEFAULT_CLAIM_LIMITS)),
    Param(
        "teams",
        None,
        "play in teams seated alternately: 2 teams (4 or 6 players) or 3 teams (6 players)",
        choices=(None, *TEAM_LAYOUTS),
    ),
    Param(
        "claim_limit",
        None,
        "cromlets a player (team) may claim; left out: the rulebook's table by player count (24 / teams for team play)",
        check=lambda v: v is None or (is_int(v) and 1 <= v <= B.NUM_CROMLETS),
        allowed=f"{int_words(1, B.NUM_CROMLETS)}, or leave it out for the rulebook's table",
        bounds=(1, B.NUM_CROMLETS),
    ),
    Param(
        "hand_size",
        7,
        "cards in a full hand",
        **int_range(1, B.NUM_CARDS // 2, per_player_count(1, {n: B.NUM_CARDS // n for n in DEFAULT_CLAIM_LIMITS})),
    ),
    Param(
        "cromlets",
        None,
        "the cromlets in play, by letter: by default all 24; a list plays a smaller game on those cromlets with "
        "only their circles' cards (the others stay closed)",
        check=lambda v: v is None or _is_cromlet_list(v),
        convert=lambda v: tuple(v) if isinstance(v, (list, tuple)) else v,
        allowed='all 24 (the default), or a list of distinct cromlet letters from A to X, e.g. ["A", "D"]',
    ),
    Param("wilds", B.NUM_WILDS, "wild cards in the deck", **int_range(0, B.NUM_WILDS)),
)


def _is_cromlet_list(letters: Any) -> bool:
    return (
        isinstance(letters, tuple)
        and all(isinstance(k, str) and k in B.LETTERS for k in letters)
        and len(set(letters)) == len(letters) > 0
    )


class CromletGame:
    """Cromlet for 2-6 players, or 2-3 teams seated alternately."""

    name = "cromlet_v0"
    actions = LAYOUT
    num_actions = NUM_ACTIONS
    parameters = PARAMETERS

    def __init__(self, **params: Any):
        self.params = PARAMETERS.resolve(params, self.name)
        num_players, teams, hand_size = self.params["num_players"], self.params["teams"], self.params["hand_size"]
        if teams is not None and num_players not in TEAM_LAYOUTS[teams]:
            raise ParameterError(
                f"{self.name}: teams={teams} needs num_players in {TEAM_LAYOUTS[teams]} (teams of 2 or 3, seated "
                f"alternately); got num_players={num_players}"
            )
        self.cromlets = self.params["cromlets"]
        self.in_play = np.zeros(B.NUM_CROMLETS, dtype=bool)  # per cromlet: on the table (the others stay closed)
        self.in_play[[B.LETTERS.index(k) for k in self.cromlets or B.LETTERS]] = True
        self.copies = np.append(self.in_play[B.CIRCLE_CROMLET], self.params["wilds"]).astype(np.int64)
        self.cards = np.repeat(np.arange(B.NUM_CIRCLES + 1), self.copies)  # the deck's card types, unshuffled
        most = len(self.cards) // num_players
        if hand_size > most:
            cards = "" if most == B.NUM_CARDS // num_players else f" and {len(self.cards)} cards"
            allowed = int_words(1, most) if most else "none: deal every player at least one card"
            raise ParameterError(
                f"{self.name}: hand_size={hand_size} is not allowed for {num_players} players{cards}; "
                f"allowed: {allowed}"
            )
        self.num_players = num_players
        self.teams = teams
        self.num_teams = teams or num_players
        self.team_of = np.arange(num_players) % self.num_teams
        default_limit = B.NUM_CROMLETS // teams if teams else DEFAULT_CLAIM_LIMITS[num_players]
        self.claim_limit = self.params["claim_limit"] or default_limit
        self.hand_size = hand_size

    def config(self) -> dict[str, Any]:
        """The parameters, as written into every state's JSON (`cromlets` and `wilds` only when not the printed
        board's: saved states of the whole game stay what they were)."""
        config = {
            "num_players": self.num_players,
            "teams": self.teams,
            "claim_limit": self.claim_limit,
            "hand_size": self.hand_size,
        }
        if self.cromlets is not None:
            config["cromlets"] = list(self.cromlets)
        if self.params["wilds"] != B.NUM_WILDS:
            config["wilds"] = self.params["wilds"]
        return config

    def new_initial_state(self, rng: np.random.Generator | Chance) -> CromletState:
        chance = as_chance(rng)
        deck = self.cards[chance.shuffled(len(self.cards))].tolist()
        dealer = chance.integers(self.num_players)
        return CromletState.deal(self, deck, dealer, chance)

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> CromletState:
        return CromletState.from_json(self, data)


class CromletState(BaseState):
    """One position. Arrays are indexed by circle (132), cromlet (24), seat or team."""

    def __init__(self, game: CromletGame, chance: Chance = IN_ORDER):
        n = game.num_players
        self.game = game
        self.chance = chance  # the source of the cards the deal and each refill take (`envs/core/chance.py`)
        self.cover = np.full(B.NUM_CIRCLES, -1, dtype=np.int64)  # seat whose crown is on the circle
        self.wild = np.zeros(B.NUM_CIRCLES, dtype=bool)  # covered by a wild card
        self.closed = ~game.in_play  # claimed, closed at the limit, or not in play
        self.claimed_by = np.full(B.NUM_CROMLETS, -1, dtype=np.int64)  # seat, -1 if unclaimed
        self.claim_circle = np.full(B.NUM_CROMLETS, -1, dtype=np.int64)
        self.hands = np.zeros((n, B.NUM_CIRCLES + 1), dtype=np.int64)  # card-type counts, wilds last
        self.hand_sizes = np.zeros(n, dtype=np.int64)
        self._deck = np.zeros(0, dtype=np.int64)  # card types (circle, or WILD for any wild); never written
        self._piles = np.zeros((n, B.NUM_CARDS), dtype=np.int64)  # discard piles: card types, oldest first
        self._pile_sizes = np.zeros(n, dtype=np.int64)
        self.discard_counts = np.zeros((n, B.NUM_CIRCLES + 1), dtype=np.int64)  # the piles as counts
        self.team_scores = np.zeros(game.num_teams, dtype=np.float64)
        self.team_claims = np.zeros(game.num_teams, dtype=np.int64)
        self.dealer = 0
        self._current = 0
        self._terminal = False
        self._mask: np.ndarray | None = None
        # board facts kept up to date move by move (rebuilt from scratch only at setup and from JSON)
        self.open_ = np.ones(B.NUM_CIRCLES, dtype=bool)  # no crown, cromlet unclaimed
        self.open_count = np.array([len(v) for v in B.VALUES_BY_CROMLET], dtype=np.int64)
        self.is_lowest = np.zeros(B.NUM_CIRCLES, dtype=bool)  # the lowest open circle of its cromlet
        self.is_lowest[B.CROMLET_START] = True
        # the deck's top (cards above it are dealt), the events logged, the cromlets closed (the game ends
        # when all are): kernels.DECK_TOP, EVENTS, CLOSED
        self.counters = np.zeros(3, dtype=np.int64)
        # what each move changed, in order (`kernels`: HAND, DISCARD, COVER, CLAIM, CLOSE rows); views kept
        # up to date move by move (the observer's) read it
        self.events = np.empty((kernels.MAX_EVENTS, 3), dtype=np.int64)

    @property
    def deck(self) -> list[int]:
        """The deck's card types, top first (a new list: set `deck` to change it)."""
        return self._deck[self.counters.item(kernels.DECK_TOP) :].tolist()

    @deck.setter
    def deck(self, cards: list[int]) -> None:
        self._deck = np.array(cards, dtype=np.int64)
        self.counters[kernels.DECK_TOP] = 0

    @property
    def deck_size(self) -> int:
        return len(self._deck) - self.counters.item(kernels.DECK_TOP)

    @property
    def discards(self) -> list[list[int]]:
        """Each seat's face-up discard pile, oldest first (new lists: set `discards` to change them)."""
        return [pile[:size].tolist() for pile, size in zip(self._piles, self._pile_sizes.tolist())]

    @discards.setter
    def discards(self, piles: list[list[int]]) -> None:
        self._piles[:] = 0
        for p, pile in enumerate(piles):
            self._piles[p, : len(pile)] = pile
            self._pile_sizes[p] = len(pile)

    @property
    def num_closed(self) -> int:
        return self.counters.item(kernels.CLOSED)

    # --- setup ------------------------------------------------------------------------------------
    @classmethod
    def deal(cls, game: CromletGame, deck: list[int], dealer: int, chance: Chance = IN_ORDER) -> CromletState:
        state = cls(game, chance)
        state.dealer = dealer
        state.deck = deck
        state._deck = chance.reveal(state._deck, 0, game.hand_size * game.num_players)
        kernels.deal(dealer, game.hand_size, state.hands, state.hand_sizes, state._deck, state.counters, state.events)
        state._current = (dealer + 1) % game.num_players
        state._rebuild_board_facts()
        state._check_end()
        return state

    # --- the State protocol --------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return -1 if self._terminal else self._current

    def is_terminal(self) -> bool:
        return self._terminal

    def scores(self) -> np.ndarray:
        return self.team_scores[self.game.team_of]

    def returns(self) -> np.ndarray:
        if not self._terminal:
            return np.zeros(self.game.num_players)
        return win_loss_returns(self.scores())

    def _compute_mask(self) -> np.ndarray:
        return self._mask_and_count()[0]

    def _refusal(self, action: Any, why: str) -> str:
        if why == ILLEGAL:
            return f"player {self._current}: action {action} is not legal in this state"
        if why == UNNAMED:
            return f"{action!r} is not a Cromlet action; actions are ints in [0, {NUM_ACTIONS})"
        return f"player {self._current}: {action!r} is not an action; actions are ints in [0, {NUM_ACTIONS})"

    def _apply_action(self, action: int) -> None:
        """The move, the refill and the next mask in one kernel call (`kernels.play` words the rules)."""
        g = self.game
        p = self._current
        used = action - TRADE_ONE + 1 if action >= TRADE_ONE else 1  # the refill takes what the move uses
        refill = min(self.deck_size, g.hand_size - self.hand_sizes.item(p) + used)
        self._deck = self.chance.reveal(self._deck, self.counters.item(kernels.DECK_TOP), refill)
        self._mask = mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._terminal = kernels.play(action, p, g.hand_size, g.claim_limit, *self.engine_arrays(), mask)
        self._current = (p + 1) % g.num_players

    def engine_arrays(self) -> tuple[np.ndarray, ...]:
        """The position's own arrays that `kernels.play` reads and writes, in its order (after the action, the
        seat, the hand size and the claim limit; before the mask). A compiled loop that plays many moves in
        one call (a heuristic's whole rollout, agents/cromlet.py) passes them and then calls `resume`."""
        return (
            self.game.team_of,
            self.cover,
            self.wild,
            self.closed,
            self.claimed_by,
            self.claim_circle,
            self.open_,
            self.open_count,
            self.is_lowest,
            self.hands,
            self.hand_sizes,
            self._deck,
            self._piles,
            self._pile_sizes,
            self.discard_counts,
            self.team_scores,
            self.team_claims,
            self.counters,
            self.events,
        )

    def resume(self, current: int, terminal: bool, mask: np.ndarray) -> None:
        """Take up the position after a compiled loop played moves on `engine_arrays` with `kernels.play`: the
        seat to move, whether the game is over, and the mask that the last `play` wrote."""
        self._current, self._terminal, self._mask = current, terminal, mask

    def _describe(self, action: int) -> str:
        kind, arg = decode_action(action)
        if kind == "trade":
            return f"trade in {'one dead card' if arg == 1 else 'two dead cards'}"
        letter = B.LETTERS[B.CIRCLE_CROMLET[arg]]
        what = f"play wild on {B.CIRCLE_NAMES[arg]}" if kind.startswith("wild") else f"play {B.CIRCLE_NAMES[arg]}"
        return f"{what} and claim {letter}" if kind.endswith("claim") else what

    def resample(self, seat: int, rng: np.random.Generator) -> CromletState:
        """A full state consistent with what `seat` knows, the hidden parts drawn at random (see `resample`)."""
        return resample(self, seat, rng)

    def clone(self) -> CromletState:
        other = CromletState.__new__(CromletState)
        other.__dict__.update(self.__dict__)
        for name in (*ARRAY_FIELDS, "_piles", "_pile_sizes", "counters"):
            setattr(other, name, getattr(self, name).copy())
        other._mask = None
        other.counters[kernels.EVENTS] = 0  # a copy is a new position: its views start from scratch
        other.events = np.empty_like(self.events)
        return other

    # --- derived board facts --------------------------------------------------------------------------
    def open_circles(self) -> np.ndarray:
        """Circles without a crown in cromlets that are still unclaimed."""
        return self.open_

    def _rebuild_board_facts(self) -> None:
        self.open_ = (self.cover < 0) & ~self.closed[B.CIRCLE_CROMLET]
        self.open_count = np.add.reduceat(self.open_.astype(np.int64), B.CROMLET_START)
        lowest = np.minimum.reduceat(np.where(self.open_, _ARANGE, _NONE), B.CROMLET_START)
        self.is_lowest = np.zeros(B.NUM_CIRCLES, dtype=bool)
        self.is_lowest[lowest[lowest < _NONE]] = True
        self.counters[kernels.CLOSED] = np.count_nonzero(self.closed)

    def dead_cards(self, player: int) -> np.ndarray:
        """Circle cards in `player`'s hand that can never be played (circle covered or cromlet closed),
        lowest first."""
        return kernels.dead_cards(self.hands[player], self.open_)

    def can_claim(self, player: int) -> bool:
        return self.team_claims.item(self.game.team_of.item(player)) < self.game.claim_limit

    def _mask_and_count(self) -> tuple[np.ndarray, int]:
        """The mover's legal actions (rules 4-8 of docs/cromlet.md) and how many there are."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        p = self._current
        legal = kernels.fill_mask(
            mask,
            self.hands[p],
            self.hand_sizes.item(p),
            self.open_,
            self.is_lowest,
            self.open_count,
            self.can_claim(p),
            self.deck_size,
        )
        return mask, legal

    def _check_end(self) -> None:
        """The game ends when the player to move cannot play, or once every cromlet is closed."""
        self._mask, legal = self._mask_and_count()
        if not legal or self.num_closed == B.NUM_CROMLETS:
            self._terminal = True
            self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    # --- views and serialisation ---------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        """Public table plus `player`'s own hand; `None` adds every hand and the deck order."""
        g = self.game
        v: dict[str, Any] = {
            "player": player,
            "num_players": g.num_players,
            "team_of": g.team_of.tolist(),
            "claim_limit": g.claim_limit,
            "current_player": self.current_player,
            "cover": self.cover.copy(),
            "wild": self.wild.copy(),
            "closed": self.closed.copy(),
            "claimed_by": self.claimed_by.copy(),
            "claim_circle": self.claim_circle.copy(),
            "team_scores": self.team_scores.copy(),
            "team_claims": self.team_claims.copy(),
            "hand_sizes": self.hand_sizes.tolist(),
            "deck_size": self.deck_size,
            "discards": [list(d) for d in self.discards],
        }
        if player is not None:
            v["hand"] = self.hands[player].copy()
        else:
            v["hands"] = self.hands.copy()
            v["deck"] = list(self.deck)
        return v

    def to_json(self) -> dict[str, Any]:
        names = B.card_name
        return {
            "game": "cromlet",
            "config": self.game.config(),
            "dealer": self.dealer,
            "current_player": self._current,
            "terminal": self._terminal,
            "covered": {B.CIRCLE_NAMES[c]: int(self.cover[c]) for c in np.flatnonzero(self.cover >= 0)},
            "wild_covered": [B.CIRCLE_NAMES[c] for c in np.flatnonzero(self.wild)],
            "claims": {
                B.LETTERS[k]: {"by": int(self.claimed_by[k]), "circle": B.CIRCLE_NAMES[self.claim_circle[k]]}
                for k in np.flatnonzero(self.claimed_by >= 0)
            },
            "closed": [B.LETTERS[k] for k in np.flatnonzero(self.closed & self.game.in_play)],
            "hands": [[names(c) for c in _cards_of(self.hands[p])] for p in range(self.game.num_players)],
            "deck": [names(c) for c in self.deck],
            "discards": [[names(c) for c in pile] for pile in self.discards],
            "team_scores": self.team_scores.tolist(),
            "team_claims": self.team_claims.tolist(),
        }

    @classmethod
    def from_json(cls, game: CromletGame, data: dict[str, Any]) -> CromletState:
        """Rebuild a saved state; `InvalidStateError` for anything the rules cannot reach (see `saved`)."""
        position = saved.read(game, data)
        state = cls(game)
        state.dealer, state._current = position.dealer, position.current
        state.cover, state.wild, state.closed = position.cover, position.wild, position.closed
        state.claimed_by, state.claim_circle = position.claimed_by, position.claim_circle
        for p, hand in enumerate(position.hands):
            state.hands[p] = np.bincount(np.asarray(hand, dtype=np.int64), minlength=B.NUM_CIRCLES + 1)
            state.hand_sizes[p] = len(hand)
        state.deck = position.deck
        state.discards = position.discards
        for p, pile in enumerate(position.discards):
            state.discard_counts[p] = np.bincount(np.asarray(pile, dtype=np.int64), minlength=B.NUM_CIRCLES + 1)
        state.team_scores[:], state.team_claims[:] = position.team_scores, position.team_claims
        state._rebuild_board_facts()
        state._terminal = position.terminal
        if state._terminal:  # the game ends once every cromlet is closed or the player to move cannot play
            state._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            require(
                state.closed.all() or not state._mask_and_count()[1],
                "terminal",
                "is true, but a cromlet is open and the player to move can play",
            )
        else:
            check_playable(state)
            require(not state.closed.all(), "terminal", "is false, but every cromlet is closed, which ends the game")
        return state


def _cards_of(counts: np.ndarray) -> list[int]:
    return [int(c) for c in np.flatnonzero(counts[: B.NUM_CIRCLES])] + [B.WILD] * int(counts[B.WILD])

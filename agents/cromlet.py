"""Cromlet heuristics built from the rulebook's strategy section. They read the seat's view only.

- `greedy`: claims at the first chance, for the most points on offer; otherwise sheds its lowest card.
- `patient`: strategies 1-3: waits to claim until the offer is close to the best the cromlet can still
  give, lowering the bar as the deck runs out; sheds low cards and avoids opening a claim for the next
  player; keeps wilds for claiming.
- `blocker`: `patient`, and once its claims are used up it blocks: covers the highest circles others
  could still claim (wilds included) and closes cromlets on their last circle so nobody scores them.

The scores of every legal action are one compiled loop (numba, cached on disk): a search player's rollouts
call them thousands of times a move. tests/oracles/cromlet_heuristics.py keeps a one-action-at-a-time
Python oracle, and tests/agents/test_cromlet_heuristics.py holds the loop to it.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet import kernels
from tabletop.envs.cromlet.actions import PLAY_CLAIM, TRADE_ONE, WILD_CLAIM, WILD_PLAY

GREEDY, PATIENT, BLOCKER = range(3)
CROMLET_STOP = np.append(B.CROMLET_START[1:], B.NUM_CIRCLES)
CIRCLE_VALUE, CIRCLE_CROMLET, CROMLET_START = B.CIRCLE_VALUE, B.CIRCLE_CROMLET, B.CROMLET_START  # globals for numba


@numba.njit(cache=True)
def score_actions(style, legal, cover, closed, claim_bar, claims_left):
    """Each legal action's score under heuristic `style` (higher is better), from the public board (the view's
    `cover` and `closed`), `patient`'s claim bar and the mover's claims left."""
    open_ = np.empty(B.NUM_CIRCLES, dtype=np.bool_)
    for c in range(B.NUM_CIRCLES):
        open_[c] = cover[c] < 0 and not closed[CIRCLE_CROMLET[c]]
    scores = np.empty(legal.shape[0])
    for i in range(legal.shape[0]):
        action = legal[i]
        if action >= TRADE_ONE:  # trade one or two dead cards
            scores[i] = (-100.0 if style == GREEDY else -8.0) + (action - TRADE_ONE + 1)
            continue
        circle = action % B.NUM_CIRCLES
        claim = (PLAY_CLAIM <= action < WILD_PLAY) or action >= WILD_CLAIM
        wild = action >= WILD_PLAY
        value = float(CIRCLE_VALUE[circle])
        if style == GREEDY:
            scores[i] = 100.0 + value - (0.5 if wild else 0.0) if claim else -value - (50.0 if wild else 0.0)
            continue
        k = CIRCLE_CROMLET[circle]
        if claim:  # a claim below the bar is legal but premature (a forced claim still wins as the only move)
            best_open = 0  # the cromlet's best open value
            for c in range(CROMLET_START[k], CROMLET_STOP[k]):
                if open_[c]:
                    best_open = max(best_open, CIRCLE_VALUE[c])
            offer = value / max(best_open, 1)
            scores[i] = 100.0 + value - (1.0 if wild else 0.0) if offer >= claim_bar else -50.0 + value
            continue
        lowest = True  # no open circle below in the cromlet: covering this one opens the next to a claim
        for c in range(CROMLET_START[k], circle):
            if open_[c]:
                lowest = False
                break
        next_open = 0  # the value of the next open circle above (0 if none)
        for c in range(circle + 1, CROMLET_STOP[k]):
            if open_[c]:
                next_open = CIRCLE_VALUE[c]
                break
        gift = next_open if lowest else 0
        if style == BLOCKER and claims_left <= 0:  # closing a cromlet at the limit: nobody scores it
            scores[i] = 30.0 + value if lowest and next_open == 0 else value - 1.5 * gift - (5.0 if wild else 0.0)
        else:  # shed low cards, do not open a claim for the next player, keep wilds for claiming
            cost = value + 1.5 * gift
            if wild:
                cost += 40.0
            scores[i] = -cost
    return scores


@numba.njit(cache=True)
def claim_bar(start_bar, endgame_deck, deck_fraction):
    """The least share of its cromlet's best open value a claim must offer: `start_bar` while the deck is
    full, falling with the deck after 70% of it is left, 0 below `endgame_deck` (greedy: both 0, any offer)."""
    if deck_fraction < endgame_deck:
        return 0.0
    return start_bar * min(1.0, deck_fraction / 0.7)


@numba.njit(cache=True)
def play_out(
    style, start_bar, endgame_deck, depth, rngs, p, hand_size, claim_limit, team_of, cover, wild, closed,
    claimed_by, claim_circle, open_, open_count, is_lowest, hands, hand_sizes, deck, piles, pile_sizes,
    discard_counts, team_scores, team_claims, counters, events, mask,
):  # fmt: skip
    """Play heuristic `style` in every seat from seat `p`'s turn until the game ends or `depth` moves are
    played (0: no limit), each seat drawing its ties from its own generator `rngs[seat]`: the moves of one
    `act` per seat per turn, in one call (a search's rollout). The arguments after `p` are `kernels.play`'s
    (the state's `engine_arrays()` and its current mask, written in place). Returns the seat to move and
    whether the game is over."""
    terminal, steps = False, 0
    while not terminal and (depth == 0 or steps < depth):
        legal = np.flatnonzero(mask)
        bar = claim_bar(start_bar, endgame_deck, (len(deck) - counters[kernels.DECK_TOP]) / B.NUM_CARDS)
        scores = score_actions(style, legal, cover, closed, bar, claim_limit - team_claims[team_of[p]])
        best = legal[scores == scores.max()]
        action = best[rngs[p].integers(0, best.size)]
        mask[:] = 0
        terminal = kernels.play(
            action, p, hand_size, claim_limit, team_of, cover, wild, closed, claimed_by, claim_circle, open_,
            open_count, is_lowest, hands, hand_sizes, deck, piles, pile_sizes, discard_counts, team_scores,
            team_claims, counters, events, mask,
        )  # fmt: skip
        p = (p + 1) % team_of.shape[0]
        steps += 1
    return p, terminal


class _Heuristic:
    name = "heuristic"
    style = GREEDY
    start_bar = endgame_deck = 0.0  # `claim_bar`'s arguments: greedy claims any offer
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        best = self.best_actions(action_mask, view)
        return int(best[self.rng.integers(best.size)])

    def best_actions(self, action_mask: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        """Every legal action of the top score: `act` draws among them (what an imitation of it should learn)."""
        legal, scores = self.scored(action_mask, view)
        return legal[scores == scores.max()]

    def ranked(self, action_mask: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        """The legal actions best first (equal scores in action order): a search player's candidates."""
        legal, scores = self.scored(action_mask, view)
        return legal[np.argsort(-scores, kind="stable")]

    def scored(self, action_mask: np.ndarray, view: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions and their scores (higher is better)."""
        claims_left = view["claim_limit"] - int(view["team_claims"][view["team_of"][view["player"]]])
        legal = np.flatnonzero(action_mask)
        bar = claim_bar(self.start_bar, self.endgame_deck, view["deck_size"] / B.NUM_CARDS)
        return legal, score_actions(self.style, legal, view["cover"], view["closed"], bar, claims_left)

    @classmethod
    def play_out(cls, world: Any, seed: int, depth: int = 0) -> None:
        """Play this heuristic in every seat of `world` (a Cromlet state) until the game ends or `depth` moves
        are played (0: no limit): the moves of `cls(seed=seed + seat)` acting in each seat, in one compiled
        call (a search player's rollout, agents/search/player.py)."""
        if world.is_terminal():
            return
        g, mask = world.game, world.legal_action_mask().copy()
        rngs = tuple(np.random.default_rng(seed + p) for p in range(g.num_players))
        args = (cls.style, cls.start_bar, cls.endgame_deck, depth, rngs, world.current_player, g.hand_size)
        world.resume(*play_out(*args, g.claim_limit, *world.engine_arrays(), mask), mask)


class Greedy(_Heuristic):
    name = "greedy"
    style = GREEDY


class Patient(_Heuristic):
    """Claim when the offer reaches a bar that falls from 90% of the cromlet's best open value to 0."""

    name = "patient"
    style = PATIENT
    start_bar = 0.9
    endgame_deck = 0.08  # below this deck fraction, take whatever is on offer


class Blocker(Patient):
    name = "blocker"
    style = BLOCKER


HEURISTICS = {cls.name: cls for cls in (Greedy, Patient, Blocker)}

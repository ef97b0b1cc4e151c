"""Cromlet heuristics built from the rulebook's strategy section. They read the seat's view only.

- `greedy`: claims at the first chance, for the most points on offer; otherwise sheds its lowest card.
- `patient`: strategies 1-3: waits to claim until the offer is close to the best the cromlet can still
  give, lowering the bar as the deck runs out; sheds low cards and avoids opening a claim for the next
  player; keeps wilds for claiming.
- `blocker`: `patient`, and once its claims are used up it blocks: covers the highest circles others
  could still claim (wilds included) and closes cromlets on their last circle so nobody scores them.

The scores of every legal action are one compiled loop (numba, cached on disk): a search player's rollouts
call them thousands of times a move. tests/oracles/cromlet_heuristics.py keeps the one-action-at-a-time
Python they replaced, and tests/agents/test_cromlet_heuristics.py holds the loop to it.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from tabletop.envs.cromlet import board as B
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


class _Heuristic:
    name = "heuristic"
    style = GREEDY
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
        bar = self.claim_bar(view["deck_size"] / B.NUM_CARDS)
        return legal, score_actions(self.style, legal, view["cover"], view["closed"], bar, claims_left)

    def claim_bar(self, deck_fraction: float) -> float:
        """The least share of its cromlet's best open value a claim must offer (greedy: any)."""
        return 0.0


class Greedy(_Heuristic):
    name = "greedy"
    style = GREEDY


class Patient(_Heuristic):
    """Claim when the offer reaches a bar that falls from 90% of the cromlet's best open value to 0."""

    name = "patient"
    style = PATIENT
    start_bar = 0.9
    endgame_deck = 0.08  # below this deck fraction, take whatever is on offer

    def claim_bar(self, deck_fraction: float) -> float:
        if deck_fraction < self.endgame_deck:
            return 0.0
        return self.start_bar * min(1.0, deck_fraction / 0.7)


class Blocker(Patient):
    name = "blocker"
    style = BLOCKER


HEURISTICS = {cls.name: cls for cls in (Greedy, Patient, Blocker)}

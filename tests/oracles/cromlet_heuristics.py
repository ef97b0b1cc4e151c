"""Cromlet's heuristics as they were written before their scores went over arrays (agents/cromlet.py): one action
at a time, each rule a line. The oracle the differential test (tests/agents/test_cromlet_heuristics.py) holds the
array scores to: the same legal actions, the same scores, so the same draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.rules import decode_action


class BoardFacts:
    """What the public board says, computed once per decision."""

    def __init__(self, view: dict[str, Any]):
        self.open = (view["cover"] < 0) & ~view["closed"][B.CIRCLE_CROMLET]
        values = np.where(self.open, B.CIRCLE_VALUE, 0)
        self.best_open = np.maximum.reduceat(values, B.CROMLET_START)  # per cromlet, 0 if none open
        self.deck_fraction = view["deck_size"] / B.NUM_CARDS
        team = view["team_of"][view["player"]]
        self.claims_left = view["claim_limit"] - int(view["team_claims"][team])

    def next_open_after(self, circle: int) -> int:
        """Value of the next open circle above `circle` in its cromlet (0 if none)."""
        k = B.CIRCLE_CROMLET[circle]
        above = [c for c in B.circles_of(k) if c > circle and self.open[c]]
        return int(B.CIRCLE_VALUE[above[0]]) if above else 0

    def is_lowest_open(self, circle: int) -> bool:
        k = B.CIRCLE_CROMLET[circle]
        return not any(self.open[c] for c in B.circles_of(k) if c < circle)


class _Heuristic:
    name = "heuristic"
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        best = self.best_actions(action_mask, view)
        return int(best[self.rng.integers(best.size)])

    def best_actions(self, action_mask: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        """Every legal action of the top score: `act` draws among them (what an imitation of it should learn)."""
        legal = np.flatnonzero(action_mask)
        facts = BoardFacts(view)
        scores = np.array([self.score(int(a), facts, view) for a in legal])
        return legal[scores == scores.max()]

    def score(self, action: int, facts: BoardFacts, view: dict[str, Any]) -> float:
        raise NotImplementedError


class Greedy(_Heuristic):
    name = "greedy"

    def score(self, action: int, facts: BoardFacts, view: dict[str, Any]) -> float:
        kind, arg = decode_action(action)
        if kind == "trade":
            return -100.0 + arg
        value = float(B.CIRCLE_VALUE[arg])
        if kind.endswith("claim"):
            return 100.0 + value - (0.5 if kind.startswith("wild") else 0.0)
        return -value - (50.0 if kind == "wild" else 0.0)


class Patient(_Heuristic):
    """Claim when the offer reaches a bar that falls from 90% of the cromlet's best open value to 0."""

    name = "patient"
    start_bar = 0.9
    endgame_deck = 0.08  # below this deck fraction, take whatever is on offer

    def claim_bar(self, facts: BoardFacts) -> float:
        if facts.deck_fraction < self.endgame_deck:
            return 0.0
        return self.start_bar * min(1.0, facts.deck_fraction / 0.7)

    def score(self, action: int, facts: BoardFacts, view: dict[str, Any]) -> float:
        kind, arg = decode_action(action)
        if kind == "trade":
            return -8.0 + arg  # better than gifting a claim, worse than a quiet play
        value = float(B.CIRCLE_VALUE[arg])
        k = B.CIRCLE_CROMLET[arg]
        if kind.endswith("claim"):
            offer = value / max(facts.best_open[k], 1)
            if offer >= self.claim_bar(facts):
                return 100.0 + value - (1.0 if kind.startswith("wild") else 0.0)
            return -50.0 + value  # legal but premature (a forced claim still wins when it is the only move)
        return self.quiet_play(kind, arg, value, facts)

    def quiet_play(self, kind: str, circle: int, value: float, facts: BoardFacts) -> float:
        """Shed low cards; opening the cromlet's next circle to a claim costs that circle's value."""
        gift = facts.next_open_after(circle) if facts.is_lowest_open(circle) else 0
        cost = value + 1.5 * gift
        if kind == "wild":
            cost += 40.0  # wilds are for claiming
        return -cost


class Blocker(Patient):
    name = "blocker"

    def quiet_play(self, kind: str, circle: int, value: float, facts: BoardFacts) -> float:
        if facts.claims_left > 0:
            return super().quiet_play(kind, circle, value, facts)
        last = facts.is_lowest_open(circle) and facts.next_open_after(circle) == 0
        if last:
            return 30.0 + value  # closing a cromlet at the limit: nobody scores it
        gift = facts.next_open_after(circle) if facts.is_lowest_open(circle) else 0
        return value - 1.5 * gift - (5.0 if kind == "wild" else 0.0)


HEURISTICS = {cls.name: cls for cls in (Greedy, Patient, Blocker)}

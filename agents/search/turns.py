"""The moves a search compares at one decision, as action sequences of the player to move.

Most decisions are one action: every legal action is a candidate (Cromlet's plays, Chromino's choice of tile
and way round, then of its place). A Kings Cribbage move in `action_mode="tiles"` is several place actions and
a commit; comparing first placements would let the rollout finish the move, so there the candidates are whole
moves, from the move generator fed with the view, and the chosen one is played out over the next sub-steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.agents.kings_cribbage import view_offered
from tabletop.envs.kings_cribbage.movegen import generate_moves


class SingleActions:
    """Every legal action, at most `limit`: the guiding heuristic's own choice first, then the rest in the order
    of its `ranked` (best first), or a seeded random draw from a policy that ranks nothing."""

    def __init__(self, guide):
        self.ranked = getattr(guide, "ranked", None)

    def candidates(self, state, view, mask, pick: int, limit: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        if self.ranked is not None:
            rest = [a for a in self.ranked(mask, view) if a != pick][: limit - 1]
        else:
            rest = np.flatnonzero(mask)
            rest = rest[rest != pick]
            if len(rest) > limit - 1:
                rest = np.sort(rng.choice(rest, limit - 1, replace=False))
        return [(int(pick),), *((int(a),) for a in rest)]

    def values(self, view, turns: list[tuple[int, ...]]) -> list[float]:
        """The guide's values of `turns`, this decision's candidates (here it gives none: 0 each)."""
        return [0.0] * len(turns)

    def follow(self, view, mask) -> int | None:
        """The next action of a move chosen earlier in this turn (never: every move is one action)."""
        return None

    def chose(self, view, turn: tuple[int, ...]) -> None:
        """Nothing to remember: the move was one action."""


class WholeMoves(SingleActions):
    """Kings Cribbage in tiles mode: whole moves (place actions, then commit), ranked by what the guiding
    heuristic's move choice maximises (`choice_scores`: `reply` looks one move ahead; points for a policy without
    it); an exchange turn (no move) is left to the guide's choice. In moves mode the candidates are the offered
    moves' slots (and exchanges), as for any one-action game."""

    def __init__(self, guide):
        super().__init__(guide)
        self.value = getattr(guide, "choice_scores", None)
        self.plan: list[int] = []
        self.tile_values: list[float] | None = None  # the last tiles-mode candidates' values, as ranked

    def candidates(self, state, view, mask, pick: int, limit: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
        if view["action_mode"] != "tiles":  # moves mode: one action is one whole move
            return super().candidates(state, view, mask, pick, limit, rng)
        self.tile_values = None
        if not view.get("can_move", True):
            return [(int(pick),)]
        moves = generate_moves(view["values"], view["colours"], view["rack"])
        actions, lengths, points = moves.actions, moves.lengths, moves.points
        done = list(view["pending"])
        if done:  # a move begun without a plan (the search started mid-move): its continuations
            ok = (actions[:, : len(done)] == done).all(1)
            actions, lengths, points = actions[ok], lengths[ok], points[ok]
        if not len(actions):
            return [(int(pick),)]
        score = points if self.value is None else self.value(points, actions, lengths, view)
        score = np.asarray(score, dtype=float)
        order = np.argsort(-score, kind="stable")[:limit]
        self.tile_values = score[order].tolist()
        commit = state.game.commit_action
        return [(*actions[i, len(done) : lengths[i]].tolist(), commit) for i in order]

    def values(self, view, turns: list[tuple[int, ...]]) -> list[float]:
        """What the guide's move choice maximises for each of `turns` (points for a guide without it). Moves mode:
        valued here, on demand (a guide like `reply` draws from its generator to value); an exchange scores
        nothing now (0)."""
        if view["action_mode"] == "tiles":
            return self.tile_values
        if not view["can_move"]:
            return super().values(view, turns)
        points, actions, lengths = view_offered(view)
        score = points if self.value is None else self.value(points, actions, lengths, view)
        return [float(score[turn[0]]) for turn in turns]

    def follow(self, view: dict[str, Any], mask) -> int | None:
        """The chosen move's next action while the view's pending placements are its beginning (the plan is
        dropped at its last action, and whenever the position has left it)."""
        done = list(view.get("pending", ()))
        plan, self.plan = self.plan, []
        if len(plan) > len(done) and plan[: len(done)] == done and mask[plan[len(done)]]:
            self.plan = plan if len(done) + 1 < len(plan) else []
            return plan[len(done)]
        return None

    def chose(self, view, turn: tuple[int, ...]) -> None:
        """Remember a move of several actions to play out over the next sub-steps (one action: nothing)."""
        self.plan = [*view.get("pending", ()), *turn] if len(turn) > 1 else []


def turns_for(game: str, guide) -> SingleActions:
    """The candidate generator for a game, ranking by `guide` (a heuristic)."""
    return WholeMoves(guide) if game == "kings_cribbage" else SingleActions(guide)

"""Kings Cribbage heuristics. Each reads only the seat's view (board, own rack, move being built) and the mask.

With `action_mode="tiles"` a heuristic plans a whole move at the first sub-step of its turn (from the same move
generator the environment uses, fed with the view) and then plays that plan one placement at a time. With
`action_mode="moves"` it values the offered moves the view lists and plays the best one's slot; with no move
it plays the exchange action for the tiles it would give back. A search rollout (`play_out`) plays the same
actions a whole move at a time; a short look-ahead (`turn_points`) plays a few turns of them and counts the points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop.envs.kings_cribbage.actions import moves_layout, tiles_layout
from tabletop.envs.kings_cribbage.movegen import generate_moves
from tabletop.envs.kings_cribbage.scoring import MAX_HAND
from tabletop.envs.kings_cribbage.tiles import (
    FACE_COLOUR,
    FACE_KIND,
    FACE_VALUE,
    NUM_KINDS,
    NUM_RANKS,
    TILES_PER_KIND,
    kind_colour,
    kind_of,
    kind_rank,
)


def view_offered(view: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Moves mode: the offered moves as the move generator gives them (points, actions padded with -1, lengths)."""
    offered = view["offered"]
    actions = np.full((len(offered), MAX_HAND), -1, dtype=np.int64)
    for i, move in enumerate(offered):
        actions[i, : len(move)] = move
    lengths = np.array([len(move) for move in offered], dtype=np.int64)
    return np.array(view["offered_points"], dtype=np.int64), actions, lengths


class _Planner:
    """Shared machinery: choose a move (by `value`) or an exchange (by `keep`), then play it out."""

    name = "planner"
    needs_observation = False
    reads_view = True  # whether `value` reads the view (`play_out` builds one a turn only then)

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)
        self._plan: tuple[tuple, list[int]] | None = None

    # what subclasses decide
    def value(self, points: np.ndarray, actions: np.ndarray, lengths: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def keep(self, kind: int) -> bool:
        """Keep this tile when exchanging (no move exists)."""
        return False

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        if view["action_mode"] == "moves":
            return self._act_on_moves(action_mask, view)
        layout = tiles_layout(view["board_size"])
        if not view.get("can_move", True):
            return self._exchange_step(action_mask, view, layout.start("mark"), layout.start("exchange"))
        plan = self._current_plan(view)
        depth = len(view["pending"])
        action = layout.start("commit") if depth == len(plan) else plan[depth]
        if not action_mask[action]:  # cannot happen with an honest view; stay legal regardless
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.integers(len(legal))])
        return int(action)

    def _current_plan(self, view: dict[str, Any]) -> list[int]:
        key = (view["values"].tobytes(), tuple(view["rack"]))
        pending = list(view["pending"])
        if self._plan is not None and self._plan[0] == key and self._plan[1][: len(pending)] == pending:
            return self._plan[1]
        moves = generate_moves(view["values"], view["colours"], view["rack"])
        actions, lengths, points = moves.actions, moves.lengths, moves.points
        if pending:
            ok = (actions[:, : len(pending)] == pending).all(1)
            actions, lengths, points = actions[ok], lengths[ok], points[ok]
        choice = self._best(points, actions, lengths, view)
        plan = [int(a) for a in actions[choice, : lengths[choice]]]
        self._plan = (key, plan)
        return plan

    def choice_scores(
        self, points: np.ndarray, actions: np.ndarray, lengths: np.ndarray, view: dict[str, Any]
    ) -> np.ndarray:
        """What the move choice maximises: the value, unless a subclass looks further."""
        return self.value(points, actions, lengths, view)

    def ranked(self, action_mask: np.ndarray, view: dict[str, Any]) -> list[int]:
        """Moves mode: the offered moves' slots best first (a search player's candidates; tiles mode compares
        whole moves, agents/search/turns.py); with no move, every legal exchange in action order."""
        if view["action_mode"] != "moves" or not view["can_move"]:
            return np.flatnonzero(action_mask).tolist()
        return np.argsort(-self.choice_scores(*view_offered(view), view), kind="stable").tolist()

    def _best(self, points: np.ndarray, actions: np.ndarray, lengths: np.ndarray, view: dict[str, Any]) -> int:
        """The index of the move that scores best (ties broken at random)."""
        scores = self.choice_scores(points, actions, lengths, view)
        best = np.flatnonzero(scores == scores.max())
        return int(best[self.rng.integers(len(best))])

    def _act_on_moves(self, mask: np.ndarray, view: dict[str, Any]) -> int:
        """Moves mode: the slot of the best offered move, or the exchange of the tiles this player gives back."""
        exchange_base = moves_layout(view["max_moves"]).start("exchange")
        if view["can_move"]:
            return self._best(*view_offered(view), view)
        rack = view["rack"]
        give = [kind for kind in rack if not self.keep(kind)][: view["bag_sizes"][view["player"]]]
        choice = 0
        for kind in set(give):  # of equal tiles, the first ones: the rack is sorted
            first = rack.index(kind)
            choice |= ((1 << give.count(kind)) - 1) << first
        return exchange_base + choice if mask[exchange_base + choice] else exchange_base

    @classmethod
    def play_out(cls, world: Any, seed: int, depth: int = 0) -> None:
        """Play this heuristic in every seat of `world` (a Kings Cribbage state) until the game ends or `depth`
        actions are played (0: no limit): the actions of `cls(seed=seed + seat)` acting in each seat (a search
        player's rollout, agents/search/player.py), at a fraction of the cost. A turn that has a move picks it
        from the state's own list (in tiles mode `moves`, which the state lists for the rollout in the players'
        order, the list `act` generates from the view; in moves mode the offered ones), with the scores and the
        draw of `act` (`_pick`), and lays it in one call (`lay`) where the rest of `depth` holds the whole turn.
        The rest is one `act` an action through the view: exchanges, the turn under way when the rollout starts,
        the part of a turn that `depth` cuts."""
        players = [cls(seed=seed + p) for p in range(world.game.num_players)]
        moves_mode, players_order = world.game.moves_mode, world.players_order
        if not moves_mode:  # (the offer has its own order)
            world.players_order = True
            if not (world.is_terminal() or world.pending or world.marked or players_order):
                world.begin_turn()  # this turn's moves listed again, so
        left = depth or math.inf  # actions still to play
        while not world.is_terminal() and left > 0:
            p = world.current
            if world.pending or world.marked or not len(world.moves):
                world.apply(players[p].act(None, world.legal_action_mask(), world.view(p)))
                left -= 1
                continue
            moves = world.offered if moves_mode else world.moves
            move = players[p]._pick(world, moves)
            if moves_mode:
                world.apply(move)
                left -= 1
            elif left > moves.lengths[move]:  # room for the place actions and the commit
                left -= moves.lengths[move] + 1
                world.lay(move)
            else:
                for action in moves.actions[move, :left]:
                    world.apply(int(action))
                left = 0
        world.players_order = players_order

    @classmethod
    def turn_points(cls, world: Any, seed: int, weights: Sequence[float], seat: int) -> float:
        """Play this heuristic's move in each of the next `len(weights)` turns of `world` (a Kings Cribbage state at
        the start of a turn), every seat p as `cls(seed=seed + p)` picks it in `play_out` (`_pick`), and
        return the weighted points: `weights[t]` times the points of turn t, for `seat`'s own turns, against it
        for the others' (a search player's short look-ahead, `search:plies=...`). The look-ahead stops at the
        end of the game and at a turn without a move: an exchange scores nothing, and what follows is not
        looked at. In tiles mode the moves are read from the state's list in its cheapest order (ties break
        differently from `act`, which lists them in the players' order); in moves mode from the offered ones."""
        players = [cls(seed=seed + p) for p in range(world.game.num_players)]
        moves_mode, total = world.game.moves_mode, 0.0
        for weight in weights:
            moves = world.offered if moves_mode else world.moves
            if world.is_terminal() or not len(moves):
                break
            p = world.current
            move = players[p]._pick(world, moves)
            total += (weight if p == seat else -weight) * int(moves.points[move])
            if moves_mode:
                world.apply(move)
            else:
                world.lay(move)
        return total

    def _pick(self, world: Any, moves: Any) -> int:
        """The index of the move this player picks among `moves` (the state's list for the seat to move), valued as
        `act` values them; a view is built only for a `value` that reads it."""
        view = world.view(world.current) if self.reads_view else None
        return self._best(moves.points, moves.actions, moves.lengths, view)

    def _exchange_step(self, mask: np.ndarray, view: dict[str, Any], mark_base: int, exchange: int) -> int:
        wanted = sorted(k for k in view["rack"] if not self.keep(k))
        for kind in view["marked"]:
            if kind in wanted:
                wanted.remove(kind)
        for kind in wanted:
            if mask[mark_base + kind]:
                return mark_base + kind
        return exchange


class GreedyAgent(_Planner):
    """The highest-scoring move every turn; with no move, exchange the whole rack."""

    name = "greedy"
    reads_view = False

    def value(self, points, actions, lengths, view):
        return points.astype(np.float64)


class LeaveAgent(_Planner):
    """Score plus what the tiles left on the rack are worth, minus an end-game penalty for stranded tiles.

    Fives and ten-count tiles make fifteens with almost anything, so they are worth keeping; a move that
    leaves duplicates on the rack loses a little. With no move, keep fives and tens and exchange the rest."""

    name = "leave"
    FIVE, TEN, DUPLICATE = 3.0, 1.0, -1.0

    def keep(self, kind: int) -> bool:
        return kind_rank(kind) == 5 or kind_rank(kind) >= 10

    def value(self, points, actions, lengths, view):
        rack = np.bincount(np.asarray(view["rack"], dtype=np.int64), minlength=NUM_KINDS)
        cells = view["board_size"] ** 2
        faces = np.where(actions >= 0, actions // cells, 0)
        used = np.zeros((len(actions), NUM_KINDS), dtype=np.int64)
        rows = np.repeat(np.arange(len(actions)), actions.shape[1])
        np.add.at(used, (rows, FACE_KIND[faces].reshape(-1)), (actions >= 0).reshape(-1))
        left = rack[None, :] - used
        by_rank = left[:, :NUM_RANKS] + left[:, NUM_RANKS:]
        worth = self.FIVE * by_rank[:, 4] + self.TEN * by_rank[:, 9:].sum(1)
        worth += self.DUPLICATE * np.clip(by_rank - 1, 0, None).sum(1)
        if view["bag_sizes"][view["player"]] == 0:  # end game: tiles left on the rack cost their face value
            face_values = np.minimum(np.arange(1, NUM_RANKS + 1), 10)
            worth = -(by_rank * face_values).sum(1).astype(np.float64)
        return points + worth


class ReplyAgent(LeaveAgent):
    """`leave`'s value minus half of what the next player is expected to score in reply: a one-move look-ahead.

    A greedy player gives no thought to the lines its move opens; this one lays each of its `TOP` best moves
    (by `leave`'s value) on a copy of the board and averages the next player's best score there over `SAMPLES`
    racks drawn from the tiles it cannot see (all 104 less the board and its own rack: the other racks and the
    bag; a laid 6 or 9 may show the other number, so the two count as one pair of kinds, which play alike).
    Only the view is read, and the draws come from the agent's own seeded generator. Figures:
    docs/kings_cribbage.md, Figures."""

    name = "reply"
    TOP, SAMPLES, WEIGHT = 8, 4, 0.5

    def choice_scores(self, points, actions, lengths, view):
        """`leave`'s value less `WEIGHT` times the expected reply for the `TOP` best moves; -inf for the rest."""
        value = self.value(points, actions, lengths, view)
        racks = self._replying_racks(view)
        if len(value) < 2 or not racks:
            return value
        shortlist = np.argsort(-value, kind="stable")[: self.TOP]
        replies = np.array([self._expected_reply(actions[i, : lengths[i]], racks, view) for i in shortlist])
        scores = np.full(len(value), -np.inf)
        scores[shortlist] = value[shortlist] - self.WEIGHT * replies
        return scores

    def _replying_racks(self, view: dict[str, Any]) -> list[list[int]]:
        """Racks the next player might hold, drawn from the tiles this player cannot see."""
        occupied = view["values"] > 0
        on_board = kind_of(view["colours"][occupied].astype(np.int64), view["values"][occupied].astype(np.int64))
        left = TILES_PER_KIND - np.bincount(
            np.concatenate([on_board, view["rack"]]).astype(np.int64), minlength=NUM_KINDS
        )
        for colour in (0, 1):  # a shown 6 may be a turned 9 and the other way round: count the pair together
            six, nine = kind_of(colour, 6), kind_of(colour, 9)
            pair = left[six] + left[nine]
            left[six], left[nine] = min(pair, TILES_PER_KIND), max(pair - TILES_PER_KIND, 0)
        unseen = np.repeat(np.arange(NUM_KINDS), left)
        nxt = (view["player"] + 1) % view["num_players"]
        if view["variant"] == "solitaire":  # the next player draws only tiles of its own colour
            unseen = unseen[kind_colour(unseen) == nxt]
        size = min(view["rack_sizes"][nxt], len(unseen))
        if not size:
            return []
        return [self.rng.choice(unseen, size, replace=False).tolist() for _ in range(self.SAMPLES)]

    def _expected_reply(self, move: np.ndarray, racks: list[list[int]], view: dict[str, Any]) -> float:
        """The next player's best score after `move`, averaged over `racks` (none when the move goes out: with
        the bag empty, emptying the rack ends the game)."""
        if len(move) == len(view["rack"]) and view["bag_sizes"][view["player"]] == 0:
            return 0.0
        values, colours, size = view["values"].copy(), view["colours"].copy(), view["board_size"]
        face, cell = np.divmod(move, size * size)
        values.flat[cell], colours.flat[cell] = FACE_VALUE[face], FACE_COLOUR[face]
        best = [generate_moves(values, colours, rack, ordered=False).points.max(initial=0) for rack in racks]
        return float(np.mean(best))


HEURISTICS = {"greedy": GreedyAgent, "leave": LeaveAgent, "reply": ReplyAgent}

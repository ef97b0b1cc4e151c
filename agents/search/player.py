"""The search player: determinized rollouts (PIMC) from what its seat knows, one decision at a time.

At each decision the candidates (turns.py) are compared on the same worlds: each pass draws a world with
`State.resample(seat, rng)` (a full state consistent with the seat's view), plays every surviving candidate
there and then the rollout heuristic for every seat to the end (or `depth` actions), and adds up the seat's
results (`value=win`) or score margins (`value=margin`). Sequential halving spends the budget: ceil(log2 k)
rounds, each with an equal share, after each the worse half of the candidates dropped; the best mean over all
its rollouts wins (ties: the earlier candidate, the guiding heuristic's own choice first). With `guard=Z` that
choice is kept through every round and left only when a rival leads it on the last round's fresh worlds by
more than Z standard errors of the paired differences: a decision's effect on a game's result is small beside
a rollout's noise, so without such a test the search mostly trades the heuristic's move for a lucky one. This
is OpenSpiel's IS-MCTS cut to its root information set: no tree below the first move (a deeper tree was not
tried). With `plies` (Kings Cribbage) the rollouts stop after a few turns instead, which the guide's value of the
move and the weighted points of those turns evaluate (`look_ahead`): a truncated evaluation over the same
worlds.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from tabletop.agents.search.spec import SearchOptions
from tabletop.agents.search.turns import turns_for
from tabletop.envs.core.aec import offending_team

DEFAULT_ROLLOUT = {"cromlet": "blocker", "chromino": "keep_options", "kings_cribbage": "greedy"}
"""The rollout heuristic by game: strong for its cost (a rollout is a whole game of it per candidate)."""

COOPERATIVE = {"krz_grtn": 'a cooperative game: no opponent to search against (docs/training.md, "Search players")'}


def searchable(game: str) -> bool:
    """Whether `game` has a search player with its defaults (a competitive game with a default rollout)."""
    return game in DEFAULT_ROLLOUT


def play_out(policy: type, world: Any, seed: int, depth: int) -> None:
    """Play heuristic class `policy` in every seat of `world`, seat p as `policy(seed=seed + p)`, until the game
    ends or `depth` moves are played (0: no limit): through the heuristic's compiled `play_out` where it has
    one (the same moves in one call), else `act_out`."""
    compiled = getattr(policy, "play_out", None)
    if compiled is not None:
        compiled(world, seed, depth)
    else:
        act_out(policy, world, seed, depth)


def act_out(policy: type, world: Any, seed: int, depth: int) -> None:
    """`play_out` one `act` a move, through each seat's view."""
    players = [policy(seed=seed + p) for p in range(world.game.num_players)]
    steps = 0
    while not world.is_terminal() and (not depth or steps < depth):
        p = world.current_player
        world.apply(players[p].act(None, world.legal_action_mask(), world.view(p)))
        steps += 1


class SearchAgent:
    """Reads its seat's view and `sample`, one full state drawn from what the seat knows (agents.base.act_for
    passes `state.resample(seat, ...)`, never the state); it draws every world from `sample` again."""

    needs_observation = False
    needs_sample = True

    def __init__(
        self, env_id: str, game: str, policies: dict[str, type], options: SearchOptions, seed=None, name="search"
    ):
        """`policies`: the heuristics `options.rollout` and `options.guide` may name (agents.registry passes the
        game's)."""
        if game in COOPERATIVE:
            raise ValueError(f"no search player for {env_id}: {COOPERATIVE[game]}")
        rollout = options.rollout or DEFAULT_ROLLOUT[game]
        guide = options.guide or rollout
        for key, value in (("rollout", rollout), ("guide", guide)):
            if value not in policies:
                raise ValueError(f"unknown {key} policy {value!r} for {env_id}; allowed: {', '.join(policies)}")
        if options.plies and not hasattr(policies[rollout], "turn_points"):
            raise ValueError(
                f"search: plies needs a rollout heuristic that plays whole turns and counts their points "
                f"(Kings Cribbage's); {rollout!r} of {env_id} has none"
            )
        self.name, self.options, self.policy = name, options, policies[rollout]
        self.rng = np.random.default_rng(seed)
        self.guide = policies[guide](seed=int(self.rng.integers(2**31)))  # its choice leads the candidates
        self.turns = turns_for(game, self.guide)
        self.shares: dict[int, float] = {}  # the last decision's rollouts per first action, as shares (a teacher's
        # soft target, train/selfplay/imitation.py); empty when it searched nothing (one candidate, a planned move)

    def act(self, observation: Any, action_mask: np.ndarray, view: dict[str, Any], sample: Any = None) -> int:
        if sample is None:
            raise ValueError(
                "the search player needs sample=state.resample(seat, rng) from the game loop "
                "(tabletop.agents.base.act_for); this loop passed only the view"
            )
        self.shares = {}
        planned = self.turns.follow(view, action_mask)
        if planned is not None:
            return int(planned)
        pick = int(self.guide.act(None, action_mask, view))
        turns = self.turns.candidates(sample, view, action_mask, pick, self.options.candidates, self.rng)
        best = turns[0]
        if len(turns) > 1:
            search = self.look_ahead if self.options.plies else self.search
            best, count = search(sample, sample.current_player, turns)
            for turn, n in zip(turns, count / count.sum()):
                self.shares[turn[0]] = self.shares.get(turn[0], 0.0) + float(n)
        self.turns.chose(view, best)
        return int(best[0])

    def search(self, sample: Any, seat: int, turns: list[tuple[int, ...]]) -> tuple[tuple[int, ...], np.ndarray]:
        """The best of `turns` for `seat` by sequential halving over worlds drawn from `sample`, and every
        candidate's rollout count (what a teacher would use as visit counts)."""
        rounds = math.ceil(math.log2(len(turns)))
        total, count = np.zeros(len(turns)), np.zeros(len(turns), dtype=np.int64)
        alive = list(range(len(turns)))
        start = time.process_time()
        for r in range(rounds):
            passes = max(1, self.options.sims // (rounds * len(alive)))
            deadline = start + self.options.seconds * (r + 1) / rounds
            worlds = []  # this round's results: a row per world, a column per candidate (NaN: not rolled out)
            while len(worlds) < passes if self.options.sims else (not worlds or time.process_time() < deadline):
                world, seed = sample.resample(seat, self.rng), int(self.rng.integers(2**31))
                row = np.full(len(turns), np.nan)
                for i in alive:
                    row[i] = self.rollout(world.clone(), turns[i], seat, seed)
                worlds.append(row)
            last = np.array(worlds)
            total[alive] += last[:, alive].sum(0)
            count[alive] += len(last)
            if r < rounds - 1:  # keep the better half; a stable sort keeps the earlier of equals
                keep = sorted(alive, key=lambda i: -total[i] / count[i])[: math.ceil(len(alive) / 2)]
                if self.options.guard and 0 not in keep:  # the heuristic's own choice stays to the end
                    keep[-1] = 0
                alive = sorted(keep)
        if self.options.guard:
            return turns[self.guarded(last, alive)], count
        return turns[max(alive, key=lambda i: (total[i] / count[i], -i))], count

    def look_ahead(self, sample: Any, seat: int, turns: list[tuple[int, ...]]) -> tuple[tuple[int, ...], np.ndarray]:
        """The best of `turns` for `seat` by the guide's value plus the mean weighted points of the next turns
        (`plies`, the rollout heuristic's `turn_points`) over worlds drawn from `sample`, every candidate on
        every world; `sims` look-aheads in all (at least one world), or worlds until `seconds` is spent. Ties go
        to the earlier candidate. The count marks the winner alone: a look-ahead spends the same on every
        candidate, so it has no visit counts to teach."""
        values = self.turns.values(sample.view(seat), turns)
        weights, sims, seconds = self.options.ply_weights, self.options.sims, self.options.seconds
        worlds, total = 0, np.zeros(len(turns))
        deadline = time.process_time() + seconds
        while worlds < max(1, sims // len(turns)) if sims else (not worlds or time.process_time() < deadline):
            world, seed = sample.resample(seat, self.rng), int(self.rng.integers(2**31))
            for i, turn in enumerate(turns):
                after = world.clone()
                for action in turn:
                    after.apply(action)
                total[i] += self.policy.turn_points(after, seed, weights, seat)
            worlds += 1
        best = int(np.argmax(np.asarray(values) + total / worlds))
        count = np.zeros(len(turns), dtype=np.int64)
        count[best] = 1
        return turns[best], count

    def guarded(self, last: np.ndarray, alive: list[int]) -> int:
        """The heuristic's own choice (0), unless a rival's mean lead over it on the last round's worlds (the
        same worlds for both: paired) exceeds `guard` standard errors; then the rival of the largest lead."""
        rivals = [i for i in alive if i != 0]
        if len(last) < 2 or not rivals:
            return 0
        lead = last[:, rivals] - last[:, [0]]
        mean, error = lead.mean(0), lead.std(0, ddof=1) / math.sqrt(len(last))
        sure = (mean > 0) & (mean > self.options.guard * error)
        return rivals[int(np.argmax(np.where(sure, mean, -np.inf)))] if sure.any() else 0

    def rollout(self, world: Any, turn: tuple[int, ...], seat: int, seed: int) -> float:
        """`seat`'s result after `turn` and the rollout heuristic for every seat (fresh, seeded by `seed`: the
        same play for every candidate in a world)."""
        for action in turn:
            world.apply(action)
        play_out(self.policy, world, seed, self.options.depth)
        return outcome(world, seat, self.options.value)


def outcome(world: Any, seat: int, value: str) -> float:
    """What a rollout that reached `world` counts for `seat`: `margin` its (team's) score less the best score
    outside its side (in a cooperative game, with no other side, the team's score); `win` its result (+1 / 0 /
    -1), or where the rollout was cut short who leads (+1 leading, -1 behind, 0 level). A partner is never a
    rival: in team play every seat of a team holds the team's score."""
    scores = np.asarray(world.scores(), dtype=float)
    rivals = scores[~offending_team(world.game, seat)]
    if value == "margin":
        return float(scores[seat] - rivals.max()) if rivals.size else float(scores[seat])
    if world.is_terminal():
        return float(world.returns()[seat])
    return float(np.sign(scores[seat] - rivals.max())) if rivals.size else 0.0

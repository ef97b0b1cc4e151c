"""How strong is a policy? Its win rate against every baseline, with 95% Wilson intervals.

Competitive games: the policy holds one seat (rotating over games) and the baseline holds all the
others. Cooperative games (`learner_seats="all"`): the policy plays every seat, and so does each
baseline team, on the same seeds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from tabletop.agents import Agent, agent_names
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import run_tournament, wilson_interval

LEARNER = "learner"


@dataclass
class Matchup:
    """The learner's record against one baseline (or, cooperative, one team's own record)."""

    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_score: float
    opponent_win_rate: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    def __post_init__(self):  # tournament counts arrive as numpy scalars; keep plain numbers (JSON)
        self.games, self.wins, self.draws, self.losses = map(int, (self.games, self.wins, self.draws, self.losses))
        self.mean_score, self.opponent_win_rate = float(self.mean_score), float(self.opponent_win_rate)

    def to_dict(self) -> dict:
        lo, hi = self.interval
        return {**asdict(self), "win_rate": self.win_rate, "ci_low": lo, "ci_high": hi}


def evaluate(
    agent: Agent,
    env: EnvSpec,
    games: int,
    seed: int,
    learner_seats: str = "one",
    opponents: list[str] | None = None,
    progress: str | None = None,
) -> list[Matchup]:
    """Play `games` games against each baseline (`random` and every heuristic of the game, by default)
    on seeds `seed`, `seed + 1`, ...; with `progress` (a name for them, e.g. "final evaluation"), a
    progress bar for each baseline's games."""
    opponents = opponents or agent_names(env.env_id)
    rows = []
    rounds = len(opponents) + (learner_seats == "all")

    def bar(i: int, what: str) -> dict:
        """run_tournament's progress arguments for round i: "final evaluation vs greedy (2/4)"."""
        return {"progress": progress is not None, "label": f"{progress} {what} ({i}/{rounds})"}

    if learner_seats == "all":
        for i, spec in enumerate([LEARNER, *opponents], 1):
            result = run_tournament(env, [spec], games, seed=seed, agents={LEARNER: agent}, **bar(i, f"team of {spec}"))
            team = [g["returns"][0] for g in result.per_game]  # one shared result per game, not per seat
            wins, draws = sum(r > 0 for r in team), sum(r == 0 for r in team)
            score = sum(g["scores"][0] for g in result.per_game) / games
            rows.append(Matchup(spec, games, wins, draws, games - wins - draws, score, float("nan")))
        return rows
    others = env.new_game().num_players - 1
    for i, opponent in enumerate(opponents, 1):
        specs = [LEARNER] + [opponent] * others  # seats rotate every game, so the learner sits everywhere
        result = run_tournament(env, specs, games, seed=seed, agents={LEARNER: agent}, **bar(i, f"vs {opponent}"))
        me, them = result.records[LEARNER], result.records[opponent]
        rows.append(Matchup(opponent, me.played, me.wins, me.draws, me.losses, me.mean_score, them.win_rate))
    return rows


def format_table(rows: list[Matchup], learner_seats: str = "one") -> str:
    if learner_seats == "all":
        lines = [f"{'team (every seat)':<22} {'games':>6} {'win rate':>9} {'95% interval':>16} {'mean score':>11}"]
        for r in rows:
            lo, hi = r.interval
            lines.append(
                f"{r.opponent:<22} {r.games:>6} {r.win_rate:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} {r.mean_score:>11.2f}"
            )
        return "\n".join(lines)
    lines = [f"{'vs':<22} {'games':>6} {'win rate':>9} {'95% interval':>16} {'draws':>6} {'their win rate':>15}"]
    for r in rows:
        lo, hi = r.interval
        lines.append(
            f"{r.opponent:<22} {r.games:>6} {r.win_rate:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} {r.draws:>6} "
            f"{r.opponent_win_rate:>15.3f}"
        )
    return "\n".join(lines)

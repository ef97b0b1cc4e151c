"""Seeded tournaments between named agents with rotated seats, and honest intervals on the results.

The schedule is fair: with no more agents than seats every game seats them all; with more, every table of
agents meets in every seat order (`schedule`), so each agent's row is over the same opponents. In a cooperative
game each named agent is a team of its own, and the teams play the same deals. Intervals count results, one per
game and side: seats of one team share an outcome and count once.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from tabletop.agents import Agent, make_agent
from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec
from tabletop.envs.core import Game, TabletopEnv


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (well-behaved near 0 and 1)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Tally:
    """Wins, draws and losses, and the win rate with its 95% Wilson interval."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, outcome: float) -> None:
        """Count one result: above zero a win, zero a draw, below zero a loss."""
        self.wins += int(outcome > 0)
        self.draws += int(outcome == 0)
        self.losses += int(outcome < 0)

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.played if self.played else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.played)

    @property
    def rate_cells(self) -> str:
        """The win rate and its interval, as the tables print them."""
        lo, hi = self.interval
        return f"{self.win_rate:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16}"

    def counts(self) -> dict:
        """Plain ints and floats for JSON (numpy scalars are not JSON)."""
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": float(self.win_rate),
            "win_rate_95ci": [float(x) for x in self.interval],
        }


@dataclass
class AgentRecord(Tally):
    """One agent's results: one per game and side it held (its seats in one team share one result, so they count
    once); its mean score over every seat it held."""

    spec: str = ""
    score_sum: float = 0.0
    seats: int = 0

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.seats if self.seats else 0.0


@dataclass
class PairRecord(Tally):
    """`first` against `second`, from `first`'s side: one result per game both played in, the agent whose
    seats averaged the higher return winning it (equal: a draw). A two-player game's head-to-head record;
    at a larger table, who finished ahead of whom."""

    first: str = ""
    second: str = ""


@dataclass
class TournamentResult:
    env_id: str
    games: int
    seconds: float
    steps: int
    records: dict[str, AgentRecord]
    per_game: list[dict] = field(default_factory=list)
    pairs: dict[tuple[str, str], PairRecord] = field(default_factory=dict)
    warning: str | None = None

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def table(self) -> str:
        """Every agent's results, then every pair that met."""
        lines = [f"{self.env_id}: {self.games} games, {self.games_per_second:.1f} games/s"]
        lines.append(
            f"{'agent':<28} {'results':>7} {'win rate':>9} {'95% interval':>16} {'draws':>6} {'mean score':>11}"
        )
        for rec in self.records.values():
            lines.append(f"{rec.spec:<28} {rec.played:>7} {rec.rate_cells} {rec.draws:>6} {rec.mean_score:>11.2f}")
        if self.pairs:
            lines.append(
                f"\n{'pair (results of the first)':<44} {'games':>6} {'wins':>6} {'draws':>6} {'losses':>6} "
                f"{'win rate':>9} {'95% interval':>16}"
            )
            for p in self.pairs.values():
                lines.append(
                    f"{f'{p.first} vs {p.second}':<44} {p.played:>6} {p.wins:>6} {p.draws:>6} {p.losses:>6} {p.rate_cells}"
                )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "env_id": self.env_id,
            "games": self.games,
            "games_per_second": self.games_per_second,
            "agents": {
                spec: {"seats": r.seats, "results": r.played, **r.counts(), "mean_score": float(r.mean_score)}
                for spec, r in self.records.items()
            },
            "pairs": [
                {"first": p.first, "second": p.second, "games": p.played, **p.counts()} for p in self.pairs.values()
            ],
            **({"warning": self.warning} if self.warning else {}),
        }


def schedule(specs: list[str], game: Game) -> list[list[str]]:
    """One cycle of seatings; game g of a tournament plays `cycle[g % len(cycle)]`.

    Cooperative (`shared_reward`): each named agent is a team holding every seat. No more agents than seats:
    they fill the seats in turn and the order rotates by one seat a game. More agents than seats: every
    combination of them meets, in every rotation of its seats, so every agent faces every other equally often.
    A repeated name counts as another entry (more seats for it)."""
    players = game.num_players
    if getattr(game, "shared_reward", False):
        return [[spec] * players for spec in specs]
    if len(specs) <= players:
        return [[specs[(seat + g) % len(specs)] for seat in range(players)] for g in range(len(specs))]
    return [
        [table[(seat + turn) % players] for seat in range(players)]
        for table in itertools.combinations(specs, players)
        for turn in range(players)
    ]


def check_schedule(specs: list[str], game: Game, num_games: int) -> None:
    """A ValueError unless `num_games` plays whole cycles where that makes the rows comparable: more agents than
    seats (else some would miss some opponents), or several cooperative teams (else they would miss some deals)."""
    cycle = len(schedule(specs, game))
    cooperative = getattr(game, "shared_reward", False)
    if cooperative and len(set(specs)) < len(specs):
        named = sorted({s for s in specs if specs.count(s) > 1})
        raise ValueError(
            f"{', '.join(named)} named twice: in a cooperative game each named agent is a team holding every seat "
            "(for teams of two agents: tabletop crossplay)"
        )
    if num_games % cycle == 0 or not (cooperative or len(specs) > game.num_players):
        return
    lower, upper = num_games // cycle * cycle, (num_games // cycle + 1) * cycle
    offer = f"{lower} or {upper}" if lower else str(upper)
    why = (
        f"{len(specs)} teams play the same deals in turn"
        if cooperative
        else f"{len(specs)} agents at {game.num_players} seats meet in cycles of {cycle} games "
        f"(every table of {game.num_players} in every seat order)"
    )
    raise ValueError(f"{why}, so the games must be a multiple of {cycle} for every row to be comparable: e.g. {offer}")


def self_play_warning(specs: list[str], game: Game) -> str | None:
    """One line when a game of a competitive `game` seats an agent more than once, so it plays against
    itself: its agent row then counts every seat it held, wins over itself included (pair rows count only
    different agents). A warning, not an error: repeating an agent is how a table of four pits one policy
    against three copies of a heuristic, and one agent alone measures the seats' advantage. Teammates
    of a cooperative game share one result, so repeating one there says nothing."""
    if getattr(game, "shared_reward", False):
        return None
    cycle = schedule(specs, game)
    repeated: dict[str, int] = {}
    for seats in cycle:
        for spec in dict.fromkeys(seats):
            repeated[spec] = repeated.get(spec, 0) + (seats.count(spec) > 1)
    said = [
        f"{spec} holds more than one seat in {'every game' if n == len(cycle) else f'{n} of every {len(cycle)} games'}"
        for spec, n in repeated.items()
        if n
    ]
    if not said:
        return None
    return f"{'; '.join(said)}, playing itself there: agent rows count every seat held, pair rows only games between different agents"


def play_game(env: TabletopEnv, seat_agents: list[Agent], seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Play one game on the raw env; returns (returns, final scores, steps).

    Observations come from the env's observer, so policies see what they were trained on (private or omniscient)."""
    env.reset(seed=seed)
    state = env.game_state
    steps = 0
    while not state.is_terminal():
        seat = state.current_player
        state.apply(act_for(seat_agents[seat], env, state, seat))
        steps += 1
    return state.returns(), np.asarray(state.scores(), dtype=float), steps


def run_tournament(
    env: EnvSpec,
    specs: list[str],
    num_games: int,
    seed: int = 0,
    progress: bool = False,
    agents: dict[str, Agent] | None = None,
    label: str | None = None,
) -> TournamentResult:
    """Play `num_games` seeded games, game g seated as `schedule(...)[g % cycle]` on env seed `seed + g` (a
    cooperative game's teams take turns on each deal: seed `seed + g // teams`). `label` names the progress bar
    (default: the env id). A ValueError, before any game, when the count would leave the rows unequal
    (`check_schedule`)."""
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    if not specs:
        raise ValueError("name at least one agent")
    table = env.make_raw(illegal_action="raise")  # an agent's illegal move is its bug, not a loss to score
    check_schedule(specs, table.game, num_games)
    cycle = schedule(specs, table.game)
    agents = dict(agents or {})
    for i, spec in enumerate(dict.fromkeys(specs)):
        if spec not in agents:
            agents[spec] = make_agent(env, spec, seed=seed * 1000 + i)
    records = {spec: AgentRecord(spec=spec) for spec in dict.fromkeys(specs)}
    cooperative = getattr(table.game, "shared_reward", False)
    sides = seat_teams(table.game)
    pairs: dict[tuple[str, str], PairRecord] = {}
    per_game, steps = [], 0
    bar = _progress(num_games, label or env.env_id) if progress else None
    start = time.perf_counter()
    for g in range(num_games):
        seats = cycle[g % len(cycle)]
        deal = seed + (g // len(specs) if cooperative else g)
        returns, scores, n = play_game(table, [agents[s] for s in seats], deal)
        steps += n
        for seat, spec in enumerate(seats):
            records[spec].seats += 1
            records[spec].score_sum += scores[seat]
        for (spec, _), seat in {(spec, sides[seat]): seat for seat, spec in enumerate(seats)}.items():
            records[spec].add(returns[seat])  # one result per agent and side: teammates share an outcome
        if not cooperative:
            _count_pairs(pairs, list(records), seats, returns)
        per_game.append({"seed": deal, "seats": seats, "returns": returns.tolist(), "scores": scores.tolist()})
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - start
    if cooperative:
        _count_team_pairs(pairs, list(records), per_game)
    return TournamentResult(
        env.env_id, num_games, seconds, steps, records, per_game, pairs, self_play_warning(specs, table.game)
    )


def _count_pairs(
    pairs: dict[tuple[str, str], PairRecord], order: list[str], seats: list[str], returns: np.ndarray
) -> None:
    """One game's result for every pair of different agents at the table (`order`: which of two comes first)."""
    mean = {spec: float(np.mean([r for s, r in zip(seats, returns) if s == spec])) for spec in dict.fromkeys(seats)}
    present = [spec for spec in order if spec in mean]
    for i, first in enumerate(present):
        for second in present[i + 1 :]:
            pairs.setdefault((first, second), PairRecord(first=first, second=second)).add(mean[first] - mean[second])


def seat_teams(game: Game) -> np.ndarray:
    """Each seat's side: one for every seat of a cooperative game, the game's `team_of` in a team game, else its own."""
    if getattr(game, "shared_reward", False):
        return np.zeros(game.num_players, dtype=int)
    team_of = getattr(game, "team_of", None)
    return np.asarray(team_of) if team_of is not None else np.arange(game.num_players)


def _count_team_pairs(pairs: dict[tuple[str, str], PairRecord], order: list[str], per_game: list[dict]) -> None:
    """Cooperative teams played the same deals: on each deal, the team with the higher score wins the pair."""
    by_deal: dict[int, dict[str, float]] = {}
    for game in per_game:
        by_deal.setdefault(game["seed"], {})[game["seats"][0]] = game["scores"][0]
    for first, second in itertools.combinations(order, 2):
        for scores in by_deal.values():
            pairs.setdefault((first, second), PairRecord(first=first, second=second)).add(
                scores[first] - scores[second]
            )


def _progress(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="game", leave=False)

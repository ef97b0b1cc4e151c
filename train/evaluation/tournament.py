"""Seeded tournaments between named agents with rotated seats, and honest intervals on the results."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from tabletop.agents import Agent, make_agent
from tabletop.envs import EnvSpec
from tabletop.envs.core import TabletopEnv


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
class AgentRecord:
    """One agent's results, counted once per seat it held in each game."""

    spec: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score_sum: float = 0.0

    @property
    def seats_played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats_played if self.seats_played else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.seats_played)

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.seats_played if self.seats_played else 0.0


@dataclass
class TournamentResult:
    env_id: str
    games: int
    seconds: float
    steps: int
    records: dict[str, AgentRecord]
    per_game: list[dict] = field(default_factory=list)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def table(self) -> str:
        lines = [f"{self.env_id}: {self.games} games, {self.games_per_second:.1f} games/s"]
        lines.append(f"{'agent':<28} {'seats':>6} {'win rate':>9} {'95% interval':>16} {'draws':>6} {'mean score':>11}")
        for rec in self.records.values():
            lo, hi = rec.interval
            lines.append(
                f"{rec.spec:<28} {rec.seats_played:>6} {rec.win_rate:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} "
                f"{rec.draws:>6} {rec.mean_score:>11.2f}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "env_id": self.env_id,
            "games": self.games,
            "games_per_second": self.games_per_second,
            "agents": {
                spec: {  # plain ints and floats: numpy scalars are not JSON
                    "seats": int(r.seats_played),
                    "wins": int(r.wins),
                    "draws": int(r.draws),
                    "losses": int(r.losses),
                    "win_rate": float(r.win_rate),
                    "win_rate_95ci": [float(x) for x in r.interval],
                    "mean_score": float(r.mean_score),
                }
                for spec, r in self.records.items()
            },
        }


def seat_assignment(specs: list[str], num_players: int, game_index: int) -> list[str]:
    """Agents fill the seats in turn, and the whole order rotates by one seat every game."""
    return [specs[(seat + game_index) % len(specs)] for seat in range(num_players)]


def play_game(env: TabletopEnv, seat_agents: list[Agent], seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Play one game on the raw env; returns (returns, final scores, steps).

    Observations come from the env's observer, so policies see what they were trained on (private or omniscient)."""
    env.reset(seed=seed)
    state, observer = env.game_state, env.observer
    steps = 0
    while not state.is_terminal():
        seat = state.current_player
        agent = seat_agents[seat]
        mask = state.legal_action_mask()
        obs = observer.encode(state, seat) if agent.needs_observation else None
        action = agent.act(obs, mask, state.view(seat))
        state.apply(action)
        steps += 1
    return state.returns(), np.asarray(state.scores(), dtype=float), steps


def run_tournament(
    env: EnvSpec,
    specs: list[str],
    num_games: int,
    seed: int = 0,
    progress: bool = False,
    agents: dict[str, Agent] | None = None,
) -> TournamentResult:
    """Play `num_games` seeded games; game g uses env seed `seed + g` and rotates seats by g."""
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    if not specs:
        raise ValueError("name at least one agent")
    table = env.make_raw()
    agents = dict(agents or {})
    for i, spec in enumerate(dict.fromkeys(specs)):
        if spec not in agents:
            agents[spec] = make_agent(env, spec, seed=seed * 1000 + i)
    records = {spec: AgentRecord(spec) for spec in dict.fromkeys(specs)}
    per_game, steps = [], 0
    bar = _progress(num_games, env.env_id) if progress else None
    start = time.perf_counter()
    for g in range(num_games):
        seats = seat_assignment(specs, table.game.num_players, g)
        returns, scores, n = play_game(table, [agents[s] for s in seats], seed + g)
        steps += n
        for seat, spec in enumerate(seats):
            rec = records[spec]
            rec.wins += returns[seat] > 0
            rec.draws += returns[seat] == 0
            rec.losses += returns[seat] < 0
            rec.score_sum += scores[seat]
        per_game.append({"seed": seed + g, "seats": seats, "returns": returns.tolist(), "scores": scores.tolist()})
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return TournamentResult(env.env_id, num_games, time.perf_counter() - start, steps, records, per_game)


def _progress(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="game", leave=False)

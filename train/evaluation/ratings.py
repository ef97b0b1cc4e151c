"""Round-robin evaluation among any agents: a win-rate matrix and OpenSkill ratings with uncertainty.

Every pair plays the same seeded games (common random numbers), seats rotating every game. Ratings
come from OpenSkill's Plackett-Luce model, updated game by game with the pairs interleaved so no
agent's games all come last; `mu ± 1.96 sigma` is the 95% band, `ordinal = mu - 3 sigma` the
conservative rank key.
"""

from __future__ import annotations

import csv
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from openskill.models import PlackettLuce

from tabletop.agents import make_agent
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import run_tournament, wilson_interval


@dataclass
class Rating:
    agent: str
    mu: float
    sigma: float
    wins: int
    seats: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict:
        lo, hi = wilson_interval(self.wins, self.seats)
        return {
            "agent": self.agent,
            "mu": self.mu,
            "sigma": self.sigma,
            "mu_95_low": self.mu - 1.96 * self.sigma,
            "mu_95_high": self.mu + 1.96 * self.sigma,
            "ordinal": self.ordinal,
            "win_rate": self.wins / self.seats if self.seats else 0.0,
            "win_rate_95_low": lo,
            "win_rate_95_high": hi,
        }


@dataclass
class RoundRobin:
    env_id: str
    agents: list[str]
    games_per_pair: int
    win_rate: np.ndarray  # [i, j]: agent i's win rate (per seat) in its games against j; NaN on the diagonal
    ratings: list[Rating]  # best first, by ordinal

    def table(self) -> str:
        width = max(12, *(len(a) for a in self.agents)) + 5
        lines = [f"{self.env_id}: round robin, {self.games_per_pair} games per pair", "win rate of row vs column:"]
        lines.append(" " * width + "".join(f"{f'({j + 1})':>8}" for j in range(len(self.agents))))
        for i, a in enumerate(self.agents):
            cells = "".join(f"{'-':>8}" if i == j else f"{self.win_rate[i, j]:>8.3f}" for j in range(len(self.agents)))
            lines.append(f"{f'({i + 1}) {a}':<{width}}{cells}")
        lines.append("")
        lines.append(f"{'agent':<{width}} {'mu':>7} {'sigma':>6} {'mu 95% band':>16} {'ordinal':>8} {'win rate':>9}")
        for r in self.ratings:
            d = r.to_dict()
            band = f"[{d['mu_95_low']:.1f}, {d['mu_95_high']:.1f}]"
            lines.append(
                f"{r.agent:<{width}} {r.mu:>7.2f} {r.sigma:>6.2f} {band:>16} {r.ordinal:>8.2f} {d['win_rate']:>9.3f}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        matrix = [[None if np.isnan(v) else float(v) for v in row] for row in self.win_rate]
        return {
            "env_id": self.env_id,
            "games_per_pair": self.games_per_pair,
            "agents": self.agents,
            "win_rate_matrix": matrix,
            "ratings": [r.to_dict() for r in self.ratings],
        }

    def write(self, out_dir: Path) -> list[Path]:
        """`round_robin.json`, `win_rates.csv`, `ratings.csv` and `win_rates.png` in `out_dir`."""
        from tabletop.train.evaluation.plots import heat_map

        out_dir.mkdir(parents=True, exist_ok=True)
        paths = [out_dir / n for n in ("round_robin.json", "win_rates.csv", "ratings.csv", "win_rates.png")]
        paths[0].write_text(json.dumps(self.to_dict(), indent=2))
        with open(paths[1], "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["agent", *self.agents])
            for a, row in zip(self.agents, self.win_rate):
                w.writerow([a, *("" if np.isnan(v) else f"{v:.4f}" for v in row)])
        with open(paths[2], "w", newline="") as f:
            rows = [r.to_dict() for r in self.ratings]
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        heat_map(self.agents, self.win_rate, paths[3], f"{self.env_id}: row's win rate vs column")
        return paths


def round_robin(
    env: EnvSpec, specs: list[str], games_per_pair: int, seed: int = 0, progress: bool = False
) -> RoundRobin:
    """Every pair of `specs` plays `games_per_pair` games on seeds `seed`, `seed + 1`, ..."""
    if len(specs) < 2:
        raise ValueError("a round robin needs at least two agents")
    if len(set(specs)) != len(specs):
        raise ValueError(f"agents must be distinct, got {specs}")
    if games_per_pair < 1:
        raise ValueError(f"games per pair must be at least 1, got {games_per_pair}")
    agents = {s: make_agent(env, s, seed=seed * 1000 + i) for i, s in enumerate(specs)}
    index = {s: i for i, s in enumerate(specs)}
    n = len(specs)
    wins, seats = np.zeros((n, n)), np.zeros((n, n))
    pair_games = []
    pairs = list(itertools.combinations(specs, 2))
    bar = _bar(len(pairs), env.env_id) if progress else None
    for a, b in pairs:
        # seats alternate a, b, a, ... and the order rotates every game (run_tournament's rule)
        result = run_tournament(env, [a, b], games_per_pair, seed, agents=agents)
        for me, other in ((a, b), (b, a)):
            rec = result.records[me]
            wins[index[me], index[other]] += rec.wins
            seats[index[me], index[other]] += rec.played
        pair_games.append(result.per_game)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    with np.errstate(invalid="ignore"):
        rate = np.where(seats > 0, wins / np.maximum(seats, 1), np.nan)
    np.fill_diagonal(rate, np.nan)
    ratings = _rate(specs, pair_games)
    for r in ratings:
        r.wins, r.seats = int(wins[index[r.agent]].sum()), int(seats[index[r.agent]].sum())
    return RoundRobin(env.env_id, list(specs), games_per_pair, rate, ratings)


def _by_deal(games: list[dict]) -> list[list[dict]]:
    """A pair's games grouped by deal, in order: one game each in a competitive game, one per team in a
    cooperative one."""
    deals: dict[int, list[dict]] = {}
    for game in games:
        deals.setdefault(game["seed"], []).append(game)
    return list(deals.values())


def _rate(specs: list[str], pair_games: list[list[dict]]) -> list[Rating]:
    """OpenSkill ratings over every deal, pairs interleaved deal by deal (a cooperative game's two teams play each
    deal in turn: one match, ranked by their results)."""
    model = PlackettLuce()
    current = {s: model.rating(name=s) for s in specs}
    for deals in itertools.zip_longest(*(_by_deal(games) for games in pair_games)):
        for deal in filter(None, deals):
            best: dict[str, float] = {}  # an agent in several seats counts by its best seat
            for spec, ret in ((s, r) for game in deal for s, r in zip(game["seats"], game["returns"])):
                best[spec] = max(best.get(spec, -np.inf), ret)
            names = list(best)
            ranks = [-best[s] for s in names]  # lower rank is better; equal returns tie
            updated = model.rate([[current[s]] for s in names], ranks=ranks)
            for s, (r,) in zip(names, updated):
                current[s] = r
    ratings = [Rating(s, current[s].mu, current[s].sigma, 0, 0) for s in specs]
    return sorted(ratings, key=lambda r: r.ordinal, reverse=True)


def _bar(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=f"{desc} pairs", unit="pair", leave=False)

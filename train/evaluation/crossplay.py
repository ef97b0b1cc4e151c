"""Cross-play (ad-hoc teamwork) for a cooperative clue game: does a team's convention work with strangers?

In KRZ GRTN the role moves round the table every attempt, so a mixed team is one player per role: the
seat that is X this attempt asks the X agent, every clue giver asks the giver agent. Four teams on the
same seeds: the candidate alone, candidate givers with the partner's X, the partner's givers with the
candidate's X, and the partner alone. A convention only the candidate's own X understands shows up as
a drop in the mixed rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop.agents import Agent, make_agent
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import run_tournament, wilson_interval

ROLE_GAMES = ("krz_grtn_v1",)  # games whose view names each seat's role ("X" or "giver")


class RoleTeam:
    """One player per role: `view["role"]` decides who moves (the seat's X this attempt, or a giver)."""

    def __init__(self, givers: Agent, x: Agent, name: str):
        self.givers, self.x, self.name = givers, x, name
        self.needs_observation = givers.needs_observation or x.needs_observation
        readers = [getattr(a, "observation_options", None) for a in (givers, x) if a.needs_observation]
        if any(r != readers[0] for r in readers):
            raise ValueError(
                f"{givers.name} and {x.name} read observations with different feature groups; "
                "a team's two players share one observation"
            )
        self.observation_options = readers[0] if readers else None
        self.needs_sample = any(getattr(a, "needs_sample", False) for a in (givers, x))  # a search player

    def act(
        self, observation: np.ndarray | None, action_mask: np.ndarray, view: dict[str, Any], sample: Any = None
    ) -> int:
        player = self.x if view["role"] == "X" else self.givers
        drawn = {"sample": sample} if getattr(player, "needs_sample", False) else {}
        return player.act(observation, action_mask, view, **drawn)


@dataclass
class TeamResult:
    givers: str
    x: str
    games: int
    wins: int
    mean_levels: float
    levels_sd: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    def to_dict(self) -> dict:
        lo, hi = wilson_interval(self.wins, self.games)
        return {**vars(self), "win_rate": self.win_rate, "ci_low": lo, "ci_high": hi}


def crossplay(
    env: EnvSpec, candidate: str, partner: str, games: int, seed: int, agents: dict[str, Agent] | None = None
) -> list[TeamResult]:
    """The four teams of `candidate` and `partner` (agent specs, or names of `agents`), `games` seeded games each."""
    if env.current_id not in ROLE_GAMES:
        raise ValueError(f"cross-play mixes roles; {env.env_id} has none (allowed: {', '.join(ROLE_GAMES)})")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    agents = dict(agents or {})

    def agent(spec: str, offset: int) -> Agent:  # a fresh agent per team: its generator starts alike every time
        return agents[spec] if spec in agents else make_agent(env, spec, seed=seed * 1000 + offset)

    results = []
    for givers, x in ((candidate, candidate), (candidate, partner), (partner, candidate), (partner, partner)):
        team = RoleTeam(agent(givers, 1), agent(x, 2), f"{givers} givers + {x} X")
        played = run_tournament(env, [team.name], games, seed=seed, agents={team.name: team})
        levels = np.array([g["scores"][0] for g in played.per_game])
        wins = sum(g["returns"][0] > 0 for g in played.per_game)
        results.append(TeamResult(givers, x, games, int(wins), float(levels.mean()), float(levels.std())))
    return results


def format_crossplay(rows: list[TeamResult]) -> str:
    base = rows[-1].mean_levels  # the partner's own team
    lines = [
        f"{'givers':<22} {'X':<22} {'games':>6} {'levels':>7} {'vs partner':>10} {'win rate':>9} {'95% interval':>16}"
    ]
    for r in rows:
        lo, hi = wilson_interval(r.wins, r.games)
        share = f"{r.mean_levels / base:.2f}" if base else "-"
        lines.append(
            f"{r.givers:<22} {r.x:<22} {r.games:>6} {r.mean_levels:>7.2f} {share:>10} {r.win_rate:>9.3f} "
            f"{f'[{lo:.3f}, {hi:.3f}]':>16}"
        )
    return "\n".join(lines)

"""Who sits where in one game of RLlib self-play, and how RLlib's agent ids say it.

A policy seat is played by an RLlib module: the learner, or one of the frozen snapshot slots. Its agent id
is `<module>@<seat>` (`learner@0`, `snapshot_3@1`), so the agent-to-module mapping reads the module from
the id and needs no state shared with the env. A fixed seat is played by one of our agents (a heuristic or
`random`) inside the env: heuristics read the seat's structured view (`State.view`), which never becomes
a tensor an RLModule could receive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tabletop.train.selfplay.config import SELF

LEARNER = "learner"
SNAPSHOT = "snapshot_{}"


def agent_id(module: str, seat: int) -> str:
    return f"{module}@{seat}"


def module_of(agent: str, episode=None, **kwargs) -> str:
    """RLlib's agent-to-module mapping: the module named in the agent id."""
    return agent.partition("@")[0]


def snapshot_modules(count: int) -> list[str]:
    return [SNAPSHOT.format(k) for k in range(count)]


def possible_agents(num_players: int, snapshots: int) -> list[str]:
    """Every agent id a game can use: the learner and each snapshot slot, in every seat."""
    modules = [LEARNER, *snapshot_modules(snapshots)]
    return [agent_id(m, seat) for m in modules for seat in range(num_players)]


@dataclass
class Seating:
    """One game's table: for each seat, an RLlib agent id (policy seats) or a fixed player's name."""

    agents: dict[int, str]  # seat -> agent id, for the seats RLlib plays
    fixed: dict[int, str]  # seat -> agent name (a heuristic or random), for the seats the env plays

    @property
    def opponents(self) -> list[str]:
        """What the learner faced, by kind: `self` for snapshots, else the agent names (sorted, unique)."""
        return sorted({SELF for a in self.agents.values() if module_of(a) != LEARNER} | set(self.fixed.values()))


def seat_table(
    num_players: int, learner_seat: int | None, weights: dict[str, float], snapshots: int, rng: np.random.Generator
) -> Seating:
    """The learner in `learner_seat` (None: every seat, the cooperative shared policy); every other seat
    draws an opponent by `weights` (`self`: a uniformly drawn snapshot slot)."""
    if learner_seat is None:
        return Seating({seat: agent_id(LEARNER, seat) for seat in range(num_players)}, {})
    names = list(weights)
    p = np.array([weights[n] for n in names], dtype=float)
    agents, fixed = {learner_seat: agent_id(LEARNER, learner_seat)}, {}
    for seat in range(num_players):
        if seat == learner_seat:
            continue
        name = names[rng.choice(len(names), p=p / p.sum())]
        if name == SELF:
            agents[seat] = agent_id(SNAPSHOT.format(int(rng.integers(snapshots))), seat)
        else:
            fixed[seat] = name
    return Seating(agents, fixed)

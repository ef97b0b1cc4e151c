"""What the benchmark families' tests share: the toy game Three Cards as a task, and a win rate against random."""

from __future__ import annotations

import sys
from pathlib import Path

from tabletop import envs
from tabletop.agents import RandomAgent
from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec
from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW, Task

sys.path.insert(0, str(Path(__file__).parents[1] / "envs" / "toy"))
from three_cards import DEFINITION  # noqa: E402  (a game that lives in the tests)

TOY = DEFINITION.env_id  # an EnvSpec of it exists only while it is registered


def register_toy():
    """Register Three Cards for a test module (a fixture yields it, then `envs.unregister`)."""
    envs.register(DEFINITION)
    return DEFINITION.env_id


def task(env: EnvSpec | None = None, opponents=None, learner_seats: str = "one", budget: int = 2000) -> Task:
    """A task on `env` (Three Cards when None) against `opponents` (random when None)."""
    return Task(
        "toy",
        env or EnvSpec(TOY),
        learner_seats,
        {"random": 1.0} if opponents is None else opponents,
        budget,
        budget,
        ("random",),
        10,
        TRAINING_SEEDS_BELOW,
    )


def win_rate(agent, env: EnvSpec | None = None, games: int = 400) -> float:
    """`agent`'s share of wins against random over `games` evaluation deals, seats alternating; an illegal
    action raises (the env's default)."""
    env, wins = env or EnvSpec(TOY), 0
    for g in range(games):
        aec, seat, other = env.make_raw(), g % 2, RandomAgent(g)
        aec.reset(seed=TRAINING_SEEDS_BELOW + g)
        while not aec.game_state.is_terminal():
            state = aec.game_state
            player = state.current_player
            aec.step(act_for(agent if player == seat else other, aec, state, player))
        wins += aec.game_state.returns()[seat] > 0
    return wins / games


class RandomLearner:
    """Plays at random and learns nothing: a learner with no cost, for the grid's bookkeeping."""

    def __init__(self, seed):
        self.steps, self.seed = 0, seed

    def train_until(self, steps):
        self.steps = max(self.steps, steps)

    def agent(self):
        return RandomAgent(self.seed)

    def save(self):
        pass

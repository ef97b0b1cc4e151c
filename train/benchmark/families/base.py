"""What an algorithm family offers the benchmark runner: a learner that trains in slices, plays, and saves.

The runner owns the schedule. It asks a learner to train up to the next evaluation step, evaluates
`learner.agent()` against the task's panel on seeds no training game uses, saves, and repeats; so every
family is evaluated, checkpointed and resumed the same way, and a family only has to learn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tabletop.agents import Agent
from tabletop.envs import EnvSpec

TRAINING_SEEDS_BELOW = 10_000_000
"""Every training game of every family is seeded below this; evaluation games are seeded at or above it."""


@dataclass(frozen=True)
class Task:
    """One benchmark task: a game configuration, who the learner plays against, and how it is judged."""

    name: str
    env: EnvSpec
    learner_seats: str
    """"one": the learner plays one seat (rotating) against `opponents`; "all": it plays every seat (cooperative)."""
    opponents: dict[str, float]
    """Training opponents and their weights: agent specs, and "self" for the learner's own snapshots."""
    budget: int
    """Learner steps (decisions the learner takes) per run."""
    eval_every: int
    panel: tuple[str, ...]
    """Agent specs the evaluation plays (or, when cooperative, the partners it is scored with)."""
    eval_games: int
    eval_seed: int
    """Seed of the first evaluation deal; at least TRAINING_SEEDS_BELOW."""
    one: str | None = None
    """The panel heuristic whose raw score is the normalised score's 1, named before any run (None: the strongest
    heuristic on the evaluation deals, measured)."""
    eval_mode: str = "greedy"
    """How every family's policy plays in evaluation: `greedy` (its most likely legal action) or `sample`."""
    final_eval_games: int | None = None
    """Deals per panel member at the last evaluation (None: `eval_games`)."""
    absolute_factor: int = 10
    """The best evaluation's policy is played again on this many times `eval_games` deals (0: never): marl-eval's
    absolute metric, ten times an evaluation's episodes."""
    exact: bool = False
    """The exact track: every evaluation also records the NashConv of the learner's policy (benchmark/exact.py)."""
    cfr_iterations: int = 1000
    """CFR+ iterations of an exact task's reference line."""

    @property
    def final_games(self) -> int:
        return self.final_eval_games or self.eval_games


class Learner(Protocol):
    """One run of one family on one task; made by `Family.start`, which resumes it from its folder."""

    steps: int
    """Learner steps trained so far."""

    def train_until(self, steps: int) -> None:
        """Train until `steps` learner steps in all (a no-op when already there)."""

    def agent(self) -> Agent:
        """The current policy as a player that only chooses legal actions, for the evaluation, playing in the
        task's `eval_mode` (greedy: its most likely legal action; sample: a draw from its policy)."""

    def save(self) -> None:
        """Write everything `Family.start` needs to continue from here into the run's folder, and the current
        policy as the plain policy file `policy.pt` there (what `tabletop train` ships and `ppo:PATH` plays)."""


class Family(Protocol):
    """An algorithm family, named by the suite's `algorithms:` key (e.g. `ppo`, `dqn`, `nfsp`)."""

    name: str
    description: str
    defaults: dict[str, Any]
    """Every hyperparameter the family reads, with its default; a suite file may override any of them."""

    def unsupported(self, task: Task) -> str | None:
        """Why this family cannot train `task` (e.g. a cooperative one), or None when it can."""

    # optional: `backend` ("sb3", "rllib"): `tabletop train` trains the family through that backend's own
    # pipeline and config (train/selfplay/config.py) instead of through `start`; `deterministic = False`

    def start(self, task: Task, params: dict[str, Any], seed: int, folder: Path) -> Learner:
        """A learner for `task` with `params` (defaults already merged), seeded by `seed`, saving into
        `folder`; when `folder` holds a save, the learner continues from it."""

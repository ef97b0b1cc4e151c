"""The `alphazero` family: Gumbel AlphaZero over determinized worlds, the network-guided search in the training
loop (train/selfplay/alphazero.py; docs/training.md, "Search in the loop"). One learner step is one decision of
the search; `agent()` plays the network alone, its most likely legal move."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tabletop.agents.search import parse_search
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.families.hyperparameters import ALPHAZERO as DEFAULTS
from tabletop.train.benchmark.families.qlearning import check_params, export_policy, read_state, write_state
from tabletop.train.selfplay.alphazero import AlphaZeroLearner

SAVE = "learner.pt"


class AlphaZeroRun(AlphaZeroLearner):
    """A learner that saves into, and resumes from, its run folder."""

    def __init__(self, task: Task, params: dict[str, Any], seed: int, folder: Path):
        super().__init__(task.env, task.learner_seats, task.opponents, params, seed)
        self.folder = Path(folder)
        saved = read_state(self.folder, SAVE, self.family, params)
        if saved is not None:
            self.load(saved)

    def save(self) -> None:
        write_state(self.folder, SAVE, self.state())
        export_policy(self.folder, self.net, self.env, self.family)
        self.write_progress(self.folder)


class AlphaZeroFamily:
    """The `alphazero` algorithm family (module docstring)."""

    name = "alphazero"
    description = "Gumbel AlphaZero over sampled worlds: the network guides the search, the search's policy trains it"
    defaults = DEFAULTS

    def unsupported(self, task: Task) -> str | None:
        return None

    def start(self, task: Task, params: dict[str, Any], seed: int, folder: Path) -> AlphaZeroRun:
        params = check_params(self.name, params, self.defaults)
        parse_search(f"search:policy=learner,{params['search']}".rstrip(","))  # a bad key fails before any game
        return AlphaZeroRun(task, params, seed, Path(folder))


FAMILY = AlphaZeroFamily()

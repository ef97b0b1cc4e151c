"""The agent protocol: what every player (random, heuristic, trained, ONNX, human) offers."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses one legal action.

    `observation` and `action_mask` are what a learner gets from the env; `view` is the structured
    picture of the same knowledge (`State.view(seat)`). Heuristics read `view`; policies read the
    vectors. Neither ever sees more than the seat may know.
    """

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int: ...


class RandomAgent:
    """Uniform over legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action to choose from (all-zero action mask)")
        return int(legal[self.rng.integers(legal.size)])

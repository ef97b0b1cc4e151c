"""The exact track: NashConv of the learner's current policy at every evaluation, through the games' OpenSpiel
face (`tabletop.envs.openspiel`), and CFR+ on the same game as the reference line.

A task with `exact: true` names a configuration small enough for OpenSpiel's exact tools to walk its whole tree
(a small variant). The tree is walked once per process (`GameTree`). At each evaluation the learner's policy is
the masked softmax of its network's logits over each information state's observation tensor, the same vector the
PettingZoo env gives, and the record holds its NashConv, as OpenSpiel's `exploitability.nash_conv` defines it: the
sum over players of what a best response gains against it, 0 at a Nash equilibrium. NashConv measures the policy
itself, its distribution over legal actions, whatever the suite's `eval_mode`; so a family whose network is no
policy (`dqn`'s Q-values) cannot play an exact task. Once per task CFR+ runs `cfr_iterations` iterations and its
average policy's NashConv is recorded at log-spaced iterations (`OUT/<task>/cfr_plus.json`): the curve a tabular
solver reaches on the same game.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop.agents import Agent
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.game_tree import GameTree

CFR_FILE = "cfr_plus.json"


def openspiel_game(task: Task):
    """The task's game as an OpenSpiel game (the env's parameters, OpenSpiel's spelling)."""
    return _load(task.env.env_id, json.dumps(task.env.kwargs, sort_keys=True))


def game_tree(task: Task) -> GameTree:
    """The task's whole game tree, walked once per process: a run evaluates one task many times."""
    return _tree(task.env.env_id, json.dumps(task.env.kwargs, sort_keys=True))


def _load(env_id: str, kwargs: str):
    from tabletop.agents.extras import require

    require("the exact track", "pyspiel")
    from tabletop.envs.openspiel import load, register
    from tabletop.envs.openspiel.game import openspiel_params

    return load(register(env_id), openspiel_params(env_id, json.loads(kwargs)))


@functools.lru_cache(maxsize=1)
def _tree(env_id: str, kwargs: str) -> GameTree:
    return GameTree(_load(env_id, kwargs))


def network_logits(network) -> Callable[[np.ndarray], np.ndarray]:
    """A policy network's logits (its actor path and action head) as a function of a batch of observations."""
    import torch

    from tabletop.agents.policy_agent import actor_logits

    def logits_of(observations: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return actor_logits(network, torch.from_numpy(observations)).double().numpy()

    return logits_of


def nash_conv(task: Task, agent: Agent) -> float:
    """The exact NashConv of `agent`'s policy network on the task's game: the masked softmax of its logits over each
    information state's observation tensor, the vector the PettingZoo env gives."""
    network = getattr(agent, "policy", None)
    if network is None:
        raise ValueError(f"task {task.name} is exact: its learner must play a policy network (PolicyAgent)")
    tree = game_tree(task)
    return tree.nash_conv(tree.probabilities(network_logits(network)))


def cfr_plus(task: Task, iterations: int, points: int = 12) -> dict[str, Any]:
    """CFR+ on the task's game (`cfr_plus_curve`)."""
    return cfr_plus_curve(openspiel_game(task), iterations, points)


def cfr_plus_curve(game, iterations: int, points: int = 12) -> dict[str, Any]:
    """CFR+'s average policy on `game`: its NashConv at `points` log-spaced iterations up to `iterations`."""
    from open_spiel.python.algorithms import cfr, exploitability

    solver = cfr.CFRPlusSolver(game)
    marks = sorted({int(round(x)) for x in np.geomspace(1, iterations, points)})
    curve = []
    for iteration in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if iteration in marks:
            policy = solver.average_policy()
            curve.append({"iteration": iteration, "nash_conv": float(exploitability.nash_conv(game, policy))})
    return {"iterations": iterations, "curve": curve}

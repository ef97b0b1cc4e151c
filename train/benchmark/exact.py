"""The exact track: NashConv of the learner's current policy at every evaluation, through the games' OpenSpiel
face (`tabletop.envs.openspiel`), and CFR+ on the same game as the reference line.

A task with `exact: true` names a configuration small enough for OpenSpiel's exact tools to walk its whole tree
(a small variant). At each evaluation the runner turns the learner's policy network into an OpenSpiel policy
(`network_policy`: the masked softmax of its logits over the state's observation tensor, the same vector the
PettingZoo env gives) and records `exploitability.nash_conv` of it: the sum over players of what a best response
gains against it, 0 at a Nash equilibrium. NashConv measures the policy itself, its distribution over legal
actions, whatever the suite's `eval_mode`; so a family whose network is no policy (`dqn`'s Q-values) cannot play
an exact task. Once per task CFR+ runs `cfr_iterations` iterations and its average policy's NashConv is recorded at
log-spaced iterations (`OUT/<task>/cfr_plus.json`): the curve a tabular solver reaches on the same game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.agents import Agent
from tabletop.train.benchmark.families.base import Task

CFR_FILE = "cfr_plus.json"


def openspiel_game(task: Task):
    """The task's game as an OpenSpiel game (the env's parameters, OpenSpiel's spelling)."""
    from tabletop.agents.extras import require

    require("the exact track", "pyspiel")
    from tabletop.envs.openspiel import load, register
    from tabletop.envs.openspiel.game import openspiel_params

    return load(register(task.env.env_id), openspiel_params(task.env.env_id, task.env.kwargs))


def network_policy(game, network):
    """A policy network (logits over the game's actions) as an OpenSpiel `policy.Policy` of `game`."""
    import torch
    from open_spiel.python import policy as policies

    from tabletop.agents.policy_agent import actor_logits

    class NetworkPolicy(policies.Policy):
        """The masked softmax of `network`'s logits at each decision, read from the state's observation tensor.

        A seat's observation is a function of its information state, so each information state's probabilities
        are computed once: a NashConv asks for every history, each information state many times over."""

        def __init__(self):
            super().__init__(game, list(range(game.num_players())))
            self.known: dict[tuple[int, str], dict[int, float]] = {}

        def action_probabilities(self, state, player_id=None):
            player = state.current_player() if player_id is None else player_id
            key = (player, state.information_state_string(player))
            found = self.known.get(key)
            if found is None:
                legal = state.legal_actions(player)
                observation = torch.tensor([state.observation_tensor(player)], dtype=torch.float32)
                with torch.no_grad():
                    logits = actor_logits(network, observation)[0].double().numpy()[legal]
                probabilities = np.exp(logits - logits.max())
                probabilities /= probabilities.sum()
                found = self.known[key] = dict(zip(legal, probabilities.tolist()))
            return found

    return NetworkPolicy()


def nash_conv(task: Task, agent: Agent) -> float:
    """The exact NashConv of `agent`'s policy network on the task's game."""
    from open_spiel.python.algorithms import exploitability

    network = getattr(agent, "policy", None)
    if network is None:
        raise ValueError(f"task {task.name} is exact: its learner must play a policy network (PolicyAgent)")
    game = openspiel_game(task)
    return float(exploitability.nash_conv(game, network_policy(game, network)))


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

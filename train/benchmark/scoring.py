"""What an evaluation measures: a player's raw score against a task's panel, and the panel's own reference.

Competitive task: the player holds one seat (rotating) and one panel member every other seat; its result
against that member is (wins + draws / 2) / games, and its raw score the mean over the panel. Cooperative
task (`learner_seats: all`): the player holds every seat and its raw score is the team's mean levels passed.
Every evaluation plays the same games (seeds `eval_seed`, `eval_seed + 1`, ..., all at or above
TRAINING_SEEDS_BELOW), so points on a curve and runs of different algorithms meet the same deals.

The normalised score maps the raw score so that 0 is the random player's raw score and 1 the strongest
heuristic's on the same games (the reference, measured once per task): scores aggregate across tasks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.agents import Agent, agent_names, make_agent
from tabletop.envs import EnvSpec
from tabletop.train.benchmark.families.base import Task
from tabletop.train.evaluation.evaluate import LEARNER, evaluate
from tabletop.train.evaluation.tournament import play_game, run_tournament


def play_panel(agent: Agent, task: Task) -> dict[str, Any]:
    """`agent`'s evaluation on `task`: its raw score and the results it comes from (plain numbers, JSON)."""
    if task.learner_seats == "all":
        result = run_tournament(task.env, [LEARNER], task.eval_games, seed=task.eval_seed, agents={LEARNER: agent})
        levels = [g["scores"][0] for g in result.per_game]
        wins = sum(g["returns"][0] > 0 for g in result.per_game)
        return {"raw": sum(levels) / len(levels), "team": {"games": len(levels), "wins": int(wins)}}
    rows = evaluate(
        agent, task.env, task.eval_games, seed=task.eval_seed, learner_seats="one", opponents=list(task.panel)
    )
    against = {
        r.opponent: {"games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses, "score": _score(r)}
        for r in rows
    }
    return {"raw": sum(a["score"] for a in against.values()) / len(against), "panel": against}


def _score(row) -> float:
    return (row.wins + row.draws / 2) / row.games


def reference(task: Task) -> dict[str, Any]:
    """Every panel member's own raw score on the task's evaluation games, and the normalisation's 0 and 1:
    `zero` random's, `one` the strongest heuristic's (`one_agent` names it)."""
    raws = {}
    for i, spec in enumerate(task.panel):
        player = make_agent(task.env, spec, seed=task.eval_seed + i)
        raws[spec] = play_panel(player, task)["raw"]
    heuristics = [spec for spec in task.panel if spec in agent_names(task.env.env_id)[1:]]
    best = max(heuristics, key=lambda spec: raws[spec])
    return {"raw": raws, "zero": raws["random"], "one": raws[best], "one_agent": best}


def normalised(raw: float, ref: dict[str, Any]) -> float:
    """0 at random's raw score, 1 at the strongest heuristic's (above 1: stronger than every heuristic)."""
    span = ref["one"] - ref["zero"]
    if span <= 0:
        raise ValueError(
            f"the strongest heuristic ({ref['one_agent']}, {ref['one']:.3f}) does not beat random ({ref['zero']:.3f}) "
            "on this task's evaluation games: the score cannot be normalised (more eval_games, or another panel)"
        )
    return (raw - ref["zero"]) / span


def paired_deals(agent: Agent, others: Agent, env: EnvSpec, deals: int, seed: int) -> np.ndarray:
    """Deal d (seed `seed + d`) played once from every seat: `agent` in that seat, `others` in every other one
    (the same shuffles, seats rotated). Per deal, `agent`'s mean result over its seats (win 1, draw 1/2, loss 0):
    the unit that intervals are taken over, so the luck of a deal counts once."""
    table = env.make_raw(illegal_action="raise")
    seats = table.game.num_players
    scores = np.zeros(deals)
    for d in range(deals):
        for seat in range(seats):
            players = [others] * seats
            players[seat] = agent
            returns, _, _ = play_game(table, players, seed + d)
            scores[d] += 1.0 if returns[seat] > 0 else 0.5 if returns[seat] == 0 else 0.0
    return scores / seats

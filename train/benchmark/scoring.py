"""What an evaluation measures: a player's raw score against a task's panel, and the panel's own reference.

Competitive task: paired deals. Deal d (seed `eval_seed + d`, at or above TRAINING_SEEDS_BELOW) is played once
from every seat: the player in that seat, one panel member in every other one, the same shuffles with the seats
rotated. A deal's result is the player's mean over its seats (win 1, draw 1/2, loss 0), its result against a
member the mean over deals, its raw score the mean over the panel. The unit of noise is the deal: `se` is the
standard error over deals of the per-deal mean over the panel, so the luck of a deal counts once.

Cooperative task (`learner_seats: all`): the player holds every seat; its raw score is the team's mean levels
passed over the deals, `se` their standard error.

Every evaluation plays the same deals, so points on a curve and runs of different algorithms meet the same
luck. The normalised score maps the raw score so that 0 is random's raw score and 1 the raw score of the
heuristic the task names (`one`, chosen before any run; the strongest one measured when a task names none).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.agents import Agent, agent_names, make_agent
from tabletop.envs import EnvSpec
from tabletop.train.benchmark.families.base import Task
from tabletop.train.evaluation.evaluate import LEARNER
from tabletop.train.evaluation.tournament import play_game, run_tournament


def play_panel(agent: Agent, task: Task, deals: int | None = None) -> dict[str, Any]:
    """`agent`'s evaluation on `task` over `deals` deals (the task's `eval_games` by default): its raw score, the
    standard error over deals, and the results they come from (plain numbers, JSON)."""
    deals = deals or task.eval_games
    if task.learner_seats == "all":
        result = run_tournament(task.env, [LEARNER], deals, seed=task.eval_seed, agents={LEARNER: agent})
        levels = np.array([g["scores"][0] for g in result.per_game], dtype=float)
        wins = sum(g["returns"][0] > 0 for g in result.per_game)
        return {"raw": float(levels.mean()), "se": _se(levels), "team": {"games": deals, "wins": int(wins)}}
    per_deal, against = [], {}
    for i, spec in enumerate(task.panel):
        member = make_agent(task.env, spec, seed=task.eval_seed + i)
        scores = paired_deals(agent, member, task.env, deals, task.eval_seed)
        per_deal.append(scores)
        against[spec] = {"deals": deals, "score": float(scores.mean()), "se": _se(scores)}
    panel_mean = np.mean(per_deal, axis=0)
    return {"raw": float(panel_mean.mean()), "se": _se(panel_mean), "panel": against}


def paired_deals(agent: Agent, others: Agent, env: EnvSpec, deals: int, seed: int) -> np.ndarray:
    """Deal d (seed `seed + d`) played once from every seat: `agent` in that seat, `others` in every other one
    (the same shuffles, seats rotated). Per deal, `agent`'s mean result over its seats (win 1, draw 1/2, loss 0)."""
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


def _se(values: np.ndarray) -> float:
    """The standard error of the mean of `values` (0 for a single value)."""
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def reference(task: Task) -> dict[str, Any]:
    """Every panel member's own raw score on the task's final-evaluation deals and the normalisation's 0 and 1:
    `zero` random's, `one` that of the heuristic the task names (`one_agent`; the strongest one when it names
    none), with the standard errors `zero_se` and `one_se` of the two."""
    raws, errors = {}, {}
    for i, spec in enumerate(task.panel):
        player = make_agent(task.env, spec, seed=task.eval_seed + i)
        measured = play_panel(player, task, task.final_games)
        raws[spec], errors[spec] = measured["raw"], measured["se"]
    heuristics = [spec for spec in task.panel if spec in agent_names(task.env.env_id)[1:]]
    best = task.one or max(heuristics, key=lambda spec: raws[spec])
    return {
        "raw": raws,
        "se": errors,
        "zero": raws["random"],
        "zero_se": errors["random"],
        "one": raws[best],
        "one_se": errors[best],
        "one_agent": best,
        "deals": task.final_games,
    }


def normalised(raw: float, ref: dict[str, Any]) -> float:
    """0 at random's raw score, 1 at the named heuristic's (above 1: stronger than it)."""
    span = ref["one"] - ref["zero"]
    if span <= 0:
        raise ValueError(
            f"the scale's 1 ({ref['one_agent']}, {ref['one']:.3f}) does not beat random ({ref['zero']:.3f}) "
            "on this task's evaluation deals: the score cannot be normalised (more deals, or another heuristic)"
        )
    return (raw - ref["zero"]) / span

"""Training games' results, counted on the samplers and summed per iteration by RLlib's metrics.

RLlib's own `agent_episode_returns_mean` often reads 0.0 in turn-based games (an agent's return is
reported only for the chunk sampled in the iteration), so every finished game reports the learner's result
from the env's final info instead: per opponent kind, games and wins (`self` for snapshots).
"""

from __future__ import annotations

import math

from ray.rllib.callbacks.callbacks import RLlibCallback

from tabletop.train.rllib.table import LEARNER, module_of

KEY = "tabletop"


class GameResults(RLlibCallback):
    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        learners = sorted(a for a in episode.agent_ids if module_of(a) == LEARNER)
        if not learners or metrics_logger is None:
            return
        info = episode.agent_episodes[learners[0]].get_infos(-1)  # the env's final info (env._result)
        if not info or "outcome" not in info:
            return
        outcome = info["outcome"]
        metrics_logger.log_value((KEY, "games", "all"), 1, reduce="sum")
        metrics_logger.log_value((KEY, "outcome_sum", "all"), outcome, reduce="sum")
        for kind in info["opponents"]:
            metrics_logger.log_value((KEY, "games", kind), 1, reduce="sum")
            metrics_logger.log_value((KEY, "wins", kind), float(outcome > 0), reduce="sum")


def summarize(env_runner_results: dict) -> dict[str, float]:
    """Per iteration: games finished, the learner's mean result (+1 win, -1 loss) and win rate per opponent kind."""
    found = env_runner_results.get(KEY, {})
    games = found.get("games", {})
    row = {"games": number(games.get("all"))}
    if row["games"]:
        row["mean_outcome"] = number(found.get("outcome_sum", {}).get("all")) / row["games"]
    for kind, count in games.items():
        if kind != "all" and number(count) > 0:
            row[f"win_rate_vs_{kind}"] = number(found.get("wins", {}).get(kind)) / number(count)
    return row


def number(value) -> float:
    """A summed metric as a float: RLlib reports NaN for a key met in earlier iterations only (and, with
    asynchronous samplers such as APPO's, for `all` in an iteration where no game ended)."""
    value = float(value) if value is not None else 0.0
    return 0.0 if math.isnan(value) else value

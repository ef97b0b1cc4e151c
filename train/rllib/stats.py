"""Training games' results, counted on the samplers and summed per iteration by RLlib's metrics.

RLlib's own `agent_episode_returns_mean` often reads 0.0 in turn-based games (an agent's return is
reported only for the chunk sampled in the iteration), so every finished game reports the learner's result
from the env's final info instead: per opponent kind, games and wins (`self` for snapshots).
"""

from __future__ import annotations

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
    row = {"games": float(games.get("all", 0.0))}
    if row["games"]:
        row["mean_outcome"] = float(found["outcome_sum"]["all"]) / row["games"]
    for kind, count in games.items():
        if kind != "all" and count > 0:  # a kind met in earlier iterations only reads NaN
            row[f"win_rate_vs_{kind}"] = float(found.get("wins", {}).get(kind, 0.0)) / float(count)
    return row

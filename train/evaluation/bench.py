"""Random-play throughput of our environments against a PettingZoo classic env in the same run.

Both sides run the same loop through the public AEC API (`last`, `action_space(agent).sample(mask)`,
`step`), so the ratio compares environments, not harnesses; and they take turns over a few rounds, so
a machine whose load changes during the run slows both alike.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass

from tabletop.envs import EnvSpec

PETTINGZOO_CLASSIC = {
    "connect_four_v3": "pettingzoo.classic.connect_four_v3",
    "go_v5": "pettingzoo.classic.go_v5",
    "tictactoe_v3": "pettingzoo.classic.tictactoe_v3",
    "texas_holdem_v4": "pettingzoo.classic.texas_holdem_v4",
}


@dataclass
class Throughput:
    name: str
    games: int
    steps: int
    seconds: float

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def random_play(env, games: int, seed: int = 0, name: str = "") -> Throughput:
    """Play `games` uniformly random games through the AEC API and time them."""
    steps = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agents:
            env.action_space(agent).seed(seed + g)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = env.action_space(agent).sample(obs["action_mask"])
            env.step(action)
            steps += action is not None
    return Throughput(name, games, steps, time.perf_counter() - start)


def baseline_env(name: str, **kwargs):
    if name not in PETTINGZOO_CLASSIC:
        raise ValueError(f"unknown baseline {name!r}; allowed: {', '.join(PETTINGZOO_CLASSIC)}")
    return importlib.import_module(PETTINGZOO_CLASSIC[name]).env(**kwargs)


def compare(env: EnvSpec, baseline: str, games: int, baseline_games: int, seed: int = 0, rounds: int = 10) -> str:
    """Measure ours and the baseline in the same process, taking turns `rounds` times (each round plays
    its share of the games); return a report with the ratios."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    sides = [
        (env.make(), games, Throughput(f"{env.env_id} {env.kwargs or ''}".strip(), 0, 0, 0.0)),
        (baseline_env(baseline), baseline_games, Throughput(baseline, 0, 0, 0.0)),
    ]
    for r in range(rounds):
        for aec, count, total in sides:
            start, stop = count * r // rounds, count * (r + 1) // rounds
            part = random_play(aec, stop - start, seed + start)
            total.games += part.games
            total.steps += part.steps
            total.seconds += part.seconds
    ours, theirs = (total for _, _, total in sides)
    rows = [f"{'env':<44} {'games':>6} {'steps':>8} {'steps/s':>10} {'games/s':>9}"]
    for t in (ours, theirs):
        rows.append(f"{t.name:<44} {t.games:>6} {t.steps:>8} {t.steps_per_second:>10.0f} {t.games_per_second:>9.2f}")
    rows.append(
        f"ratio (ours / {baseline}): steps/s {ours.steps_per_second / theirs.steps_per_second:.2f}x, "
        f"games/s {ours.games_per_second / theirs.games_per_second:.2f}x ({rounds} rounds, taking turns)"
    )
    return "\n".join(rows)

"""Cromlet as a PettingZoo AEC environment (docs/cromlet.md has rules, layouts and rewards)."""

from __future__ import annotations

from tabletop.envs.core import TabletopEnv, wrap
from tabletop.envs.cromlet import CromletGame


def raw_env(
    num_players: int = 2,
    teams: int | None = None,
    claim_limit: int | None = None,
    hand_size: int = 7,
    reward: str = "win_loss",
    observation_mode: str = "private",
    render_mode: str | None = None,
    illegal_action: str = "raise",
) -> TabletopEnv:
    game = CromletGame(num_players=num_players, teams=teams, claim_limit=claim_limit, hand_size=hand_size)
    return TabletopEnv(
        game, reward=reward, observation_mode=observation_mode, render_mode=render_mode, illegal_action=illegal_action
    )


def env(**kwargs):
    return wrap(raw_env(**kwargs))

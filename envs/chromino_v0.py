"""Chromino as a PettingZoo AEC environment (docs/chromino.md has rules, layouts and rewards)."""

from __future__ import annotations

from tabletop.envs.chromino import DEFAULT_GRID_SIZE, ChrominoGame
from tabletop.envs.core import TabletopEnv, wrap


def raw_env(
    num_players: int = 2,
    variant: str = "standard",
    grid_size: int = DEFAULT_GRID_SIZE,
    hand_size: int = 8,
    out_bonus: int = 10,
    tile_penalty: int = 10,
    reward: str = "win_loss",
    observation_mode: str = "private",
    render_mode: str | None = None,
    illegal_action: str = "raise",
) -> TabletopEnv:
    game = ChrominoGame(
        num_players=num_players,
        variant=variant,
        grid_size=grid_size,
        hand_size=hand_size,
        out_bonus=out_bonus,
        tile_penalty=tile_penalty,
    )
    return TabletopEnv(
        game, reward=reward, observation_mode=observation_mode, render_mode=render_mode, illegal_action=illegal_action
    )


def env(**kwargs):
    return wrap(raw_env(**kwargs))

"""Kings Cribbage as a PettingZoo AEC environment (docs/kings_cribbage.md has rules, layouts and rewards)."""

from __future__ import annotations

from tabletop.envs.core import TabletopEnv, wrap
from tabletop.envs.kings_cribbage import KingsCribbageGame


def raw_env(
    num_players: int = 2,
    board_size: int = 13,
    variant: str = "standard",
    stall_rounds: int = 3,
    reward: str = "win_loss",
    observation_mode: str = "private",
    render_mode: str | None = None,
    illegal_action: str = "raise",
) -> TabletopEnv:
    game = KingsCribbageGame(num_players=num_players, board_size=board_size, variant=variant, stall_rounds=stall_rounds)
    return TabletopEnv(
        game, reward=reward, observation_mode=observation_mode, render_mode=render_mode, illegal_action=illegal_action
    )


def env(**kwargs):
    return wrap(raw_env(**kwargs))

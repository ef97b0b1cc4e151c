"""KRZ GRTN as a PettingZoo AEC environment (cooperative: one shared team reward).

`reward="win_loss"` pays +1 to every seat on a win and -1 on a loss; `reward="score"` pays +1 to every
seat for each level passed.
"""

from __future__ import annotations

from tabletop.envs.core import TabletopEnv, wrap
from tabletop.envs.krz_grtn import KrzGrtn


def raw_env(
    num_players: int = 4,
    blanks_per_player: int = 2,
    levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6),
    lives: int = 5,
    start_letters: int = 5,
    tile_limit: int = 8,
    life_letters: int = 2,
    level_candidates: tuple[int, ...] = (3, 4, 5, 6, 7, 8),
    level_draws: tuple[int, ...] = (3, 3, 2, 2, 1, 0),
    reward: str = "win_loss",
    observation_mode: str = "private",
    render_mode: str | None = None,
    illegal_action: str = "raise",
) -> TabletopEnv:
    game = KrzGrtn(
        num_players=num_players,
        blanks_per_player=blanks_per_player,
        levels=tuple(levels),
        lives=lives,
        start_letters=start_letters,
        tile_limit=tile_limit,
        life_letters=life_letters,
        level_candidates=tuple(level_candidates),
        level_draws=tuple(level_draws),
    )
    return TabletopEnv(
        game, reward=reward, observation_mode=observation_mode, render_mode=render_mode, illegal_action=illegal_action
    )


def env(**kwargs):
    return wrap(raw_env(**kwargs))

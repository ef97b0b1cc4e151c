"""What every game shares: the protocols, the AEC adapter, encoding and rendering helpers."""

from tabletop.envs.core.aec import TabletopEnv, check_choice, wrap
from tabletop.envs.core.encoding import Layout
from tabletop.envs.core.errors import IllegalActionError
from tabletop.envs.core.outcomes import win_loss_returns, winners_returns
from tabletop.envs.core.protocol import Game, State

__all__ = [
    "Game",
    "IllegalActionError",
    "Layout",
    "State",
    "TabletopEnv",
    "check_choice",
    "win_loss_returns",
    "winners_returns",
    "wrap",
]

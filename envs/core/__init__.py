"""What every game shares: the protocols, the AEC adapter, encoding and rendering helpers."""

from envs.core.aec import TabletopEnv, check_choice, wrap
from envs.core.encoding import Layout
from envs.core.errors import IllegalActionError
from envs.core.outcomes import win_loss_returns, winners_returns
from envs.core.protocol import Game, State

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

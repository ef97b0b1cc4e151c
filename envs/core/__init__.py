"""What every game shares: the layer protocols, the states' base, parameter declarations, the AEC adapter, helpers."""

from tabletop.envs.core.actions import ActionBlock, ActionLayout
from tabletop.envs.core.aec import ADAPTER_PARAMETERS, TabletopEnv
from tabletop.envs.core.definition import GameDefinition, entry_points
from tabletop.envs.core.encoding import Layout
from tabletop.envs.core.errors import IllegalActionError, IllegalActionWarning, InvalidStateError
from tabletop.envs.core.outcomes import win_loss_returns, winners_returns
from tabletop.envs.core.params import Param, ParameterError, Parameters, int_in, is_int
from tabletop.envs.core.protocol import Game, Observer, Renderer, State
from tabletop.envs.core.state import BaseState

__all__ = [
    "ADAPTER_PARAMETERS",
    "ActionBlock",
    "ActionLayout",
    "BaseState",
    "Game",
    "GameDefinition",
    "IllegalActionError",
    "IllegalActionWarning",
    "InvalidStateError",
    "Layout",
    "Observer",
    "Param",
    "ParameterError",
    "Parameters",
    "Renderer",
    "State",
    "TabletopEnv",
    "entry_points",
    "int_in",
    "is_int",
    "win_loss_returns",
    "winners_returns",
]

"""tabletop-rl's games as PettingZoo AEC environments: the registry (`ENV_IDS`, `make`, `EnvSpec`,
`register` for a game of your own)."""

from __future__ import annotations

from tabletop.envs.core import IllegalActionError, IllegalActionWarning, InvalidStateError, ParameterError
from tabletop.envs.registry import ENV_IDS, RETIRED_IDS, EnvSpec, definition, make, make_raw, register, unregister

__all__ = [
    "ENV_IDS",
    "RETIRED_IDS",
    "EnvSpec",
    "IllegalActionError",
    "IllegalActionWarning",
    "InvalidStateError",
    "ParameterError",
    "definition",
    "make",
    "make_raw",
    "register",
    "unregister",
]

"""Retired: `chromino_v1` with `features=["lookahead"]` by default, the observation `chromino_v0` always had.

Kept so that run folders, configs and exported policies that name `chromino_v0` mean what they meant.
"""

from dataclasses import replace

from tabletop.envs.chromino_v1 import DEFINITION as CURRENT
from tabletop.envs.core import entry_points

DEFINITION = replace(CURRENT, env_id="chromino_v0", defaults={"features": ("lookahead",)}, successor=CURRENT.env_id)
raw_env, env = entry_points(DEFINITION)

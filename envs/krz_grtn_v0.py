"""Retired: `krz_grtn_v1` with `features=["roles"]` by default, the observation `krz_grtn_v0` always had.

Kept so that run folders, configs and exported policies that name `krz_grtn_v0` mean what they meant.
"""

from dataclasses import replace

from tabletop.envs.core import entry_points
from tabletop.envs.krz_grtn_v1 import DEFINITION as CURRENT

DEFINITION = replace(CURRENT, env_id="krz_grtn_v0", defaults={"features": ("roles",)}, successor=CURRENT.env_id)
raw_env, env = entry_points(DEFINITION)

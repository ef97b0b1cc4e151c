"""The registry of tabletop-rl environments: `ENV_IDS` and `make(env_id, **kwargs)`."""

from __future__ import annotations

import importlib

from tabletop.envs.core import IllegalActionError

ENV_IDS = ("cromlet_v0", "chromino_v0", "kings_cribbage_v0", "krz_grtn_v0")


def env_module(env_id: str):
    """The versioned entry module (`envs.<env_id>`) of a registered environment."""
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown env_id {env_id!r}; registered: {', '.join(ENV_IDS)}")
    return importlib.import_module(f"tabletop.envs.{env_id}")


def make(env_id: str, **kwargs):
    """Build a wrapped AEC environment, as `envs.<env_id>.env(**kwargs)` would."""
    return env_module(env_id).env(**kwargs)


def make_raw(env_id: str, **kwargs):
    """The unwrapped `TabletopEnv` (no order-enforcing wrapper), for speed-critical loops."""
    return env_module(env_id).raw_env(**kwargs)


__all__ = ["ENV_IDS", "IllegalActionError", "env_module", "make", "make_raw"]

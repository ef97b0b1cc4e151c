"""The plain policy file (`policy.pt`): what every backend writes beside its own checkpoint, and what players,
export and self-play opponents read, with torch alone.

It is one `torch.save`d dict of plain data and tensors, read back with `torch.load(weights_only=True)`, so
loading it never runs code from the file:

    format          "tabletop-policy/1"
    network         the `network_spec`: kind, sizes, observation and action counts, the observation structure
    env_id, env_kwargs, observer_options   the game it was trained on and the observer options it reads
    backend         who trained it (sb3, rllib)
    weights         the network's tensors, under `ActorCritic`'s names
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from tabletop.agents.networks import POLICY_FILE
from tabletop.agents.networks.actor_critic import ActorCritic
from tabletop.envs import EnvSpec

FORMAT = "tabletop-policy/1"
FIELDS = ("network", "env_id", "env_kwargs", "observer_options", "backend", "weights")


@dataclass
class SavedPolicy:
    """A policy file's contents (or an SB3 model's or RLlib actor file's, converted): `build()` gives the network, ready to act."""

    network: dict[str, Any]
    env: EnvSpec
    observer_options: dict[str, Any]
    backend: str
    weights: dict[str, torch.Tensor]
    source: str

    def build(self) -> ActorCritic:
        try:
            policy = ActorCritic(self.network)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise ValueError(f"{self.source}: its network description cannot be built ({err!r})") from None
        return policy.load_weights(self.weights, self.source)

    def to_file(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "network": self.network,
            "env_id": self.env.env_id,
            "env_kwargs": dict(self.env.kwargs),
            "observer_options": self.observer_options,
            "backend": self.backend,
            "weights": {k: v.detach().to("cpu", copy=True) for k, v in self.weights.items()},
        }


def saved_policy(network: dict, weights: dict, env: EnvSpec, backend: str, source: str = "") -> SavedPolicy:
    """A policy of the game `env` as a file would hold it (the observer options are the env's own)."""
    return SavedPolicy(network, env, env.definition.observer_options(env.kwargs), backend, weights, source)


def write_policy(path: Path, policy: SavedPolicy) -> Path:
    """Write `policy` to `path` through a temporary file renamed into place: a kill leaves the old file or the new."""
    path = Path(path)
    temp = path.with_name(f".writing-{path.name}")
    torch.save(policy.to_file(), temp)
    os.replace(temp, path)
    return path


def load_plain(path: Path, name: str | None = None) -> Any:
    """`torch.load(weights_only=True)` of `path`: tensors and plain data only; a ValueError names the file it
    cannot read (as `name`, when the caller names the folder already)."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # a truncated, foreign or pickled-code file fails in many ways; each means "not one"
        raise ValueError(f"{name or path} cannot be read ({type(err).__name__}: {err})") from None


def read_policy(path: Path) -> SavedPolicy:
    """The policy file at `path`, checked to be one; a ValueError names the file and what is wrong."""
    return policy_from(load_plain(path), Path(path))


def policy_from(saved: Any, path: Path) -> SavedPolicy:
    """A policy file's loaded contents, checked; a ValueError names `path` and what is wrong."""
    if not isinstance(saved, dict) or saved.get("format") != FORMAT:
        raise ValueError(f"{path} is not a policy file ({FORMAT}): `tabletop train` writes them as {POLICY_FILE}")
    absent = [name for name in FIELDS if name not in saved]
    if absent:
        raise ValueError(f"{path}: the policy file has no {absent[0]}")
    if not isinstance(saved["weights"], dict) or not isinstance(saved["network"], dict):
        raise ValueError(f"{path}: the policy file's network and weights must be mappings")
    env = EnvSpec(saved["env_id"], dict(saved["env_kwargs"]))
    return SavedPolicy(
        saved["network"], env, dict(saved["observer_options"]), saved["backend"], saved["weights"], str(path)
    )

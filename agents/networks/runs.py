"""Run folders as players and export read them, for every backend, with or without plain policy files.

A run folder (`tabletop train`) holds `config.yaml`, `final/` and `checkpoints/step_N/`; each of the last two
holds `policy.pt` (the plain policy file) beside the backend's own checkpoint. `load_saved` takes a run folder
(its final policy, else its newest checkpoint's), a checkpoint folder or a file, and reads what it finds:

- a policy file, `policy.pt` (saved.py);
- an RLlib actor file, `policy.pt` in that backend's own format (architecture and actor weights, no game): the
  run's config names the game;
- SB3's own `model.zip`, where no policy file lies beside it: only its `policy.pth` member is read (tensors,
  `weights_only=True`; the pickled classes beside it are never loaded); the network comes from the run's
  config.yaml, or for a bare zip of an MLP from the tensors' shapes and the activation SB3 recorded.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import torch

from tabletop.agents.networks import POLICY_FILE
from tabletop.agents.networks.actor_critic import DEFAULTS, network_spec
from tabletop.agents.networks.mlp import from_heads
from tabletop.agents.networks.saved import FORMAT, SavedPolicy, load_plain, policy_from, saved_policy
from tabletop.envs import EnvSpec

CONFIG_FILE = "config.yaml"
CHECKPOINTS = "checkpoints"
FINAL = "final"
SB3_MODEL = "model.zip"  # SB3's own checkpoint, read where a folder holds no policy file


class RunFolder:
    """A run folder's config (`config.yaml`): the game, the backend and the network every policy in it has."""

    def __init__(self, root: Path, config: dict[str, Any]):
        self.root, self.config = root, config

    @classmethod
    def above(cls, path: Path) -> RunFolder | None:
        """The run `path` is, or lies in (run/, run/final/, run/checkpoints/step_N/, a file in those); None if none."""
        path = Path(path)
        for folder in [path, *list(path.parents)[:3]]:
            if (folder / CONFIG_FILE).is_file():
                import yaml

                loaded = yaml.safe_load((folder / CONFIG_FILE).read_text())
                return cls(folder, loaded) if isinstance(loaded, dict) else None
        return None

    @property
    def env(self) -> EnvSpec:
        return EnvSpec(self.config["env_id"], self.config.get("env_kwargs") or {})

    @property
    def backend(self) -> str:
        return self.config.get("backend", "sb3")

    def network_spec(self, env: EnvSpec | None = None) -> dict[str, Any]:
        """The run's network for `env` (its own game by default): the config's `network:` section, defaults
        filled in (a config older than a key means its default)."""
        network = {**DEFAULTS, "kind": "mlp", **(self.config.get("network") or {})}
        sizes = {k: network[k] for k in DEFAULTS}
        return network_spec(env or self.env, network["kind"], **sizes)


def find_policy(source: str | Path) -> Path:
    """The file to load: `source` itself, or in a checkpoint folder its policy (or SB3's model), or in a run
    folder the final one, else the newest checkpoint's."""
    path = Path(source)
    if path.is_file():
        return path
    folders = [path, path / FINAL]
    if (path / CHECKPOINTS).is_dir():
        folders += sorted((p for p in (path / CHECKPOINTS).iterdir() if p.is_dir()), reverse=True)
    for folder in folders:
        for name in (POLICY_FILE, SB3_MODEL):
            if (folder / name).is_file():
                return folder / name
    raise ValueError(
        f"no trained model at {str(path)!r}: expected a run folder, a checkpoint folder, a {POLICY_FILE} or a {SB3_MODEL}"
    )


def load_saved(source: str | Path, env: EnvSpec | None = None) -> SavedPolicy:
    """The policy at `source` (see the module's docstring); `env` names the game of a file no run config describes."""
    path = find_policy(source)
    if path.suffix == ".zip":
        return _from_sb3_zip(path, env)
    raw = load_plain(path)
    if not _is_rllib_actor_file(raw):
        return policy_from(raw, path)
    run = RunFolder.above(path.parent)
    if run is None and env is None:
        raise ValueError(f"{path} (an RLlib actor file, which names no game) has no run config.yaml above it")
    game = run.env if run is not None else env
    spec = network_spec(game, "mlp", hidden=raw["hidden"], activation=raw["activation"])
    weights = from_heads(raw["state_dict"], {})
    return saved_policy(spec, weights, game, "rllib", str(path))


def _is_rllib_actor_file(raw: Any) -> bool:
    """Whether a loaded `policy.pt` is an RLlib actor file (hidden, activation, state_dict) rather than a policy file."""
    return isinstance(raw, dict) and raw.get("format") != FORMAT and {"hidden", "activation", "state_dict"} <= set(raw)


def _sb3_members(path: Path) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """(`data` as JSON, `policy.pth`'s tensors) of an SB3 model zip; a ValueError names the file and member at fault."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data").decode())
            weights = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True)
    except KeyError as err:
        raise ValueError(f"{path} lacks the member {err}") from None
    except Exception as err:  # noqa: BLE001 - a damaged zip or member fails in many ways
        raise ValueError(f"{path} cannot be read ({type(err).__name__}: {err})") from None
    if not isinstance(data, dict) or not isinstance(weights, dict):
        raise ValueError(f"{path} is not an SB3 model (its data or policy.pth is not a mapping)")
    return data, weights


def _from_sb3_zip(path: Path, env: EnvSpec | None) -> SavedPolicy:
    data, weights = _sb3_members(path)
    run = RunFolder.above(path.parent)
    if run is not None:
        if env is not None and env.current_id != run.env.current_id:
            raise ValueError(f"{path} was trained for {run.env}, not {env}")
        return saved_policy(run.network_spec(), weights, run.env, "sb3", str(path))
    if env is None:
        raise ValueError(f"{path} has no run config.yaml above it, so its game is unknown: pass --env-id")
    trunk = sorted(
        (int(k.split(".")[2]), v.shape[0])
        for k, v in weights.items()
        if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")
    )
    if not trunk or "action_net.weight" not in weights:
        raise ValueError(f"{path} has no run config.yaml above it; only an MLP policy loads without one")
    hidden = [size for _, size in trunk]
    described = str((data.get("policy_kwargs") or {}).get("activation_fn", ""))
    spec = network_spec(env, "mlp", hidden=hidden, activation="relu" if "ReLU" in described else "tanh")
    spec["observation_size"] = int(weights["mlp_extractor.policy_net.0.weight"].shape[1])  # as trained, not as `env`
    spec["num_actions"] = int(weights["action_net.weight"].shape[0])
    return saved_policy(spec, weights, env, "sb3", str(path))

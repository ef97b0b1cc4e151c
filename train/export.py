"""Export a trained MaskablePPO policy to ONNX, with the metadata a frontend needs to drive it.

An export folder holds two files:

    model.onnx      inputs  observation float32 [batch, obs_size], action_mask float32 [batch, num_actions]
                    outputs logits float32 [batch, num_actions] (illegal actions set to MASKED_LOGIT),
                            action int64 [batch] (argmax of the masked logits: the policy's greedy choice)
    metadata.json   env id and constructor arguments, observation layout, action names, versions, and
                    the torch-vs-onnxruntime check the export ran on real positions

Only the actor runs in the model (features -> policy MLP -> action head); the value head stays behind.
"""

from __future__ import annotations

import argparse
import json
import platform
import warnings
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop import envs
from tabletop.agents.base import RandomAgent
from tabletop.agents.onnx_agent import METADATA_FILE, MODEL_FILE

if TYPE_CHECKING:
    import torch

FORMAT_VERSION = 1
OPSET = 17  # supported by onnxruntime (Python, web, mobile) and most engine runtimes
MASKED_LOGIT = -1e8  # sb3-contrib's MaskableCategorical uses the same value: finite, so softmax never gives NaN
INPUTS = ("observation", "action_mask")
OUTPUTS = ("logits", "action")
VERIFY_POSITIONS = 256
TOLERANCE = 1e-5


def actor_logits(policy, observation: torch.Tensor) -> torch.Tensor:
    """sb3's actor without the distribution: features -> policy MLP -> action head."""
    features = policy.extract_features(observation, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def masked_actor(policy) -> torch.nn.Module:
    """The policy's actor with the mask applied inside the graph, so a frontend needs no extra code.

    Built here rather than at import time: `tabletop` imports this module and must start without torch."""
    import torch

    class MaskedActor(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = policy

        def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            logits = actor_logits(self.policy, observation)
            masked = torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED_LOGIT))
            return masked, torch.argmax(masked, dim=1)

    return MaskedActor().eval()


def sample_positions(env_id: str, env_kwargs: dict, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`count` (observation, mask) pairs of the seat to move, from seeded random games (real masks, real encodings)."""
    env = envs.make_raw(env_id, **env_kwargs)
    agent = RandomAgent(seed)
    observations, masks = [], []
    game_seed = seed
    while len(observations) < count:
        env.reset(seed=game_seed)
        game_seed += 1
        while not env.game_state.is_terminal() and len(observations) < count:
            seen = env.observe(env.agent_selection)
            observations.append(seen["observation"])
            masks.append(seen["action_mask"])
            env.step(agent.act(seen["observation"], seen["action_mask"], {}))
    return np.stack(observations), np.stack(masks).astype(np.float32)


def action_names(env_id: str, env_kwargs: dict, games: int = 2) -> list[str] | None:
    """Every action's name, if each name was the same in every position of seeded random games;
    None when a name depends on the position (then only `State.action_to_string` can name it)."""
    env = envs.make_raw(env_id, **env_kwargs)
    agent = RandomAgent(0)
    names = None
    for g in range(games):
        env.reset(seed=g)
        while not env.game_state.is_terminal():
            here = [env.game_state.action_to_string(a) for a in range(env.game.num_actions)]
            if names is None:
                names = here
            elif here != names:
                return None
            seen = env.observe(env.agent_selection)
            env.step(agent.act(seen["observation"], seen["action_mask"], {}))
    return names


def find_run_config(model_path: Path) -> dict | None:
    """The `config.yaml` of the run a model belongs to (run/final/model.zip, run/checkpoints/step_N/model.zip)."""
    import yaml

    for folder in list(model_path.parents)[:3]:
        if (folder / "config.yaml").is_file():
            return yaml.safe_load((folder / "config.yaml").read_text())
    return None


def load_trained(source: str | Path, env_id: str | None = None, env_kwargs: dict | None = None):
    """(policy, env_id, env_kwargs, model path) for a model zip, checkpoint or run folder.

    The game comes from the run's config.yaml; `env_id`/`env_kwargs` are needed only for a bare zip
    and must agree with the config when both exist."""
    from tabletop.train.policy_agent import PolicyAgent, resolve_model

    model_path = resolve_model(source)
    config = find_run_config(model_path)
    if config is not None:
        for key, given in (("env_id", env_id), ("env_kwargs", env_kwargs)):
            if given is not None and given != config[key]:
                raise ValueError(f"--{key.replace('_', '-')} {given!r} contradicts the run's config.yaml ({config[key]!r})")
        env_id, env_kwargs = config["env_id"], config["env_kwargs"]
    elif env_id is None:
        raise ValueError(f"{model_path} has no run config.yaml above it; pass --env-id (one of {', '.join(envs.ENV_IDS)})")
    env_kwargs = dict(env_kwargs or {})
    agent = PolicyAgent.load(model_path, env_id=env_id, env_kwargs=env_kwargs)  # checks the sizes fit the game
    return agent.policy, env_id, env_kwargs, model_path


def export_onnx(policy, path: Path, obs_size: int, num_actions: int) -> None:
    """Write the masked actor as ONNX with a dynamic batch axis, and check it with `onnx.checker`.

    The TorchScript exporter (`dynamo=False`) is used on purpose: the torch.export-based one needs
    onnxscript, which this project does not depend on; for an MLP both give the same graph."""
    import onnx
    import torch

    module = masked_actor(policy)
    example = (torch.zeros(1, obs_size), torch.ones(1, num_actions))
    batch = {0: "batch"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "legacy exporter": chosen deliberately, see above
        torch.onnx.export(
            module,
            example,
            str(path),
            input_names=list(INPUTS),
            output_names=list(OUTPUTS),
            dynamic_axes={name: batch for name in INPUTS + OUTPUTS},
            opset_version=OPSET,
            dynamo=False,
        )
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)


def verify(policy, path: Path, observations: np.ndarray, masks: np.ndarray) -> dict[str, Any]:
    """Run torch and onnxruntime on the same positions: the largest logit difference on legal actions
    and whether the chosen actions agree everywhere."""
    import onnxruntime as ort
    import torch

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits, actions = session.run(list(OUTPUTS), {"observation": observations.astype(np.float32), "action_mask": masks})
    with torch.no_grad():
        reference = actor_logits(policy, torch.as_tensor(observations, dtype=torch.float32)).numpy()
    legal = masks > 0.5
    reference_actions = np.argmax(np.where(legal, reference, -np.inf), axis=1)
    return {
        "positions": int(len(observations)),
        "max_abs_logit_diff": float(np.max(np.abs(logits - reference)[legal])),
        "illegal_logits_masked": bool(np.all(logits[~legal] == np.float32(MASKED_LOGIT))),
        "actions_agree": bool(np.array_equal(actions, reference_actions)),
    }


def _versions() -> dict[str, str | None]:
    found = {}
    for dist in ("tabletop-rl", "torch", "onnx", "onnxruntime", "stable-baselines3", "sb3-contrib", "numpy"):
        try:
            found[dist] = importlib_metadata.version(dist)
        except importlib_metadata.PackageNotFoundError:
            found[dist] = None
    return {"python": platform.python_version(), **found}


def build_metadata(env_id: str, env_kwargs: dict) -> dict[str, Any]:
    """Everything a frontend needs besides the model: which game, how observations and actions are laid out."""
    env = envs.make_raw(env_id, **env_kwargs)
    game = env.game
    omniscient = env.observation_mode == "omniscient"
    layout = game.omniscient_layout if omniscient else game.observation_layout
    names = action_names(env_id, env_kwargs)
    return {
        "format_version": FORMAT_VERSION,
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "num_players": game.num_players,
        "observation": {
            "mode": env.observation_mode,
            "size": layout.size,
            "layout": layout.describe(),
        },
        "actions": {
            "count": game.num_actions,
            "names": names,
            "names_note": (
                "names[i] names action i; each name was the same in every position of seeded random games"
                if names is not None
                else "action names depend on the position: send the state to `tabletop agent` (it answers the "
                "name) or call State.action_to_string(action) on the state from Game.state_from_json"
            ),
        },
        "model": {
            "file": MODEL_FILE,
            "opset": OPSET,
            "inputs": {
                "observation": {"dtype": "float32", "shape": ["batch", layout.size]},
                "action_mask": {"dtype": "float32", "shape": ["batch", game.num_actions], "legal": "1.0, illegal: 0.0"},
            },
            "outputs": {
                "logits": {"dtype": "float32", "shape": ["batch", game.num_actions], "masked_value": MASKED_LOGIT},
                "action": {"dtype": "int64", "shape": ["batch"], "meaning": "argmax of the masked logits"},
            },
        },
        "versions": _versions(),
    }


def export_policy(policy, out: str | Path, env_id: str, env_kwargs: dict, source: dict | None = None) -> dict:
    """Export `policy` for `env_id` into the folder `out`; returns the metadata written next to the model.

    Refuses to finish if onnxruntime and torch disagree on real positions."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    meta = build_metadata(env_id, env_kwargs)
    model_path = out / MODEL_FILE
    export_onnx(policy, model_path, meta["observation"]["size"], meta["actions"]["count"])
    observations, masks = sample_positions(env_id, env_kwargs, VERIFY_POSITIONS)
    check = verify(policy, model_path, observations, masks)
    if not (check["actions_agree"] and check["illegal_logits_masked"] and check["max_abs_logit_diff"] <= TOLERANCE):
        raise RuntimeError(f"the exported model disagrees with torch: {check}")
    meta["verification"] = {**check, "tolerance": TOLERANCE}
    if source is not None:
        meta["source"] = source
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def export_trained(source: str | Path, out: str | Path, env_id: str | None = None, env_kwargs: dict | None = None) -> dict:
    """`tabletop export`: a run folder, checkpoint folder or model zip -> an export folder."""
    policy, env_id, env_kwargs, model_path = load_trained(source, env_id, env_kwargs)
    return export_policy(policy, out, env_id, env_kwargs, source={"model": str(model_path)})


# --- the `tabletop export` subcommand --------------------------------------------------------------------
def _run(args: argparse.Namespace) -> int:
    meta = export_trained(args.source, args.out, args.env_id, args.env_kwargs)
    check = meta["verification"]
    print(
        f"wrote {Path(args.out) / MODEL_FILE} and {METADATA_FILE}: {meta['env_id']} {meta['env_kwargs']}, "
        f"{meta['observation']['size']} inputs, {meta['actions']['count']} actions; onnxruntime matches torch on "
        f"{check['positions']} positions (max logit difference {check['max_abs_logit_diff']:.2e})"
    )
    return 0


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `tabletop export`."""
    p = subparsers.add_parser("export", help="export a trained policy to ONNX with metadata for other frontends")
    p.add_argument("source", metavar="RUN_OR_CHECKPOINT", help="a run folder, a checkpoint folder or a model .zip")
    p.add_argument("--out", required=True, help="folder to write model.onnx and metadata.json into")
    p.add_argument("--env-id", choices=envs.ENV_IDS, help="the game, for a model zip outside a run folder")
    p.add_argument("--env-kwargs", type=json.loads, help="JSON constructor arguments, for a model zip outside a run folder")
    p.set_defaults(func=_run)
    return p

"""Export a trained policy (a policy file of either backend, agents/networks/) to ONNX, with the metadata a
frontend needs to drive it.

An export folder holds two files:

    model.onnx      inputs  observation float32 [batch, obs_size], action_mask float32 [batch, num_actions]
                    outputs logits float32 [batch, num_actions] (legal actions within ±LOGIT_LIMIT, NaN read as
                            -LOGIT_LIMIT; illegal actions set to MASKED_LOGIT, below every legal one),
                            action int64 [batch] (argmax of the masked logits: the policy's greedy choice,
                            a legal action whenever the mask has one, whatever the observation holds)
    metadata.json   env id and constructor arguments, observation layout, action names, versions, and
                    the torch-vs-onnxruntime check the export ran on real positions

Only the actor runs in the model (the network -> action head); the value head stays behind.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop.agents import PolicyAgent, RandomAgent
from tabletop.agents.extras import installed_versions, require
from tabletop.agents.networks import MASKED_LOGIT  # no torch: the package holds its constants only
from tabletop.agents.onnx_agent import METADATA_FILE, MODEL_FILE
from tabletop.agents.policy_agent import actor_logits
from tabletop.envs import EnvSpec

if TYPE_CHECKING:
    import torch

FORMAT_VERSION = 1
OPSET = 17  # supported by onnxruntime (Python, web, mobile) and most engine runtimes
LOGIT_LIMIT = 1e7  # legal logits are clipped to ±LOGIT_LIMIT (NaN -> -LOGIT_LIMIT): always above MASKED_LOGIT
INPUTS = ("observation", "action_mask")
OUTPUTS = ("logits", "action")
VERIFY_POSITIONS = 256
TOLERANCE = 1e-5  # relative to a position's largest |legal logit| above 1: float32 rounding grows with it


def masked_actor(policy) -> torch.nn.Module:
    """The policy's actor with the mask applied inside the graph, so a frontend needs no extra code.

    Non-finite logits (a NaN, an infinity or a huge number in the observation propagates to them) are made
    finite before masking: NaN becomes -LOGIT_LIMIT and everything is clipped to ±LOGIT_LIMIT, so the
    argmax lands on a legal action whenever the mask has one, even for a frontend that skips our checks.
    Built here rather than at import time: this module must import without torch, like the whole `tabletop` command."""
    import torch

    class MaskedActor(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = policy

        def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            logits = actor_logits(self.policy, observation)
            logits = torch.where(torch.isnan(logits), torch.full_like(logits, -LOGIT_LIMIT), logits)
            logits = torch.clamp(logits, -LOGIT_LIMIT, LOGIT_LIMIT)
            masked = torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED_LOGIT))
            return masked, torch.argmax(masked, dim=1)

    return MaskedActor().eval()


def sample_positions(spec: EnvSpec, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`count` (observation, mask) pairs of the seat to move, from seeded random games (real masks, real encodings)."""
    env = spec.make_raw()
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


def action_names(spec: EnvSpec, games: int = 2) -> list[str] | None:
    """Every action's name, if each name was the same in every position of seeded random games;
    None when a name depends on the position (then only `State.action_to_string` can name it)."""
    env = spec.make_raw()
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


def load_trained(source: str | Path, env: EnvSpec | None = None):
    """(policy, game, saved policy) for a policy file, a checkpoint or run folder of either backend, or SB3's own
    model zip. The game comes from the policy file (or the run's config.yaml); `env` is needed only for a zip
    outside a run folder and must agree with the policy's game when both exist."""
    from tabletop.agents.networks.runs import load_saved

    saved = load_saved(source, env)
    if env is not None and env != saved.env:
        raise ValueError(f"--env-id/--env-kwargs say {env}, which contradicts the policy's game ({saved.env})")
    agent = PolicyAgent.from_saved(saved, saved.env)  # checks the sizes fit the game
    return agent.policy, saved.env, saved


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
    """Run torch and onnxruntime on the same positions: the largest logit difference on legal actions,
    whether every legal logit agrees within TOLERANCE x max(1, the position's largest |legal logit|)
    (float32 rounding grows with the logits a network sums and subtracts), and whether the chosen actions
    agree everywhere. Two legal actions whose torch logits tie within that tolerance (shared-weight
    networks score identical entities identically) are both the policy's choice, so ONNX picking either
    agrees."""
    import onnxruntime as ort
    import torch

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits, actions = session.run(list(OUTPUTS), {"observation": observations.astype(np.float32), "action_mask": masks})
    with torch.no_grad():
        reference = actor_logits(policy, torch.as_tensor(observations, dtype=torch.float32)).numpy()
    legal = masks > 0.5
    best = np.max(np.where(legal, reference, -np.inf), axis=1)
    chosen = np.take_along_axis(reference, actions.reshape(-1, 1).astype(np.int64), axis=1)[:, 0]
    scale = np.maximum(1.0, np.max(np.where(legal, np.abs(reference), 0.0), axis=1))  # per position
    allowed = TOLERANCE * scale
    return {
        "positions": int(len(observations)),
        "max_abs_logit_diff": float(np.max(np.abs(logits - reference)[legal])),
        "logits_agree": bool(np.all((np.abs(logits - reference) <= allowed[:, None])[legal])),
        "illegal_logits_masked": bool(np.all(logits[~legal] == np.float32(MASKED_LOGIT))),
        "actions_agree": bool(np.all(legal[np.arange(len(actions)), actions] & (chosen >= best - allowed))),
    }


def build_metadata(spec: EnvSpec) -> dict[str, Any]:
    """Everything a frontend needs besides the model: which game, how observations and actions are laid out."""
    env = spec.make_raw()
    game, layout = env.game, env.observer.layout  # the observer of the env's mode: what the policy was trained on
    names = action_names(spec)
    return {
        "format_version": FORMAT_VERSION,
        **spec.to_dict(),
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
                "logits": {
                    "dtype": "float32",
                    "shape": ["batch", game.num_actions],
                    "masked_value": MASKED_LOGIT,
                    "legal_range": [-LOGIT_LIMIT, LOGIT_LIMIT],
                    "nan_value": -LOGIT_LIMIT,
                },
                "action": {"dtype": "int64", "shape": ["batch"], "meaning": "argmax of the masked logits"},
            },
        },
        "versions": installed_versions(
            "tabletop-rl", "torch", "onnx", "onnxruntime", "stable-baselines3", "sb3-contrib", "numpy"
        ),
    }


def export_policy(policy, out: str | Path, env: EnvSpec, source: dict | None = None) -> dict:
    """Export `policy` for the game `env` into the folder `out`; returns the metadata written next to the model.

    Refuses to finish if onnxruntime and torch disagree on real positions."""
    require("exporting to ONNX", "onnx", "onnxruntime")  # before the folder exists: nothing half-made
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    meta = build_metadata(env)
    model_path = out / MODEL_FILE
    export_onnx(policy, model_path, meta["observation"]["size"], meta["actions"]["count"])
    observations, masks = sample_positions(env, VERIFY_POSITIONS)
    check = verify(policy, model_path, observations, masks)
    if not (check["actions_agree"] and check["illegal_logits_masked"] and check["logits_agree"]):
        raise RuntimeError(f"the exported model disagrees with torch: {check}")
    meta["verification"] = {**check, "tolerance": TOLERANCE}
    if source is not None:
        meta["source"] = source
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def export_trained(
    source: str | Path,
    out: str | Path,
    env: EnvSpec | None = None,
    players: int | None = None,
    command: str | None = None,
) -> dict:
    """`tabletop export`: a run folder or checkpoint folder of either backend, a policy file or SB3's own model
    zip -> an export folder; with `players`, for that player count (network kinds whose weights do not
    depend on it: `roles`); `command`, how the policy was made, is kept as `source.command` (a shipped policy
    names its reproduction there, where the run folder's own path would name a machine's)."""
    policy, env, saved = load_trained(source, env)
    source_info = {"policy": saved.source, "backend": saved.backend}
    if command is not None:
        source_info["command"] = command
    if players is not None and players != env.kwargs.get("num_players"):
        from tabletop.agents.networks.actor_critic import retarget

        trained, env = env, EnvSpec(env.env_id, {**env.kwargs, "num_players": players})
        try:
            policy = retarget(policy, env)
        except ValueError as err:
            raise ValueError(f"{saved.source}: {err}") from None
        source_info["trained_for"] = str(trained)
    return export_policy(policy, out, env, source=source_info)

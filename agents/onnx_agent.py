"""An exported policy as an `Agent`, on onnxruntime and numpy only (no torch), for tournaments, eval and play.

The folder is what `tabletop export` writes: `model.onnx` and `metadata.json`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

MODEL_FILE = "model.onnx"
METADATA_FILE = "metadata.json"


class OnnxAgent:
    """Plays the exported policy's greedy action (the model's `action` output)."""

    needs_observation = True

    def __init__(self, path: str | Path, env_id: str | None = None):
        folder = Path(path)
        if folder.is_file():
            folder = folder.parent
        model, meta_file = folder / MODEL_FILE, folder / METADATA_FILE
        if not (model.is_file() and meta_file.is_file()):
            raise ValueError(f"no exported policy at {str(path)!r}: expected a folder with {MODEL_FILE} and {METADATA_FILE} (tabletop export)")
        self.metadata = json.loads(meta_file.read_text())
        if env_id is not None and env_id != self.metadata["env_id"]:
            raise ValueError(f"{folder} holds a policy for {self.metadata['env_id']}, not for {env_id}")
        self.name = f"onnx:{path}"
        self.obs_size = int(self.metadata["observation"]["size"])
        self.num_actions = int(self.metadata["actions"]["count"])
        import onnxruntime as ort  # here, not at the top: `tabletop` must start without the export extra

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one small MLP per move: threads cost more than they give
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def logits_and_actions(self, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A batch: masked logits [batch, num_actions] and chosen actions [batch]."""
        observations = np.asarray(observations, dtype=np.float32)
        action_masks = np.asarray(action_masks, dtype=np.float32)
        if observations.ndim != 2 or observations.shape[1] != self.obs_size:
            raise ValueError(f"observations must have shape [batch, {self.obs_size}], got {list(observations.shape)}")
        if action_masks.shape != (observations.shape[0], self.num_actions):
            raise ValueError(f"action masks must have shape [{observations.shape[0]}, {self.num_actions}], got {list(action_masks.shape)}")
        if not (action_masks > 0.5).any(axis=1).all():
            raise ValueError("no legal action to choose from (all-zero action mask)")
        logits, actions = self.session.run(["logits", "action"], {"observation": observations, "action_mask": action_masks})
        return logits, actions

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, view: dict[str, Any] | None = None) -> int:
        if observation is None:
            raise ValueError(f"{self.name} needs the observation vector, not only the view")
        observation, action_mask = np.ravel(observation), np.ravel(action_mask)
        if observation.size != self.obs_size or action_mask.size != self.num_actions:
            raise ValueError(
                f"this policy ({self.metadata['env_id']} {self.metadata['env_kwargs']}) takes {self.obs_size} observation "
                f"numbers and {self.num_actions} mask entries, got {observation.size} and {action_mask.size}"
            )
        _, actions = self.logits_and_actions(observation[None], action_mask[None])
        return int(actions[0])

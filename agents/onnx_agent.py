"""An exported policy as an `Agent`, on onnxruntime and numpy only (no torch), for tournaments, eval and play.

The folder is what `tabletop export` writes: `model.onnx` and `metadata.json`. Every input is checked
before the model sees it (shapes, finite numbers inside the observation's declared ranges, a 0/1 mask
with a legal action), and every chosen action is checked against the mask after: a policy never
answers with a masked action.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.agents.extras import require
from tabletop.envs import EnvSpec
from tabletop.envs.core.encoding import Layout, Segment

MODEL_FILE = "model.onnx"
METADATA_FILE = "metadata.json"
FLOAT32_MAX = float(np.finfo(np.float32).max)


class OnnxAgent:
    """Plays the exported policy's greedy action (the model's `action` output)."""

    needs_observation = True

    def __init__(self, path: str | Path, env_id: str | None = None):
        require("an exported policy (onnx: or pretrained agent)", "onnxruntime")  # here: `tabletop` starts without it
        folder = Path(path)
        if folder.is_file():
            folder = folder.parent
        model, meta_file = folder / MODEL_FILE, folder / METADATA_FILE
        if not (model.is_file() and meta_file.is_file()):
            raise ValueError(
                f"no exported policy at {str(path)!r}: expected a folder with {MODEL_FILE} and {METADATA_FILE} (tabletop export)"
            )
        self.metadata = _read_metadata(meta_file)
        trained = EnvSpec(self.metadata["env_id"], self.metadata["env_kwargs"])
        if env_id is not None and EnvSpec(env_id).current_id != trained.current_id:
            raise ValueError(f"{folder} holds a policy for {self.metadata['env_id']}, not for {env_id}")
        self.observation_options = trained.definition.observer_options(trained.kwargs)  # what it was trained on
        self.name = f"onnx:{path}"
        self.obs_size = int(self.metadata["observation"]["size"])
        self.num_actions = int(self.metadata["actions"]["count"])
        self.low, self.high, self.segments = _bounds(self.metadata["observation"].get("layout"), self.obs_size)
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one small MLP per move: threads cost more than they give
        try:
            self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        except Exception as err:  # noqa: BLE001 - onnxruntime raises its own classes for a broken file
            raise ValueError(f"{model} is not a model onnxruntime can load: {err}") from None

    def logits_and_actions(self, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A batch: masked logits [batch, num_actions] and chosen actions [batch]; a ValueError names any bad input."""
        observations, action_masks = self.checked(observations, action_masks)
        logits, actions = self.session.run(
            ["logits", "action"], {"observation": observations, "action_mask": action_masks}
        )
        chosen = action_masks[np.arange(len(actions)), actions]
        if not (chosen == 1).all():
            row = int(np.flatnonzero(chosen != 1)[0])
            raise ValueError(
                f"the model chose masked action {int(actions[row])} (row {row}); it predates the export's guard "
                "against non-finite logits: export it again with this version of `tabletop export`"
            )
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

    def checked(self, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The batch as the model's float32 inputs, or a ValueError naming the first entry that is wrong."""
        observations = np.asarray(observations, dtype=np.float64)
        action_masks = np.asarray(action_masks, dtype=np.float64)
        if observations.ndim != 2 or observations.shape[1] != self.obs_size:
            raise ValueError(f"observations must have shape [batch, {self.obs_size}], got {list(observations.shape)}")
        if action_masks.shape != (observations.shape[0], self.num_actions):
            raise ValueError(
                f"action masks must have shape [{observations.shape[0]}, {self.num_actions}], got {list(action_masks.shape)}"
            )
        bad = ~np.isfinite(observations)
        if bad.any():
            raise ValueError(f"{self._where(bad, observations)}: observations must be finite numbers")
        bad = (observations < self.low) | (observations > self.high)
        if bad.any():
            col = int(np.argwhere(bad)[0][1])
            raise ValueError(
                f"{self._where(bad, observations)}, outside its range [{self.low[col]:g}, {self.high[col]:g}]"
            )
        bad = (action_masks != 0) & (action_masks != 1)
        if bad.any():
            row, col = (int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"action_mask[{col}] = {action_masks[row, col]:g}: each entry must be 0 (illegal) or 1 (legal)"
            )
        if not (action_masks == 1).any(axis=1).all():
            raise ValueError("no legal action to choose from (all-zero action mask)")
        return observations.astype(np.float32), action_masks.astype(np.float32)

    def _where(self, bad: np.ndarray, observations: np.ndarray) -> str:
        """ "observation[1203] (segment 'scores') is inf" for the first True entry of `bad`."""
        row, col = (int(i) for i in np.argwhere(bad)[0])
        prefix = f"observation[{col}]" if len(observations) == 1 else f"observations[{row}][{col}]"
        segment = f" (segment {self.segments[col]!r})" if self.segments is not None else ""
        return f"{prefix}{segment} is {observations[row, col]:g}"


def _read_metadata(meta_file: Path) -> dict[str, Any]:
    """metadata.json as written by `tabletop export`, or a ValueError saying what is wrong with it."""
    try:
        meta = json.loads(meta_file.read_text())
    except ValueError as err:  # bad JSON or bad UTF-8
        raise ValueError(f"{meta_file} is not valid JSON: {err}") from None
    needed = {"env_id": None, "env_kwargs": None, "observation": "size", "actions": "count"}
    for key, inner in needed.items():
        if (
            not isinstance(meta, dict)
            or key not in meta
            or (inner and not (isinstance(meta[key], dict) and inner in meta[key]))
        ):
            name = f"{key}.{inner}" if inner else key
            raise ValueError(f"{meta_file} is not the metadata `tabletop export` writes: it has no {name}")
    return meta


def _bounds(described: Any, size: int) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    """Each observation entry's lowest and highest value and its segment's name, from the metadata's layout.

    An export made before value ranges were recorded gets float32's whole finite range (and segment
    names where the layout has them)."""
    segments = None
    if isinstance(described, list) and all(isinstance(d, dict) and "name" in d and "shape" in d for d in described):
        sized = [(d, int(np.prod(d["shape"], dtype=np.int64))) for d in described]
        segments = [d["name"] for d, n in sized for _ in range(n)]
        if len(segments) != size:
            raise ValueError(
                f"metadata.json: the observation layout covers {len(segments)} numbers, not observation.size {size}"
            )
        if all("low" in d and "high" in d for d in described):
            layout = Layout(
                tuple(
                    Segment(d["name"], tuple(d["shape"]), d.get("doc", ""), float(d["low"]), float(d["high"]))
                    for d, _ in sized
                )
            )
            return *layout.bounds(), segments
    return np.full(size, -FLOAT32_MAX), np.full(size, FLOAT32_MAX), segments

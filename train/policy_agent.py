"""A trained MaskablePPO policy as an `Agent` (what `ppo:PATH` agent specs build)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop import envs
from tabletop.train.policy import choose_action

MODEL_FILE = "model.zip"


def resolve_model(path: str | Path) -> Path:
    """A model zip from a zip, a checkpoint folder, or a run folder (its final model, else its newest checkpoint)."""
    path = Path(path)
    candidates = [path] if path.suffix == ".zip" else [path / MODEL_FILE, path / "final" / MODEL_FILE]
    if path.is_dir() and (path / "checkpoints").is_dir():
        candidates += [c / MODEL_FILE for c in sorted((path / "checkpoints").iterdir(), reverse=True)]
    for c in candidates:
        if c.is_file():
            return c
    raise ValueError(f"no trained model at {str(path)!r}: expected a model .zip, a checkpoint folder or a run folder")


class PolicyAgent:
    """Plays the policy's most likely legal action (or samples, given `sample=True`)."""

    needs_observation = True

    def __init__(self, policy, name: str = "ppo", seed: int | None = None, sample: bool = False):
        self.policy = policy
        self.name = name
        self.rng = np.random.default_rng(seed) if sample else None

    @classmethod
    def load(
        cls, path: str | Path, env_id: str, env_kwargs: dict | None = None, seed: int | None = None, sample: bool = False
    ) -> "PolicyAgent":
        """Load a saved model on the CPU and check it fits `env_id`'s observation and action sizes."""
        from sb3_contrib import MaskablePPO

        model_path = resolve_model(path)
        model = MaskablePPO.load(model_path, device="cpu")
        env = envs.make_raw(env_id, **(env_kwargs or {}))
        agent = env.possible_agents[0]
        want_obs = env.observation_space(agent)["observation"].shape
        want_actions = env.action_space(agent).n
        if model.observation_space.shape != want_obs or model.action_space.n != want_actions:
            raise ValueError(
                f"{model_path} was trained for observations {model.observation_space.shape} and "
                f"{model.action_space.n} actions; {env_id} with {env_kwargs or {}} has {want_obs} and {want_actions}"
            )
        model.policy.set_training_mode(False)
        return cls(model.policy, name=f"ppo:{path}", seed=seed, sample=sample)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        return choose_action(self.policy, observation, action_mask, self.rng)

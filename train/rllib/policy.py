"""An RLlib-trained policy outside Ray: the saved actor (`policy.pt`), found in a run folder, played as an agent.

`policy.pt` holds the actor's architecture and weights as plain torch tensors, so evaluation, `tabletop
export` and anything else that reads it need torch only, never a running Ray.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from tabletop.envs import EnvSpec
from tabletop.train.rllib.networks import Actor

POLICY_FILE = "policy.pt"
BACKEND = "rllib"


def is_rllib_run(source: str | Path) -> bool:
    """Whether `source` (a run folder, a checkpoint folder or a policy.pt) belongs to a `backend: rllib` run."""
    config = _run_config(Path(source))
    return config is not None and config.get("backend") == BACKEND


def _run_config(path: Path) -> dict | None:
    """The config.yaml of the run `path` is in or under (run/, run/final/, run/checkpoints/step_N/)."""
    for folder in [path, *list(path.parents)[:3]]:
        if (folder / "config.yaml").is_file():
            loaded = yaml.safe_load((folder / "config.yaml").read_text())
            return loaded if isinstance(loaded, dict) else None
    return None


def resolve_policy(source: str | Path) -> Path:
    """policy.pt from itself, a checkpoint folder, or a run folder (its final policy, else its newest checkpoint)."""
    path = Path(source)
    candidates = [path] if path.suffix == ".pt" else [path / POLICY_FILE, path / "final" / POLICY_FILE]
    if (path / "checkpoints").is_dir():
        candidates += [c / POLICY_FILE for c in sorted((path / "checkpoints").iterdir(), reverse=True)]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ValueError(
        f"no RLlib-trained policy at {str(path)!r}: expected a run folder, a checkpoint folder or a {POLICY_FILE}"
    )


def load_actor(source: str | Path) -> tuple[Actor, EnvSpec, Path]:
    """(actor, game, policy file) of an RLlib run; the game comes from the run's config.yaml."""
    policy_file = resolve_policy(source)
    config = _run_config(policy_file.parent)
    if config is None:
        raise ValueError(f"{policy_file} has no run config.yaml above it, so its game is unknown")
    env = EnvSpec(config["env_id"], config.get("env_kwargs") or {})
    actor = Actor.from_file(torch.load(policy_file, map_location="cpu", weights_only=True))
    aec = env.make_raw()
    want = (aec.observation_space(aec.possible_agents[0])["observation"].shape[0], aec.game.num_actions)
    if (actor.architecture["obs_size"], actor.architecture["num_actions"]) != want:
        raise ValueError(
            f"{policy_file} takes {actor.architecture['obs_size']} inputs and {actor.architecture['num_actions']} actions; {env} has {want[0]} and {want[1]}"
        )
    return actor, env, policy_file


class ActorAgent:
    """Plays the actor's most likely legal action (greedy, as `ppo:` players and exports do)."""

    needs_observation = True

    def __init__(self, actor: Actor, name: str = "learner"):
        self.actor = actor
        self.name = name

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any] | None = None) -> int:
        legal = np.asarray(action_mask, dtype=bool)
        if not legal.any():
            raise ValueError("no legal action to choose from (all-zero action mask)")
        with torch.no_grad():
            logits = self.actor(torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0))[0].numpy()
        return int(np.argmax(np.where(legal, logits, -np.inf)))

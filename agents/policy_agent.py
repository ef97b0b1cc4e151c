"""A trained MaskablePPO policy as an `Agent` (what `ppo:PATH` agent specs build), and the acting code
it shares with the learner's frozen snapshots and the ONNX export.

Acting outside PPO runs the actor head only, under `no_grad` on the CPU, and samples with a seeded
numpy generator so games are reproducible. torch and sb3-contrib are imported inside the functions
that need them: `import tabletop.agents` must work without the train extra.
"""

from __future__ import annotations

from contextlib import contextmanager
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from tabletop.envs import EnvSpec

MODEL_FILE = "model.zip"


def build_policy(
    observation_space: spaces.Box,
    action_space: spaces.Discrete,
    kwargs: dict,
    policy_class: type[MaskableActorCriticPolicy] | None = None,
) -> MaskableActorCriticPolicy:
    """A fresh CPU policy of the learner's architecture (`policy_class`, by default sb3-contrib's MLP
    policy, built with `kwargs`: its SB3 `policy_kwargs`), to load weights into."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = (policy_class or MaskableActorCriticPolicy)(observation_space, action_space, lambda _: 0.0, **kwargs)
    policy.set_training_mode(False)
    return policy


def actor_logits(policy: MaskableActorCriticPolicy, observation: torch.Tensor) -> torch.Tensor:
    """sb3's actor without the distribution: features -> policy MLP -> action head."""
    features = policy.extract_features(observation, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


@contextmanager
def one_thread(torch):
    """torch on one thread for a batch-of-one forward pass: a second thread only adds hand-offs, and on a
    busy machine its spin-waits made a Cromlet game vs `patient` 15x slower in CPU and wall time."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def choose_action(
    policy: MaskableActorCriticPolicy,
    observation: np.ndarray,
    action_mask: np.ndarray,
    rng: np.random.Generator | None,
) -> int:
    """A legal action: the most likely one when `rng` is None, else a sample from the masked policy."""
    import torch

    legal = np.asarray(action_mask, dtype=bool)
    if not legal.any():
        raise ValueError("no legal action to choose from (all-zero action mask)")
    with torch.no_grad(), one_thread(torch):
        obs = torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0)
        logits = actor_logits(policy, obs)[0].numpy()
    logits = np.where(legal, logits.astype(np.float64), -np.inf)
    if rng is not None:  # Gumbel-max: an exact sample from softmax(logits) using our own generator
        logits = logits + rng.gumbel(size=logits.shape)
    return int(np.argmax(logits))


def observer_options_of_size(aec, size: int) -> dict[str, Any] | None:
    """The observer options under which `aec`'s game observes `size` numbers: its own, or its own with other
    feature groups (a model file names none; each set of groups gives another size). None if none fits."""
    groups = tuple(getattr(type(aec.observer), "feature_groups", {}))
    for k in range(len(groups) + 1):
        for chosen in combinations(groups, k):
            options = {**aec.observer_options, "features": chosen} if groups else aec.observer_options
            if aec.observer_for(options).layout.size == size:
                return options
    return None


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
    """Plays the policy's most likely legal action, or samples from it given `sample=True` (the
    learner's frozen snapshots do, which keeps self-play opponents varied)."""

    needs_observation = True

    def __init__(
        self, policy: MaskableActorCriticPolicy, name: str = "ppo", seed: int | None = None, sample: bool = False
    ):
        self.policy = policy
        self.name = name
        self.rng = np.random.default_rng(seed) if sample else None

    @classmethod
    def load(cls, path: str | Path, env: EnvSpec, seed: int | None = None, sample: bool = False) -> PolicyAgent:
        """Load a saved model on the CPU and check it fits `env`'s observation and action sizes."""
        from sb3_contrib import MaskablePPO

        model_path = resolve_model(path)
        model = MaskablePPO.load(model_path, device="cpu")
        aec = env.make_raw()
        options = observer_options_of_size(aec, model.observation_space.shape[0])
        want_obs = aec.observation_space(aec.possible_agents[0])["observation"].shape
        if options is None or model.action_space.n != aec.game.num_actions:
            raise ValueError(
                f"{model_path} was trained for observations {model.observation_space.shape} and "
                f"{model.action_space.n} actions; {env.env_id} with {env.kwargs} has {want_obs} and {aec.game.num_actions}"
            )
        model.policy.set_training_mode(False)
        agent = cls(model.policy, name=f"ppo:{path}", seed=seed, sample=sample)
        agent.observation_options = options
        return agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        return choose_action(self.policy, observation, action_mask, self.rng)

"""A trained policy as an `Agent` (what `ppo:PATH` agent specs build), and the acting code it shares with the
learner's frozen snapshots.

A policy is loaded from its plain policy file (agents/networks/saved.py), or a run folder saved before those
(agents/networks/runs.py), with torch alone: no SB3, no RLlib, no `tabletop.train`. Acting runs the actor only,
under `no_grad` on the CPU, and samples with a seeded numpy generator so games are reproducible. torch is
imported inside the functions that need it: `import tabletop.agents` must work without the train extra.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch
    from torch import nn

    from tabletop.agents.networks.saved import SavedPolicy
    from tabletop.envs import EnvSpec


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


def actor_logits(policy: Any, observation: torch.Tensor) -> torch.Tensor:
    """The actor without the distribution: network -> action head, for an `ActorCritic` and the learner's SB3
    policy alike (same layout; their observations are flat float vectors, which SB3's flattening leaves as
    they are). `policy` is typed Any: torch types a module's submodules only as `Tensor | Module`."""
    return policy.action_net(policy.mlp_extractor.forward_actor(observation))


def choose_action(
    policy: nn.Module, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator | None
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


class PolicyAgent:
    """Plays the policy's most likely legal action, or samples from it given `sample=True` (the
    learner's frozen snapshots do, which keeps self-play opponents varied). `policy` is an
    `agents.networks.ActorCritic`, or a learner's own policy of the same layout."""

    needs_observation = True
    observation_options: dict[str, Any] | None = None
    """The observer arguments the policy was trained with (`Agent`'s optional attribute); None: the table's."""

    def __init__(self, policy: nn.Module, name: str = "ppo", seed: int | None = None, sample: bool = False):
        self.policy = policy
        self.name = name
        self.rng = np.random.default_rng(seed) if sample else None

    @classmethod
    def load(cls, path: str | Path, env: EnvSpec, seed: int | None = None, sample: bool = False) -> PolicyAgent:
        """Load a trained policy (a policy file, a checkpoint or run folder of any backend) on the CPU and check
        it fits `env`'s observation and action sizes."""
        from tabletop.agents.networks.runs import load_saved

        return cls.from_saved(load_saved(path, env), env, name=f"ppo:{path}", seed=seed, sample=sample)

    @classmethod
    def from_saved(
        cls, saved: SavedPolicy, env: EnvSpec, name: str = "ppo", seed: int | None = None, sample: bool = False
    ) -> PolicyAgent:
        """A loaded policy file as a player at `env`, once its sizes are checked against the game's."""
        spec, aec = saved.network, env.make_raw()
        size = aec.observer_for(saved.observer_options).layout.size
        if (spec["observation_size"], spec["num_actions"]) != (size, aec.game.num_actions):
            raise ValueError(
                f"{saved.source} was trained for observations of {spec['observation_size']} numbers and "
                f"{spec['num_actions']} actions; {env.env_id} with {env.kwargs} has {size} and {aec.game.num_actions}"
            )
        agent = cls(saved.build(), name=name, seed=seed, sample=sample)
        agent.observation_options = saved.observer_options
        return agent

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        if observation is None:
            raise ValueError(f"{self.name} reads the observation vector (needs_observation), and got None")
        return choose_action(self.policy, observation, action_mask, self.rng)

"""`tabletop export` of an RLlib run: its saved actor through the same exporter, ONNX and metadata as SB3's."""

from __future__ import annotations

from pathlib import Path

from tabletop.envs import EnvSpec
from tabletop.train.rllib.policy import load_actor
from tabletop.train.serving.export import export_policy


def export_run(source: str | Path, out: str | Path, env: EnvSpec | None = None) -> dict:
    """A run folder, checkpoint folder or policy.pt of a `backend: rllib` run -> an export folder."""
    actor, trained, policy_file = load_actor(source)
    if env is not None and env != trained:
        raise ValueError(f"--env-id/--env-kwargs say {env}, which contradicts the run's config.yaml ({trained})")
    return export_policy(actor, out, trained, source={"policy": str(policy_file), "backend": "rllib"})

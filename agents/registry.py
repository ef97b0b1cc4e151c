"""Agents by name: `random`, a game's heuristics (`agents.<game>.HEURISTICS`), saved policies.

Specs: `random`, a heuristic name such as `greedy`, `ppo:PATH` (a trained checkpoint or run folder),
`onnx:DIR` (an exported policy).
"""

from __future__ import annotations

import importlib
from tabletop.agents.base import Agent, RandomAgent

from tabletop.envs import EnvSpec


def game_of(env_id: str) -> str:
    """`cromlet_v0` -> `cromlet`."""
    return env_id.rsplit("_v", 1)[0]


def heuristics(env_id: str) -> dict[str, type]:
    """The heuristic classes of a game, by name."""
    module = importlib.import_module(f"tabletop.agents.{game_of(env_id)}")
    return dict(module.HEURISTICS)


def agent_names(env_id: str) -> list[str]:
    """`random` and the game's heuristics: every agent that needs no saved policy."""
    return ["random", *heuristics(env_id)]


def make_agent(env: EnvSpec | str, spec: str, seed: int | None = None) -> Agent:
    """Build an agent for the game `env` (a spec, or an env id for the default arguments) from its spec
    string; a `ppo:` policy must fit `env`'s sizes."""
    if isinstance(env, str):
        env = EnvSpec(env)
    if spec == "random":
        return RandomAgent(seed)
    kind, _, path = spec.partition(":")
    if path and kind == "ppo":
        from tabletop.agents.policy_agent import PolicyAgent

        return PolicyAgent.load(path, env, seed=seed)
    if path and kind == "onnx":
        from tabletop.agents.onnx_agent import OnnxAgent

        return OnnxAgent(path, env_id=env.env_id)
    table = heuristics(env.env_id)
    if spec not in table:
        allowed = ", ".join(["random", *table, "ppo:PATH", "onnx:DIR"])
        raise ValueError(f"unknown agent {spec!r} for {env.env_id}; allowed: {allowed}")
    return table[spec](seed=seed)

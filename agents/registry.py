"""Agents by name: `random`, a game's heuristics (`agents.<game>.HEURISTICS`), saved policies.

Specs: `random`, a heuristic name such as `greedy`, `ppo:PATH` (a trained checkpoint or run folder),
`onnx:DIR` (an exported policy).
"""

from __future__ import annotations

import importlib

from tabletop.agents.base import Agent, RandomAgent


def game_of(env_id: str) -> str:
    """`cromlet_v0` -> `cromlet`."""
    return env_id.rsplit("_v", 1)[0]


def heuristics(env_id: str) -> dict[str, type]:
    """The heuristic classes of a game, by name."""
    module = importlib.import_module(f"tabletop.agents.{game_of(env_id)}")
    return dict(module.HEURISTICS)


def agent_names(env_id: str) -> list[str]:
    return ["random", *heuristics(env_id)]


def make_agent(env_id: str, spec: str, seed: int | None = None, env_kwargs: dict | None = None) -> Agent:
    """Build an agent for `env_id` from its spec string."""
    if spec == "random":
        return RandomAgent(seed)
    kind, _, path = spec.partition(":")
    if path and kind == "ppo":
        from tabletop.train.policy_agent import PolicyAgent

        return PolicyAgent.load(path, env_id=env_id, env_kwargs=env_kwargs, seed=seed)
    if path and kind == "onnx":
        from tabletop.agents.onnx_agent import OnnxAgent

        return OnnxAgent(path, env_id=env_id)
    table = heuristics(env_id)
    if spec not in table:
        allowed = ", ".join(["random", *table, "ppo:PATH", "onnx:DIR"])
        raise ValueError(f"unknown agent {spec!r} for {env_id}; allowed: {allowed}")
    return table[spec](seed=seed)

"""Agents by name: `random`, a game's heuristics (`agents.<game>.HEURISTICS`), saved policies.

Specs: `random`, a heuristic name such as `greedy`, `ppo:PATH` (a policy file, or a checkpoint or run folder of either backend),
`onnx:DIR` (an exported policy), `pretrained` (the policy shipped for the game and its arguments in
`agents/pretrained/`, an export folder like any other), `search` or `search:KEY=VALUE,...` (a search player over
the game's determinizations, agents/search/).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from importlib import resources
from pathlib import Path
from typing import Any

from tabletop.agents.base import Agent, RandomAgent, policy_key
from tabletop.agents.extras import require
from tabletop.envs import EnvSpec

PRETRAINED = "pretrained"


def game_of(env_id: str) -> str:
    """`cromlet_v0` -> `cromlet`."""
    return env_id.rsplit("_v", 1)[0]


def heuristics(env_id: str) -> dict[str, type]:
    """The heuristic classes of a game, by name: `tabletop.agents.<game>.HEURISTICS` for a shipped game; none for
    a game registered from outside (`tabletop.envs.register`), which plays `random` and its policies."""
    name = f"tabletop.agents.{game_of(env_id)}"
    if importlib.util.find_spec(name) is None:
        return {}
    return dict(importlib.import_module(name).HEURISTICS)


def agent_names(env_id: str) -> list[str]:
    """`random` and the game's heuristics: every agent that needs no saved policy."""
    return ["random", *heuristics(env_id)]


def pretrained_folders() -> list[Path]:
    """Every shipped export folder (`agents/pretrained/<name>/`, holding model.onnx and metadata.json)."""
    root = Path(str(resources.files("tabletop.agents").joinpath(PRETRAINED)))
    return sorted(meta.parent for meta in root.glob("*/metadata.json"))


def _plays_through_adapter(trained: EnvSpec, env: EnvSpec) -> bool:
    """Whether a policy trained for `trained` plays at `env` through its game's adapter: a moves-mode Kings
    Cribbage policy at a tiles-mode table (agents/kings_cribbage_tiles.py)."""
    if game_of(env.current_id) != "kings_cribbage":
        return False
    from tabletop.agents.kings_cribbage_tiles import plays_at

    return plays_at(trained, env)


def _at_table(agent: Any, env: EnvSpec) -> Agent:
    """An exported policy ready for the table `env`: itself, or wrapped in its game's adapter."""
    if game_of(env.current_id) != "kings_cribbage":
        return agent
    from tabletop.agents.kings_cribbage_tiles import at_table

    return at_table(agent, env, EnvSpec(agent.metadata["env_id"], agent.metadata["env_kwargs"]))


def pretrained_folder(env: EnvSpec) -> Path:
    """The shipped policy trained for this game with these arguments (`policy_key`), else one that plays at it
    through its game's adapter (a moves-mode Kings Cribbage policy in tiles mode), or a ValueError listing
    what is shipped."""
    shipped, adapted = [], []
    for folder in pretrained_folders():
        meta = json.loads((folder / "metadata.json").read_text())
        trained = EnvSpec(meta["env_id"], meta["env_kwargs"])
        if trained.current_id == env.current_id and policy_key(trained) == policy_key(env):
            return folder
        if _plays_through_adapter(trained, env):
            adapted.append(folder)
        shipped.append(str(trained))
    if adapted:
        return adapted[0]
    raise ValueError(
        f"no pretrained policy for {env}; shipped: {', '.join(shipped) or 'none'} "
        "(train one with `tabletop train` and play it as onnx:DIR after `tabletop export`)"
    )


def make_agent(env: EnvSpec | str, spec: str, seed: int | None = None) -> Agent:
    """Build an agent for the game `env` (a spec, or an env id for the default arguments) from its spec
    string; a `ppo:` policy must fit `env`'s sizes."""
    if isinstance(env, str):
        env = EnvSpec(env)
    if spec == "random":
        return RandomAgent(seed)
    if spec == PRETRAINED:
        from tabletop.agents.onnx_agent import OnnxAgent

        agent = OnnxAgent(pretrained_folder(env), env_id=env.env_id)
        agent.name = PRETRAINED
        return _at_table(agent, env)
    kind, _, path = spec.partition(":")
    if kind == "search":
        from tabletop.agents.search import make_search

        policies = {"random": RandomAgent, **heuristics(env.env_id)}
        return make_search(env, game_of(env.env_id), policies, spec, lambda name: make_agent(env, name), seed=seed)
    if path and kind == "ppo":
        if not Path(path).exists():  # before torch loads: a mistyped path answers at once
            raise ValueError(f"no trained model at {path!r}: expected a run folder, a checkpoint folder or a policy.pt")
        require("a trained policy (ppo: agent)", "torch")
        from tabletop.agents.networks.runs import load_saved
        from tabletop.agents.policy_agent import PolicyAgent

        saved = load_saved(path, env)
        if _plays_through_adapter(saved.env, env):  # a moves-mode Kings Cribbage run at a tiles-mode table
            from tabletop.agents.kings_cribbage_tiles import at_table

            return at_table(PolicyAgent.from_saved(saved, saved.env, f"ppo:{path}", seed), env, saved.env)
        return PolicyAgent.from_saved(saved, env, name=f"ppo:{path}", seed=seed)
    if path and kind == "onnx":
        from tabletop.agents.onnx_agent import OnnxAgent

        return _at_table(OnnxAgent(path, env_id=env.env_id), env)
    table = heuristics(env.env_id)
    if spec not in table:
        allowed = ", ".join(["random", *table, PRETRAINED, "ppo:PATH", "onnx:DIR", "search[:KEY=VALUE,...]"])
        raise ValueError(f"unknown agent {spec!r} for {env.env_id}; allowed: {allowed}")
    return table[spec](seed=seed)

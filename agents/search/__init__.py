"""Search players (`search:KEY=VALUE,...`): determinized rollouts over `State.resample` with a heuristic
(player.py), or guided by a network's prior and value (`search:policy=...`, guided.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop.agents.search.player import SearchAgent, searchable
from tabletop.agents.search.spec import PREFIX, GuidedOptions, SearchOptions, parse_search

__all__ = ["PREFIX", "GuidedOptions", "SearchAgent", "SearchOptions", "make_search", "parse_search", "searchable"]


def make_search(
    env: Any, game: str, policies: dict[str, type], spec: str, exported: Callable[[str], Any], seed: int | None = None
):
    """The search player `spec` names at the table `env` (an EnvSpec): the plain one, or with `policy=` the
    guided one over that network (agents/search/networks.py loads it; `exported("pretrained")` or
    `exported("onnx:DIR")` builds an exported player)."""
    options = parse_search(spec)
    if isinstance(options, SearchOptions):
        return SearchAgent(env.env_id, game, policies, options, seed=seed, name=spec)
    from tabletop.agents.search.guided import GuidedSearch
    from tabletop.agents.search.networks import load_net

    return GuidedSearch(env, game, policies, options, load_net(env, options.policy, exported), seed=seed, name=spec)

"""Search players (`search:KEY=VALUE,...`): determinized rollouts over `State.resample` with a heuristic."""

from tabletop.agents.search.player import SearchAgent, searchable
from tabletop.agents.search.spec import PREFIX, SearchOptions, parse_search

__all__ = ["PREFIX", "SearchAgent", "SearchOptions", "parse_search", "searchable"]

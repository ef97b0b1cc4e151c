"""Players: the random agent, per-game heuristics, trained and exported policies."""

from tabletop.agents.base import Agent, RandomAgent
from tabletop.agents.registry import agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]

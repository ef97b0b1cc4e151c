"""Players: the random agent, per-game heuristics, trained (`PolicyAgent`) and exported (`OnnxAgent`) policies.

Importing this package loads neither torch nor onnxruntime: the policy players import them when built.
"""

from tabletop.agents.base import Agent, RandomAgent
from tabletop.agents.onnx_agent import OnnxAgent
from tabletop.agents.policy_agent import PolicyAgent
from tabletop.agents.registry import agent_names, make_agent

__all__ = ["Agent", "OnnxAgent", "PolicyAgent", "RandomAgent", "agent_names", "make_agent"]

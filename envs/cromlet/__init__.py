"""Cromlet: claim cromlets at the right moment with the cards you are dealt."""

from envs.cromlet.rules import NUM_ACTIONS, CromletGame, CromletState, decode_action

__all__ = ["NUM_ACTIONS", "CromletGame", "CromletState", "decode_action"]

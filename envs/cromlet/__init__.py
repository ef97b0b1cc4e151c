"""Cromlet: claim cromlets at the right moment with the cards you are dealt."""

from tabletop.envs.cromlet.rules import NUM_ACTIONS, CromletGame, CromletState, decode_action

__all__ = ["NUM_ACTIONS", "CromletGame", "CromletState", "decode_action"]

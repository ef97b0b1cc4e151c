"""Kings Cribbage: make or extend crib hands (runs, pairs, fifteens) of 2-5 tiles on a 13x13 board."""

from tabletop.envs.kings_cribbage.rules import KingsCribbageGame, KingsCribbageState, score_crib_hand

__all__ = ["KingsCribbageGame", "KingsCribbageState", "score_crib_hand"]

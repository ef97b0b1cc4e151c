"""KRZ GRTN: the cooperative consonant-clue game (rules, picture deck, encoding, rendering)."""

from tabletop.envs.krz_grtn.rules import KrzGrtn, KrzState

__all__ = ["KrzGrtn", "KrzState"]

"""The vocabulary of a level attempt: its phases, the clue minimum and the ways a game ends.

The rules move through these; saved states name them; the observer and renderer read them (through
`rules`, which imports them from here).
"""

from __future__ import annotations

PHASES = ("vote", "clue", "return", "guess", "over")
VOTE, CLUE, RETURN, GUESS, OVER = range(len(PHASES))

MIN_CLUE_LETTERS = 2
"""A clue needs at least two letter tiles (blanks do not count)."""
NUM_LEVELS = 6

END_WON = "all six levels passed"
END_FAILED = "a level failed with no life card left"
END_SHORT = "a clue giver has fewer than 2 letters and no life card is left"
END_REASONS = (END_WON, END_FAILED, END_SHORT)
"""Every `end_reason` a finished game can have; only the first is a win."""

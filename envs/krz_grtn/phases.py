"""The phases of a level attempt (shared by the rules, the encoder and the renderer)."""

PHASES = ("vote", "clue", "return", "guess", "over")
VOTE, CLUE, RETURN, GUESS, OVER = range(len(PHASES))

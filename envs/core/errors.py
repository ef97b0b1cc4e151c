"""Errors shared by every game."""


class IllegalActionError(ValueError):
    """An action that the current state does not allow (the mask says 0 there)."""

"""Errors shared by every game."""


class IllegalActionError(ValueError):
    """An action that the current state does not allow (the mask says 0 there)."""


class IllegalActionWarning(UserWarning):
    """An illegal action ended the game (`illegal_action="penalize"`, the default): names the agent and the action."""


class InvalidStateError(ValueError):
    """A saved state the rules cannot reach in this configuration. Names the field and the problem."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"invalid state: {field}: {problem}")

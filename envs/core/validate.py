"""Reading a saved state field by field, so that every problem is an `InvalidStateError` naming its field.

`State.from_json` implementations read their input only through these helpers (or raise
`InvalidStateError` themselves), never index raw JSON directly: a missing key, a wrong type or a value
out of range must never surface as a KeyError, IndexError or TypeError.
"""

from __future__ import annotations

from typing import Any

from tabletop.envs.core.errors import InvalidStateError

_MISSING = object()


def require(condition: bool, field: str, problem: str) -> None:
    """Raise `InvalidStateError(field, problem)` unless `condition` holds."""
    if not condition:
        raise InvalidStateError(field, problem)


def get(data: Any, key: str, kind: type | tuple[type, ...], field: str | None = None, default: Any = _MISSING) -> Any:
    """`data[key]`, which must exist (unless a default is given) and be of `kind` (bools are not ints)."""
    field = field or key
    require(isinstance(data, dict), field.rpartition(".")[0] or "state", "must be a JSON object")
    if key not in data:
        require(default is not _MISSING, field, "missing")
        return default
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    names = " or ".join(k.__name__ for k in kinds)
    require(ok, field, f"must be {names}, got {type(value).__name__}")
    return value


def integer(value: Any, field: str, low: int, high: int) -> int:
    """An int (not a bool) in [low, high]."""
    require(isinstance(value, int) and not isinstance(value, bool), field, f"must be an int, got {value!r}")
    require(low <= value <= high, field, f"{value} is out of range [{low}, {high}]")
    return int(value)


def seat(value: Any, field: str, num_players: int) -> int:
    """A seat index of this configuration."""
    return integer(value, field, 0, num_players - 1)


def check_playable(state: Any) -> None:
    """A position that is not over must offer its mover at least one legal action."""
    require(
        state.is_terminal() or bool(state.legal_action_mask().any()),
        "current_player",
        "the game is not over but the player to move has no legal action",
    )

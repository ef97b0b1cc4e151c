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
    if not isinstance(value, kinds) or (
        isinstance(value, bool) and bool not in kinds
    ):  # messages built only on failure
        names = " or ".join(k.__name__ for k in kinds)
        raise InvalidStateError(field, f"must be {names}, got {type(value).__name__}")
    return value


def integer(value: Any, field: str, low: int, high: int) -> int:
    """An int (not a bool) in [low, high]."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidStateError(field, f"must be an int, got {value!r}")
    if not low <= value <= high:
        raise InvalidStateError(field, f"{value} is out of range [{low}, {high}]")
    return int(value)


def seat(value: Any, field: str, num_players: int) -> int:
    """A seat index of this configuration."""
    return integer(value, field, 0, num_players - 1)


def check_header(data: Any, name: str, config: dict[str, Any]) -> None:
    """The state names this game and was saved with exactly this env's configuration.

    Values compare with their JSON types (`true` is not `1`, `2.0` is not `2`; lists and tuples alike)."""
    require(isinstance(data, dict), "state", f"must be a JSON object, got {type(data).__name__}")
    saved = get(data, "game", str)
    require(saved == name, "game", f"this env plays {name!r}, the state is of {saved!r}")
    saved = get(data, "config", dict)
    require(_same_json(saved, config), "config", f"the state was saved for {saved}, this env is {config}")


def _same_json(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def generator_state(state: Any, field: str = "rng", names: tuple[str, ...] = ("PCG64",)) -> dict[str, Any]:
    """A numpy PCG64-family `bit_generator.state`, exactly as numpy writes it (games that shuffle later save one)."""
    keys = {"bit_generator", "state", "has_uint32", "uinteger"}
    require(
        isinstance(state, dict) and set(state) == keys,
        field,
        f"must have exactly the keys {sorted(keys)} (numpy's PCG64 state)",
    )
    name = get(state, "bit_generator", str, f"{field}.bit_generator")
    require(name in names, f"{field}.bit_generator", f"must be one of {', '.join(names)}, got {name!r}")
    inner = get(state, "state", dict, f"{field}.state")
    require(set(inner) == {"state", "inc"}, f"{field}.state", "must have exactly the keys 'state' and 'inc'")
    integer(get(inner, "state", int, f"{field}.state.state"), f"{field}.state.state", 0, 2**128 - 1)
    inc = integer(get(inner, "inc", int, f"{field}.state.inc"), f"{field}.state.inc", 0, 2**128 - 1)
    require(inc % 2 == 1, f"{field}.state.inc", f"{inc} is even; the generator's increment is always odd")
    has_uint32 = integer(get(state, "has_uint32", int, f"{field}.has_uint32"), f"{field}.has_uint32", 0, 1)
    uinteger = integer(get(state, "uinteger", int, f"{field}.uinteger"), f"{field}.uinteger", 0, 2**32 - 1)
    return {"bit_generator": name, "state": dict(inner), "has_uint32": has_uint32, "uinteger": uinteger}


def check_playable(state: Any) -> None:
    """A position that is not over must offer its mover at least one legal action."""
    require(
        state.is_terminal() or bool(state.legal_action_mask().any()),
        "current_player",
        "the game is not over but the player to move has no legal action",
    )

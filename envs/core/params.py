"""Constructor parameters declared once, OpenSpiel-style: name, default, what is allowed, what it means.

A game lists its `Parameters` next to its rules; the adapter lists its own. The entry modules
(`raw_env`/`env`), the registry, the docs tables and every error message are built from these
declarations, so a default or an allowed range is written in exactly one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any


class ParameterError(TypeError, ValueError):
    """A constructor argument that is unknown or not allowed; the message names it and what is allowed.

    Both a TypeError (as Python reports an unknown keyword) and a ValueError (a bad value), so callers
    may catch either.
    """


@dataclass(frozen=True)
class Param:
    """One parameter. `choices` lists every allowed value; otherwise `check` decides and `allowed`
    says in words what it accepts (`choices` may be a list that grows, as the registry's ids do). `convert` turns a JSON/YAML spelling (a list) into the stored form."""

    name: str
    default: Any
    doc: str
    choices: Sequence | None = None
    check: Callable[[Any], bool] | None = None
    allowed: str = ""
    convert: Callable[[Any], Any] | None = None
    bounds: tuple[int, int] | None = None  # an int parameter's declared range, both ends allowed (`int_range`)

    def describe_allowed(self) -> str:
        if self.choices is not None:
            named = ", ".join(repr(c) for c in self.choices if c is not None)
            return f"{named}, or leave it out" if None in self.choices else named
        return self.allowed

    def validate(self, value: Any, owner: str) -> Any:
        """The value as stored, or a `ParameterError` naming the argument as given and what is allowed."""
        given = value
        if self.convert is not None and value is not None:
            try:
                value = self.convert(value)
            except (TypeError, ValueError):
                raise self._error(given, owner) from None
        if self.choices is not None:
            # bool is an int in Python; True must not pass for 1
            ok = any(value == c and type(value) is type(c) for c in self.choices)
        else:
            ok = self.check is None or bool(self.check(value))
        if not ok:
            raise self._error(given, owner)
        return value

    def _error(self, value: Any, owner: str) -> ParameterError:
        given = f"{self.name} with no value" if value is None else f"{self.name}={value!r}"
        return ParameterError(f"{owner}: {given} is not allowed; allowed: {self.describe_allowed()}")


class Parameters:
    """An ordered set of `Param`s: resolves keyword arguments into a complete, validated dict."""

    def __init__(self, *params: Param):
        self._params = {p.name: p for p in params}
        if len(self._params) != len(params):
            raise ValueError("duplicate parameter names")

    def __iter__(self) -> Iterator[Param]:
        return iter(self._params.values())

    def __contains__(self, name: object) -> bool:
        return name in self._params

    def __add__(self, other: Parameters) -> Parameters:
        return Parameters(*self, *other)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._params)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self}

    def with_defaults(self, defaults: Mapping[str, Any]) -> Parameters:
        """The same declarations with other defaults (a retired env id that keeps the meaning it was released with)."""
        unknown = set(defaults) - set(self._params)
        if unknown:
            raise ValueError(f"defaults for undeclared parameters: {', '.join(sorted(unknown))}")
        return Parameters(*(replace(p, default=defaults.get(p.name, p.default)) for p in self))

    def resolve(self, given: Mapping[str, Any], owner: str) -> dict[str, Any]:
        """Every parameter's value: the given ones validated, the rest at their defaults."""
        unknown = [name for name in given if name not in self._params]
        if unknown:
            raise ParameterError(
                f"{owner}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                f"its arguments are: {', '.join(self.names)}"
            )
        return {p.name: p.validate(given[p.name], owner) if p.name in given else p.default for p in self}

    def split(self, given: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the arguments declared here, the rest), without validating either."""
        mine = {k: v for k, v in given.items() if k in self._params}
        return mine, {k: v for k, v in given.items() if k not in self._params}

    def markdown(self) -> str:
        """The docs table: name, default, allowed values, meaning."""
        rows = ["| argument | default | allowed | meaning |", "|---|---|---|---|"]
        rows += [f"| `{p.name}` | `{p.default!r}` | {p.describe_allowed()} | {p.doc} |" for p in self]
        return "\n".join(rows)


def is_int(value: Any) -> bool:
    """An int that is not a bool (JSON and YAML give bools for true/false)."""
    return isinstance(value, int) and not isinstance(value, bool)


def int_in(low: int, high: int | None = None) -> Callable[[Any], bool]:
    """A check for ints in [low, high] (no upper end when `high` is None)."""
    return lambda v: is_int(v) and v >= low and (high is None or v <= high)


def int_words(low: int, high: int) -> str:
    """An int range in words, as messages and docs say it: "an int from 1 to 24"."""
    return f"an int from {low} to {high}"


def int_range(low: int, high: int, allowed: str | None = None) -> dict[str, Any]:
    """A `Param`'s check, words and `bounds` for an int in [low, high]; `allowed` words a range that other
    arguments narrow further (the game's own check then names the narrower range)."""
    return {"check": int_in(low, high), "allowed": allowed or int_words(low, high), "bounds": (low, high)}


def per_player_count(low: int, most: Mapping[int, int]) -> str:
    """A range whose top depends on the player count, in words: "an int from 1 to 69 for 2 players, 46 for 3"."""
    tops = [f"{top} for {n}" for n, top in most.items()]
    tops[0] += " player" if next(iter(most)) == 1 else " players"
    return f"an int from {low} to {', '.join(tops)}"


def feature_groups(groups: Mapping[str, str]) -> Param:
    """The observer's `features` parameter: which opt-in feature groups (name -> what it adds) the
    observation carries. The default is none, so a step pays only for the lean observation; a network
    that reads a group asks for it. Given as a list (YAML, JSON) or a tuple, stored as a sorted tuple."""
    names = tuple(groups)

    def check(value: Any) -> bool:
        return isinstance(value, tuple) and len(set(value)) == len(value) and all(v in groups for v in value)

    return Param(
        "features",
        (),
        "opt-in observation feature groups: " + "; ".join(f"`{name}`: {what}" for name, what in groups.items()),
        check=check,
        allowed=f"a list of distinct names from {', '.join(map(repr, names))} (default: none)",
        convert=_feature_tuple,
    )


def _feature_tuple(value: Any) -> tuple:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError("features are a list of names")
    return tuple(sorted(value, key=str))

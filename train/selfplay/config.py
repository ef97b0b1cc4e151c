"""Experiment configs: a small dataclass schema, parsed from YAML with strict validation.

Every key is checked: an unknown key, a wrong type or a bad value is a `ConfigError` that names the
dotted key and says what is allowed, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tabletop import envs
from tabletop.agents import agent_names
from tabletop.envs import EnvSpec

SELF = "self"  # frozen snapshots of the learner
HEURISTICS = "heuristics"  # every heuristic of the game, sharing one weight
LEARNER_SEATS = ("one", "all")
VEC_KINDS = ("subproc", "dummy")
ACTIVATIONS = ("tanh", "relu")


def allowed_opponents(env_id: str) -> list[str]:
    """Keys an `opponents.weights` mapping may use for this game."""
    return [SELF, HEURISTICS, *agent_names(env_id)]


class ConfigError(ValueError):
    """A config problem, always naming the offending key."""


def _positive(x) -> bool:
    return x > 0


def _non_negative(x) -> bool:
    return x >= 0


def _unit(x) -> bool:
    return 0 <= x <= 1


def _check(test, allowed: str) -> dict:
    return {"check": test, "allowed": allowed}


@dataclass
class PPOConfig:
    """MaskablePPO hyper-parameters (the names are SB3's)."""

    learning_rate: float = field(default=3e-4, metadata=_check(_positive, "a number > 0"))
    n_steps: int = field(default=512, metadata=_check(_positive, "an int > 0 (steps per env per rollout)"))
    batch_size: int = field(default=256, metadata=_check(_positive, "an int > 0"))
    n_epochs: int = field(default=4, metadata=_check(_positive, "an int > 0"))
    gamma: float = field(default=0.99, metadata=_check(_unit, "a number in [0, 1]"))
    gae_lambda: float = field(default=0.95, metadata=_check(_unit, "a number in [0, 1]"))
    clip_range: float = field(default=0.2, metadata=_check(_positive, "a number > 0"))
    ent_coef: float = field(default=0.01, metadata=_check(_non_negative, "a number >= 0"))
    vf_coef: float = field(default=0.5, metadata=_check(_non_negative, "a number >= 0"))
    max_grad_norm: float = field(default=0.5, metadata=_check(_positive, "a number > 0"))
    target_kl: float | None = field(default=None, metadata=_check(_positive, "null or a number > 0"))


@dataclass
class NetworkConfig:
    """Separate policy and value MLPs of this shape; kept small so frozen snapshots act cheaply."""

    hidden: list[int] = field(default_factory=lambda: [256, 256], metadata=_check(lambda h: len(h) > 0 and all(x > 0 for x in h), "a non-empty list of ints > 0"))
    activation: str = field(default="tanh", metadata=_check(lambda a: a in ACTIVATIONS, f"one of {', '.join(ACTIVATIONS)}"))


@dataclass
class OpponentConfig:
    """Who fills the other seats. Weight keys: `random`, `heuristics` (all of the game's heuristics,
    sharing the weight), a heuristic's name, or `self` (a uniformly drawn frozen snapshot)."""

    weights: dict[str, float] = field(default_factory=lambda: {SELF: 0.5, HEURISTICS: 0.4, "random": 0.1}, metadata=_check(lambda w: len(w) > 0 and all(v >= 0 for v in w.values()) and sum(w.values()) > 0, "a non-empty mapping to numbers >= 0 with a positive sum"))
    snapshot_every: int = field(default=20_000, metadata=_check(_positive, "an int > 0 (env steps)"))
    max_snapshots: int = field(default=10, metadata=_check(_positive, "an int > 0"))


@dataclass
class VecEnvConfig:
    kind: str = field(default="subproc", metadata=_check(lambda k: k in VEC_KINDS, f"one of {', '.join(VEC_KINDS)}"))
    num_envs: int = field(default=2, metadata=_check(_positive, "an int > 0"))


@dataclass
class EvalConfig:
    every: int = field(default=50_000, metadata=_check(_positive, "an int > 0 (env steps)"))
    games: int = field(default=200, metadata=_check(_positive, "an int > 0 (games per opponent)"))
    final_games: int = field(default=1000, metadata=_check(_positive, "an int > 0 (games per opponent at the end)"))


@dataclass
class CheckpointConfig:
    every: int = field(default=50_000, metadata=_check(_positive, "an int > 0 (env steps)"))
    keep: int = field(default=3, metadata=_check(_positive, "an int > 0 (newest checkpoints kept)"))


@dataclass
class TrainConfig:
    env_id: str = field(metadata=_check(lambda e: e in envs.ENV_IDS, f"one of {', '.join(envs.ENV_IDS)}"))
    total_steps: int = field(metadata=_check(_positive, "an int > 0 (learner env steps)"))
    seed: int = field(default=0, metadata=_check(_non_negative, "an int >= 0"))
    torch_threads: int = field(default=1, metadata=_check(_positive, "an int > 0 (1 is fastest for small nets on a busy machine)"))
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    learner_seats: str = field(default="one", metadata=_check(lambda s: s in LEARNER_SEATS, "one (competitive: the learner takes one rotating seat) or all (cooperative: one shared policy plays every seat)"))
    margin_shaping: float = field(default=0.0, metadata=_check(_non_negative, "a number >= 0 (0: the env's reward only)"))
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    vec_env: VecEnvConfig = field(default_factory=VecEnvConfig)
    evaluation: EvalConfig = field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)

    @property
    def env(self) -> EnvSpec:
        """The game, as every other part of training takes it (the YAML keeps `env_id` and `env_kwargs`)."""
        return EnvSpec(self.env_id, self.env_kwargs)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a YAML config file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    with open(path) as f:
        try:
            data = yaml.safe_load(f)
        except yaml.YAMLError as err:
            raise ConfigError(f"{path}: not valid YAML: {err}") from None
    return parse_config(data, source=str(path))


def parse_config(data: Any, source: str = "config") -> TrainConfig:
    """Build a validated `TrainConfig` from plain data (a parsed YAML document)."""
    config = _build(TrainConfig, data, prefix="", source=source)
    _check_cross_fields(config, source)
    return config


def _build(cls, data: Any, prefix: str, source: str):
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: {prefix.rstrip('.') or 'the document'} must be a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{source}: unknown key {prefix + unknown[0]!r}; allowed keys here: {', '.join(fields)}")
    values = {}
    for name, f in fields.items():
        key = prefix + name
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ConfigError(f"{source}: missing required key {key!r}")
            continue
        hint = hints[name]
        if dataclasses.is_dataclass(hint):
            values[name] = _build(hint, data[name], key + ".", source)
            continue
        value = _coerce(data[name], hint, key, source)
        check = f.metadata.get("check")
        if check is not None and value is not None and not check(value):
            raise ConfigError(f"{source}: {key}={data[name]!r} is not allowed; expected {f.metadata['allowed']}")
        values[name] = value
    return cls(**values)


def _coerce(value: Any, hint: Any, key: str, source: str) -> Any:
    """Check `value` against a type hint; ints are accepted where floats are expected."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (hint,) = [a for a in args if a is not type(None)]
        return _coerce(value, hint, key, source)
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{source}: {key} must be a list, got {value!r}")
        return [_coerce(v, args[0], f"{key}[{i}]", source) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: {key} must be a mapping, got {value!r}")
        return {_coerce(k, args[0], key, source): _coerce(v, args[1], f"{key}.{k}", source) for k, v in value.items()}
    if hint is Any:
        return value
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        raise ConfigError(f"{source}: {key} must be {hint.__name__}, got {value!r}")
    return value


def _check_cross_fields(config: TrainConfig, source: str) -> None:
    """What one field cannot check alone: the env builds, opponent names exist, batches fit."""
    try:
        game = config.env.new_game()
    except ImportError as err:
        raise ConfigError(f"{source}: env_id {config.env_id!r} is not available yet ({err})") from None
    except (TypeError, ValueError) as err:  # ParameterError is both
        raise ConfigError(f"{source}: env_kwargs are not accepted by {config.env_id}: {err}") from None
    rollout = config.ppo.n_steps * config.vec_env.num_envs
    if config.ppo.batch_size > rollout:
        raise ConfigError(
            f"{source}: ppo.batch_size={config.ppo.batch_size} exceeds the rollout size "
            f"ppo.n_steps * vec_env.num_envs = {rollout}"
        )
    if config.learner_seats == "one" and game.num_players > 1:
        allowed = allowed_opponents(config.env_id)
        for name in config.opponents.weights:
            if name not in allowed:
                raise ConfigError(
                    f"{source}: unknown opponent opponents.weights.{name}; allowed: {', '.join(allowed)}"
                )

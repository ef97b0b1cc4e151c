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
from tabletop.agents.networks import ACTIVATIONS, KINDS, network_spec
from tabletop.agents.networks.actor_critic import DEFAULTS
from tabletop.envs import EnvSpec

SELF = "self"  # frozen snapshots of the learner
HEURISTICS = "heuristics"  # every heuristic of the game, sharing one weight
LEARNER_SEATS = ("one", "all")
VEC_KINDS = ("batched", "dummy", "subproc")
SAMPLINGS = ("uniform", "pfsp")
ALGORITHMS = {"sb3": ("ppo",), "rllib": ("ppo", "appo")}  # backend -> the algorithms it runs
# keys only backend sb3 reads -> the value that means "not used", which backend rllib accepts
SB3_ONLY = {
    "vec_env": None,
    "warm_start": None,
    "margin_shaping": 0,
    "ppo.n_steps": None,
    "ppo.target_kl": None,
    "network.kind": "mlp",
    "opponents.sampling": "uniform",
}


def check_learner_seats(learner_seats: str) -> None:
    """What a self-play env accepts as `learner_seats` (the config's own check words it for YAML)."""
    if learner_seats not in LEARNER_SEATS:
        raise ValueError(f"learner_seats={learner_seats!r}; allowed: {', '.join(map(repr, LEARNER_SEATS))}")


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
    """`mlp`: separate policy and value MLPs of shape `hidden`. `circles` (Cromlet): one network shared by
    every circle, `width` wide with `blocks` residual blocks. `board` (Chromino, Kings Cribbage with
    action_mode tiles): `width` convolution channels, `blocks` residual 3x3 convolutions, a per-cell head and a
    critic MLP `hidden`. `moves` (Kings Cribbage with action_mode moves): one scorer shared by every offered
    move, `width` wide with `blocks` residual blocks that pool the offered moves, and a critic MLP `hidden`.
    `roles` (KRZ GRTN): a tile scorer shared by every tile kind for the givers and a clue-picture scorer shared
    by every pair for X, `width` wide, a critic MLP `hidden`; `frozen_role` keeps one role's weights out of
    PPO's updates. The networks live in agents/networks/; a game offers a kind through its observer's
    `network_structures`."""

    kind: str = field(default="mlp", metadata=_check(lambda k: k in KINDS, f"one of {', '.join(KINDS)}"))
    hidden: list[int] = field(
        default_factory=lambda: list(DEFAULTS["hidden"]),
        metadata=_check(lambda h: len(h) > 0 and all(x > 0 for x in h), "a non-empty list of ints > 0"),
    )
    activation: str = field(
        default=DEFAULTS["activation"], metadata=_check(lambda a: a in ACTIVATIONS, f"one of {', '.join(ACTIVATIONS)}")
    )
    width: int = field(
        default=DEFAULTS["width"],
        metadata=_check(_positive, "an int > 0 (circles: embedding size per circle; moves: per move)"),
    )
    blocks: int = field(
        default=DEFAULTS["blocks"],
        metadata=_check(
            _non_negative,
            "an int >= 0 (circles: residual blocks that pool each cromlet and the board; moves: that pool the offered moves)",
        ),
    )
    frozen_role: str | None = field(
        default=None,
        metadata=_check(
            lambda r: r in ("givers", "x"),
            "null, givers or x (roles: that role's weights stay as they are while the other role learns)",
        ),
    )


@dataclass
class OpponentConfig:
    """Who fills the other seats. Weight keys: `random`, `heuristics` (all of the game's heuristics,
    sharing the weight), a heuristic's name, or `self` (a uniformly drawn frozen snapshot)."""

    weights: dict[str, float] = field(
        default_factory=lambda: {SELF: 0.5, HEURISTICS: 0.4, "random": 0.1},
        metadata=_check(
            lambda w: len(w) > 0 and all(v >= 0 for v in w.values()) and sum(w.values()) > 0,
            "a non-empty mapping to numbers >= 0 with a positive sum",
        ),
    )
    snapshot_every: int = field(default=20_000, metadata=_check(_positive, "an int > 0 (env steps)"))
    max_snapshots: int = field(default=10, metadata=_check(_positive, "an int > 0"))
    sampling: str = field(
        default="uniform",
        metadata=_check(
            lambda s: s in SAMPLINGS,
            "uniform (by the weights) or pfsp (the weights times how often each opponent still beats the learner)",
        ),
    )


@dataclass
class WarmStartConfig:
    """Imitation before PPO: clone `teacher` from its decisions in `games` games against `opponents`
    (train/selfplay/imitation.py), then fit the value head on the outcomes."""

    teacher: str = field(metadata=_check(lambda t: bool(t), "an agent name (a heuristic of the game)"))
    games: int = field(metadata=_check(_positive, "an int > 0 (games the teacher plays)"))
    opponents: list[str] = field(default_factory=list)  # agent names, checked with the game; empty: the teacher itself
    epochs: int = field(default=4, metadata=_check(_positive, "an int > 0"))
    batch_size: int = field(default=512, metadata=_check(_positive, "an int > 0"))
    learning_rate: float = field(default=1e-3, metadata=_check(_positive, "a number > 0"))
    value_coef: float = field(default=1.0, metadata=_check(_non_negative, "a number >= 0"))
    eval_games: int = field(
        default=200, metadata=_check(_non_negative, "an int >= 0 (games of the clone against each baseline; 0: none)")
    )


@dataclass
class VecEnvConfig:
    """`num_envs` games: `batched` in one VecEnv with the opponents' moves batched (fastest measured, also
    on 2 busy cores), `dummy` one SeatEnv per game in this process, `subproc` one per worker process."""

    kind: str = field(default="batched", metadata=_check(lambda k: k in VEC_KINDS, f"one of {', '.join(VEC_KINDS)}"))
    num_envs: int = field(default=2, metadata=_check(_positive, "an int > 0"))


@dataclass
class RLlibConfig:
    """`backend: rllib` (train/rllib/): who samples, how much per iteration, and the size of a local Ray."""

    num_env_runners: int = field(
        default=0,
        metadata=_check(_non_negative, "an int >= 0 (sampling processes besides the driver; 0: the driver samples)"),
    )
    num_envs_per_env_runner: int = field(
        default=8, metadata=_check(_positive, "an int > 0 (games each sampler steps together)")
    )
    train_batch_size: int = field(
        default=4096, metadata=_check(_positive, "an int > 0 (env steps per training iteration)")
    )
    num_cpus: int = field(
        default=2, metadata=_check(_positive, "an int > 0 (CPUs of a local Ray; ignored when joining a cluster)")
    )
    object_store_mb: int = field(
        default=200,
        metadata=_check(lambda m: m >= 80, "an int >= 80 (MiB of object store of a local Ray; Ray's minimum is 75)"),
    )


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
    torch_threads: int = field(
        default=1, metadata=_check(_positive, "an int > 0 (1 is fastest for small nets on a busy machine)")
    )
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    backend: str = field(
        default="sb3",
        metadata=_check(
            lambda b: b in ALGORITHMS, "sb3 (MaskablePPO in this process) or rllib (Ray RLlib, locally or on a cluster)"
        ),
    )
    algorithm: str = field(
        default="ppo", metadata=_check(lambda a: a in ALGORITHMS["rllib"], "ppo, or appo with backend: rllib")
    )
    ray_address: str | None = field(
        default=None,
        metadata=_check(
            lambda a: bool(a.strip()),
            "null (a local Ray, or $RAY_ADDRESS when set) or a cluster address such as auto or ray://head:10001",
        ),
    )
    rllib: RLlibConfig | None = None
    learner_seats: str = field(
        default="one",
        metadata=_check(
            lambda s: s in LEARNER_SEATS,
            "one (competitive: the learner takes one rotating seat) or all (cooperative: one shared policy plays every seat)",
        ),
    )
    margin_shaping: float = field(
        default=0.0, metadata=_check(_non_negative, "a number >= 0 (0: the env's reward only)")
    )
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    warm_start: WarmStartConfig | None = None
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
    _check_backend(config, data, source)
    _check_cross_fields(config, source)
    return config


def _build(cls, data: Any, prefix: str, source: str):
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source}: {prefix.rstrip('.') or 'the document'} must be a mapping, got {type(data).__name__}"
        )
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
        hint = _optional_dataclass(hints[name]) if data[name] is not None else hints[name]
        if dataclasses.is_dataclass(hint):
            values[name] = _build(hint, data[name], key + ".", source)
            continue
        value = _coerce(data[name], hint, key, source)
        check = f.metadata.get("check")
        if check is not None and value is not None and not check(value):
            raise ConfigError(f"{source}: {key}={data[name]!r} is not allowed; expected {f.metadata['allowed']}")
        values[name] = value
    return cls(**values)


def _optional_dataclass(hint: Any) -> Any:
    """`Section | None` -> `Section` (a section that may be left out); any other hint unchanged."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(inner) == 1 and dataclasses.is_dataclass(inner[0]):
            return inner[0]
    return hint


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


def _given(data: dict, dotted: str) -> Any:
    """What the document says for `section.key` (or a top-level `key`); None when it says nothing."""
    node: Any = data
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _check_backend(config: TrainConfig, data: dict, source: str) -> None:
    """Each backend reads its own keys: a key the chosen backend would ignore is an error, not a no-op."""
    if config.algorithm not in ALGORITHMS[config.backend]:
        raise ConfigError(
            f"{source}: algorithm={config.algorithm!r} is not run by backend {config.backend}; allowed: {', '.join(ALGORITHMS[config.backend])}"
        )
    if config.backend == "sb3":
        for key in ("rllib", "ray_address"):
            if data.get(key) is not None:
                raise ConfigError(
                    f"{source}: {key} is read by backend: rllib only; this config trains with backend: sb3"
                )
        return
    for dotted, unused in SB3_ONLY.items():
        given = _given(data, dotted)
        if given is not None and given != unused:
            raise ConfigError(
                f"{source}: {dotted} is read by backend: sb3 only; backend: rllib reads the rllib: section "
                "(num_env_runners, num_envs_per_env_runner, train_batch_size, num_cpus, object_store_mb)"
            )
    if config.rllib is None:
        config.rllib = RLlibConfig()
    if config.ppo.batch_size > config.rllib.train_batch_size:
        raise ConfigError(
            f"{source}: ppo.batch_size={config.ppo.batch_size} (the minibatch) exceeds rllib.train_batch_size={config.rllib.train_batch_size}"
        )


def _check_cross_fields(config: TrainConfig, source: str) -> None:
    """What one field cannot check alone: the env builds, opponent names exist, batches fit."""
    try:
        game = config.env.new_game()
    except ImportError as err:
        raise ConfigError(f"{source}: env_id {config.env_id!r} is not available yet ({err})") from None
    except (TypeError, ValueError) as err:  # ParameterError is both
        raise ConfigError(f"{source}: env_kwargs are not accepted by {config.env_id}: {err}") from None
    rollout = config.ppo.n_steps * config.vec_env.num_envs
    if config.backend == "sb3" and config.ppo.batch_size > rollout:
        raise ConfigError(
            f"{source}: ppo.batch_size={config.ppo.batch_size} exceeds the rollout size "
            f"ppo.n_steps * vec_env.num_envs = {rollout}"
        )
    if config.network.kind != "mlp":
        try:  # the game's observer says whether it offers the kind, and what its arguments lack for it
            network_spec(config.env, config.network.kind)
        except ValueError as err:
            raise ConfigError(f"{source}: {err}") from None
    if config.network.frozen_role is not None and config.network.kind != "roles":
        raise ConfigError(
            f"{source}: network.frozen_role freezes one role of the roles network; this config has network.kind={config.network.kind!r}"
        )
    if config.warm_start is not None:
        names = agent_names(config.env_id)
        for key, name in [("teacher", config.warm_start.teacher)] + [
            (f"opponents[{i}]", o) for i, o in enumerate(config.warm_start.opponents)
        ]:
            if name not in names:
                raise ConfigError(f"{source}: unknown agent warm_start.{key}={name!r}; allowed: {', '.join(names)}")
    if config.learner_seats == "one" and game.num_players > 1:
        allowed = allowed_opponents(config.env_id)
        for name in config.opponents.weights:
            if name not in allowed:
                raise ConfigError(f"{source}: unknown opponent opponents.weights.{name}; allowed: {', '.join(allowed)}")

"""Experiment configs: sections of `Param` declarations (envs/core/params, as the games declare their
arguments), parsed from YAML with strict validation, one section per training backend.

    env_id, env_kwargs, total_steps, seed, torch_threads, learner_seats, backend     the run
    ppo:          the PPO hyper-parameters both backends read
    network:      the policy network (agents/networks/)
    opponents:    who fills the other seats
    evaluation:, checkpoint:
    sb3:          what only `backend: sb3` reads: rollout length, KL stop, margin shaping, opponent sampling,
                  vec_env:, warm_start:
    rllib:        what only `backend: rllib` reads: algorithm, cluster, samplers, iteration size, a local Ray

Every key is checked: an unknown key or a bad value is a `ConfigError` that names the section and the key and
says what is allowed, so a typo never silently falls back to a default; the section of the backend the config
does not train with is an error, not a no-op. A config may also give a backend's keys flat (SB3-only keys at the
top, in `ppo:` and `opponents:`; RLlib's `algorithm` and `ray_address` at the top): those keys are moved into
their section first (`FLAT_KEYS`).
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from dataclasses import dataclass, field, make_dataclass
from pathlib import Path
from typing import Any

import yaml

from tabletop import envs
from tabletop.agents import agent_names, make_agent
from tabletop.agents.networks import ACTIVATION_NAMES, CRITIC_INPUTS, DEFAULTS, KINDS
from tabletop.agents.networks.spec import network_spec
from tabletop.agents.registry import game_of, heuristics
from tabletop.agents.search import PREFIX as SEARCH
from tabletop.envs import EnvSpec
from tabletop.envs.core.params import Param, ParameterError, Parameters, int_in, is_int

SELF = "self"  # frozen snapshots of the learner
HEURISTICS = "heuristics"  # every heuristic of the game, sharing one weight
LEARNER_SEATS = ("one", "all")
VEC_KINDS = ("batched", "dummy", "subproc")
SAMPLINGS = ("uniform", "pfsp")
BACKENDS = {  # backend -> the module that trains it (`train`, `summary`), imported when used
    "sb3": "tabletop.train.selfplay.trainer",
    "rllib": "tabletop.train.rllib.trainer",
}
REQUIRED = object()  # the default of a key every config must give
FLAT_KEYS = {  # a backend's key given outside its section -> where it belongs
    "vec_env": "sb3.vec_env",
    "warm_start": "sb3.warm_start",
    "margin_shaping": "sb3.margin_shaping",
    "ppo.n_steps": "sb3.n_steps",
    "ppo.target_kl": "sb3.target_kl",
    "opponents.sampling": "sb3.sampling",
    "algorithm": "rllib.algorithm",
    "ray_address": "rllib.ray_address",
}


def check_learner_seats(learner_seats: str) -> None:
    """What a self-play env accepts as `learner_seats` (the config's own check words it for YAML)."""
    if learner_seats not in LEARNER_SEATS:
        raise ValueError(f"learner_seats={learner_seats!r}; allowed: {', '.join(map(repr, LEARNER_SEATS))}")


def allowed_opponents(env_id: str) -> list[str]:
    """The names an `opponents` mapping may use for this game without a search player."""
    return [SELF, HEURISTICS, *agent_names(env_id)]


def expand_weights(env_id: str, weights: dict[str, float]) -> dict[str, float]:
    """Split the `heuristics` group weight evenly over the game's heuristics; drop zero weights."""
    expanded: dict[str, float] = {}
    for name, w in weights.items():
        if name != HEURISTICS:
            expanded[name] = expanded.get(name, 0.0) + w
            continue
        names = list(heuristics(env_id))
        if not names:
            # the warning is about the config, not the caller's line: no stacklevel
            warnings.warn(f"{env_id} has no heuristics (agents/{game_of(env_id)}.py); their share goes to random")  # noqa: B028
            names = ["random"]
        for h in names:
            expanded[h] = expanded.get(h, 0.0) + w / len(names)
    return {k: v for k, v in expanded.items() if v > 0}


def agent_problem(env: EnvSpec, name: str, also: tuple[str, ...] = ()) -> str | None:
    """None when `name` is one of `also` or plays `env` without a saved policy (random, a heuristic, or a search
    player, `search` or `search:KEY=VALUE,...`, built once here to check its keys); else what is wrong."""
    if name in also or name in agent_names(env.env_id):
        return None
    if name.partition(":")[0] != SEARCH:
        return f"unknown agent; allowed: {', '.join([*also, *agent_names(env.env_id)])}, {SEARCH}[:KEY=VALUE,...]"
    try:
        make_agent(env, name)
    except ValueError as error:
        return str(error)
    return None


class ConfigError(ValueError):
    """A config problem, always naming the offending key."""


# --- value checks ------------------------------------------------------------------------------------------
def _number(value: Any) -> float:
    """An int or float (not a bool) as a float; anything else fails the key's check."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("not a number")
    return float(value)


def number(low: float, high: float | None = None, above: bool = False) -> dict:
    """A float key's `Param` arguments: >= low (> low with `above`), <= high when given; ints read as floats."""

    def check(v: float) -> bool:
        return (v > low if above else v >= low) and (high is None or v <= high)

    allowed = (
        f"a number from {low:g} to {high:g}"
        if high is not None
        else f"a number {'above' if above else 'of at least'} {low:g}"
    )
    return {"check": check, "convert": _number, "allowed": allowed}


def integer(low: int) -> dict:
    """An int key's `Param` arguments: >= low (a bool is no int)."""
    return {"check": int_in(low), "allowed": f"a whole number of at least {low:,}"}


def boolean() -> dict:
    """A true/false key's `Param` arguments (YAML's true or false; no 0 or 1)."""
    return {"check": lambda v: isinstance(v, bool), "allowed": "true or false"}


def optional(kwargs: dict) -> dict:
    """The same check, or no value (YAML's null, or the key left out)."""
    check, convert = kwargs["check"], kwargs.get("convert")
    return {
        "check": lambda v: v is None or check(v),
        "convert": (lambda v: v if v is None else convert(v)) if convert else None,
        "allowed": kwargs["allowed"] + ", or no value",
    }


def _is_widths(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(is_int(x) and x > 0 for x in value)


def _weights(value: Any) -> dict[str, float]:
    """A mapping of names to numbers, the numbers as floats; anything else fails the key's check."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise TypeError("not a mapping of names")
    return {k: _number(v) for k, v in value.items()}


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


# --- the sections ------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)  # hashed by identity: CLASSES maps each section to its container
class Section:
    """A config section: its key declarations, its subsections, and whether it may be left out (None)."""

    params: Parameters
    children: dict[str, Section] = field(default_factory=dict)
    optional: bool = False


RUN = Parameters(
    Param("env_id", REQUIRED, "the game", choices=envs.ENV_IDS),  # the live list: a game registered later counts
    Param("total_steps", REQUIRED, "learner env steps in all", **integer(1)),
    Param("seed", 0, "the run's seed", **integer(0)),
    Param("torch_threads", 1, "torch's threads (1 is fastest for small nets on a busy machine)", **integer(1)),
    Param("env_kwargs", {}, "the game's arguments", check=lambda v: isinstance(v, dict), allowed="a mapping"),
    Param(
        "learner_seats",
        "one",
        "one (competitive: the learner takes one rotating seat) or all (cooperative: one policy plays every seat)",
        choices=LEARNER_SEATS,
    ),
    Param(
        "backend",
        "sb3",
        "sb3 (MaskablePPO in this process) or rllib (Ray RLlib, locally or on a cluster)",
        choices=tuple(BACKENDS),
    ),
)
PPO = Section(
    Parameters(  # the names are SB3's
        Param("learning_rate", 3e-4, "Adam's step size", **number(0, above=True)),
        Param("batch_size", 256, "the minibatch", **integer(1)),
        Param("n_epochs", 4, "passes over each batch", **integer(1)),
        Param("gamma", 0.99, "the discount", **number(0, 1)),
        Param("gae_lambda", 0.95, "GAE's lambda", **number(0, 1)),
        Param("clip_range", 0.2, "PPO's clip", **number(0, above=True)),
        Param("ent_coef", 0.01, "the entropy bonus", **number(0)),
        Param("vf_coef", 0.5, "the value loss's weight", **number(0)),
        Param("max_grad_norm", 0.5, "the gradient clip", **number(0, above=True)),
    )
)
NETWORK = Section(
    Parameters(
        Param("kind", "mlp", "the network kind (docs/training.md); a game offers the structured ones", choices=KINDS),
        Param(
            "hidden",
            DEFAULTS["hidden"],
            "MLP widths (the critic of a structured kind)",
            check=_is_widths,
            allowed="a non-empty list of ints > 0",
        ),
        Param("activation", DEFAULTS["activation"], "the activation", choices=ACTIVATION_NAMES),
        Param(
            "width",
            DEFAULTS["width"],
            "a structured kind's embedding size (per circle, cell channel, move, tile)",
            **integer(1),
        ),
        Param("blocks", DEFAULTS["blocks"], "a structured kind's residual blocks", **integer(0)),
        Param(
            "critic",
            DEFAULTS["critic"],
            "what the critic reads: full (the observation) or pooled (circles: the actor's pooled summary)",
            choices=tuple(CRITIC_INPUTS),
        ),
        Param(
            "frozen_role",
            None,
            "roles: that role's weights stay as they are while the other role learns",
            choices=(None, "givers", "x"),
        ),
    )
)
OPPONENTS = Section(
    Parameters(
        Param(
            "weights",
            {SELF: 0.5, HEURISTICS: 0.4, "random": 0.1},
            "random, heuristics (all of the game's, sharing the weight), a heuristic's name, or self (snapshots)",
            check=lambda w: len(w) > 0 and all(v >= 0 for v in w.values()) and sum(w.values()) > 0,
            convert=_weights,
            allowed="a non-empty mapping of names to numbers of at least 0 with a positive sum",
        ),
        Param("snapshot_every", 20_000, "learner steps between snapshots", **integer(1)),
        Param("max_snapshots", 10, "snapshots kept in the pool", **integer(1)),
    )
)
EVALUATION = Section(
    Parameters(
        Param("every", 50_000, "learner steps between evaluations", **integer(1)),
        Param("games", 200, "games per opponent", **integer(1)),
        Param("final_games", 1000, "games per opponent at the end", **integer(1)),
    )
)
CHECKPOINT = Section(
    Parameters(
        Param("every", 50_000, "learner steps between checkpoints", **integer(1)),
        Param("keep", 3, "newest checkpoints kept", **integer(1)),
    )
)
VEC_ENV = Section(
    Parameters(
        Param(
            "kind",
            "batched",
            "batched (every game in one VecEnv, opponents' moves batched), dummy (one SeatEnv per game) or subproc",
            choices=VEC_KINDS,
        ),
        Param("num_envs", 2, "games stepped together", **integer(1)),
    )
)
WARM_START = Section(
    Parameters(
        Param(
            "teacher",
            REQUIRED,
            "the agent to imitate: a heuristic, or a search player (search:KEY=VALUE,...) for expert iteration",
            check=lambda t: isinstance(t, str) and bool(t),
            allowed="an agent name",
        ),
        Param("games", REQUIRED, "games the teacher plays", **integer(1)),
        Param(
            "opponents", [], "agent names; empty: the teacher itself", check=_is_names, allowed="a list of agent names"
        ),
        Param("epochs", 4, "passes over the decisions", **integer(1)),
        Param("batch_size", 512, "the minibatch", **integer(1)),
        Param("learning_rate", 1e-3, "Adam's step size", **number(0, above=True)),
        Param("value_coef", 1.0, "the value loss's weight", **number(0)),
        Param("eval_games", 200, "games of the clone against each baseline (0: none)", **integer(0)),
        Param(
            "search_share",
            0.5,
            "a search teacher's target: this weight on its rollout shares, the rest on its move (0: its move alone)",
            **number(0, 1),
        ),
    ),
    optional=True,
)
SB3 = Section(
    Parameters(
        Param("n_steps", 512, "steps per env per rollout", **integer(1)),
        Param("target_kl", None, "stop an update's epochs past this KL", **optional(number(0, above=True))),
        Param("margin_shaping", 0.0, "0: the env's reward only", **number(0)),
        Param(
            "overlap",
            False,
            "update on a second thread while the next rollout is collected (one update of policy lag)",
            **boolean(),
        ),
        Param(
            "skip_forced",
            False,
            "the actor runs only on decisions with a choice, in the rollout, the update, the snapshots' passes and "
            "the warm start's fit (a forced move has nothing to learn); the same losses up to float rounding",
            **boolean(),
        ),
        Param(
            "sampling",
            "uniform",
            "uniform (by the weights) or pfsp (the weights times how often each opponent still beats the learner)",
            choices=SAMPLINGS,
        ),
    ),
    {"vec_env": VEC_ENV, "warm_start": WARM_START},
)
RLLIB = Section(
    Parameters(
        Param("algorithm", "ppo", "ppo or appo", choices=("ppo", "appo")),
        Param(
            "ray_address",
            None,
            "the cluster to join",
            check=lambda a: a is None or (isinstance(a, str) and bool(a.strip())),
            allowed="a cluster address such as auto or ray://head:10001, or no value (a local Ray, or $RAY_ADDRESS "
            "when set)",
        ),
        Param("num_env_runners", 0, "sampling processes besides the driver; 0: the driver samples", **integer(0)),
        Param("num_envs_per_env_runner", 8, "games each sampler steps together", **integer(1)),
        Param("train_batch_size", 4096, "env steps per training iteration", **integer(1)),
        Param("num_cpus", 2, "CPUs of a local Ray; ignored when joining a cluster", **integer(1)),
        Param("object_store_mb", 200, "MiB of object store of a local Ray (Ray's minimum is 75)", **integer(80)),
    ),
)
SECTIONS = {
    "ppo": PPO,
    "network": NETWORK,
    "opponents": OPPONENTS,
    "evaluation": EVALUATION,
    "checkpoint": CHECKPOINT,
    "sb3": SB3,
    "rllib": RLLIB,
}


def _dataclass(name: str, section: Section) -> type:
    """The typed container of a section: one field per key (its declared default) and per subsection."""
    fields = [(p.name, Any, field(default_factory=lambda p=p: copy.deepcopy(p.default))) for p in section.params]
    fields += [(child, Any, field(default=None)) for child in section.children]
    return make_dataclass(name, fields)


PPOConfig = _dataclass("PPOConfig", PPO)
NetworkConfig = _dataclass("NetworkConfig", NETWORK)
OpponentConfig = _dataclass("OpponentConfig", OPPONENTS)
EvalConfig = _dataclass("EvalConfig", EVALUATION)
CheckpointConfig = _dataclass("CheckpointConfig", CHECKPOINT)
VecEnvConfig = _dataclass("VecEnvConfig", VEC_ENV)
WarmStartConfig = _dataclass("WarmStartConfig", WARM_START)
SB3Config = _dataclass("SB3Config", SB3)
RLlibConfig = _dataclass("RLlibConfig", RLLIB)
CLASSES = {
    PPO: PPOConfig,
    NETWORK: NetworkConfig,
    OPPONENTS: OpponentConfig,
    EVALUATION: EvalConfig,
    CHECKPOINT: CheckpointConfig,
    VEC_ENV: VecEnvConfig,
    WARM_START: WarmStartConfig,
    SB3: SB3Config,
    RLLIB: RLlibConfig,
}


@dataclass
class TrainConfig:
    env_id: str
    total_steps: int
    seed: int
    torch_threads: int
    env_kwargs: dict[str, Any]
    learner_seats: str
    backend: str
    ppo: Any
    network: Any
    opponents: Any
    evaluation: Any
    checkpoint: Any
    sb3: Any = None  # `backend: sb3` only
    rllib: Any = None  # `backend: rllib` only

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
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the document must be a mapping, got {type(data).__name__}")
    data = sectioned(data)
    backend = data.get("backend", "sb3")
    other = next((b for b in BACKENDS if b != backend and data.get(b) is not None), None)
    if other is not None and backend in BACKENDS:
        raise ConfigError(
            f"{source}: the {other}: section is read by backend: {other} only; this config trains with backend: {backend}"
        )
    values = _resolve(RUN, {k: v for k, v in data.items() if k not in SECTIONS}, source, "", tuple(SECTIONS))
    for name, section in SECTIONS.items():
        if name in BACKENDS and name != values["backend"]:
            continue
        values[name] = _build(section, data.get(name), source, name)
    config = TrainConfig(**values)
    _check_cross_fields(config, source)
    return config


def sectioned(data: dict) -> dict:
    """The config with every flat key (`FLAT_KEYS`) moved into its backend section. A flat key left at its default
    (or null) for the backend the config does not train with is dropped."""
    data = copy.deepcopy(data)
    backend = data.get("backend", "sb3")
    for flat, home in FLAT_KEYS.items():
        *path, key = flat.split(".")
        node = data.get(path[0]) if path else data
        if not isinstance(node, dict) or key not in node:
            continue
        value = node.pop(key)
        section, inner = home.split(".")
        unused = section != backend and inner in SECTIONS[section].params and value == _default(section, inner)
        if value is None or unused:
            continue
        target = data.setdefault(section, {})
        if isinstance(target, dict):
            target[inner] = value
    return data


def _default(section: str, key: str) -> Any:
    return next(p.default for p in SECTIONS[section].params if p.name == key)


def _resolve(params: Parameters, given: dict, source: str, section: str, children: tuple = ()) -> dict[str, Any]:
    """The section's values, validated; a ConfigError names the section, the key and what is allowed."""
    owner = f"{source}: {section}" if section else source
    unknown = [k for k in given if k not in params]
    if unknown:
        key = f"{section}.{unknown[0]}" if section else unknown[0]
        raise ConfigError(f"{source}: unknown key {key!r}; allowed keys here: {', '.join([*params.names, *children])}")
    try:
        values = params.resolve(given, owner)
    except ParameterError as err:
        raise ConfigError(str(err)) from None
    missing = [name for name, value in values.items() if value is REQUIRED]
    if missing:
        key = f"{section}.{missing[0]}" if section else missing[0]
        raise ConfigError(f"{source}: missing required key {key!r}")
    return copy.deepcopy(values)  # a default list or mapping is each config's own


def _build(section: Section, given: Any, source: str, name: str) -> Any:
    if given is None:
        if section.optional:
            return None
        given = {}
    if not isinstance(given, dict):
        raise ConfigError(f"{source}: {name} must be a mapping, got {given!r}")
    own = {k: v for k, v in given.items() if k not in section.children}
    values = _resolve(section.params, own, source, name, tuple(section.children))
    for child_name, child in section.children.items():
        values[child_name] = _build(child, given.get(child_name), source, f"{name}.{child_name}")
    return CLASSES[section](**values)


def _check_cross_fields(config: TrainConfig, source: str) -> None:
    """What one key cannot check alone: the env builds, the network reads the game, opponent names exist,
    batches fit."""
    try:
        game = config.env.new_game()
    except ImportError as err:
        raise ConfigError(f"{source}: env_id {config.env_id!r} is not available yet ({err})") from None
    except (TypeError, ValueError) as err:  # ParameterError is both
        raise ConfigError(f"{source}: env_kwargs are not accepted by {config.env_id}: {err}") from None
    if config.network.kind != "mlp" or config.network.critic != DEFAULTS["critic"]:
        if config.backend != "sb3":
            raise ConfigError(f"{source}: backend: {config.backend} trains network.kind 'mlp' only")
        try:  # the game's observer says whether it offers the kind, and what its arguments lack for it
            network_spec(config.env, config.network.kind, critic=config.network.critic)
        except ValueError as err:
            raise ConfigError(f"{source}: {err}") from None
    if config.network.frozen_role is not None and config.network.kind != "roles":
        raise ConfigError(
            f"{source}: network.frozen_role freezes one role of the roles network; this config has network.kind={config.network.kind!r}"
        )
    if config.sb3 is not None:
        rollout = config.sb3.n_steps * config.sb3.vec_env.num_envs
        if config.ppo.batch_size > rollout:
            raise ConfigError(
                f"{source}: ppo.batch_size={config.ppo.batch_size} exceeds the rollout size "
                f"sb3.n_steps * sb3.vec_env.num_envs = {rollout}"
            )
        warm = config.sb3.warm_start
        if warm is not None:
            for key, name in [("teacher", warm.teacher)] + [
                (f"opponents[{i}]", o) for i, o in enumerate(warm.opponents)
            ]:
                problem = agent_problem(config.env, name)
                if problem is not None:
                    raise ConfigError(f"{source}: sb3.warm_start.{key}={name!r}: {problem}")
    if config.rllib is not None and config.ppo.batch_size > config.rllib.train_batch_size:
        raise ConfigError(
            f"{source}: ppo.batch_size={config.ppo.batch_size} (the minibatch) exceeds rllib.train_batch_size={config.rllib.train_batch_size}"
        )
    if config.learner_seats == "one" and game.num_players > 1:
        for name in config.opponents.weights:
            problem = agent_problem(config.env, name, also=(SELF, HEURISTICS))
            if problem is not None:
                raise ConfigError(f"{source}: opponents.weights.{name}: {problem}")

"""Benchmark suites: YAML files of tasks and per-algorithm hyperparameters, declared and checked like configs.

    tasks:        name -> a task (TASK below: the game, the learner's seats, training opponents, the budget,
                  the evaluation schedule, the panel, evaluation games and seeds)
    algorithms:   family name (families.FAMILIES) -> hyperparameters that override the family's defaults

Every key is checked once, here or when a family is chosen (`Suite.params`): an unknown key, a bad value, an
unknown agent in a panel, an evaluation seed inside the training range, an unknown family is a `SuiteError`
naming the task or algorithm, the key and what is allowed.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tabletop import envs
from tabletop.agents import agent_names
from tabletop.agents.registry import PRETRAINED, pretrained_folder
from tabletop.envs import EnvSpec
from tabletop.envs.core.params import Param, ParameterError, Parameters, int_in
from tabletop.train.benchmark.families import FAMILIES, family_defaults
from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW, Task
from tabletop.train.selfplay.config import (
    LEARNER_SEATS,
    allowed_opponents,
    boolean,
    expand_weights,
    integer,
    optional,
)

REQUIRED = object()
EVAL_MODES = ("greedy", "sample")


class SuiteError(ValueError):
    """A suite problem, always naming the task or algorithm and the key."""


def _is_weights(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) > 0
        and all(
            isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in value.items()
        )
        and all(v >= 0 for v in value.values())
        and sum(value.values()) > 0
    )


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(isinstance(x, str) for x in value)


TASK = Parameters(
    Param("env_id", REQUIRED, "the game", choices=envs.ENV_IDS),
    Param("env_kwargs", {}, "the game's arguments", check=lambda v: isinstance(v, dict), allowed="a mapping"),
    Param(
        "learner_seats",
        "one",
        "one (competitive: one rotating seat against the training opponents) or all (cooperative: every seat)",
        choices=LEARNER_SEATS,
    ),
    Param(
        "opponents",
        {"self": 1.0},
        "training opponents and their weights (as a training config's opponents.weights; self: the learner's snapshots)",
        check=_is_weights,
        allowed="a non-empty mapping of names to numbers of at least 0 with a positive sum",
    ),
    Param("budget", REQUIRED, "learner steps per run", **integer(1)),
    Param("eval_every", REQUIRED, "learner steps between evaluations", **integer(1)),
    Param(
        "panel",
        REQUIRED,
        "agents the evaluation plays against (cooperative: the reference teams); the score's 0 and 1 come from it",
        check=_is_names,
        allowed="a non-empty list of agent specs",
    ),
    Param("eval_games", 100, "paired deals per panel member at every evaluation", **integer(1)),
    Param(
        "final_eval_games",
        None,
        "deals per panel member at the last evaluation (left out: eval_games)",
        **optional(integer(1)),
    ),
    Param(
        "absolute_factor",
        10,
        "the best evaluation's policy plays again on this many times eval_games deals (0: never)",
        **integer(0),
    ),
    Param(
        "one",
        None,
        "the panel heuristic whose raw score is the normalised 1, named a priori",
        check=lambda v: v is None or isinstance(v, str),
        allowed="a heuristic of the panel",
    ),
    Param("eval_mode", "greedy", "how every family's policy plays in evaluation", choices=EVAL_MODES),
    Param(
        "exact",
        False,
        "the exact track: every evaluation records the NashConv of the learner's policy (a small variant)",
        **boolean(),
    ),
    Param(
        "cfr_iterations",
        1000,
        "CFR+ iterations of an exact task's reference line",
        **integer(1),
    ),
    Param(
        "held_out",
        True,
        "true: no panel agent may be a training opponent (train against snapshots and agents outside the panel)",
        **boolean(),
    ),
    Param(
        "eval_seed",
        TRAINING_SEEDS_BELOW,
        "seed of the first evaluation game (game g: eval_seed + g, the same at every evaluation)",
        check=int_in(TRAINING_SEEDS_BELOW),
        allowed=f"{integer(TRAINING_SEEDS_BELOW)['allowed']} (below it: training seeds)",
    ),
)


@dataclass(frozen=True)
class Suite:
    """A parsed suite: its tasks by name and the hyperparameter overrides of each algorithm it names."""

    source: str
    tasks: dict[str, Task]
    algorithms: dict[str, dict[str, Any]]
    version: str = "1"
    """The suite's version (its `version:` key): shipped results name the suite they ran."""

    def select_tasks(self, names: list[str] | None) -> list[Task]:
        """The named tasks (all when None), or a SuiteError listing the suite's tasks."""
        if names is None:
            return list(self.tasks.values())
        unknown = [n for n in names if n not in self.tasks]
        if unknown:
            raise SuiteError(f"{self.source}: unknown task {unknown[0]!r}; its tasks: {', '.join(self.tasks)}")
        return [self.tasks[n] for n in names]

    def select_algorithms(self, names: list[str] | None) -> list[str]:
        """The named algorithms (the suite's when None); a name must be a family and listed in the suite."""
        if names is None:
            return list(self.algorithms)
        for name in names:
            if name not in FAMILIES:
                raise SuiteError(f"unknown algorithm {name!r}; allowed: {', '.join(FAMILIES)}")
            if name not in self.algorithms:
                raise SuiteError(
                    f"{self.source}: algorithm {name!r} has no entry under algorithms: (give it {{}} for the "
                    f"family's defaults); the suite names: {', '.join(self.algorithms)}"
                )
        return list(names)

    def params(self, algorithm: str) -> dict[str, Any]:
        """The family's defaults with the suite's overrides (their keys were checked when the suite was read)."""
        return {**family_defaults(algorithm), **copy.deepcopy(self.algorithms[algorithm])}


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file."""
    path = Path(path)
    if not path.is_file():
        raise SuiteError(f"suite file {str(path)!r} does not exist (the shipped ones: configs/benchmark/*.yaml)")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise SuiteError(f"{path}: not valid YAML: {err}") from None
    return parse_suite(data, str(path))


def parse_suite(data: Any, source: str = "suite") -> Suite:
    """A validated `Suite` from plain data (a parsed YAML document)."""
    if not isinstance(data, dict):
        raise SuiteError(f"{source}: the document must be a mapping with tasks: and algorithms:")
    unknown = [k for k in data if k not in ("version", "tasks", "algorithms")]
    if unknown:
        raise SuiteError(f"{source}: unknown key {unknown[0]!r}; allowed keys here: version, tasks, algorithms")
    version = data.get("version", "1")
    if not isinstance(version, (str, int)) or isinstance(version, bool):
        raise SuiteError(f"{source}: version: {version!r}; allowed: a string or a whole number")
    tasks, algorithms = data.get("tasks"), data.get("algorithms")
    if not isinstance(tasks, dict) or not tasks:
        raise SuiteError(f"{source}: tasks: must be a non-empty mapping of task names to tasks")
    if not isinstance(algorithms, dict) or not algorithms:
        raise SuiteError(
            f"{source}: algorithms: must be a non-empty mapping of algorithm names ({', '.join(FAMILIES)}) to their settings"
        )
    parsed = {}
    for name, body in tasks.items():
        if not isinstance(name, str) or not name.replace("_", "").isalnum():
            raise SuiteError(f"{source}: task name {name!r} must be letters, digits and underscores (it names folders)")
        parsed[name] = parse_task(name, body, source)
    settings = {}
    for name, body in algorithms.items():
        if name not in FAMILIES:
            raise SuiteError(f"{source}: unknown algorithm {name!r}; allowed: {', '.join(FAMILIES)}")
        body = {} if body is None else body
        if not isinstance(body, dict):
            raise SuiteError(f"{source}: algorithms.{name} must be a mapping of hyperparameters, got {body!r}")
        allowed = family_defaults(name)
        unknown = [k for k in body if k not in allowed]
        if unknown:
            raise SuiteError(f"{source}: unknown key algorithms.{name}.{unknown[0]}; allowed: {', '.join(allowed)}")
        settings[name] = dict(body)
    return Suite(source, parsed, settings, str(version))


def parse_task(name: str, body: Any, source: str, owner: str | None = None) -> Task:
    """One task, every key and the agents it names checked; errors begin with `owner` (the task's place in the
    suite by default)."""
    owner = owner or f"{source}: tasks.{name}"
    if not isinstance(body, dict):
        raise SuiteError(f"{owner} must be a mapping")
    try:
        values = TASK.resolve(body, owner)
    except ParameterError as err:
        raise SuiteError(str(err)) from None
    missing = [k for k, v in values.items() if v is REQUIRED]
    if missing:
        raise SuiteError(f"{owner}: missing required key {missing[0]!r}")
    try:
        env = EnvSpec(values["env_id"], values["env_kwargs"])
        game = env.new_game()
    except (TypeError, ValueError) as err:
        raise SuiteError(f"{owner}: env_kwargs: {err}") from None
    if values["eval_every"] > values["budget"]:
        raise SuiteError(f"{owner}: eval_every={values['eval_every']} exceeds budget={values['budget']}")
    cooperative = values["learner_seats"] == "all"
    if not cooperative:
        if game.num_players < 2:
            raise SuiteError(f"{owner}: learner_seats: one needs at least 2 players; a one-player game takes all")
        allowed = allowed_opponents(env.env_id)
        for opponent in values["opponents"]:
            if opponent not in allowed:
                raise SuiteError(f"{owner}: unknown opponent opponents.{opponent}; allowed: {', '.join(allowed)}")
    names = agent_names(env.env_id)
    for member in values["panel"]:
        if member == PRETRAINED:
            try:
                pretrained_folder(env)
            except ValueError as err:
                raise SuiteError(f"{owner}: panel: {err}") from None
        elif member not in names:
            raise SuiteError(f"{owner}: unknown panel agent {member!r}; allowed: {', '.join([*names, PRETRAINED])}")
    if "random" not in values["panel"] or not any(m in names[1:] for m in values["panel"]):
        raise SuiteError(f"{owner}: the panel needs random and at least one heuristic (the score's 0 and 1)")
    heuristics_in_panel = [m for m in values["panel"] if m in names[1:]]
    if values["one"] is not None and values["one"] not in heuristics_in_panel:
        raise SuiteError(
            f"{owner}: one: {values['one']!r} is not a heuristic of the panel; allowed: {', '.join(heuristics_in_panel)}"
        )
    if values["held_out"] and not cooperative:
        seen = [o for o in expand_weights(env.env_id, values["opponents"]) if o in values["panel"]]
        if seen:
            raise SuiteError(
                f"{owner}: {seen[0]!r} is both a training opponent and in the panel; train against self and agents "
                "outside the panel, or set held_out: false (a track that evaluates on its training opponents)"
            )
    return Task(
        name=name,
        env=env,
        learner_seats=values["learner_seats"],
        opponents={k: float(v) for k, v in values["opponents"].items()} if not cooperative else {},
        budget=values["budget"],
        eval_every=values["eval_every"],
        panel=tuple(values["panel"]),
        eval_games=values["eval_games"],
        eval_seed=values["eval_seed"],
        one=values["one"],
        eval_mode=values["eval_mode"],
        final_eval_games=values["final_eval_games"],
        absolute_factor=values["absolute_factor"],
        exact=values["exact"],
        cfr_iterations=values["cfr_iterations"],
    )


def panel_files(task: Task) -> dict[str, str]:
    """The sha256 of every panel member's policy file (`pretrained`: its model.onnx); heuristics have none."""
    import hashlib

    return {
        member: hashlib.sha256((pretrained_folder(task.env) / "model.onnx").read_bytes()).hexdigest()
        for member in task.panel
        if member == PRETRAINED
    }


def eval_steps(task: Task) -> list[int]:
    """The learner steps at which a run is evaluated: 0, every `eval_every`, and the budget."""
    steps = list(range(0, task.budget, task.eval_every))
    return [*steps, task.budget]

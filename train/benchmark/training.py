"""`tabletop train CONFIG` for every algorithm family: the config's `family:` picks it from the one registry
(`families.FAMILIES`), the same names `tabletop benchmark` reads.

A family with a backend of its own (`ppo`: train/selfplay, `rllib_ppo` and `rllib_appo`: train/rllib) trains
through that backend's full pipeline, its config checked by train/selfplay/config.py. A config that names
`backend: sb3` or `backend: rllib` instead of a family still loads: it means `ppo` or `rllib_<rllib.algorithm>`.
Every other family (`dqn`, `nfsp`, `mmd`, `psro`) trains through the `Family` protocol, as in a benchmark run,
from a config of these keys:

    family, seed, env_id, env_kwargs, learner_seats, opponents   the family, the game, who it trains against
    total_steps                                                  learner steps in all
    save_every                                                   learner steps between saves (default: the end)
    panel, eval_games                                            the final evaluation: agents and games per agent
    <family>:                                                    hyperparameters over the family's defaults

The run folder holds `config.yaml`, the family's save, `final/policy.pt` (the plain policy file every agent spec
`ppo:RUN` and `tabletop export` read) and `final/eval.json`.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from tabletop import envs
from tabletop.agents import agent_names
from tabletop.agents.networks import POLICY_FILE
from tabletop.train.benchmark.families import FAMILIES, family_defaults, load_family
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.suite import SuiteError, parse_task
from tabletop.train.selfplay.config import BACKENDS, ConfigError, TrainConfig, integer, parse_config

CONFIG_FILE, FINAL = "config.yaml", "final"
RUN_KEYS = ("family", "seed", "total_steps", "save_every")
TASK_KEYS = ("env_id", "env_kwargs", "learner_seats", "opponents", "panel", "eval_games")
LEGACY_FAMILY = {"sb3": "ppo"}  # backend: rllib means rllib_<rllib.algorithm>
BACKEND_FAMILIES = ("ppo", "rllib_ppo", "rllib_appo")  # those with a `backend`: known before any family module loads


@dataclass(frozen=True)
class FamilyConfig:
    """A training config of a family that trains through the `Family` protocol."""

    source: str
    family: str
    seed: int
    task: Task
    save_every: int
    params: dict[str, Any]
    data: dict[str, Any]
    """The config as read, the family's section with its defaults filled in (written to the run folder)."""


def load_training(path: str | Path) -> TrainConfig | FamilyConfig:
    """Read a training config of any family; a one-line `ConfigError` names what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML: {err}") from None
    return parse_training(data, str(path))


def family_of(data: dict[str, Any], source: str) -> str:
    """The family a config trains: its `family:`, or what its `backend:` meant (ppo by default)."""
    backend = data.get("backend")
    if "family" not in data:
        if backend == "rllib":
            rllib = data.get("rllib") if isinstance(data.get("rllib"), dict) else {}
            return f"rllib_{rllib.get('algorithm', data.get('algorithm', 'ppo'))}"
        return LEGACY_FAMILY.get(backend, "ppo") if backend in (None, *BACKENDS) else str(backend)
    name = data["family"]
    if name not in FAMILIES:
        raise ConfigError(f"{source}: unknown family {name!r}; allowed: {', '.join(FAMILIES)}")
    if backend is not None:
        raise ConfigError(f"{source}: give family: or the older backend:, not both (family: {name})")
    return name


def parse_training(data: Any, source: str = "config") -> TrainConfig | FamilyConfig:
    """A validated config of any family, from plain data (a parsed YAML document)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the document must be a mapping, got {type(data).__name__}")
    name = family_of(data, source)
    if name in FAMILIES and name not in BACKEND_FAMILIES:
        return _family_config(name, data, source)
    body = {k: v for k, v in data.items() if k != "family"}  # a backend's own config (an unknown backend: its error)
    if name in FAMILIES:
        family = load_family(name)
        body["backend"] = backend = getattr(family, "backend", None)
        if backend == "rllib":
            rllib = body.setdefault("rllib", {})
            if isinstance(rllib, dict) and rllib.setdefault("algorithm", family.algorithm) != family.algorithm:
                raise ConfigError(f"{source}: family: {name} trains rllib.algorithm {family.algorithm}")
    return parse_config(body, source)


def _family_config(name: str, data: dict[str, Any], source: str) -> FamilyConfig:
    """A config of a family without a backend: the run's and the task's keys are checked before the family's
    module loads (torch, seconds), then its hyperparameters."""
    unknown = [k for k in data if k not in (*RUN_KEYS, *TASK_KEYS, name)]
    if unknown:
        allowed = ", ".join((*RUN_KEYS, *TASK_KEYS, name))
        raise ConfigError(f"{source}: unknown key {unknown[0]!r}; allowed keys for family {name}: {allowed}")
    steps = _count(data, "total_steps", source, None)
    save_every = _count(data, "save_every", source, steps)
    seed = _count(data, "seed", source, 0, low=0)
    if save_every > steps:
        raise ConfigError(f"{source}: save_every={save_every} exceeds total_steps={steps}")
    body = {k: data[k] for k in TASK_KEYS if k in data}
    if "env_id" not in body:
        raise ConfigError(f"{source}: missing required key 'env_id'")
    if body.get("panel") is None:  # by default random and every heuristic of the game
        body["panel"] = agent_names(body["env_id"]) if body["env_id"] in envs.ENV_IDS else []
    try:
        task = parse_task(
            "train", {**body, "budget": steps, "eval_every": save_every, "held_out": False}, source, source
        )
    except SuiteError as err:
        raise ConfigError(str(err)) from None
    given = data.get(name) or {}
    if not isinstance(given, dict):
        raise ConfigError(f"{source}: {name} must be a mapping of hyperparameters, got {given!r}")
    params = family_defaults(name)
    wrong = [k for k in given if k not in params]
    if wrong:
        raise ConfigError(f"{source}: unknown key {name}.{wrong[0]}; allowed: {', '.join(params)}")
    params.update(copy.deepcopy(given))
    reason = load_family(name).unsupported(task)
    if reason is not None:
        raise ConfigError(f"{source}: {reason}")
    written = {**data, "family": name, "seed": seed, "save_every": save_every, name: params}
    return FamilyConfig(source, name, seed, task, save_every, params, written)


def _count(data: dict[str, Any], key: str, source: str, default: int | None, low: int = 1) -> int:
    value = data.get(key, default)
    if value is None:
        raise ConfigError(f"{source}: missing required key {key!r}")
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{source}: {key}={value!r} is not allowed; allowed: {integer(low)['allowed']}")
    return value


def trainer_of(config: TrainConfig | FamilyConfig):
    """The module whose `train(config, out, steps, resume, progress)` and `summary(result, config)` train it."""
    import importlib
    import sys

    if isinstance(config, FamilyConfig):
        return sys.modules[__name__]
    return importlib.import_module(BACKENDS[config.backend])


# --- training a protocol family ---------------------------------------------------------------------------
@dataclass
class FamilyResult:
    run_dir: Path
    steps: int
    cpu_seconds: float
    final: list


def train(
    config: FamilyConfig,
    out: str | Path | None = None,
    steps: int | None = None,
    resume: str | Path | None = None,
    progress: bool = True,
) -> FamilyResult:
    """Train to `steps` learner steps (the config's `total_steps` by default), saving every `save_every`, then
    write the final policy and evaluate it against the panel."""
    from tabletop.train.evaluation.evaluate import evaluate
    from tabletop.train.selfplay.checkpoints import TrainingInterrupted

    task = config.task
    total = steps if steps is not None else task.budget
    if total < 1:
        raise ValueError(f"steps must be at least 1, got {total}")
    run_dir = _run_folder(config, out, resume)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / CONFIG_FILE).write_text(yaml.safe_dump({**config.data, "total_steps": total}, sort_keys=False))
    if progress:
        print(f"run folder {run_dir} ({config.family})", flush=True)
    began = time.process_time()
    learner = load_family(config.family).start(task, dict(config.params), config.seed, run_dir)
    saved = False
    try:
        while learner.steps < total:
            learner.train_until(min(total, (learner.steps // config.save_every + 1) * config.save_every))
            learner.save()
            saved = True
            if progress:
                print(f"{config.family}: {learner.steps} of {total} learner steps, saved", flush=True)
    except KeyboardInterrupt:
        raise TrainingInterrupted(run_dir, run_dir if saved or resume else None) from None
    finally:
        close = getattr(learner, "close", None)
        if close is not None:
            close()
    cpu = time.process_time() - began
    final_dir = run_dir / FINAL
    final_dir.mkdir(exist_ok=True)
    (final_dir / POLICY_FILE).write_bytes((run_dir / POLICY_FILE).read_bytes())
    rows = evaluate(learner.agent(), task.env, task.eval_games, task.eval_seed, task.learner_seats, list(task.panel))
    record = {
        "env_id": task.env.env_id,
        "family": config.family,
        "steps": int(learner.steps),
        "learner_seats": task.learner_seats,
        "train_cpu_seconds": cpu,
        "results": [m.to_dict() for m in rows],
    }
    (final_dir / "eval.json").write_text(json.dumps(record, indent=2))
    return FamilyResult(run_dir, int(learner.steps), cpu, rows)


def _run_folder(config: FamilyConfig, out: str | Path | None, resume: str | Path | None) -> Path:
    if resume:
        run_dir = Path(resume)
        saved = yaml.safe_load((run_dir / CONFIG_FILE).read_text()) if (run_dir / CONFIG_FILE).is_file() else None
        if saved is None:
            raise ValueError(f"{run_dir} holds no run ({CONFIG_FILE} is missing): give the folder a run wrote")
        differ = [k for k in config.data if k != "total_steps" and saved.get(k) != config.data[k]]
        if differ:
            raise ValueError(f"cannot resume {run_dir} with this config: it changes {', '.join(differ)}")
        if out and Path(out) != run_dir:
            raise ValueError(f"a {config.family} run resumes in its own folder: give --resume {run_dir} without --out")
        return run_dir
    run_dir = (
        Path(out) if out else Path("runs") / f"{config.task.env.env_id}-{config.family}-{datetime.now():%Y%m%d-%H%M%S}"
    )
    if (run_dir / CONFIG_FILE).is_file():
        raise ValueError(f"{run_dir} already holds a run; pass --resume {run_dir} to continue it, or another --out")
    return run_dir


def summary(result: FamilyResult, config: FamilyConfig) -> str:
    """What `tabletop train` prints at the end."""
    from tabletop.train.evaluation.evaluate import format_table

    return (
        f"{config.task.env.env_id} ({config.family}): {result.steps} learner steps, {result.cpu_seconds / 60:.1f} "
        f"CPU-minutes; run folder {result.run_dir}\n"
        f"final policy over {config.task.eval_games} games per opponent:\n"
        + format_table(result.final, config.task.learner_seats)
    )

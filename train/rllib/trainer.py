"""Self-play on Ray RLlib: the config's game, opponents, evaluation and run folder, on a local Ray or a cluster.

The learner (PPO or APPO, `algorithm:`) trains the module `learner`; `opponents.max_snapshots` frozen slots
`snapshot_k` start as copies of the initial policy, and every `opponents.snapshot_every` learner steps the
oldest slot takes the learner's weights (RLlib's self-play pattern: modules left out of
`policies_to_train`). Heuristics and `random` sit at the table inside the env (env.py). KRZ GRTN
(`learner_seats: all`) runs one shared module in every seat.

The run folder follows the SB3 path's layout where it fits:

    config.yaml                   the validated config (with the step budget actually used)
    logs/progress.csv             one row per iteration: learner steps, env steps, seconds, training results
    logs/ray.log                  Ray's and RLlib's own log lines and warnings (kept out of the terminal)
    eval.csv                      win rates against every baseline at each evaluation (same columns)
    checkpoints/step_N/           algorithm/ (RLlib's checkpoint: every module, optimiser and sampler
                                  state; `Algorithm.from_checkpoint` loads it) and policy.pt (the plain
                                  policy file, as the SB3 backend writes it: agents/networks/saved.py)
    final/policy.pt, final/eval.json, learning_curve.png
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import torch
import yaml

from tabletop.agents import PolicyAgent
from tabletop.agents.networks import POLICY_FILE
from tabletop.agents.networks.actor_critic import ActorCritic, network_spec
from tabletop.agents.networks.mlp import from_heads
from tabletop.agents.networks.saved import SavedPolicy, saved_policy, write_policy
from tabletop.train.evaluation.evaluate import Matchup, evaluate, format_table
from tabletop.train.rllib.logs import to_run_folder
from tabletop.train.rllib.stats import summarize
from tabletop.train.rllib.table import LEARNER, snapshot_modules
from tabletop.train.selfplay.config import SELF, TrainConfig, expand_weights
from tabletop.train.selfplay.logs import STEP_COLUMN, EvalLog
from tabletop.train.selfplay.plots import learning_curve
from tabletop.train.selfplay.trainer import EVAL_SEED_OFFSET

LEARNER_STEPS = ("env_runners", "num_module_steps_sampled_lifetime", LEARNER)
ENV_STEPS = ("env_runners", "num_env_steps_sampled_lifetime")
TRAINED = ("learners", LEARNER, "num_module_steps_trained_lifetime")
APPO_MAX_FRAGMENT = 64  # env steps per sampled fragment (per env), at most
UNTRAINED_ITERATIONS = 100  # a run past its budget waits at most this many iterations in all for a first update (a loaded machine starves the learner thread)
PROGRESS_COLUMNS = [
    STEP_COLUMN,
    "rollout/ep_rew_mean",
    "time/iteration",
    "time/env_steps",
    "time/seconds",
    "train/games",
    "train/learner_samples_trained",
]


@dataclass
class RLlibResult:
    run_dir: Path
    steps: int  # learner steps: the learner's own decisions, what the SB3 path counts
    env_steps: int  # every RLlib agent's decisions (learner and snapshots; fixed players move inside the env)
    train_seconds: float
    final: list[Matchup]

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.train_seconds if self.train_seconds else float("nan")


# --- Ray ---------------------------------------------------------------------------------------------------
def ray_address(config: TrainConfig) -> str | None:
    """The cluster to join: the config's `ray_address`, else $RAY_ADDRESS; None starts a local Ray."""
    return config.rllib.ray_address or os.environ.get("RAY_ADDRESS") or None


@contextmanager
def ray_session(config: TrainConfig, log_folder: Path | None = None):
    """Ray for one run: joins `ray_address` (a cluster keeps running afterwards), or starts a small local Ray
    (`rllib.num_cpus`, `rllib.object_store_mb`, no dashboard, no token) and stops it after. A Ray already
    running in this process (a test's, a notebook's) is used as it is. With `log_folder`, Ray's log lines and
    warnings go to its ray.log, out of the progress display."""
    import ray
    import ray.rllib  # noqa: F401 (its loggers exist, with their own stderr handlers, before they are redirected)

    with to_run_folder(log_folder) as settle:
        if ray.is_initialized():
            yield
            return
        address = ray_address(config)
        if address is not None:
            ray.init(address=address, log_to_driver=False)
        else:
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a local, single-user Ray needs no token
            ray.init(
                num_cpus=config.rllib.num_cpus,
                include_dashboard=False,
                object_store_memory=config.rllib.object_store_mb * 2**20,
                log_to_driver=False,
            )
        settle()
        try:
            yield
        finally:
            ray.shutdown()


# --- the algorithm -----------------------------------------------------------------------------------------
def has_opponents(config: TrainConfig) -> bool:
    """Whether other seats are drawn from the opponent pool (not when the learner plays every seat, nor alone)."""
    return config.learner_seats == "one" and config.env.new_game().num_players > 1


def snapshot_count(config: TrainConfig) -> int:
    """Frozen slots the table can draw (none when no seat can hold a snapshot)."""
    return config.opponents.max_snapshots if has_opponents(config) and config.opponents.weights.get(SELF, 0) > 0 else 0


def env_config(config: TrainConfig) -> dict:
    weights = expand_weights(config.env_id, config.opponents.weights) if has_opponents(config) else {}
    return {
        "env_id": config.env_id,
        "env_kwargs": dict(config.env_kwargs),
        "learner_seats": config.learner_seats,
        "weights": weights,
        "snapshots": snapshot_count(config),
        "seed": config.seed,
    }


def algorithm_config(config: TrainConfig):
    """The RLlib AlgorithmConfig of a validated `backend: rllib` TrainConfig."""
    from ray.rllib.algorithms.appo import APPOConfig
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from tabletop.train.rllib.env import TabletopMultiAgentEnv
    from tabletop.train.rllib.modules import MaskedActorCritic
    from tabletop.train.rllib.stats import GameResults
    from tabletop.train.rllib.table import module_of

    r, ppo = config.rllib, config.ppo
    modules = [LEARNER, *snapshot_modules(snapshot_count(config))]
    model = {"hidden": list(config.network.hidden), "activation": config.network.activation}
    spec = MultiRLModuleSpec(
        rl_module_specs={m: RLModuleSpec(module_class=MaskedActorCritic, model_config=model) for m in modules}
    )
    algo = (
        (PPOConfig if config.rllib.algorithm == "ppo" else APPOConfig)()
        .environment(
            TabletopMultiAgentEnv, env_config=env_config(config), disable_env_checking=True
        )  # its check plays unmasked actions
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=r.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .multi_agent(policies=set(modules), policy_mapping_fn=module_of, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=spec)
        .callbacks(GameResults)
        .training(
            lr=ppo.learning_rate,
            gamma=ppo.gamma,
            train_batch_size_per_learner=r.train_batch_size,
            minibatch_size=ppo.batch_size,
            num_epochs=ppo.n_epochs,
            clip_param=ppo.clip_range,
            entropy_coeff=ppo.ent_coef,
            vf_loss_coeff=ppo.vf_coef,
            grad_clip=ppo.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,  # SB3's PPO has only the clipped objective
        )
        .debugging(seed=config.seed)
    )
    if config.rllib.algorithm == "ppo":
        algo.training(lambda_=ppo.gae_lambda)
    else:  # APPO: v-trace; minibatches must hold whole fragments; an iteration need not last RLlib's default 10 s
        algo.env_runners(rollout_fragment_length=math.gcd(ppo.batch_size, r.train_batch_size, APPO_MAX_FRAGMENT))
        algo.reporting(min_time_s_per_iteration=0)
    return algo


def stop(algo) -> None:
    """Stop the algorithm, and remove the empty folder RLlib makes for it under ~/ray_results (our logs live in
    the run folder); a folder with anything in it stays."""
    algo.stop()
    for folder in (Path(algo.logdir), Path(algo.logdir).parent):
        try:
            folder.rmdir()
        except OSError:  # not empty, or gone
            break


# --- the run -----------------------------------------------------------------------------------------------
class Run:
    """One run folder and the algorithm that writes it."""

    def __init__(self, config: TrainConfig, run_dir: Path, algo):
        self.config = config
        self.run_dir = run_dir
        self.algo = algo
        self.slots = snapshot_modules(snapshot_count(config))
        self.next_slot = 0
        self.eval_log = EvalLog(run_dir / "eval.csv", 0)
        self.progress = run_dir / "logs" / "progress.csv"
        self.progress.parent.mkdir(parents=True, exist_ok=True)
        with open(self.progress, "w", newline="") as f:
            csv.writer(f).writerow(PROGRESS_COLUMNS)

    def learner_state(self) -> dict:
        return self.algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]

    def policy(self) -> SavedPolicy:
        """The learner's policy now, as a plain policy file holds it (from the learner group: samplers may lag)."""
        network = self.config.network
        spec = network_spec(self.config.env, "mlp", hidden=network.hidden, activation=network.activation)
        state = self.learner_state()
        heads = {
            head: {k[len(head) + 1 :]: torch.as_tensor(v) for k, v in state.items() if k.startswith(head + ".")}
            for head in ("pi", "vf")
        }
        return saved_policy(spec, from_heads(heads["pi"], heads["vf"]), self.config.env, "rllib")

    def snapshot(self, fill_all: bool = False) -> None:
        """The learner's weights into the oldest slot (every slot at the start): in the learner group, which
        checkpoints keep, and straight into every sampler's module. (`Algorithm.set_state` would not reach
        the samplers: they skip weights whose sequence number they have already seen.)"""
        if not self.slots:
            return
        if fill_all:
            targets = self.slots
        else:
            targets = [self.slots[self.next_slot % len(self.slots)]]
            self.next_slot += 1
        state = self.learner_state()
        self.algo.learner_group.set_state({"learner": {"rl_module": dict.fromkeys(targets, state)}})

        def load(runner) -> None:
            for slot in targets:
                runner.module[slot].set_state(state)

        self.algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)

    def log_iteration(self, iteration: int, result: dict, seconds: float) -> dict:
        """One progress.csv row; returns the iteration's training results (stats.summarize)."""
        row = summarize(result.get("env_runners", {}))
        values = [
            count(result, LEARNER_STEPS),
            row.get("mean_outcome", ""),
            iteration,
            count(result, ENV_STEPS),
            f"{seconds:.2f}",
            int(row["games"]),
            count(result, TRAINED),
        ]
        with open(self.progress, "a", newline="") as f:
            csv.writer(f).writerow(values)
        return row

    def evaluate(self, step: int, games: int, actor: ActorCritic | None = None) -> list[Matchup]:
        rows = evaluate(
            PolicyAgent(actor or self.policy().build(), name="learner"),
            self.config.env,
            games,
            seed=self.config.seed + EVAL_SEED_OFFSET,
            learner_seats=self.config.learner_seats,
        )
        self.eval_log.append(step, rows)
        return rows

    def save_checkpoint(self, step: int) -> Path:
        folder = self.run_dir / "checkpoints" / f"step_{step:09d}"
        folder.mkdir(parents=True, exist_ok=True)
        self.algo.save_to_path(str((folder / "algorithm").resolve()))
        write_policy(folder / POLICY_FILE, self.policy())
        kept = sorted((self.run_dir / "checkpoints").iterdir())
        for old in kept[: -self.config.checkpoint.keep]:
            shutil.rmtree(old)
        return folder


def count(result: dict, key: tuple[str, ...]) -> int:
    """A step counter from an RLlib result dict (0 until RLlib first reports it; NaN reads 0 too)."""
    node = result
    for part in key:
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return int(node) if isinstance(node, (int, float)) and not math.isnan(node) else 0


def train(
    config: TrainConfig,
    out: str | Path | None = None,
    steps: int | None = None,
    resume: str | Path | None = None,
    progress: bool = True,
) -> RLlibResult:
    """Train to `steps` learner steps (the config's budget by default) on RLlib, and on until the learner has
    trained at least once (APPO's asynchronous learner can lag; at most `UNTRAINED_ITERATIONS` iterations), then
    evaluate."""
    if config.backend != "rllib":
        raise ValueError(f"this trainer runs backend: rllib configs; the config says backend: {config.backend}")
    from tabletop.train.rllib import require

    require()
    if resume is not None:
        raise ValueError(
            "--resume is not offered for backend: rllib yet; a checkpoint's algorithm/ folder loads with RLlib's Algorithm.from_checkpoint"
        )
    total = steps if steps is not None else config.total_steps
    if total < 1:
        raise ValueError(f"steps must be at least 1, got {total}")
    run_dir = Path(out) if out else Path("runs") / f"{config.env_id}-rllib-{datetime.now():%Y%m%d-%H%M%S}"
    if (run_dir / "checkpoints").is_dir():
        raise ValueError(f"{run_dir} already holds a run; pass another --out")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump({**config.to_dict(), "total_steps": total}, sort_keys=False))
    torch.set_num_threads(config.torch_threads)

    with ray_session(config, run_dir / "logs"):
        algo = algorithm_config(config).build_algo()
        try:
            run = Run(config, run_dir, algo)
            run.snapshot(fill_all=True)  # self-play needs an opponent from the first game
            learner_steps = env_steps = iteration = trained = 0
            next_snapshot, next_eval, next_checkpoint = (
                config.opponents.snapshot_every,
                config.evaluation.every,
                config.checkpoint.every,
            )
            train_seconds = 0.0
            # APPO's asynchronous learner can lag its samples: go on past the budget until it has trained once
            while learner_steps < total or (not trained and iteration < UNTRAINED_ITERATIONS):
                began = time.perf_counter()
                result = algo.train()
                train_seconds += time.perf_counter() - began
                iteration += 1
                learner_steps, env_steps, trained = (
                    count(result, LEARNER_STEPS),
                    count(result, ENV_STEPS),
                    count(result, TRAINED),
                )
                row = run.log_iteration(iteration, result, train_seconds)
                if progress:
                    rates = " ".join(f"{k[12:]} {v:.2f}" for k, v in row.items() if k.startswith("win_rate_vs_"))
                    print(
                        f"{config.env_id} [{config.rllib.algorithm}] iteration {iteration}: {learner_steps}/{total} learner steps, {learner_steps / train_seconds:.0f}/s; training win rate {rates}",
                        flush=True,
                    )
                if learner_steps >= next_snapshot:
                    run.snapshot()
                    next_snapshot = (
                        learner_steps // config.opponents.snapshot_every + 1
                    ) * config.opponents.snapshot_every
                if next_eval <= learner_steps < total:
                    run.evaluate(learner_steps, config.evaluation.games)
                    next_eval = (learner_steps // config.evaluation.every + 1) * config.evaluation.every
                if next_checkpoint <= learner_steps < total:
                    run.save_checkpoint(learner_steps)
                    next_checkpoint = (learner_steps // config.checkpoint.every + 1) * config.checkpoint.every
            run.save_checkpoint(learner_steps)
            policy = run.policy()
        finally:
            stop(algo)

    final_dir = run_dir / "final"
    final_dir.mkdir(exist_ok=True)
    write_policy(final_dir / POLICY_FILE, policy)
    final = run.evaluate(learner_steps, config.evaluation.final_games, policy.build())  # Ray is down: the file plays
    (final_dir / "eval.json").write_text(
        json.dumps(
            {
                "env_id": config.env_id,
                "backend": "rllib",
                "algorithm": config.rllib.algorithm,
                "steps": learner_steps,
                "env_steps": env_steps,
                "learner_seats": config.learner_seats,
                "steps_per_second": learner_steps / train_seconds if train_seconds > 0 else None,
                "results": [m.to_dict() for m in final],
            },
            indent=2,
        )
    )
    learning_curve(
        run_dir / "eval.csv",
        run.progress,
        run_dir / "learning_curve.png",
        f"{config.env_id} (RLlib {config.rllib.algorithm.upper()}): {run_dir.name}",
    )
    return RLlibResult(run_dir, learner_steps, env_steps, train_seconds, final)


def summary(result: RLlibResult, config: TrainConfig) -> str:
    """What `tabletop train` prints at the end of an RLlib run."""
    return (
        f"{config.env_id} (RLlib {config.rllib.algorithm.upper()}): {result.steps} learner steps ({result.env_steps} env steps) in "
        f"{result.train_seconds:.0f} s of training ({result.steps_per_second:.0f} learner steps/s); run folder {result.run_dir}\n"
        f"final policy over {config.evaluation.final_games} games per opponent:\n"
        + format_table(result.final, config.learner_seats)
    )

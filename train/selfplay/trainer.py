"""Self-play training of MaskablePPO against an opponent pool, with evaluation, checkpoints and resume.

A run folder holds everything about one run:

    config.yaml              the validated config (with the step budget actually used)
    logs/progress.csv, tb/   SB3 training statistics (CSV and TensorBoard)
    eval.csv                 win rates against every baseline at each evaluation
    checkpoints/step_N/      model.zip (weights, optimiser, step count), pool.pt (the snapshots), resume.pt (the
                             games in progress and every generator, resume.py) and policy.pt (the plain policy
                             file), written beside and renamed into place (checkpoints.py)
    final/policy.pt          the final policy (and final/model.zip, SB3's own), final/eval.json its results
                             over `final_games` games
    learning_curve.png
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from tabletop.agents import PolicyAgent
from tabletop.agents.networks import POLICY_FILE
from tabletop.agents.networks.runs import RunFolder
from tabletop.agents.networks.saved import write_policy
from tabletop.train.evaluation.evaluate import Matchup, evaluate, format_table
from tabletop.train.selfplay.batched import BatchedSelfPlayEnv
from tabletop.train.selfplay.callbacks import SelfPlayCallback
from tabletop.train.selfplay.checkpoints import (
    MODEL_FILE,
    Shapes,
    TrainingInterrupted,
    latest_checkpoint,
    newest_checkpoint,
    save_model,
    write_checkpoint,
)
from tabletop.train.selfplay.config import SELF, NetworkConfig, TrainConfig
from tabletop.train.selfplay.heap import keep_large_blocks
from tabletop.train.selfplay.imitation import warm_start
from tabletop.train.selfplay.logs import EvalLog, make_logger
from tabletop.train.selfplay.opponents import OpponentPool
from tabletop.train.selfplay.pipeline import learn_overlapped
from tabletop.train.selfplay.plots import learning_curve
from tabletop.train.selfplay.policy import (
    MlpPolicy,
    actor_weights,
    build_policy,
    config_spec,
    network_policy,
    policy_file,
)
from tabletop.train.selfplay.resume import Boundary, mismatch, restore
from tabletop.train.selfplay.rollout_buffer import GatheringRolloutBuffer
from tabletop.train.selfplay.seat_env import SeatEnv

EVAL_SEED_OFFSET = 1_000_003  # evaluation games never reuse training seeds, and repeat at every evaluation


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    train_seconds: float
    final: list[Matchup]
    cpu_seconds: float = float("nan")  # this process's CPU time for training (warm start included, evaluations not)

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.train_seconds if self.train_seconds else float("nan")


def _make_pool(config: TrainConfig, seed: int) -> OpponentPool | None:
    """The opponent pool of one training game (None when the learner plays every seat)."""
    if config.learner_seats != "one":
        return None
    probe = config.env.make_raw()
    agent = probe.possible_agents[0]
    policy_class, kwargs = network_policy(config.network, config.env)
    return OpponentPool(
        config.env,
        config.opponents.weights,
        config.opponents.max_snapshots,
        kwargs,
        probe.observation_space(agent)["observation"],
        probe.action_space(agent),
        seed=seed,
        policy_class=policy_class,
        sampling=config.sb3.sampling,
    )


def _make_env(config: TrainConfig, rank: int, seed: int):
    """A thunk building one training env with its own opponent pool (runs inside a worker)."""

    def thunk():
        torch.set_num_threads(1)
        env = SeatEnv(
            config.env,
            _make_pool(config, seed + rank),
            config.learner_seats,
            seed=seed + rank,
            margin_shaping=config.sb3.margin_shaping,
            gamma=config.ppo.gamma,
        )
        return Monitor(env)

    return thunk


def make_vec_env(config: TrainConfig, seed: int) -> VecEnv:
    """`sb3.vec_env.kind`: `batched` (every game in this process, opponents' moves batched), `dummy` (one
    SeatEnv per game, in this process) or `subproc` (one SeatEnv per worker process)."""
    n = config.sb3.vec_env.num_envs
    if config.sb3.vec_env.kind == "batched":
        env = BatchedSelfPlayEnv(
            config.env,
            [_make_pool(config, seed + rank) for rank in range(n)],
            config.learner_seats,
            seed=seed,
            margin_shaping=config.sb3.margin_shaping,
            gamma=config.ppo.gamma,
            skip_forced=config.sb3.skip_forced,
        )
        return VecMonitor(env)
    fns = [_make_env(config, rank, seed) for rank in range(n)]
    if config.sb3.vec_env.kind == "subproc":
        return SubprocVecEnv([_ignoring_ctrl_c(fn) for fn in fns])
    return DummyVecEnv(fns)


def _ignoring_ctrl_c(thunk):
    """A worker leaves Ctrl-C to the main process, which saves a checkpoint and then stops the workers."""

    def start():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return thunk()

    return start


def _stop_workers(vec_env: VecEnv) -> None:
    """After Ctrl-C, end subprocess workers without a word and mark the env closed: an interrupted step may
    have read some of their answers and not others, so the polite `close()` could wait forever for one
    already read, or talk to a worker already gone."""
    if isinstance(vec_env, SubprocVecEnv) and not vec_env.closed:
        for process in vec_env.processes:
            process.terminate()
        for process in vec_env.processes:
            process.join()
        for remote in vec_env.remotes:
            remote.close()
        vec_env.closed = True


class SelfPlayPPO(MaskablePPO):
    """MaskablePPO whose rollouts run under `torch.inference_mode` (SB3's own `no_grad` tracks versions and
    views that a rollout never needs): the same numbers, the learner's forward pass at 16 games ~13% cheaper.
    Callbacks that build or save tensors during a rollout leave the mode (`SelfPlayCallback`). With
    `overlap`, each update runs on a thread while the next rollout is collected (train/selfplay/pipeline.py).
    Learning keeps the update's large blocks in the heap (train/selfplay/heap.py) and runs torch's
    distributions without their argument checks (`unchecked_distributions`)."""

    overlap = False
    update_running = False  # True while an overlapped update holds the learner

    def collect_rollouts(self, *args, **kwargs) -> bool:
        with torch.inference_mode():
            return super().collect_rollouts(*args, **kwargs)

    def train(self) -> None:
        """One update. Ctrl-C meanwhile takes effect when it ends, so a checkpoint never holds weights half
        updated: the learner is then trained through its step count."""
        with ctrl_c_after():
            super().train()
            self.trained_steps = self.num_timesteps

    def learn(
        self,
        total_timesteps: int,
        callback=None,
        log_interval: int = 1,
        tb_log_name: str = "MaskablePPO",
        reset_num_timesteps: bool = True,
        **kwargs,
    ):
        keep_large_blocks()
        if self.overlap and kwargs:
            raise ValueError(f"an overlapped learner takes no {', '.join(kwargs)}")
        with unchecked_distributions():
            if not self.overlap:
                return super().learn(
                    total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps, **kwargs
                )
            return learn_overlapped(self, total_timesteps, callback, log_interval, tb_log_name, reset_num_timesteps)


@contextmanager
def ctrl_c_after():
    """Hold Ctrl-C (SIGINT) until the block ends, then raise it. A plain block off the main thread (where Python
    takes no signals) and where SIGINT is not Python's KeyboardInterrupt (ignored, as in a background job)."""
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    held = []
    previous = signal.signal(signal.SIGINT, lambda *_: held.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


@contextmanager
def unchecked_distributions():
    """torch's distributions without their argument checks, restored after. SB3's masked categorical is built
    twice per forward pass, and each build checks every logit for NaN and infinity (five passes over
    [batch x actions]): 7-26% of the shipped configs' learner time, for the same numbers. A NaN logit still
    fails, at the next rollout's draw rather than in the update that made it."""
    checked = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        torch.distributions.Distribution.set_default_validate_args(checked)


def new_model(config: TrainConfig, vec_env: VecEnv) -> MaskablePPO:
    """A fresh MaskablePPO learner of the config's network (`network.kind`) on `vec_env` (CPU, seeded)."""
    policy_class, kwargs = network_policy(config.network, config.env)
    rollout = {"n_steps": config.sb3.n_steps, "target_kl": config.sb3.target_kl}
    model = SelfPlayPPO(
        policy_class,
        vec_env,
        **vars(config.ppo),
        **rollout,
        rollout_buffer_class=GatheringRolloutBuffer,
        rollout_buffer_kwargs={"sparse": policy_class is MlpPolicy},  # the MLP reads sparse rows
        policy_kwargs=kwargs,
        seed=config.seed,
        device="cpu",
    )
    model.overlap = config.sb3.overlap
    model.policy.skip_forced = config.sb3.skip_forced
    return model


class Run:
    """One run folder: the config, the snapshot record, evaluations and checkpoints."""

    def __init__(self, config: TrainConfig, run_dir: Path, total_steps: int):
        self.config = config
        self.run_dir = run_dir
        self.total_steps = total_steps
        self.snapshots: list[tuple[str, dict]] = []
        self.retired: dict[str, dict] = {}  # snapshots out of the pool, kept while a game may still seat them
        self.boundary: Boundary | None = None  # where the run stood at the start of the current rollout
        self.vec_env: VecEnv | None = None
        self.eval_log: EvalLog | None = None
        self.spec = config_spec(config.network, config.env)  # what policy.pt records of the network

    # --- the pool --------------------------------------------------------------------------------
    def add_snapshot(self, model: MaskablePPO, name: str) -> None:
        weights = actor_weights(model.policy)
        kept = self.snapshots + [(name, weights)]
        cut = max(0, len(kept) - self.config.opponents.max_snapshots)
        self.retired.update((f"{SELF}:{old}", w) for old, w in kept[:cut])  # named as the games seat them
        self.snapshots = kept[cut:]
        self.vec_env.env_method("add_snapshot", name, weights)

    def restore_pool(self, snapshots: list[tuple[str, dict]]) -> None:
        for name, weights in snapshots:
            self.snapshots.append((name, weights))
            self.vec_env.env_method("add_snapshot", name, weights)

    def mark_boundary(self, model: MaskablePPO) -> Boundary:
        """Note where the run stands before a rollout (what a checkpoint of this step holds); a retired snapshot
        no game seats now is forgotten, as no game can draw it again."""
        self.boundary = Boundary.capture(model, self.vec_env, self.snapshots, self.retired)
        self.retired = dict(self.boundary.retired)
        return self.boundary

    def restore_games(self, model: MaskablePPO, checkpoint) -> None:
        """Continue the checkpoint's games with its generators (after `restore_pool`); where it holds none that
        fit, a line says why, and learning deals new games."""
        saved = checkpoint.resume
        if saved is None and checkpoint.step == 0:  # saved before any game began
            return
        why = "it was saved without them" if saved is None else mismatch(saved, self.vec_env)
        if why is not None:
            print(f"resume: new games are dealt, not those of {checkpoint.folder}: {why}", file=sys.stderr)
            return
        self.retired = dict(saved["retired"])
        restore(model, self.vec_env, saved)

    # --- evaluation and checkpoints --------------------------------------------------------------
    def evaluate(self, model: MaskablePPO, step: int, games: int, progress: str | None = None) -> list[Matchup]:
        agent = PolicyAgent(model.policy, name="learner")
        rows = evaluate(
            agent,
            self.config.env,
            games,
            seed=self.config.seed + EVAL_SEED_OFFSET,
            learner_seats=self.config.learner_seats,
            progress=progress,
        )
        self.eval_log.append(step, rows)
        return rows

    def save_checkpoint(self, model: MaskablePPO) -> Path:
        """A checkpoint at the last step the weights were trained through (`trained_steps`, kept by the callback
        and the overlapped loop): a rollout cut short by a save or Ctrl-C is collected again on resume, so a
        resumed run ends at the step an uninterrupted one does."""
        step = getattr(model, "trained_steps", model.num_timesteps)
        boundary = self.boundary if self.boundary is not None and self.boundary.step == step else None
        dealt = model._last_obs is not None  # else no game has begun: nothing to continue
        if boundary is None and model.num_timesteps == step and dealt:  # between rollouts: here is the boundary
            boundary = self.mark_boundary(model)
        snapshots = boundary.snapshots if boundary is not None else self.snapshots
        games = boundary.to_file() if boundary is not None else None
        keep = self.config.checkpoint.keep
        return write_checkpoint(self.run_dir, model, snapshots, keep, self.policy_file(model), step, games)

    def policy_file(self, model: MaskablePPO):
        return policy_file(model.policy, self.spec, self.config.env)

    def interrupted(self, learner: MaskablePPO | None) -> TrainingInterrupted:
        """Ctrl-C: save the learner at its current step (None: nothing new to save) and say how to go on."""
        saved = self.save_checkpoint(learner) if learner is not None else newest_checkpoint(self.run_dir)
        return TrainingInterrupted(self.run_dir, saved)


RESUMED_KEYS = ("env_id", "env_kwargs", "learner_seats", "network")  # what a resumed run must keep


def check_resumable(config: TrainConfig, saved: dict, source: Path) -> None:
    """A resumed run must keep the game and the network; everything else may change. One line names every key
    that differs. Network keys added since the run was saved read as their defaults (an older run resumes)."""
    ours = config.to_dict()
    saved = {**saved, "network": {**asdict(NetworkConfig()), **(saved.get("network") or {})}}
    differ = []
    for key in RESUMED_KEYS:
        if key == "network":
            differ += [
                f"network.{k}: run {saved['network'].get(k)!r}, config {v!r}"
                for k, v in ours["network"].items()
                if saved["network"].get(k) != v
            ]
        elif ours[key] != saved.get(key):
            differ.append(f"{key}: run {saved.get(key)!r}, config {ours[key]!r}")
    if differ:
        raise ValueError(
            f"cannot resume {source} with this config: it changes what the run trained ({'; '.join(differ)})"
        )


def fresh_policy(config: TrainConfig):
    """The config's network as a new, untrained SB3 policy (actor and critic), on the game's spaces."""
    probe = config.env.make_raw()
    agent = probe.possible_agents[0]
    policy_class, kwargs = network_policy(config.network, config.env)
    return build_policy(probe.observation_space(agent)["observation"], probe.action_space(agent), kwargs, policy_class)


def resume_shapes(config: TrainConfig) -> Shapes:
    """The tensors a checkpoint of the config's network holds, from a fresh policy (no env needed)."""
    return Shapes.of(fresh_policy(config))


def train(
    config: TrainConfig,
    out: str | Path | None = None,
    steps: int | None = None,
    resume: str | Path | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train to `steps` learner env steps in total (the config's budget by default), then evaluate."""
    total = steps if steps is not None else config.total_steps
    if total < 1:
        raise ValueError(f"steps must be at least 1, got {total}")
    checkpoint = None
    if resume:
        folder = RunFolder.above(Path(resume))
        if folder is not None:
            check_resumable(config, folder.config, folder.root)
        checkpoint = latest_checkpoint(Path(resume), resume_shapes(config))
        run_dir = Path(out) if out else checkpoint.folder.parent.parent
    else:
        run_dir = Path(out) if out else Path("runs") / f"{config.env_id}-{datetime.now():%Y%m%d-%H%M%S}"
        if (run_dir / "checkpoints").is_dir():
            raise ValueError(f"{run_dir} already holds a run; pass --resume {run_dir} to continue it, or another --out")
    run_dir.mkdir(parents=True, exist_ok=True)
    if progress:  # now, so TensorBoard can watch the run while it trains
        print(f"run folder {run_dir} (tensorboard --logdir {run_dir / 'logs' / 'tb'})", flush=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump({**config.to_dict(), "total_steps": total}, sort_keys=False))

    torch.set_num_threads(config.torch_threads)
    keep_large_blocks()  # before any thread starts: the warm start's minibatches gain too
    run = Run(config, run_dir, total)
    start_step = checkpoint.step if checkpoint is not None else 0
    run.vec_env = make_vec_env(config, seed=config.seed + start_step)
    learner = None  # the model once it is ready to learn: from then on Ctrl-C saves it
    try:
        warm_rows, warm_eval_cpu, cpu_began = None, 0.0, time.process_time()
        if checkpoint is None:
            model = new_model(config, run.vec_env)
            if config.sb3.warm_start is not None:  # the clone is also the first snapshot
                warm_rows, warm_eval_cpu = warm_start(
                    model.policy, config, run_dir, config.seed + EVAL_SEED_OFFSET, progress
                )
            run.add_snapshot(model, "step_000000000")  # self-play needs an opponent from the first game
        else:
            model = new_model(config, run.vec_env)  # then the checkpoint's tensors: nothing is unpickled
            model.set_parameters(checkpoint.params, exact_match=True, device="cpu")
            model.num_timesteps, model._n_updates = checkpoint.step, checkpoint.updates
            model.set_random_seed(config.seed + start_step)  # new games' seeds, where the checkpoint holds none
            run.restore_pool(checkpoint.snapshots)
            run.restore_games(model, checkpoint)
        model.set_logger(make_logger(run_dir / "logs", start_step))
        run.eval_log = EvalLog(run_dir / "eval.csv", start_step)
        if warm_rows:
            run.eval_log.append(0, warm_rows)
        callback = SelfPlayCallback(run, progress=progress)
        learner = model
        began = time.perf_counter()
        if total > model.num_timesteps:
            model.learn(total - model.num_timesteps, callback=callback, reset_num_timesteps=False)
        train_seconds = time.perf_counter() - began - callback.eval_seconds
        cpu_seconds = time.process_time() - cpu_began - callback.eval_cpu_seconds - warm_eval_cpu
        steps_done = model.num_timesteps - start_step
        run.save_checkpoint(model)
    except KeyboardInterrupt:
        interrupted = run.interrupted(learner)
        _stop_workers(run.vec_env)
        raise interrupted from None
    finally:
        run.vec_env.close()

    try:  # the last checkpoint holds the trained model: Ctrl-C from here on only skips the final evaluation
        final_dir = run_dir / "final"
        final_dir.mkdir(exist_ok=True)
        save_model(model, final_dir / MODEL_FILE)
        write_policy(final_dir / POLICY_FILE, run.policy_file(model))
        final = run.evaluate(
            model, model.num_timesteps, config.evaluation.final_games, "final evaluation" if progress else None
        )
        (final_dir / "eval.json").write_text(
            json.dumps(
                {
                    "env_id": config.env_id,
                    "steps": model.num_timesteps,
                    "learner_seats": config.learner_seats,
                    "steps_per_second": steps_done / train_seconds if train_seconds > 0 else None,
                    "train_cpu_seconds": cpu_seconds,
                    "results": [m.to_dict() for m in final],
                },
                indent=2,
            )
        )
        learning_curve(
            run_dir / "eval.csv",
            run_dir / "logs" / "progress.csv",
            run_dir / "learning_curve.png",
            f"{config.env_id}: {run_dir.name}",
        )
    except KeyboardInterrupt:
        raise run.interrupted(None) from None
    return TrainResult(run_dir, steps_done, train_seconds, final, cpu_seconds)


def summary(result: TrainResult, config: TrainConfig) -> str:
    """What `tabletop train` prints at the end."""
    return (
        f"{config.env_id}: {result.steps} learner steps in {result.train_seconds:.0f} s of training "
        f"({result.steps_per_second:.0f} steps/s, {result.cpu_seconds / 60:.1f} CPU-minutes with any warm start); "
        f"run folder {result.run_dir}\n"
        f"final policy over {config.evaluation.final_games} games per opponent:\n"
        + format_table(result.final, config.learner_seats)
    )

"""Self-play training of MaskablePPO against an opponent pool, with evaluation, checkpoints and resume.

A run folder holds everything about one run:

    config.yaml              the validated config (with the step budget actually used)
    logs/progress.csv, tb/   SB3 training statistics (CSV and TensorBoard)
    eval.csv                 win rates against every baseline at each evaluation
    checkpoints/step_N/      model.zip (weights, optimiser, step count) and pool.pt (the snapshots)
    final/model.zip          the final policy, final/eval.json its results over `final_games` games
    learning_curve.png
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from tabletop.agents import PolicyAgent
from tabletop.agents.policy_agent import MODEL_FILE
from tabletop.train.evaluation.evaluate import Matchup, evaluate, format_table
from tabletop.train.selfplay.callbacks import SelfPlayCallback
from tabletop.train.selfplay.config import TrainConfig
from tabletop.train.selfplay.logs import EvalLog, make_logger
from tabletop.train.selfplay.opponents import OpponentPool
from tabletop.train.selfplay.plots import learning_curve
from tabletop.train.selfplay.policy import actor_weights, policy_kwargs
from tabletop.train.selfplay.seat_env import SeatEnv

POOL_FILE = "pool.pt"
EVAL_SEED_OFFSET = 1_000_003  # evaluation games never reuse training seeds, and repeat at every evaluation


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    train_seconds: float
    final: list[Matchup]

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.train_seconds if self.train_seconds else float("nan")


def _make_env(config: TrainConfig, rank: int, seed: int):
    """A thunk building one training env with its own opponent pool (runs inside a worker)."""

    def thunk():
        torch.set_num_threads(1)
        probe = config.env.make_raw()
        agent = probe.possible_agents[0]
        pool = None
        if config.learner_seats == "one":
            pool = OpponentPool(
                config.env,
                config.opponents.weights,
                config.opponents.max_snapshots,
                policy_kwargs(config.network.hidden, config.network.activation),
                probe.observation_space(agent)["observation"],
                probe.action_space(agent),
                seed=seed + rank,
            )
        env = SeatEnv(
            config.env,
            pool,
            config.learner_seats,
            seed=seed + rank,
            margin_shaping=config.margin_shaping,
            gamma=config.ppo.gamma,
        )
        return Monitor(env)

    return thunk


def make_vec_env(config: TrainConfig, seed: int) -> VecEnv:
    fns = [_make_env(config, rank, seed) for rank in range(config.vec_env.num_envs)]
    return SubprocVecEnv(fns) if config.vec_env.kind == "subproc" else DummyVecEnv(fns)


class Run:
    """One run folder: the config, the snapshot record, evaluations and checkpoints."""

    def __init__(self, config: TrainConfig, run_dir: Path, total_steps: int):
        self.config = config
        self.run_dir = run_dir
        self.total_steps = total_steps
        self.snapshots: list[tuple[str, dict]] = []
        self.vec_env: VecEnv | None = None
        self.eval_log: EvalLog | None = None

    # --- the pool --------------------------------------------------------------------------------
    def add_snapshot(self, model: MaskablePPO, name: str) -> None:
        weights = actor_weights(model.policy)
        self.snapshots = (self.snapshots + [(name, weights)])[-self.config.opponents.max_snapshots :]
        self.vec_env.env_method("add_snapshot", name, weights)

    def restore_pool(self, snapshots: list[tuple[str, dict]]) -> None:
        for name, weights in snapshots:
            self.snapshots.append((name, weights))
            self.vec_env.env_method("add_snapshot", name, weights)

    # --- evaluation and checkpoints --------------------------------------------------------------
    def evaluate(self, model: MaskablePPO, step: int, games: int) -> list[Matchup]:
        agent = PolicyAgent(model.policy, name="learner")
        rows = evaluate(
            agent,
            self.config.env,
            games,
            seed=self.config.seed + EVAL_SEED_OFFSET,
            learner_seats=self.config.learner_seats,
        )
        self.eval_log.append(step, rows)
        return rows

    def save_checkpoint(self, model: MaskablePPO) -> Path:
        folder = self.run_dir / "checkpoints" / f"step_{model.num_timesteps:09d}"
        folder.mkdir(parents=True, exist_ok=True)
        model.save(folder / MODEL_FILE)
        torch.save({"step": model.num_timesteps, "snapshots": self.snapshots}, folder / POOL_FILE)
        kept = sorted((self.run_dir / "checkpoints").iterdir())
        for old in kept[: -self.config.checkpoint.keep]:
            shutil.rmtree(old)
        return folder


def latest_checkpoint(path: Path) -> Path:
    """`path` itself if it is a checkpoint, else the newest checkpoint of the run folder `path`."""
    if (path / MODEL_FILE).is_file() and (path / POOL_FILE).is_file():
        return path
    folder = path / "checkpoints"
    found = sorted(folder.iterdir()) if folder.is_dir() else []
    if not found:
        raise ValueError(f"nothing to resume at {str(path)!r}: expected a checkpoint folder or a run folder with checkpoints/")
    return found[-1]


def _check_resumable(config: TrainConfig, saved: dict, source: Path) -> None:
    """A resumed run must keep the game and the network; everything else may change."""
    for key in ("env_id", "env_kwargs", "learner_seats", "network"):
        ours = config.to_dict()[key]
        if ours != saved[key]:
            raise ValueError(f"cannot resume {source}: its {key} is {saved[key]!r}, the config says {ours!r}")


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
    checkpoint = latest_checkpoint(Path(resume)) if resume else None
    if checkpoint is not None:
        run_dir = Path(out) if out else checkpoint.parent.parent
        if (run_dir / "config.yaml").is_file():
            _check_resumable(config, yaml.safe_load((run_dir / "config.yaml").read_text()), run_dir)
    else:
        run_dir = Path(out) if out else Path("runs") / f"{config.env_id}-{datetime.now():%Y%m%d-%H%M%S}"
        if (run_dir / "checkpoints").is_dir():
            raise ValueError(f"{run_dir} already holds a run; pass --resume {run_dir} to continue it, or another --out")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump({**config.to_dict(), "total_steps": total}, sort_keys=False))

    torch.set_num_threads(config.torch_threads)
    run = Run(config, run_dir, total)
    saved = torch.load(checkpoint / POOL_FILE, weights_only=False) if checkpoint is not None else None
    start_step = saved["step"] if saved else 0
    run.vec_env = make_vec_env(config, seed=config.seed + start_step)
    try:
        if checkpoint is None:
            model = MaskablePPO(
                "MlpPolicy",
                run.vec_env,
                **vars(config.ppo),
                policy_kwargs=policy_kwargs(config.network.hidden, config.network.activation),
                seed=config.seed,
                device="cpu",
            )
            run.add_snapshot(model, "step_000000000")  # self-play needs an opponent from the first game
        else:
            model = MaskablePPO.load(checkpoint / MODEL_FILE, env=run.vec_env, device="cpu")
            model.set_random_seed(config.seed + start_step)
            run.restore_pool(saved["snapshots"])
        model.set_logger(make_logger(run_dir / "logs", start_step))
        run.eval_log = EvalLog(run_dir / "eval.csv", start_step)
        callback = SelfPlayCallback(run, progress=progress)
        began = time.perf_counter()
        if total > model.num_timesteps:
            model.learn(total - model.num_timesteps, callback=callback, reset_num_timesteps=False)
        train_seconds = time.perf_counter() - began - callback.eval_seconds
        steps_done = model.num_timesteps - start_step
        run.save_checkpoint(model)
    finally:
        run.vec_env.close()

    final_dir = run_dir / "final"
    final_dir.mkdir(exist_ok=True)
    model.save(final_dir / MODEL_FILE)
    final = run.evaluate(model, model.num_timesteps, config.evaluation.final_games)
    (final_dir / "eval.json").write_text(
        json.dumps(
            {
                "env_id": config.env_id,
                "steps": model.num_timesteps,
                "learner_seats": config.learner_seats,
                "steps_per_second": steps_done / train_seconds if train_seconds > 0 else None,
                "results": [m.to_dict() for m in final],
            },
            indent=2,
        )
    )
    learning_curve(run_dir / "eval.csv", run_dir / "logs" / "progress.csv", run_dir / "learning_curve.png", f"{config.env_id}: {run_dir.name}")
    return TrainResult(run_dir, steps_done, train_seconds, final)


def summary(result: TrainResult, config: TrainConfig) -> str:
    """What `tabletop train` prints at the end."""
    return (
        f"{config.env_id}: {result.steps} learner steps in {result.train_seconds:.0f} s of training "
        f"({result.steps_per_second:.0f} steps/s); run folder {result.run_dir}\n"
        f"final policy over {config.evaluation.final_games} games per opponent:\n"
        + format_table(result.final, config.learner_seats)
    )

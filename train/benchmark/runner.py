"""`tabletop benchmark SUITE`: every (task, algorithm, seed) of a grid as a resumable run folder.

    OUT/benchmark.json                       what the grid was started with (suite, tasks, algorithms, seeds)
                                             and each code version that ran it
    OUT/<task>/reference.json                the panel's own scores on the evaluation games (the score's 0 and 1)
    OUT/<task>/timing.json                   the reference's CPU seconds
    OUT/<task>/cfr_plus.json                 an exact task's reference line: CFR+'s NashConv by iteration
    OUT/<task>/<algorithm>/seed_<k>/
        run.json                             the task, the hyperparameters and the seed of this run
        evals.json                           one record per evaluation: scheduled step, learner steps, results
                                             (the last on the task's final_eval_games deals)
        best/policy.pt, best/step.json       the policy of the best evaluation so far (a family whose save
                                             writes no policy.pt has none, nor an absolute metric)
        absolute.json                        that policy on absolute_factor x eval_games deals (marl-eval's
                                             absolute metric)
        finished | unsupported.json | error.txt
        policy.pt, (the family's own save: checkpoints/ ...)
        timing.json                          CPU seconds of training and of evaluation (not in evals.json: the
                                             results of the same seeds are the same file, bit for bit)

The runner owns the schedule: for each evaluation step it asks the learner to `train_until` it, evaluates
`agent()` on the task's panel, saves the learner (with its `policy.pt`), and only then records the evaluation.
After the last one, the best evaluation's policy plays again on more deals (`absolute.json`). A run killed at any
moment resumes from its last save and redoes at most what it had not recorded; a finished run (its
`finished` marker) is never opened again. Runs go to worker processes (torch one thread each), or to Ray
tasks on an existing cluster (`ray_address`).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tabletop.agents.extras import MissingExtra, installed_versions, source_commit
from tabletop.agents.networks import POLICY_FILE
from tabletop.train.benchmark.exact import CFR_FILE, cfr_plus, nash_conv
from tabletop.train.benchmark.families import load_family, missing_extra
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.scoring import play_panel, reference
from tabletop.train.benchmark.suite import Suite, eval_steps, panel_files

FINISHED, UNSUPPORTED, ERROR, ABSOLUTE_FILE, BEST = "finished", "unsupported.json", "error.txt", "absolute.json", "best"
RUN_FILE, EVALS_FILE, TIMING_FILE, REFERENCE_FILE, GRID_FILE = (
    "run.json",
    "evals.json",
    "timing.json",
    "reference.json",
    "benchmark.json",
)


def task_dict(task: Task) -> dict[str, Any]:
    """A task as plain data (JSON), the game as its env id and arguments."""
    data = asdict(task)
    data["env"] = {"env_id": task.env.env_id, "env_kwargs": dict(task.env.kwargs)}
    data["panel"] = list(task.panel)
    return data


def task_from_dict(data: dict[str, Any]) -> Task:
    from tabletop.envs import EnvSpec

    return Task(
        **{**data, "env": EnvSpec(data["env"]["env_id"], data["env"]["env_kwargs"]), "panel": tuple(data["panel"])}
    )


def write_json(path: Path, data: Any) -> None:
    """Write through a temporary file renamed into place: a kill leaves the old file or the new, never half."""
    temp = path.with_name(f".writing-{path.name}")
    temp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(temp, path)


def read_json(path: Path, default: Any = None) -> Any:
    return json.loads(path.read_text()) if path.is_file() else default


@dataclass(frozen=True)
class Job:
    """One unit of the grid: a run (algorithm and seed given) or a task's reference (algorithm None)."""

    task: dict[str, Any]
    folder: str
    algorithm: str | None = None
    params: dict[str, Any] | None = None
    seed: int = 0

    @property
    def label(self) -> str:
        return (
            f"{self.task['name']}/{self.algorithm}/seed_{self.seed}"
            if self.algorithm
            else f"{self.task['name']}/reference"
        )

    @property
    def setting(self) -> dict[str, Any]:
        """What a run's `run.json` holds: a folder holding another setting is refused."""
        return {"task": self.task, "algorithm": self.algorithm, "params": self.params, "seed": self.seed}

    @property
    def evaluations(self) -> int:
        """Progress units: one per evaluation of a run, one for a reference."""
        return len(eval_steps(task_from_dict(self.task))) if self.algorithm else 1


def status(folder: Path) -> str:
    """`finished`, `unsupported`, `failed`, `started` or `new` (a reference: `finished` or `new`)."""
    if (folder / FINISHED).is_file() or (folder / REFERENCE_FILE).is_file():
        return "finished"
    if (folder / UNSUPPORTED).is_file():
        return "unsupported"
    if (folder / ERROR).is_file():
        return "failed"
    return "started" if (folder / RUN_FILE).is_file() else "new"


def run_job(job: Job, report: Callable[[str, int], None] | None = None) -> str:
    """Do one job (or what is left of it) and return its status; `report(label, evaluations)` after each step."""
    report = report or (lambda label, n: None)
    folder = Path(job.folder)
    task = task_from_dict(job.task)
    folder.mkdir(parents=True, exist_ok=True)
    if status(folder) in ("finished", "unsupported"):
        return status(folder)
    if job.algorithm is None:
        began = time.process_time()
        if task.exact and not (folder / CFR_FILE).is_file():  # the exact track's reference line
            write_json(folder / CFR_FILE, cfr_plus(task, task.cfr_iterations))
        measured = reference(task)
        write_json(folder / TIMING_FILE, {"reference_cpu_seconds": time.process_time() - began})
        write_json(folder / REFERENCE_FILE, measured)
        report(job.label, 1)
        return "finished"
    (folder / ERROR).unlink(missing_ok=True)  # a failed run is tried again
    try:
        return _train_and_evaluate(job, task, folder, report)
    except MissingExtra:
        raise  # every run of the family would fail alike: one line naming the extra stops the grid
    except Exception:  # noqa: BLE001 - one failing run is recorded; the others go on
        (folder / ERROR).write_text(traceback.format_exc())
        return "failed"


def _train_and_evaluate(job: Job, task: Task, folder: Path, report: Callable[[str, int], None]) -> str:
    family = load_family(job.algorithm)
    _refuse_other_setting(job)
    write_json(folder / RUN_FILE, job.setting)
    reason = family.unsupported(task)
    if reason is not None:
        write_json(folder / UNSUPPORTED, {"algorithm": job.algorithm, "task": task.name, "reason": reason})
        report(job.label, job.evaluations)
        return "unsupported"
    records = read_json(folder / EVALS_FILE, [])
    timing = read_json(folder / TIMING_FILE, {"train_cpu_seconds": 0.0, "eval_cpu_seconds": 0.0})
    done = {r["step"] for r in records}
    report(job.label, len(done))
    steps = eval_steps(task)
    if len(done) < len(steps):
        learner = family.start(task, dict(job.params), job.seed, folder)
        try:
            for step in steps:
                if step in done:
                    continue
                began = time.process_time()
                learner.train_until(step)
                trained = time.process_time()
                agent = learner.agent()
                result = play_panel(agent, task, task.final_games if step == steps[-1] else None)
                if task.exact:
                    result["nash_conv"] = nash_conv(task, agent)
                timing["train_cpu_seconds"] += trained - began
                timing["eval_cpu_seconds"] += time.process_time() - trained
                learner.save()
                if (folder / POLICY_FILE).is_file() and (not records or result["raw"] > max(r["raw"] for r in records)):
                    _keep_best(folder, step)
                records.append({"step": step, "learner_steps": int(learner.steps), **result})
                write_json(folder / TIMING_FILE, timing)
                write_json(folder / EVALS_FILE, records)  # last: an evaluation counts once its learner is saved
                report(job.label, 1)
        finally:
            close = getattr(learner, "close", None)  # optional: a family holding processes or a Ray session
            if close is not None:
                close()
    if task.absolute_factor and (folder / BEST).is_dir() and not (folder / ABSOLUTE_FILE).is_file():
        began = time.process_time()
        write_json(folder / ABSOLUTE_FILE, absolute_metric(task, folder, job.seed))
        timing["absolute_cpu_seconds"] = time.process_time() - began
        write_json(folder / TIMING_FILE, timing)
    (folder / FINISHED).write_text("")
    return "finished"


def _keep_best(folder: Path, step: int) -> None:
    """The policy file of the best evaluation so far, kept in `best/` (renamed into place whole)."""
    best = folder / BEST
    best.mkdir(exist_ok=True)
    temp = best / f".writing-{POLICY_FILE}"
    shutil.copyfile(folder / POLICY_FILE, temp)
    os.replace(temp, best / POLICY_FILE)
    write_json(best / "step.json", {"step": step})


def absolute_metric(task: Task, folder: Path, seed: int) -> dict[str, Any]:
    """marl-eval's absolute metric: the best evaluation's policy on `absolute_factor` times an evaluation's deals
    (`eval_games`; marl-eval keeps ten times the episodes of each logged evaluation)."""
    from tabletop.agents.legal_policy_agent import LegalPolicyAgent

    agent = LegalPolicyAgent.load(folder / BEST / POLICY_FILE, task.env, seed=seed, sample=task.eval_mode == "sample")
    deals = task.eval_games * task.absolute_factor
    return {"step": read_json(folder / BEST / "step.json")["step"], "deals": deals, **play_panel(agent, task, deals)}


# --- the grid ----------------------------------------------------------------------------------------------
def plan(
    suite: Suite,
    tasks: list[str] | None,
    algorithms: list[str] | None,
    seeds: int,
    out: Path,
    skip: Callable[[str], None] | None = None,
) -> list[Job]:
    """Every job of the grid, references first; a grid already started in `out` must be the same grid. A family
    whose extra is missing here is left out, `skip` told one line naming the extra; when every family is, the
    first one's `MissingExtra` is raised."""
    chosen_tasks = suite.select_tasks(tasks)
    chosen = installed(suite.select_algorithms(algorithms), skip or (lambda line: None))
    params = {name: suite.params(name) for name in chosen}
    jobs = [Job(task_dict(t), str(out / t.name)) for t in chosen_tasks]
    for task in chosen_tasks:
        for name in chosen:
            for seed in range(seeds):
                jobs.append(
                    Job(task_dict(task), str(out / task.name / name / f"seed_{seed}"), name, params[name], seed)
                )
    return jobs


def installed(names: list[str], skip: Callable[[str], None]) -> list[str]:
    """The families of `names` whose extras are installed; `skip(line)` for each one left out."""
    problems = {name: missing_extra(name) for name in names}
    for name, problem in problems.items():
        if problem is not None:
            skip(f"skipping {name}: {problem}")
    kept = [name for name in names if problems[name] is None]
    if names and not kept:
        raise problems[names[0]]
    return kept


def code_version() -> dict[str, str | None]:
    """What trained the runs: this package's version and git commit, torch's and numpy's versions, and the
    instruction set torch's CPU kernels use (`AVX2`, `AVX512`...): they round by it, so runs reproduce bit for
    bit only where it matches."""
    import torch  # here: a bad suite is refused before torch loads (tests/train/test_fast_refusals.py)

    return {
        **installed_versions("tabletop-rl", "torch", "numpy"),
        "commit": source_commit(),
        "torch_cpu": torch.backends.cpu.get_cpu_capability(),
    }


def record_grid(out: Path, suite: Suite, jobs: list[Job], warn: Callable[[str], None] = print) -> None:
    """benchmark.json: the suite, its version, the sha256 of every panel policy file, every run of the grids
    started in `out` (a later call may add runs), and each code version that ran them. Results reproduce bit
    for bit under the code that made them; `warn` says so when a folder is resumed under other code."""
    for job in jobs:  # a finished run is never reopened, so its setting is checked here
        if job.algorithm is not None:
            _refuse_other_setting(job)
    out.mkdir(parents=True, exist_ok=True)
    grid = read_json(out / GRID_FILE, {"suite": suite.source, "runs": []})
    grid["suite_version"] = suite.version
    code, versions = code_version(), grid.setdefault("code", [])
    if code not in versions:
        if versions:
            warn(
                f"{out} was started under {describe(versions[-1])}; this is {describe(code)}: finished runs stay "
                "as they are, runs resumed now continue under this code"
            )
        versions.append(code)
    tasks = {job.task["name"]: task_from_dict(job.task) for job in jobs}
    grid["panel_sha256"] = {**grid.get("panel_sha256", {}), **{name: panel_files(t) for name, t in tasks.items()}}
    runs = {r["folder"]: r for r in grid["runs"]}
    for job in jobs:
        if job.algorithm is not None:
            runs[str(Path(job.folder).relative_to(out))] = {
                "folder": str(Path(job.folder).relative_to(out)),
                "task": job.task["name"],
                "algorithm": job.algorithm,
                "seed": job.seed,
            }
    grid["runs"] = sorted(runs.values(), key=lambda r: r["folder"])
    write_json(out / GRID_FILE, grid)


def _refuse_other_setting(job: Job) -> None:
    saved = read_json(Path(job.folder) / RUN_FILE)
    if saved is not None and saved != job.setting:
        raise ValueError(f"{job.folder} holds a run of another setting; start the benchmark in another --out")


def describe(code: dict[str, str | None]) -> str:
    """One code version in words: the package's version, its commit and torch's CPU instruction set where known."""
    commit, cpu = code.get("commit"), code.get("torch_cpu")
    return (
        f"tabletop-rl {code.get('tabletop-rl')}"
        + (f" at commit {commit}" if commit else "")
        + (f" with torch's {cpu} CPU kernels" if cpu else "")
    )


def run_grid(
    jobs: list[Job], workers: int = 1, ray_address: str | None = None, progress: bool = True
) -> dict[str, str]:
    """Run every job not finished yet; returns each job's status by label. Ctrl-C stops the workers: every run
    keeps its last save and recorded evaluations, and the same command resumes it."""
    todo = [j for j in jobs if status(Path(j.folder)) not in ("finished", "unsupported")]
    statuses = {j.label: status(Path(j.folder)) for j in jobs if j not in todo}
    bar = _Bar(sum(j.evaluations for j in jobs), sum(j.evaluations for j in jobs if j not in todo), progress)
    if ray_address is not None:
        statuses |= _on_ray(todo, ray_address, bar)
    elif workers <= 1:
        for job in todo:
            statuses[job.label] = run_job(job, bar.advance)
    else:
        statuses |= _in_processes(todo, workers, bar)
    bar.close()
    return statuses


class _Bar:
    """The grid's progress: evaluations done over all evaluations, and the run that last moved."""

    def __init__(self, total: int, initial: int, shown: bool):
        self.tqdm = None
        if shown:
            from tqdm import tqdm

            self.tqdm = tqdm(total=total, initial=initial, unit="eval", desc="benchmark", dynamic_ncols=True)

    def advance(self, label: str, n: int) -> None:
        if self.tqdm is not None:
            self.tqdm.set_postfix_str(label, refresh=False)
            self.tqdm.update(n)

    def close(self) -> None:
        if self.tqdm is not None:
            self.tqdm.close()


_progress = None  # in a worker: the queue its reports travel on to the grid's process


def _start_worker(parent: int, progress) -> None:
    """A worker's start: keep the progress queue, and end with the grid's process. When that one is gone (killed,
    even by SIGKILL) the worker ends too, rather than finish its run unseen while a resumed grid starts the same
    run in the same folder."""
    global _progress
    _progress = progress

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-grid", daemon=True).start()


def _put(label: str, n: int) -> None:
    """A worker's progress report, sent to the grid's process (a module function: it travels by pickle)."""
    assert _progress is not None, "set at the worker's start"
    _progress.put((label, n))


def _in_processes(jobs: list[Job], workers: int, bar: _Bar) -> dict[str, str]:
    """Jobs in `workers` spawned processes (a fresh interpreter each: no forked torch or Ray state)."""
    import multiprocessing
    import queue as queues

    context = multiprocessing.get_context("spawn")
    statuses: dict[str, str] = {}
    progress = context.Queue()  # given to each worker as it starts: a queue cannot travel with a job
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(), progress)
    )
    try:
        pending = {pool.submit(run_job, job, _put): job for job in jobs}
        while pending:
            finished, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            while True:
                try:
                    bar.advance(*progress.get_nowait())
                except queues.Empty:
                    break
            for future in finished:
                statuses[pending.pop(future).label] = future.result()
    except BaseException:
        for process in list((pool._processes or {}).values()):  # running jobs stop now; each resumes from its save
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    while True:  # the last reports
        try:
            bar.advance(*progress.get_nowait())
        except queues.Empty:
            break
    return statuses


def _on_ray(jobs: list[Job], address: str, bar: _Bar) -> dict[str, str]:
    """Jobs as Ray tasks (one CPU each) on the cluster at `address`; the bar moves as runs finish."""
    from tabletop.agents.extras import require

    require("tabletop benchmark --ray-address", "ray")
    import ray

    ray.init(address=address, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(run_job)
        pending = {remote.remote(job): job for job in jobs}
        statuses = {}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            job = pending.pop(ready[0])
            statuses[job.label] = ray.get(ready[0])
            bar.advance(job.label, job.evaluations)
        return statuses
    finally:
        ray.shutdown()


def grid_table(jobs: list[Job], statuses: dict[str, str]) -> str:
    """Task by algorithm: how many seeds finished, and which could not run (the family's reason)."""
    runs = [j for j in jobs if j.algorithm is not None]
    cells: dict[tuple[str, str], list[str]] = {}
    reasons: dict[tuple[str, str], str] = {}
    for job in runs:
        key = (job.task["name"], job.algorithm)
        cells.setdefault(key, []).append(statuses.get(job.label, "new"))
        unsupported = read_json(Path(job.folder) / UNSUPPORTED)
        if unsupported is not None:
            reasons[key] = unsupported["reason"]
    algorithms = list(dict.fromkeys(j.algorithm for j in runs))
    tasks = list(dict.fromkeys(j.task["name"] for j in runs))
    lines = [f"{'task':<22}" + "".join(f"{a:>14}" for a in algorithms)]
    for task in tasks:
        row = f"{task:<22}"
        for algorithm in algorithms:
            seen = cells.get((task, algorithm), [])
            if (task, algorithm) in reasons:
                row += f"{'unsupported':>14}"
            else:
                failed = seen.count("failed")
                text = f"{seen.count('finished')}/{len(seen)}" + (f" ({failed} failed)" if failed else "")
                row += f"{text:>14}"
        lines.append(row)
    for (task, algorithm), reason in reasons.items():
        lines.append(f"{algorithm} on {task}: {reason}")
    for job in runs:
        if statuses.get(job.label) == "failed":
            lines.append(f"{job.label} failed: see {Path(job.folder) / ERROR}")
    return "\n".join(lines)

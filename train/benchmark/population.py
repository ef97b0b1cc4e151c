"""The population table of a benchmark folder: every family's final policy, every heuristic of the panel and a
search player in one round robin per competitive task, with OpenSkill ratings and intervals
(train/evaluation/ratings.py).

    tabletop benchmark report DIR --population 50     # 50 games per pair, into DIR/report/population/<task>/

A family enters with the final policy (`policy.pt`) of its first finished seed. The games are seeded from the
task's evaluation seed, so no training deal is among them and the same folder gives the same table.
"""

from __future__ import annotations

from pathlib import Path

from tabletop.agents import agent_names
from tabletop.agents.networks import POLICY_FILE
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.report import REPORT, collect
from tabletop.train.benchmark.runner import GRID_FILE, RUN_FILE, read_json, task_from_dict
from tabletop.train.evaluation.ratings import RoundRobin, round_robin

SEARCH = "search"  # the search player over `resample` with its default budget (agents/search)
POPULATION = "population"


def players(folder: Path, grid: dict, task: Task) -> list[str]:
    """The agent specs of `task`'s table: each family's final policy, random and the panel's heuristics, search."""
    finals: dict[str, str] = {}
    for run in sorted(grid["runs"], key=lambda r: (r["algorithm"], r["seed"])):
        policy = folder / run["folder"] / POLICY_FILE
        if run["task"] == task.name and run["algorithm"] not in finals and policy.is_file():
            finals[run["algorithm"]] = f"ppo:{policy}"
    heuristics = [m for m in task.panel if m in agent_names(task.env.env_id)]
    return [*finals.values(), *heuristics, SEARCH]


def population_tables(folder: Path, games: int, progress: bool = False) -> dict[str, RoundRobin]:
    """One round robin per competitive task of the folder, written into `report/population/<task>/`."""
    grid = read_json(folder / GRID_FILE)
    tables = {}
    for name in collect(folder).common_tasks():
        first = next(r["folder"] for r in grid["runs"] if r["task"] == name)
        task = task_from_dict(read_json(folder / first / RUN_FILE)["task"])
        table = round_robin(task.env, players(folder, grid, task), games, seed=task.eval_seed, progress=progress)
        table.write(folder / REPORT / POPULATION / name)
        tables[name] = table
    return tables

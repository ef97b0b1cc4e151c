"""The population table of a benchmark folder: every family's final policy, random and every heuristic of the game
and a search player in one round robin per competitive task, with OpenSkill ratings and intervals
(train/evaluation/ratings.py).

    tabletop benchmark report DIR --population 50     # 50 games per pair, into DIR/report/population/<task>/
    tabletop benchmark report DIR --population 50 --population-with OTHER    # OTHER's families join DIR's tables

A family enters with the final policy (`policy.pt`) of its first finished seed, named by its run folder
(`ppo/seed_0`). Runs of the same task in other folders (another suite's grid on the same game) join the table; a
family found in several folders enters from the first. The games are seeded from the task's evaluation seed, so
no training deal is among them and the same folders give the same table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from tabletop.agents import agent_names
from tabletop.agents.networks import POLICY_FILE
from tabletop.train.benchmark.families.base import Task
from tabletop.train.benchmark.report import REPORT, collect
from tabletop.train.benchmark.runner import FINISHED, GRID_FILE, RUN_FILE, read_json, task_from_dict
from tabletop.train.evaluation.ratings import RoundRobin, round_robin

SEARCH = "search"  # the search player over `resample` with its default budget (agents/search)
POPULATION = "population"


def finals(folders: Sequence[Path], task: Task) -> dict[str, str]:
    """Each family's final policy on `task` across `folders`, as {name: agent spec}: its first finished seed with
    a policy file, from the first folder that has one. A folder whose run of the task plays another game is
    refused: its policies would not be comparable."""
    found: dict[str, str] = {}
    families: set[str] = set()
    for folder in folders:
        grid = read_json(folder / GRID_FILE)
        if grid is None:
            raise ValueError(f"{folder} holds no benchmark ({GRID_FILE} is missing): give the --out of a grid")
        for run in sorted(grid["runs"], key=lambda r: (r["algorithm"], r["seed"])):
            run_folder = folder / run["folder"]
            if run["task"] != task.name or run["algorithm"] in families:
                continue
            if not ((run_folder / FINISHED).is_file() and (run_folder / POLICY_FILE).is_file()):
                continue
            other = task_from_dict(read_json(run_folder / RUN_FILE)["task"])
            if not other.env.same_game(task.env):
                raise ValueError(
                    f"{run_folder} plays {other.env}, {task.name} elsewhere plays {task.env}: a population table "
                    "holds one game's runs"
                )
            found[f"{run['algorithm']}/seed_{run['seed']}"] = f"ppo:{run_folder / POLICY_FILE}"
            families.add(run["algorithm"])
    return found


def players(folders: Sequence[Path], task: Task) -> dict[str, str]:
    """`task`'s table as {name: agent spec}: each family's final policy, random and the game's heuristics, search."""
    policies = finals(folders, task)
    if not policies:
        raise ValueError(
            f"no finished run of {task.name} in {', '.join(map(str, folders))} kept its policy ({POLICY_FILE}): "
            "a shipped folder holds none; give the grid's own --out folder"
        )
    return {**policies, **{name: name for name in agent_names(task.env.env_id)}, SEARCH: SEARCH}


def population_tables(
    folder: Path, games: int, more: Sequence[Path] = (), out: Path | None = None, progress: bool = False
) -> dict[str, RoundRobin]:
    """One round robin per competitive task of `folder`, with the families of `more` on the same tasks, written
    into `out/population/<task>/` (`out`: the folder's report)."""
    grid = read_json(folder / GRID_FILE)
    tables = {}
    for name in collect(folder).common_tasks():
        first = next(r["folder"] for r in grid["runs"] if r["task"] == name)
        task = task_from_dict(read_json(folder / first / RUN_FILE)["task"])
        named = players([folder, *more], task)
        table = round_robin(task.env, list(named.values()), games, seed=task.eval_seed, progress=progress)
        table = _named(table, named)
        table.write((out or folder / REPORT) / POPULATION / name)
        tables[name] = table
    return tables


def _named(table: RoundRobin, names: dict[str, str]) -> RoundRobin:
    """The table with each agent spec replaced by its name (a policy's run folder rather than its path here)."""
    name_of = {spec: name for name, spec in names.items()}
    ratings = [dataclasses.replace(r, agent=name_of[r.agent]) for r in table.ratings]
    return dataclasses.replace(table, agents=[name_of[a] for a in table.agents], ratings=ratings)

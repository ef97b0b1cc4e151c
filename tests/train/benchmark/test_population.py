"""The population table: the final policies of one or several benchmark folders' families in one round robin per
task with random, the game's heuristics and the search player, each policy named by its run; a folder whose task
plays another game is refused."""

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tabletop.train.benchmark import runner  # noqa: E402
from tabletop.train.benchmark.population import population_tables  # noqa: E402
from tabletop.train.benchmark.suite import parse_suite  # noqa: E402
from tabletop.train.cli import main  # noqa: E402

SMOKE = Path(__file__).resolve().parents[3] / "configs/benchmark/smoke.yaml"
HEURISTICS = ["random", "greedy", "patient", "blocker"]  # every agent of Cromlet that needs no policy


def grid(out: Path, family: str, **env_kwargs) -> Path:
    """One seed of `family` on the smoke suite's task (its game's arguments changed by `env_kwargs`), run."""
    data = yaml.safe_load(SMOKE.read_text())
    data["tasks"]["cromlet_2p"]["env_kwargs"].update(env_kwargs)
    suite = parse_suite(data, str(SMOKE))
    jobs = runner.plan(suite, None, [family], 1, out)
    runner.record_grid(out, suite, jobs)
    assert set(runner.run_grid(jobs, progress=False).values()) == {"finished"}
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("population")
    return grid(root / "mmd", "mmd"), grid(root / "ppo", "ppo")


def test_families_of_other_folders_join_the_table_named_by_their_runs(folders, tmp_path):
    mmd, ppo = folders
    table = population_tables(mmd, 1, more=[ppo, mmd], out=tmp_path)["cromlet_2p"]  # mmd twice: it enters once
    assert table.agents == ["mmd/seed_0", "ppo/seed_0", *HEURISTICS, "search"]
    assert sorted(r.agent for r in table.ratings) == sorted(table.agents)
    written = json.loads((tmp_path / "population/cromlet_2p/round_robin.json").read_text())
    assert written["agents"] == table.agents and written["games_per_pair"] == 1


def test_a_shipped_folder_without_policies_is_refused(folders, tmp_path):
    mmd, _ = folders
    assert main(["benchmark", "report", str(mmd), "--ship", str(tmp_path / "shipped"), "--no-plots"]) == 0
    with pytest.raises(ValueError, match="a shipped folder holds none; give the grid's own --out folder"):
        population_tables(tmp_path / "shipped", 1)


def test_a_folder_of_another_game_is_refused(folders, tmp_path):
    mmd, _ = folders
    other = grid(tmp_path / "four", "ppo", hand_size=4)
    with pytest.raises(ValueError, match="a population table holds one game's runs"):
        population_tables(mmd, 1, more=[other], out=tmp_path)


def test_the_report_command_ships_the_table_and_names_its_mistakes(folders, tmp_path, capsys):
    mmd, ppo = folders
    dest = tmp_path / "shipped"
    assert (
        main(
            ["benchmark", "report", str(mmd), "--population", "1", "--population-with", str(ppo)]
            + ["--ship", str(dest), "--no-plots"]
        )
        == 0
    )
    ratings = (dest / "report/population/cromlet_2p/ratings.csv").read_text()
    assert "ppo/seed_0" in ratings and "mmd/seed_0" in ratings
    assert main(["benchmark", "report", str(mmd), "--population-with", str(ppo)]) == 2
    assert "--population-with adds families to the population table: give --population GAMES too" in (
        capsys.readouterr().err
    )
    assert main(["benchmark", "report", str(mmd), "--population", "1", "--population-with", str(tmp_path)]) == 2
    assert f"--population-with {tmp_path}: holds no benchmark" in capsys.readouterr().err

"""The runner and the report end to end: the CI smoke suite (every family that imports here, 2 seeds, run,
reported, and run again for the same JSON), resume after an interruption, families that cannot play or fail."""

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from support.benchmark import RandomLearner  # noqa: E402

from tabletop.train.benchmark import families, runner  # noqa: E402
from tabletop.train.benchmark.population import population_tables  # noqa: E402
from tabletop.train.benchmark.report import write_report  # noqa: E402
from tabletop.train.benchmark.suite import load_suite, parse_suite  # noqa: E402
from tabletop.train.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SMOKE = ROOT / "configs/benchmark/smoke.yaml"


def smoke_families() -> list[str]:
    """Every family whose module imports here and whose extra is installed (the RLlib ones need ray)."""
    return [n for n in families.available_families() if families.missing_extra(n) is None]


@pytest.fixture(scope="module")
def local_ray():
    """One small local Ray for every RLlib run of this module (each run would otherwise start its own)."""
    if not any(n.startswith("rllib_") for n in smoke_families()):
        yield
        return
    import ray

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=1, include_dashboard=False, object_store_memory=80 * 2**20, log_to_driver=False)
    yield
    ray.shutdown()


def run_smoke(out: Path, names: list[str], seeds: int = 2) -> dict[str, str]:
    suite = load_suite(SMOKE)
    jobs = runner.plan(suite, None, names, seeds, out)
    runner.record_grid(out, suite, jobs)
    return runner.run_grid(jobs, progress=False)


@pytest.mark.slow
def test_the_smoke_suite_runs_every_family_is_reported_and_repeats_bit_for_bit(tmp_path, local_ray):
    names = smoke_families()
    statuses = run_smoke(tmp_path / "a", names)
    assert set(statuses.values()) == {"finished"}, statuses
    written = write_report(tmp_path / "a")
    assert {"results.json", "summary.json", "report.md", "aggregate.png", "sample_efficiency.png"} <= {
        p.name for p in written
    }
    results = json.loads((tmp_path / "a/report/results.json").read_text())
    runs = results["cromlet_v0"]["cromlet_2p"]
    assert sorted(runs) == sorted(names)
    for name, algorithm in runs.items():
        assert sorted(algorithm) == ["run_0", "run_1"]
        run = algorithm["run_0"]
        assert [run[f"step_{i}"]["step_count"] for i in range(2)] == [0, 256]
        # marl-eval's absolute metric: the best evaluation's policy again, on absolute_factor x an evaluation's deals
        absolute = json.loads((tmp_path / f"a/cromlet_2p/{name}/seed_0/absolute.json").read_text())
        assert absolute["deals"] == 2 * 4 and absolute["step"] in (0, 256)
        assert run["absolute_metrics"]["raw_score"] == [absolute["raw"]]
        evals = json.loads((tmp_path / f"a/cromlet_2p/{name}/seed_0/evals.json").read_text())
        assert [r["panel"]["greedy"]["deals"] for r in evals] == [4, 6]  # paired deals; the last: final_eval_games
    summary = json.loads((tmp_path / "a/report/summary.json").read_text())
    assert summary["tasks"] == ["cromlet_2p"]
    assert len(summary["probability_of_improvement"]) == len(names) * (len(names) - 1) // 2

    # the population table: every family's final policy (named by its run), random, the game's heuristics and the
    # search player, rated
    table = population_tables(tmp_path / "a", 2)["cromlet_2p"]
    assert table.agents == [*(f"{n}/seed_0" for n in sorted(names)), "random", "greedy", "patient", "blocker", "search"]
    assert (tmp_path / "a/report/population/cromlet_2p/ratings.csv").is_file()
    assert sorted(r.agent for r in table.ratings) == sorted(table.agents)

    reported = {
        name: (tmp_path / "a/report" / name).read_bytes() for name in ("results.json", "summary.json", "report.md")
    }
    write_report(tmp_path / "a")  # the same runs, the same files
    assert reported == {name: (tmp_path / "a/report" / name).read_bytes() for name in reported}

    # the same seeds, the same results: every family but those that say they cannot repeat (APPO's learner thread)
    repeatable = [n for n in names if getattr(families.load_family(n), "deterministic", True)]
    run_smoke(tmp_path / "b", repeatable)
    write_report(tmp_path / "b")
    again = json.loads((tmp_path / "b/report/results.json").read_text())["cromlet_v0"]["cromlet_2p"]
    assert again == {name: runs[name] for name in repeatable}
    if repeatable == names:
        assert (tmp_path / "b/report/results.json").read_bytes() == reported["results.json"]


@pytest.mark.slow
def test_an_interrupted_grid_resumes_and_never_touches_a_finished_run(tmp_path, monkeypatch):
    suite = parse_suite(
        {
            "tasks": {"c2": {**_smoke_task(), "budget": 256, "eval_every": 128}},
            "algorithms": {"ppo": load_suite(SMOKE).algorithms["ppo"]},
        }
    )
    out = tmp_path / "grid"
    jobs = runner.plan(suite, None, ["ppo"], 2, out)
    runner.record_grid(out, suite, jobs)
    evaluations = []
    real = runner.play_panel

    def interrupted(agent, task, deals=None):  # Ctrl-C during seed 1's second evaluation
        evaluations.append(task.name)
        if len(evaluations) == 6:  # seed 0: three evaluations and its best policy's absolute metric
            raise KeyboardInterrupt
        return real(agent, task, deals)

    monkeypatch.setattr(runner, "play_panel", interrupted)
    with pytest.raises(KeyboardInterrupt):
        runner.run_grid(jobs, progress=False)
    seed0, seed1 = out / "c2/ppo/seed_0", out / "c2/ppo/seed_1"
    assert runner.status(seed0) == "finished" and runner.status(seed1) == "started"
    assert [r["step"] for r in json.loads((seed1 / "evals.json").read_text())] == [0]
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in seed0.rglob("*") if p.is_file()}

    monkeypatch.setattr(runner, "play_panel", real)
    statuses = runner.run_grid(jobs, workers=2, progress=False)  # the rest in a worker process
    assert set(statuses.values()) == {"finished"}
    assert [r["step"] for r in json.loads((seed1 / "evals.json").read_text())] == [0, 128, 256]
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in seed0.rglob("*") if p.is_file()} == before


def test_a_grid_records_each_code_version_and_says_when_a_resume_runs_other_code(tmp_path, monkeypatch):
    suite = load_suite(SMOKE)
    jobs = runner.plan(suite, ["cromlet_2p"], ["ppo"], 1, tmp_path)
    said = []
    runner.record_grid(tmp_path, suite, jobs, warn=said.append)
    runner.record_grid(tmp_path, suite, jobs, warn=said.append)  # a resume under the same code: nothing to say
    first = json.loads((tmp_path / "benchmark.json").read_text())["code"]
    assert said == [] and first == [runner.code_version()] and first[0]["torch"] and first[0]["numpy"]
    other = {**first[0], "tabletop-rl": "0.0.1", "commit": "0" * 40}
    monkeypatch.setattr(runner, "code_version", lambda: other)
    runner.record_grid(tmp_path, suite, jobs, warn=said.append)
    assert json.loads((tmp_path / "benchmark.json").read_text())["code"] == [*first, other]
    assert len(said) == 1 and f"this is tabletop-rl 0.0.1 at commit {'0' * 40}" in said[0]
    assert "runs resumed now continue under this code" in said[0]
    elsewhere = {**other, "torch_cpu": "AVX2" if other["torch_cpu"] != "AVX2" else "AVX512"}
    monkeypatch.setattr(runner, "code_version", lambda: elsewhere)  # the same code on a CPU that rounds otherwise
    runner.record_grid(tmp_path, suite, jobs, warn=said.append)
    assert len(said) == 2 and f"this is {runner.describe(elsewhere)}" in said[1]
    assert f"with torch's {elsewhere['torch_cpu']} CPU kernels" in said[1]


def _smoke_task() -> dict:
    import yaml

    return yaml.safe_load(SMOKE.read_text())["tasks"]["cromlet_2p"]


class Competitive:
    """A family that cannot play cooperative tasks; `broken` fails on every other one."""

    description = "test double"
    defaults = {}

    def __init__(self, name, broken):
        self.name, self.broken = name, broken

    def unsupported(self, task):
        return "plays competitive games only" if task.learner_seats == "all" else None

    def start(self, task, params, seed, folder):
        if self.broken:
            raise RuntimeError("this family always fails")
        return RandomLearner(seed)


FAMILIES = {"refuses": Competitive("refuses", False), "breaks": Competitive("breaks", True)}


def test_unsupported_and_failed_runs_are_reported_not_fatal(tmp_path, monkeypatch, capsys):
    for name in FAMILIES:  # this module serves both
        monkeypatch.setitem(families.FAMILIES, name, __name__)
    suite_file = tmp_path / "s.yaml"
    suite_file.write_text(
        json.dumps(
            {
                "tasks": {
                    "krz": {
                        "env_id": "krz_grtn_v1",
                        "env_kwargs": {"num_players": 2},
                        "learner_seats": "all",
                        "budget": 10,
                        "eval_every": 10,
                        "panel": ["random", "skeleton"],
                        "eval_games": 2,
                    },
                    "c2": _smoke_task(),
                },
                "algorithms": {"refuses": {}, "breaks": {}},
            }
        )
    )
    out = tmp_path / "grid"
    code = main(["benchmark", str(suite_file), "--seeds", "1", "--out", str(out), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 1  # a run failed
    assert "refuses on krz: plays competitive games only" in printed
    assert "c2/breaks/seed_0 failed" in printed
    assert "RuntimeError: this family always fails" in (out / "c2/breaks/seed_0/error.txt").read_text()
    assert main(["benchmark", "report", str(out), "--no-plots"]) == 0
    report = (out / "report/report.md").read_text()
    assert "- refuses on krz: plays competitive games only" in report
    assert "| c2 | refuses | 1 |" in report
    assert "- c2/breaks/seed_0" in report  # not finished: listed, not counted


def test_command_errors_are_one_line(tmp_path, capsys):
    assert main(["benchmark", str(SMOKE), "--algorithms", "sarsa", "--out", str(tmp_path)]) == 2
    assert "error: unknown algorithm 'sarsa'; allowed: ppo, rllib_ppo, rllib_appo, dqn, nfsp" in capsys.readouterr().err
    assert main(["benchmark", str(SMOKE), "--tasks", "chess", "--out", str(tmp_path)]) == 2
    assert "unknown task 'chess'; its tasks: cromlet_2p" in capsys.readouterr().err
    assert main(["benchmark", str(SMOKE)]) == 2
    assert "--out DIR" in capsys.readouterr().err
    assert main(["benchmark", "report", str(tmp_path / "none")]) == 2
    assert "holds no benchmark" in capsys.readouterr().err


def test_without_ray_the_rllib_families_and_ray_address_name_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the rllib extra were not installed
    code = main(
        ["benchmark", str(SMOKE), "--algorithms", "rllib_ppo", "--seeds", "1", "--out", str(tmp_path / "r"), "--quiet"]
    )
    assert code == 2
    assert (
        "rllib_ppo benchmark family needs the rllib extra (ray is missing): pip install -e '.[rllib]'"
        in capsys.readouterr().err
    )
    code = main(
        [
            "benchmark",
            str(SMOKE),
            "--algorithms",
            "ppo",
            "--seeds",
            "1",
            "--out",
            str(tmp_path),
            "--ray-address",
            "auto",
            "--quiet",
        ]
    )
    assert code == 2
    assert "needs the rllib extra (ray is missing): pip install -e '.[rllib]'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through /proc")
def test_a_grid_killed_outright_takes_its_workers_with_it(tmp_path):
    """SIGKILL leaves the grid's process no time to stop anything: its workers notice it gone and end within
    seconds, so no run goes on unseen while a resumed grid starts it again in the same folder."""
    import signal
    import subprocess
    import time

    command = [sys.executable, "-c", "import sys; from tabletop.train.cli import main; sys.exit(main())"]
    grid = subprocess.Popen(
        [*command, "benchmark", str(SMOKE), "--algorithms", "ppo,mmd", "--seeds", "8", "--workers", "2"]
        + ["--out", str(tmp_path), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    children = Path(f"/proc/{grid.pid}/task/{grid.pid}/children")
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("*/*/seed_*/run.json")):  # a worker is inside a run
        assert grid.poll() is None and time.monotonic() < deadline, "the grid ended before any run started"
        time.sleep(0.2)
    workers = children.read_text().split()
    assert len(workers) >= 2
    grid.send_signal(signal.SIGKILL)
    grid.wait()
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{pid}").exists() and _state(pid) != "Z" for pid in workers):
        assert time.monotonic() < deadline, f"workers outlived the grid: {workers}"
        time.sleep(0.2)


def _state(pid: str) -> str:
    """A process's state letter (Z: a zombie, already ended), or "" when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return ""

"""The exact track's plumbing: a policy network as an OpenSpiel policy (checked on Kuhn poker against OpenSpiel's
own tabular policy), CFR+'s reference line, and a grid of an exact task recording NashConv at every evaluation,
reported as exploitability curves on a log scale."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pyspiel = pytest.importorskip("pyspiel")

import torch  # noqa: E402
from open_spiel.python import policy as policies  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402
from torch import nn  # noqa: E402

from tabletop.train.benchmark import exact, runner  # noqa: E402
from tabletop.train.benchmark.report import write_report  # noqa: E402
from tabletop.train.benchmark.suite import load_suite, parse_suite  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


class Linear(nn.Module):
    """The layout `actor_logits` reads: an extractor's actor path, then the action head."""

    def __init__(self, inputs: int, actions: int, seed: int):
        super().__init__()
        torch.manual_seed(seed)
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.forward_actor = lambda x: x
        self.action_net = nn.Linear(inputs, actions)


def test_a_network_as_an_openspiel_policy_has_the_nash_conv_of_its_probabilities():
    game = pyspiel.load_game("kuhn_poker")
    network = Linear(game.observation_tensor_size(), game.num_distinct_actions(), seed=0)
    policy = exact.network_policy(game, network)
    tabular = policies.TabularPolicy(game)
    for state_key, row in tabular.state_lookup.items():
        state = tabular.states[row]
        for action, p in policy.action_probabilities(state).items():
            tabular.action_probability_array[row, action] = p
        assert np.isclose(sum(policy.action_probabilities(state).values()), 1.0), state_key
    assert exploitability.nash_conv(game, policy) == pytest.approx(exploitability.nash_conv(game, tabular))
    uniform = Linear(game.observation_tensor_size(), game.num_distinct_actions(), seed=0)
    nn.init.zeros_(uniform.action_net.weight), nn.init.zeros_(uniform.action_net.bias)
    assert exploitability.nash_conv(game, exact.network_policy(game, uniform)) == pytest.approx(
        exploitability.nash_conv(game, policies.UniformRandomPolicy(game))
    )


def test_cfr_plus_draws_a_falling_reference_line():
    curve = exact.cfr_plus_curve(pyspiel.load_game("kuhn_poker"), 200, points=6)["curve"]
    assert [p["iteration"] for p in curve][0] == 1 and curve[-1]["iteration"] == 200
    assert curve[-1]["nash_conv"] < 0.01 < curve[0]["nash_conv"]


@pytest.mark.slow
def test_an_exact_task_records_nash_conv_at_every_evaluation_and_reports_curves(tmp_path, monkeypatch):
    """The grid's plumbing with the game's NashConv stood in for (no small variant is needed for the bookkeeping)."""
    measured = iter(np.geomspace(1.0, 0.1, 20))
    monkeypatch.setattr(runner, "nash_conv", lambda task, agent: float(next(measured)))
    monkeypatch.setattr(
        runner, "cfr_plus", lambda task, n: {"iterations": n, "curve": [{"iteration": n, "nash_conv": 0.05}]}
    )
    smoke = load_suite(ROOT / "configs/benchmark/smoke.yaml")
    data = {
        "tasks": {"c2": {**_task(), "exact": True, "cfr_iterations": 7}},
        "algorithms": {"mmd": smoke.algorithms["mmd"]},
    }
    suite = parse_suite(data)
    jobs = runner.plan(suite, None, None, 2, tmp_path)
    runner.record_grid(tmp_path, suite, jobs)
    assert set(runner.run_grid(jobs, progress=False).values()) == {"finished"}
    assert json.loads((tmp_path / "c2/cfr_plus.json").read_text())["iterations"] == 7
    records = json.loads((tmp_path / "c2/mmd/seed_0/evals.json").read_text())
    assert all(r["nash_conv"] > 0 for r in records) and len(records) == 2
    written = write_report(tmp_path)
    assert "exploitability_c2.png" in {p.name for p in written}
    summary = json.loads((tmp_path / "report/summary.json").read_text())
    curve = summary["exploitability"]["c2"]["families"]["mmd"]
    assert [p["step"] for p in curve] == [0, 256] and curve[0]["value"] > curve[1]["value"]
    assert "## Exact track: c2" in (tmp_path / "report/report.md").read_text()
    assert "dqn" in load_suite(ROOT / "configs/benchmark/smoke.yaml").algorithms  # and it refuses exact tasks:
    from tabletop.train.benchmark.families import load_family

    assert "no policy" in load_family("dqn").unsupported(suite.tasks["c2"])


def _task() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "configs/benchmark/smoke.yaml").read_text())["tasks"]["cromlet_2p"]


def test_the_exact_suite_covers_the_small_variants():
    from tabletop.envs.openspiel import SMALL
    from tabletop.envs.openspiel.game import env_kwargs

    def key(env_id: str, kwargs: dict) -> tuple[str, str]:
        return env_id, json.dumps({k: v for k, v in kwargs.items() if k != "num_players"}, sort_keys=True)

    suite = load_suite(ROOT / "configs/benchmark/exact.yaml")
    assert all(task.exact for task in suite.tasks.values())
    declared = {
        key(game[len("tabletop_") :], env_kwargs(game[len("tabletop_") :], params)) for game, params in SMALL.values()
    }
    assert {key(t.env.env_id, t.env.kwargs) for t in suite.tasks.values()} == declared

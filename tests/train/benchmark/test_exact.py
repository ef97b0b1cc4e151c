"""The exact track's plumbing: NashConv over a game's stored tree (checked against OpenSpiel's own on Kuhn and
Leduc poker and a small variant), CFR+'s reference line, and a grid of an exact task recording NashConv at every
evaluation, reported as exploitability curves on a log scale."""

from __future__ import annotations

import json
import types
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
from tabletop.train.benchmark.game_tree import GameTree  # noqa: E402
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


def softmax_policy(game, weights: np.ndarray) -> policies.TabularPolicy:
    """OpenSpiel's own tabular policy: the masked softmax of `observation @ weights` at every state."""
    tabular = policies.TabularPolicy(game)
    for row, state in enumerate(tabular.states):
        legal = state.legal_actions()
        logits = (np.asarray(state.observation_tensor(), dtype=np.float64) @ weights)[legal]
        probabilities = np.exp(logits - logits.max())
        tabular.action_probability_array[row, :] = 0.0
        tabular.action_probability_array[row, legal] = probabilities / probabilities.sum()
    return tabular


def linear_weights(game, seed: int) -> np.ndarray:
    """float64 on both sides: a float32 product's rounding depends on how BLAS splits it (batch, CPU flags)."""
    shape = (game.observation_tensor_size(), game.num_distinct_actions())
    return np.random.default_rng(seed).normal(size=shape)


@pytest.mark.parametrize("name", ["kuhn_poker", "kuhn_poker(players=3)", "leduc_poker"])
def test_the_tree_nash_conv_is_openspiels(name):
    game = pyspiel.load_game(name)
    tree = GameTree(game)
    weights = linear_weights(game, seed=0)
    measured = tree.nash_conv(tree.probabilities(lambda observations: observations @ weights))
    assert measured > 0.01
    assert measured == pytest.approx(exploitability.nash_conv(game, softmax_policy(game, weights)), abs=1e-9)
    uniform = tree.nash_conv(tree.probabilities(lambda observations: np.zeros((len(observations), weights.shape[1]))))
    assert uniform == pytest.approx(exploitability.nash_conv(game, policies.UniformRandomPolicy(game)), abs=1e-9)


@pytest.mark.slow
def test_a_policy_network_on_a_small_variant_has_openspiels_nash_conv():
    task = load_suite(ROOT / "configs/benchmark/exact.yaml").tasks["chromino_small"]
    game = exact.openspiel_game(task)
    weights = linear_weights(game, seed=1)
    network = Linear(game.observation_tensor_size(), game.num_distinct_actions(), seed=0)
    with torch.no_grad():
        network.action_net.weight.copy_(torch.from_numpy(weights.T)), network.action_net.bias.zero_()
    measured = exact.nash_conv(task, types.SimpleNamespace(policy=network))
    assert measured == pytest.approx(exploitability.nash_conv(game, softmax_policy(game, weights)), abs=1e-6)


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
    report = (tmp_path / "report/report.md").read_text()
    assert "## Exact track: c2" in report and "## Per task" not in report  # read by NashConv, not a normalised score
    assert summary["per_task"]["c2"]["mmd"]["final_se"] > 0.03 and summary["over_se_target"] == []
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

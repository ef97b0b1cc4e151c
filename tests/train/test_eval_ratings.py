"""`tabletop eval`: the round robin's matrix, OpenSkill ratings and output files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop.agents.registry import heuristics
from tabletop.envs import EnvSpec
from tabletop.train.cli import main
from tabletop.train.evaluation.ratings import round_robin

CROMLET = EnvSpec("cromlet_v0")
STRONG = list(heuristics("cromlet_v0"))


def test_matrix_and_ratings_rank_a_heuristic_above_random(tmp_path):
    strong = STRONG[-1]
    result = round_robin(CROMLET, ["random", strong], 40, seed=1)
    w = result.win_rate
    assert np.isnan(w[0, 0]) and np.isnan(w[1, 1])
    assert 0 <= w[0, 1] + w[1, 0] <= 1  # 2 players: wins of one are losses of the other, draws aside
    assert w[1, 0] > w[0, 1]
    best = result.ratings[0]
    assert (
        best.agent == strong and best.mu > result.ratings[1].mu and best.sigma < 25 / 3
    )  # sure, and surer than a prior
    paths = result.write(tmp_path)
    assert [p.name for p in paths] == ["round_robin.json", "win_rates.csv", "ratings.csv", "win_rates.png"]
    data = json.loads(paths[0].read_text())
    assert data["agents"] == ["random", strong] and data["win_rate_matrix"][0][0] is None
    assert {"mu", "sigma", "mu_95_low", "ordinal", "win_rate_95_high"} <= set(data["ratings"][0])


def test_same_seed_same_result():
    a = round_robin(CROMLET, ["random", STRONG[0]], 6, seed=3)
    b = round_robin(CROMLET, ["random", STRONG[0]], 6, seed=3)
    np.testing.assert_array_equal(a.win_rate, b.win_rate)
    assert [(r.agent, r.mu, r.sigma) for r in a.ratings] == [(r.agent, r.mu, r.sigma) for r in b.ratings]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["eval", "cromlet_v0", "random"], "at least two agents"),
        (["eval", "cromlet_v0", "random", "random"], "distinct"),
        (["eval", "cromlet_v0", "random", "grandmaster"], "unknown agent 'grandmaster'"),
        (["eval", "cromlet_v0", "random", "ppo:/nonexistent/run"], "no trained model"),
    ],
)
def test_eval_cli_errors(argv, message, capsys):
    assert main(argv + ["--quiet"]) == 2
    assert message in capsys.readouterr().err


def test_eval_cli_refuses_zero_games(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "cromlet_v0", "random", STRONG[0], "--games", "0", "--quiet"])
    assert exit_.value.code == 2 and "--games: must be at least 1, got 0" in capsys.readouterr().err


def test_eval_cli_writes_outputs(tmp_path, capsys):
    assert main(["eval", "cromlet_v0", "random", STRONG[0], "--games", "4", "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "win rate of row vs column" in out and (tmp_path / "win_rates.png").stat().st_size > 0

"""`tabletop speed`: our engine and AEC loop against each baseline in one run, every side driven alike."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tabletop.envs import EnvSpec
from tabletop.train.cli import main
from tabletop.train.evaluation.bench import compare, engine_play, legal_actions, random_play


def test_a_run_reports_the_engine_the_aec_loop_and_a_ratio_per_baseline():
    pytest.importorskip("pygame")
    pytest.importorskip("pyspiel")
    report = compare(EnvSpec("krz_grtn_v1"), ["connect_four_v3", "openspiel:cribbage"], 2, 2, seed=0, rounds=2)
    rows = {line.split()[0] + " " + line.split()[1] for line in report.splitlines()[1:5]}
    assert rows == {"krz_grtn_v1() engine", "krz_grtn_v1() AEC", "connect_four_v3 AEC", "openspiel:cribbage engine"}
    assert re.search(r"ratio \(krz_grtn_v1\(\) AEC / connect_four_v3 AEC\): steps/s \d+\.\d\dx", report)
    assert re.search(r"ratio \(krz_grtn_v1\(\) engine / openspiel:cribbage engine\): steps/s \d+\.\d\dx", report)
    assert len(re.findall(r"; steps per CPU-second \d+\.\d\dx", report)) == 2  # the steadier figure on a shared machine


def test_the_engine_and_aec_loops_play_the_same_seeded_games_every_time():
    spec = EnvSpec("cromlet_v0")
    assert engine_play(spec, 3, seed=5).steps == engine_play(spec, 3, seed=5).steps
    assert random_play(spec.make(), 3, seed=5).steps == random_play(spec.make(), 3, seed=5).steps
    assert engine_play(spec, 3, seed=5).steps != engine_play(spec, 3, seed=6).steps


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int64, np.float32])
def test_the_driver_reads_every_mask_dtype_as_flatnonzero_does(dtype):
    mask = (np.random.default_rng(1).random(5_098) < 0.1).astype(dtype)
    np.testing.assert_array_equal(legal_actions(mask), np.flatnonzero(mask))


def test_unknown_baselines_are_one_line_errors(capsys):
    assert main(["speed", "cromlet_v0", "--baseline", "chess_v9", "--games", "1"]) == 2
    assert "unknown baseline 'chess_v9'; allowed: connect_four_v3" in capsys.readouterr().err
    pytest.importorskip("pyspiel")
    assert main(["speed", "cromlet_v0", "--baseline", "openspiel:no_such_game", "--games", "1"]) == 2
    assert "unknown OpenSpiel game 'no_such_game'" in capsys.readouterr().err


def test_bench_is_a_deprecated_name_for_speed(capsys):
    assert main(["bench", "cromlet_v0", "--baseline", "chess_v9", "--games", "1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "tabletop bench is deprecated and goes in the next release: use tabletop speed"
    assert "unknown baseline 'chess_v9'" in err[1]


def test_old_config_is_a_deprecated_name_for_dummy_config(capsys):
    assert main(["speed", "--train", "no-such.yaml", "--old-config", "no-such-either.yaml"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "--old-config is deprecated and goes in the next release: use --dummy-config"
    assert err[1] == "tabletop speed: error: config file 'no-such.yaml' does not exist"

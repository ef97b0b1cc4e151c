"""Config validation: every bad key or value is an error that names it; shipped configs are valid."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tabletop.train.benchmark.training import FamilyConfig, load_training
from tabletop.train.selfplay.config import ConfigError, load_config, parse_config

CONFIGS = sorted(  # training configs; configs/benchmark/ holds suites (tests/train/benchmark/test_suite.py)
    p for p in Path(__file__).resolve().parents[2].joinpath("configs").rglob("*.yaml") if "benchmark" not in p.parts
)
BASE = {"env_id": "cromlet_v0", "total_steps": 1000}


def with_(**changes):
    data = {**BASE}
    for dotted, value in changes.items():
        node, *path, last = [data, *dotted.split("__")]
        for key in path:
            node = node.setdefault(key, {})
        node[last] = value
    return data


@pytest.mark.parametrize(
    "path", CONFIGS, ids=lambda p: str(p.relative_to(p.parents[1] if p.parent.name != "configs" else p.parent))
)
def test_shipped_configs_are_valid(path):
    try:
        config = load_training(path)  # what `tabletop train` reads: every family's config
    except ConfigError as err:
        if "not available yet" in str(err):
            pytest.skip(str(err))
        raise
    env_id = config.task.env.env_id if isinstance(config, FamilyConfig) else config.env_id
    assert env_id in path.read_text()


@pytest.mark.parametrize(
    "data, named",
    [
        (with_(learning_rate=1e-3), "'learning_rate'"),  # belongs under ppo
        (with_(ppo__lr=1e-3), "'ppo.lr'"),
        (with_(ppo__gamma=1.5), "ppo: gamma=1.5 is not allowed; allowed: a number from 0 to 1"),
        (
            with_(ppo__n_steps="many"),
            "sb3: n_steps='many' is not allowed; allowed: a whole number of at least 1",
        ),  # an old key, read in its new section
        (with_(sb3__n_steps=True), "sb3: n_steps=True is not allowed"),
        (with_(network__hidden=[64, 0]), "network: hidden=[64, 0] is not allowed"),
        (with_(network__activation="gelu"), "network: activation='gelu' is not allowed; allowed: 'tanh', 'relu'"),
        (with_(opponents__weights={"grandmaster": 1.0}), "opponents.weights.grandmaster: unknown agent; allowed: self"),
        (with_(opponents__weights={"search:sims=x": 1.0}), "search option sims='x' in 'search:sims=x' is not an int"),
        (
            with_(sb3__warm_start={"teacher": "search:guide=nobody", "games": 2}),
            "sb3.warm_start.teacher='search:guide=nobody': unknown guide policy 'nobody' for cromlet_v0",
        ),
        (
            with_(sb3__warm_start={"teacher": "patient", "games": 2, "opponents": ["search:rollouts=3"]}),
            "sb3.warm_start.opponents[0]='search:rollouts=3': bad search option 'rollouts=3'",
        ),
        (with_(sb3__warm_start={"teacher": "search", "games": 2, "search_share": 1.5}), "search_share=1.5"),
        (with_(opponents__weights={"random": -1.0}), "opponents: weights={'random': -1.0} is not allowed"),
        (with_(sb3__vec_env__kind="threads"), "sb3.vec_env: kind='threads' is not allowed"),
        (with_(learner_seats="two"), "learner_seats='two'"),
        (with_(env_id="chess_v0"), "env_id='chess_v0'"),
        (with_(env_kwargs={"num_players": 9}), "env_kwargs"),
        (with_(ppo__batch_size=100_000), "ppo.batch_size=100000"),
        (with_(total_steps=0), "total_steps=0"),
        (with_(margin_shaping=-0.1), "margin_shaping=-0.1"),
        ({"env_id": "cromlet_v0"}, "missing required key 'total_steps'"),
        ([1, 2], "must be a mapping"),
        (with_(ppo=[1]), "ppo must be a mapping"),
    ],
)
def test_bad_configs_name_the_key(data, named):
    with pytest.raises(ConfigError) as err:
        parse_config(data)
    assert named in str(err.value)


def test_a_search_player_can_teach_and_be_an_opponent():
    config = parse_config(
        with_(
            sb3__warm_start={"teacher": "search:sims=8", "games": 2, "search_share": 0.25},
            opponents__weights={"self": 1, "search:sims=4,rollout=greedy": 1},
        )
    )
    assert config.sb3.warm_start.teacher == "search:sims=8" and config.sb3.warm_start.search_share == 0.25
    assert parse_config(with_(sb3__warm_start={"teacher": "patient", "games": 2})).sb3.warm_start.search_share == 0.5


def test_unknown_key_error_lists_the_allowed_keys():
    with pytest.raises(ConfigError, match="unknown key 'ppo.lrate'; allowed keys here: learning_rate, batch_size"):
        parse_config(with_(ppo__lrate=0.1))


def test_ints_are_accepted_for_floats_and_defaults_fill_in():
    config = parse_config(with_(ppo__learning_rate=1, opponents__weights={"random": 1, "blocker": 2}))
    assert config.ppo.learning_rate == 1.0 and isinstance(config.ppo.learning_rate, float)
    assert config.network.hidden == [256, 256]


def test_load_config_reports_missing_files_and_bad_yaml(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(with_(ppo__n_epochs=2)))
    assert load_config(good).ppo.n_epochs == 2


def test_cli_reports_config_errors_without_traceback(tmp_path, capsys):
    from tabletop.train.cli import main

    path = tmp_path / "typo.yaml"
    path.write_text(yaml.safe_dump(with_(ppo__n_step=8)))
    assert main(["train", str(path), "--out", str(tmp_path / "run")]) == 2
    assert "unknown key 'ppo.n_step'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "env_id,kind,group", [("chromino_v1", "board", "lookahead"), ("krz_grtn_v1", "roles", "roles")]
)
def test_a_network_that_reads_a_feature_group_asks_for_it(env_id, kind, group):
    """The lean default observation lacks what a structured network reads: the config must request it."""
    base = {"env_id": env_id, "total_steps": 100, "learner_seats": "all", "network": {"kind": kind}}
    with pytest.raises(ConfigError, match=rf"add features: \[{group}\] to env_kwargs"):
        parse_config(base)
    parse_config({**base, "env_kwargs": {"features": [group]}})


def test_a_config_with_flat_backend_keys_loads_as_its_sectioned_form():
    """SB3-only keys at the top, in ppo: and opponents:, instead of in the sb3: section (`FLAT_KEYS`)."""
    sectioned = with_(
        ppo__learning_rate=1e-3,
        sb3__n_steps=64,
        sb3__target_kl=0.05,
        sb3__margin_shaping=0.01,
        sb3__sampling="pfsp",
        sb3__vec_env={"kind": "dummy", "num_envs": 4},
        sb3__warm_start={"teacher": "patient", "games": 2},
    )
    flat = with_(
        ppo__learning_rate=1e-3,
        ppo__n_steps=64,
        ppo__target_kl=0.05,
        margin_shaping=0.01,
        opponents__sampling="pfsp",
        vec_env={"kind": "dummy", "num_envs": 4},
        warm_start={"teacher": "patient", "games": 2},
        algorithm="ppo",
        ray_address=None,
    )
    assert parse_config(flat) == parse_config(sectioned)
    assert parse_config(sectioned).sb3.warm_start.teacher == "patient" and parse_config(sectioned).rllib is None

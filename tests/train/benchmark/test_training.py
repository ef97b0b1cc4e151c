"""`tabletop train CONFIG` reads the benchmark's one family registry: every shipped config loads as it did, a
`family:` key picks any family, and the protocol families (dqn, nfsp, mmd, psro) train from a config into a run
folder whose `policy.pt` plays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

from tabletop.train.benchmark.families import FAMILIES, available_families, load_family  # noqa: E402
from tabletop.train.benchmark.training import (  # noqa: E402
    BACKEND_FAMILIES,
    FamilyConfig,
    load_training,
    parse_training,
)
from tabletop.train.cli import main  # noqa: E402
from tabletop.train.selfplay.config import ConfigError, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SMOKE = yaml.safe_load((ROOT / "configs/benchmark/smoke.yaml").read_text())
TINY = {
    "env_id": "cromlet_v0",
    "env_kwargs": {"num_players": 2, "hand_size": 3},
    "opponents": {"self": 0.5, "random": 0.5},
    "total_steps": 256,
    "save_every": 128,
    "panel": ["random", "greedy"],
    "eval_games": 4,
}
PROTOCOL = ["dqn", "nfsp", "mmd", "psro"]


def config_of(family: str) -> dict:
    return {"family": family, **TINY, family: SMOKE["algorithms"][family]}


@pytest.mark.parametrize(
    "path",
    [p for p in sorted((ROOT / "configs").rglob("*.yaml")) if not {"benchmark", "alphazero"} & set(p.parts)],
    ids=str,
)
def test_every_shipped_training_config_loads_the_same_through_the_family_registry(path):
    assert load_training(path) == load_config(path)


def test_family_names_a_backend_familys_config_as_backend_did():
    sb3 = yaml.safe_load((ROOT / "configs/smoke/cromlet.yaml").read_text())
    as_family = {"family": "ppo", **{k: v for k, v in sb3.items() if k != "backend"}}
    assert parse_training(as_family) == parse_training(sb3)
    rllib = yaml.safe_load((ROOT / "configs/rllib/cromlet.yaml").read_text())
    body = {k: v for k, v in rllib.items() if k != "backend"}
    assert parse_training({"family": "rllib_ppo", **body}) == parse_training(rllib)
    body["rllib"] = {k: v for k, v in body.get("rllib", {}).items() if k != "algorithm"}
    assert parse_training({"family": "rllib_appo", **body}).rllib.algorithm == "appo"


def test_bad_family_configs_are_one_line_errors():
    with pytest.raises(ConfigError, match="unknown family 'sarsa'; allowed: ppo, "):
        parse_training({"family": "sarsa", **TINY})
    with pytest.raises(ConfigError, match="give family: or the older backend:, not both"):
        parse_training({"family": "ppo", "backend": "sb3", "env_id": "cromlet_v0", "total_steps": 8})
    with pytest.raises(ConfigError, match="unknown key 'ppo'; allowed keys for family dqn: family, seed"):
        parse_training({**config_of("dqn"), "ppo": {}})
    with pytest.raises(ConfigError, match="unknown key dqn.n_steps; allowed: num_envs, "):
        parse_training({**config_of("dqn"), "dqn": {"n_steps": 3}})
    with pytest.raises(ConfigError, match="save_every=512 exceeds total_steps=256"):
        parse_training({**config_of("dqn"), "save_every": 512})
    with pytest.raises(ConfigError, match="unknown opponent opponents.grumpy"):
        parse_training({**config_of("dqn"), "opponents": {"grumpy": 1.0}})
    with pytest.raises(ConfigError, match="cooperative"):
        parse_training(
            {**config_of("nfsp"), "env_id": "krz_grtn_v1", "env_kwargs": {}, "learner_seats": "all", "panel": None}
        )


@pytest.mark.slow
@pytest.mark.parametrize("family", [f for f in PROTOCOL if f in FAMILIES])
def test_tabletop_train_trains_a_protocol_family_into_a_run_folder_whose_policy_plays(family, tmp_path, capsys):
    config = tmp_path / f"{family}.yaml"
    config.write_text(yaml.safe_dump(config_of(family)))
    assert isinstance(load_training(config), FamilyConfig)
    run = tmp_path / "run"
    assert main(["train", str(config), "--out", str(run), "--quiet"]) == 0
    assert f"cromlet_v0 ({family}): 256 learner steps" in capsys.readouterr().out
    assert (run / "final/policy.pt").is_file() and (run / "config.yaml").is_file()
    record = json.loads((run / "final/eval.json").read_text())
    assert record["family"] == family and [r["opponent"] for r in record["results"]] == ["random", "greedy"]
    kwargs = json.dumps(TINY["env_kwargs"])
    # the policy file plays as any agent spec does, on legal actions only (a tournament raises on an illegal one)
    assert main(["tournament", "cromlet_v0", f"ppo:{run}", "random", "--env-kwargs", kwargs, "--games", "4"]) == 0
    # a finished run resumes to a longer budget from its save
    assert main(["train", str(config), "--resume", str(run), "--steps", "384", "--quiet"]) == 0
    assert json.loads((run / "final/eval.json").read_text())["steps"] >= 384


def test_the_families_with_a_backend_are_known_before_their_modules_load():
    for name in available_families():
        assert (name in BACKEND_FAMILIES) == (getattr(load_family(name), "backend", None) is not None), name

"""Policy export: torch and onnxruntime agree for every game; metadata, the CLI, and the torch-free agent."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from tabletop import envs
from tabletop.agents import OnnxAgent, make_agent
from tabletop.envs import EnvSpec
from tabletop.train import cli
from tabletop.train.selfplay.policy import build_policy, policy_kwargs
from tabletop.train.serving import export

POSITIONS = 1000
REPO = Path(__file__).resolve().parents[2]


def make_game(spec: EnvSpec):
    try:
        return spec.make_raw()
    except ImportError as err:  # a game still being written must not hide the others' results
        pytest.skip(f"{spec.env_id} does not import yet: {err}")


def random_policy(env, seed: int = 0):
    """An untrained policy of the training code's architecture, its action head redrawn so the logits spread
    over several units (sb3 starts it near zero: near-uniform logits would make the argmax check weak)."""
    torch.manual_seed(seed)
    agent = env.possible_agents[0]
    policy = build_policy(
        env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([64, 64], "tanh")
    )
    with torch.no_grad():
        torch.nn.init.normal_(policy.action_net.weight, std=1.0)
    return policy


@pytest.fixture(scope="module", params=envs.ENV_IDS)
def exported(request, tmp_path_factory):
    spec = EnvSpec(request.param)
    env = make_game(spec)
    policy = random_policy(env)
    out = tmp_path_factory.mktemp(request.param)
    meta = export.export_policy(policy, out, spec)
    return spec, env, policy, out, meta


def test_torch_and_onnxruntime_agree_on_logits_and_actions(exported):
    spec, env, policy, out, _ = exported
    observations, masks = export.sample_positions(spec, POSITIONS, seed=12345)
    assert len(observations) == POSITIONS and masks.any(axis=1).all()
    logits, actions = OnnxAgent(out).logits_and_actions(observations, masks)

    with torch.no_grad():  # the actor as sb3 defines it, written out here rather than borrowed from export
        obs = torch.as_tensor(observations)
        raw = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(obs))).numpy()
    legal = masks > 0
    assert np.max(np.abs(logits - raw)[legal]) <= 1e-5
    assert np.all(logits[~legal] == np.float32(export.MASKED_LOGIT))
    assert np.ptp(raw[legal]) > 1.0, "logits too flat for the action check to mean anything"

    sb3_actions, _ = policy.predict(observations, action_masks=legal, deterministic=True)
    np.testing.assert_array_equal(actions, sb3_actions)
    assert legal[np.arange(POSITIONS), actions].all()


def test_models_pass_the_onnx_checker_and_take_any_batch(exported):
    spec, env, _, out, meta = exported
    model = onnx.load(str(out / "model.onnx"))
    onnx.checker.check_model(model, full_check=True)
    assert [i.name for i in model.graph.input] == ["observation", "action_mask"]
    assert [o.name for o in model.graph.output] == ["logits", "action"]
    agent = OnnxAgent(out)
    observations, masks = export.sample_positions(spec, 3, seed=7)
    for batch in (1, 3):
        logits, actions = agent.logits_and_actions(observations[:batch], masks[:batch])
        assert logits.shape == (batch, env.game.num_actions) and actions.shape == (batch,)


def test_metadata_describes_the_game(exported):
    spec, env, _, out, meta = exported
    assert json.loads((out / "metadata.json").read_text()) == meta
    assert meta["env_id"] == spec.env_id and meta["env_kwargs"] == {}
    assert meta["observation"]["layout"] == env.observer.layout.describe()
    assert meta["observation"]["size"] == env.observer.layout.size
    assert meta["actions"]["count"] == env.game.num_actions
    assert meta["versions"]["onnx"] == onnx.__version__ and meta["model"]["opset"] == export.OPSET
    assert meta["verification"]["actions_agree"] and meta["verification"]["max_abs_logit_diff"] <= 1e-5
    logits = meta["model"]["outputs"]["logits"]
    assert (
        logits["legal_range"] == [-export.LOGIT_LIMIT, export.LOGIT_LIMIT]
        and logits["masked_value"] < -export.LOGIT_LIMIT
    )
    names = meta["actions"]["names"]
    if names is not None:  # static names must name every action as the rules engine does, anywhere in a game
        env.reset(seed=99)
        assert names == [env.action_to_string(a) for a in range(env.game.num_actions)]


def test_action_names_are_static_only_where_the_rules_say_so():
    assert export.action_names(EnvSpec("cromlet_v0"))[:2] == ["play A2", "play A5"]
    assert export.action_names(EnvSpec("chromino_v1")) is None  # "place <the chosen tile> ..." depends on the choice
    assert export.action_names(EnvSpec("krz_grtn_v1")) is None  # guesses name the pictures on the table


@pytest.mark.slow
@pytest.mark.parametrize("exported", ["cromlet_v0"], indirect=True)  # the import check needs one game
def test_onnx_agent_plays_tournaments_without_importing_torch(exported):
    _, _, _, out, _ = exported
    script = (
        "import sys\n"
        "from tabletop.agents import make_agent\n"
        "from tabletop.envs import EnvSpec\n"
        "from tabletop.train.evaluation.tournament import run_tournament\n"
        f"agent = make_agent(EnvSpec('cromlet_v0'), 'onnx:{out}')\n"
        "result = run_tournament(EnvSpec('cromlet_v0'), ['exported', 'random'], 4, agents={'exported': agent})\n"
        "assert result.records['exported'].seats == 4\n"
        "import tabletop.train.serving.agent_server\n"
        "assert 'torch' not in sys.modules, 'onnx agent or agent server imported torch'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize("exported", ["cromlet_v0"], indirect=True)  # the checks do not depend on the game
def test_onnx_agent_refuses_what_it_cannot_play(exported, tmp_path):
    _, env, _, out, _ = exported
    with pytest.raises(ValueError, match="not for chromino_v1"):
        OnnxAgent(out, env_id="chromino_v1")
    with pytest.raises(ValueError, match="expected a folder with model.onnx"):
        make_agent(EnvSpec("cromlet_v0"), f"onnx:{tmp_path}")
    agent, size, n = OnnxAgent(out), env.observer.layout.size, env.game.num_actions
    with pytest.raises(ValueError, match=f"takes {size} observation numbers and {n} mask entries, got 5 and {n}"):
        agent.act(np.zeros(5, np.float32), np.ones(n, np.int8), {})
    with pytest.raises(ValueError, match="all-zero action mask"):
        agent.act(np.zeros(size, np.float32), np.zeros(n, np.int8), {})


# --- `tabletop export` on a real (tiny) training run ----------------------------------------------------------
@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from tabletop.train.selfplay.config import parse_config
    from tabletop.train.selfplay.trainer import train

    config = parse_config(
        {
            "env_id": "cromlet_v0",
            "env_kwargs": {"num_players": 3},
            "total_steps": 128,
            "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
            "network": {"hidden": [32]},
            "opponents": {"weights": {"random": 1.0}},
            "vec_env": {"kind": "dummy", "num_envs": 1},
            "evaluation": {"every": 10_000, "games": 1, "final_games": 1},
            "checkpoint": {"every": 10_000, "keep": 1},
        }
    )
    return train(config, out=tmp_path_factory.mktemp("run"), progress=False).run_dir


def test_export_command_reads_the_game_from_the_run_and_matches_the_ppo_agent(run_dir, tmp_path, capsys):
    assert cli.main(["export", str(run_dir), "--out", str(tmp_path)]) == 0
    assert "onnxruntime matches torch" in capsys.readouterr().out
    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert meta["env_id"] == "cromlet_v0" and meta["env_kwargs"] == {"num_players": 3}
    assert meta["source"] == {"policy": str(run_dir / "final" / "policy.pt"), "backend": "sb3"}

    spec = EnvSpec("cromlet_v0", {"num_players": 3})
    ppo, onnx_agent = make_agent(spec, f"ppo:{run_dir}"), make_agent(spec, f"onnx:{tmp_path}")
    observations, masks = export.sample_positions(spec, 200, seed=3)
    for obs, mask in zip(observations, masks.astype(np.int8)):
        assert onnx_agent.act(obs, mask, {}) == ppo.act(obs, mask, {})


def test_export_command_records_how_the_policy_was_made(run_dir, tmp_path):
    made = "tabletop train configs/cromlet.yaml --out runs/c, then tabletop export runs/c --out exported/c"
    assert cli.main(["export", str(run_dir), "--out", str(tmp_path), "--command", made]) == 0
    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert meta["source"]["command"] == made and meta["source"]["backend"] == "sb3"


def test_export_command_explains_what_it_needs(run_dir, tmp_path, capsys):
    model = run_dir / "final" / "model.zip"
    bare = tmp_path / "bare.zip"
    bare.write_bytes(model.read_bytes())
    assert cli.main(["export", str(bare), "--out", str(tmp_path / "a")]) == 2
    assert "pass --env-id" in capsys.readouterr().err
    assert (
        cli.main(["export", str(bare), "--out", str(tmp_path / "b"), "--env-id", "cromlet_v0"]) == 2
    )  # 2 players by default
    assert "trained for observations" in capsys.readouterr().err
    assert cli.main(["export", str(run_dir), "--out", str(tmp_path / "c"), "--env-id", "krz_grtn_v1"]) == 2
    assert "contradicts the policy's game (cromlet_v0" in capsys.readouterr().err
    assert cli.main(["export", str(run_dir), "--out", str(tmp_path / "e"), "--command", " "]) == 2
    assert "--command is empty" in capsys.readouterr().err and not (tmp_path / "e").exists()
    assert (
        cli.main(
            [
                "export",
                str(bare),
                "--out",
                str(tmp_path / "d"),
                "--env-id",
                "cromlet_v0",
                "--env-kwargs",
                '{"num_players": 3}',
            ]
        )
        == 0
    )


def test_export_command_without_the_export_extra_makes_no_folder(run_dir, tmp_path, monkeypatch, capsys):
    """One line naming the extra, and no output folder (it once left an empty exported/cromlet/ behind)."""
    monkeypatch.setitem(sys.modules, "onnx", None)
    out = tmp_path / "exported" / "cromlet"
    assert cli.main(["export", str(run_dir), "--out", str(out)]) == 2
    message = "exporting to ONNX needs the export extra (onnx is missing): pip install -e '.[export]'"
    assert capsys.readouterr().err == f"tabletop export: error: {message}\n"
    assert not (tmp_path / "exported").exists()

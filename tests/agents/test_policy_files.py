"""Policies live in agents/: a freshly trained run folder of every network kind, a run folder saved before
policy files (SB3 and RLlib), and every shipped policy play through `tabletop.agents` with `tabletop.train`,
SB3 and Ray made unimportable; a policy file gives the logits of the SB3 model it was written from."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import yaml

from tabletop.agents.networks import POLICY_FILE
from tabletop.agents.networks.mlp import mlp
from tabletop.agents.networks.runs import load_saved
from tabletop.agents.networks.saved import read_policy
from tabletop.agents.policy_agent import actor_logits
from tabletop.agents.registry import game_of
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import parse_config
from tabletop.train.selfplay.trainer import train
from tabletop.train.serving import export

REPO = Path(__file__).resolve().parents[2]
SMALL = {"hidden": [16], "width": 8, "blocks": 1}
KINDS = {  # kind -> the game it trains on
    "mlp": ("cromlet_v0", {}),
    "circles": ("cromlet_v0", {}),
    "board": ("kings_cribbage_v0", {}),
    "moves": ("kings_cribbage_v0", {"action_mode": "moves", "max_moves": 40}),
    "roles": ("krz_grtn_v1", {"features": ["roles"]}),
    "sb3-zip-only": ("cromlet_v0", {}),
    "rllib-actor-file": ("cromlet_v0", {}),
}
BLOCKED = ("tabletop.train", "sb3_contrib", "stable_baselines3", "ray")


def tiny_config(env_id: str, env_kwargs: dict, network: dict) -> dict:
    data = yaml.safe_load((REPO / "configs" / "smoke" / f"{game_of(env_id)}.yaml").read_text())
    data.update(env_kwargs=env_kwargs, network=network, total_steps=64)
    data["ppo"].update(batch_size=32)
    data["sb3"].update(n_steps=32)
    data["evaluation"].update(every=10_000, final_games=1)
    data["checkpoint"].update(every=10_000)
    return data


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A run folder of every network kind, trained 64 steps; `sb3-zip-only`: one with its policy files removed,
    SB3's zips alone; `rllib-actor-file`: an RLlib run's actor in that backend's own format."""
    root = tmp_path_factory.mktemp("runs")
    folders = {}
    for kind in ("mlp", "circles", "board", "moves", "roles"):
        config = parse_config(tiny_config(*KINDS[kind], {"kind": kind, **SMALL}))
        folders[kind] = train(config, out=root / kind, progress=False).run_dir
    zip_only = root / "sb3-zip-only"
    subprocess.run(["cp", "-r", str(folders["mlp"]), str(zip_only)], check=True)
    for policy in zip_only.rglob(POLICY_FILE):
        policy.unlink()
    folders["sb3-zip-only"] = zip_only
    folders["rllib-actor-file"] = rllib_actor_file_run(root / "rllib-actor-file")
    return folders


def rllib_actor_file_run(run: Path) -> Path:
    """An RLlib actor file in a run folder: config.yaml and final/policy.pt holding the actor's
    architecture and its `pi` weights (train/rllib/networks.py `Actor.to_file`)."""
    spec = EnvSpec("cromlet_v0")
    size, actions = spec.make_raw().observer.layout.size, spec.new_game().num_actions
    torch.manual_seed(0)
    pi = mlp(size, [16], actions, "relu")
    (run / "final").mkdir(parents=True)
    config = {
        "env_id": "cromlet_v0",
        "env_kwargs": {},
        "backend": "rllib",
        "network": {"hidden": [16], "activation": "relu"},
    }
    (run / "config.yaml").write_text(yaml.safe_dump(config))
    saved = {
        "obs_size": size,
        "num_actions": actions,
        "hidden": [16],
        "activation": "relu",
        "state_dict": pi.state_dict(),
    }
    torch.save(saved, run / "final" / POLICY_FILE)
    return run


@pytest.mark.slow
def test_a_policy_file_gives_the_logits_of_the_sb3_model_it_was_written_from(runs):
    from sb3_contrib import MaskablePPO

    for kind, run in runs.items():
        if kind in ("sb3-zip-only", "rllib-actor-file"):
            continue
        policy_file = read_policy(run / "final" / POLICY_FILE)
        assert policy_file.network["kind"] == kind and policy_file.backend == "sb3"
        model = MaskablePPO.load(run / "final" / "model.zip", device="cpu")
        observations, _ = export.sample_positions(policy_file.env, 8, seed=3)
        obs = torch.as_tensor(observations)
        # the same weights, to float rounding: with one torch thread the plain network's products and the learner's
        # round apart on some CPUs (by about 1e-9 on logits of 0.005, AMD EPYC); a wrong weight is off by far more
        close = {"rtol": 1e-5, "atol": 1e-7}
        with torch.no_grad():
            torch.testing.assert_close(policy_file.build()(obs), actor_logits(model.policy, obs), **close)
            from_zip = load_saved(run / "final" / "model.zip").build()  # the same weights through the zip reader
            torch.testing.assert_close(from_zip(obs), actor_logits(model.policy, obs), **close)


@pytest.mark.slow
def test_every_policy_plays_with_tabletop_train_unimportable(runs):
    script = textwrap.dedent(
        f"""
        import sys

        class Blocked:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {BLOCKED!r} or name.startswith("tabletop.train"):
                    raise ImportError(f"blocked: {{name}}")

        sys.meta_path.insert(0, Blocked())
        import json
        from tabletop.agents import make_agent
        from tabletop.agents.base import observation_for
        from tabletop.agents.registry import pretrained_folders
        from tabletop.envs import EnvSpec

        def play(env, agent):
            table = env.make_raw()
            table.reset(seed=1)
            moves = 0
            while not table.game_state.is_terminal() and moves < 400:
                state, seat = table.game_state, table.game_state.current_player
                observation = observation_for(agent, table, state, seat)
                action = agent.act(observation, state.legal_action_mask(), state.view(seat))
                table.step(action)
                moves += 1
            return moves

        for label, run, env_id, env_kwargs in json.loads(sys.argv[1]):
            print(label, play(EnvSpec(env_id, env_kwargs), make_agent(EnvSpec(env_id, env_kwargs), "ppo:" + run)))
        for folder in pretrained_folders():
            meta = json.loads((folder / "metadata.json").read_text())
            env = EnvSpec(meta["env_id"], meta["env_kwargs"])
            print(folder.name, play(env, make_agent(env, "pretrained")))
        assert not [m for m in sys.modules if m.startswith(("tabletop.train", "sb3_contrib", "stable_baselines3"))]
        print("clean")
        """
    )
    cases = [(label, str(run), *KINDS[label]) for label, run in runs.items()]
    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(cases)], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-4000:]
    lines = result.stdout.split("\n")
    for label in runs:
        assert any(line.startswith(f"{label} ") and int(line.split()[-1]) > 0 for line in lines), result.stdout
    assert lines[-2] == "clean"

"""`tabletop agent`: a scripted session over a real stdin/stdout pipe, malformed lines included."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

from tabletop.agents import OnnxAgent
from tabletop.agents.policy_agent import build_policy
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.policy import policy_kwargs
from tabletop.train.serving.export import export_policy

REPO = Path(__file__).resolve().parents[1]


def serve(cromlet_onnx_dir: Path, lines: list[str]) -> list[dict]:
    """Run the server as a user would, feed it `lines`, return its answers in order."""
    done = subprocess.run(
        [sys.executable, "-m", "tabletop.train.cli", "agent", "--model", str(cromlet_onnx_dir)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def positions(count: int, seed: int = 5):
    """States along a seeded random Cromlet game, with the observation and mask of the seat to move."""
    env = EnvSpec("cromlet_v0").make_raw()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        seen = env.observe(env.agent_selection)
        found.append((env.game_state.clone(), seen["observation"], seen["action_mask"]))
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return found, env


def test_scripted_session_with_malformed_lines(cromlet_onnx_dir):
    agent = OnnxAgent(cromlet_onnx_dir)
    found, env = positions(4)
    (s0, o0, m0), (s1, _, _), (_, o2, m2), (s3, _, _) = found
    finished = s3.clone()
    while not finished.is_terminal():
        finished.apply(int(np.flatnonzero(finished.legal_action_mask())[0]))
    script = [
        json.dumps({"state": s0.to_json(), "id": "first"}),
        "this is not json",
        "",  # blank lines are skipped, not answered
        json.dumps([1, 2, 3]),
        json.dumps({"state": s1.to_json()}),
        json.dumps({"observation": o2.tolist(), "action_mask": m2.tolist(), "id": 7}),
        json.dumps({"observation": [0.0, 1.0], "action_mask": [1]}),
        json.dumps({"observation": o2.tolist(), "action_mask": [0] * len(m2)}),
        json.dumps({"observation": ["a"], "action_mask": [1]}),
        json.dumps({"state": s0.to_json(), "observation": o2.tolist(), "action_mask": m2.tolist()}),
        json.dumps({"action_mask": m2.tolist()}),
        json.dumps({"state": s0.to_json(), "colour": "red"}),
        json.dumps({"state": "not a state"}),
        json.dumps({"state": {**s0.to_json(), "covered": {"no such circle": 0}}}),
        json.dumps({"state": finished.to_json()}),
        json.dumps({"state": s3.to_json()}),
    ]
    answers = serve(cromlet_onnx_dir, script)
    assert len(answers) == len([line for line in script if line])

    def expected(state, obs, mask):
        action = agent.act(obs, mask, {})
        assert mask[action] == 1
        return action, state.action_to_string(action)

    a0, n0 = expected(s0, o0, m0)
    assert answers[0] == {"id": "first", "action": a0, "name": n0}
    assert "not valid JSON" in answers[1]["error"]
    assert "expected a JSON object" in answers[2]["error"]
    a1, n1 = expected(s1, env.observer.encode(s1, s1.current_player), s1.legal_action_mask())
    assert answers[3] == {"action": a1, "name": n1}
    assert answers[4] == {"id": 7, "action": agent.act(o2, m2, {})}  # no state, so no name
    assert f"takes {len(o0)} observation numbers and {len(m0)} mask entries, got 2 and 1" in answers[5]["error"]
    assert "all-zero action mask" in answers[6]["error"]
    assert "observation must be a flat list of numbers" in answers[7]["error"]
    assert "not both" in answers[8]["error"]
    assert 'both "observation" and "action_mask"' in answers[9]["error"]
    assert "unknown key 'colour'" in answers[10]["error"]
    assert "state must be a JSON object" in answers[11]["error"]
    assert "no such circle" in answers[12]["error"]
    assert "over" in answers[13]["error"]
    a3, n3 = expected(s3, env.observer.encode(s3, s3.current_player), s3.legal_action_mask())
    assert answers[14] == {"action": a3, "name": n3}  # still serving after every error above


def test_names_come_from_the_state_mid_turn(tmp_path):
    """Chromino names a placement by the tile chosen earlier in the turn: only the state knows it."""
    torch.manual_seed(1)
    spec = EnvSpec("chromino_v0")
    env = spec.make_raw()
    agent = env.possible_agents[0]
    policy = build_policy(env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([16], "tanh"))
    export_policy(policy, tmp_path, spec)
    env.reset(seed=2)
    state = env.game_state
    state.apply(int(np.flatnonzero(state.legal_action_mask())[0]))  # choose a tile: the turn's first sub-step
    assert state.to_json()["phase"] == "place"
    (answer,) = serve(tmp_path, [json.dumps({"state": state.to_json()})])
    assert state.legal_action_mask()[answer["action"]] == 1
    assert answer["name"] == state.action_to_string(answer["action"])
    assert answer["name"].startswith("place ")

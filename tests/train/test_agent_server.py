"""`tabletop agent`: scripted conversations over a real stdin/stdout pipe, malformed and hostile lines included;
the exported graph and the ONNX agent refuse or survive what a frontend may send."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tabletop.agents import OnnxAgent
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.policy import build_policy, policy_kwargs
from tabletop.train.serving import export, wire
from tabletop.train.serving.export import export_policy

REPO = Path(__file__).resolve().parents[2]


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
    spec = EnvSpec("chromino_v1")
    env = spec.make_raw()
    agent = env.possible_agents[0]
    policy = build_policy(
        env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([16], "tanh")
    )
    export_policy(policy, tmp_path, spec)
    env.reset(seed=2)
    state = env.game_state
    state.apply(int(np.flatnonzero(state.legal_action_mask())[0]))  # choose a tile: the turn's first sub-step
    assert state.to_json()["phase"] == "place"
    (answer,) = serve(tmp_path, [json.dumps({"state": state.to_json()})])
    assert state.legal_action_mask()[answer["action"]] == 1
    assert answer["name"] == state.action_to_string(answer["action"])
    assert answer["name"].startswith("place ")


def serve_bytes(export_dir: Path, lines: list[bytes]) -> list[dict]:
    """Like `serve`, but the lines are raw bytes (not necessarily UTF-8); answers must be strict JSON."""
    done = subprocess.run(
        [sys.executable, "-m", "tabletop.train.cli", "agent", "--model", str(export_dir)],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    return [json.loads(line, parse_constant=_no_constants) for line in done.stdout.decode("ascii").splitlines()]


def _no_constants(name: str):
    raise AssertionError(f"an answer holds {name}, which is not JSON")


def test_hostile_lines_get_an_error_each_and_the_server_keeps_serving(cromlet_onnx_dir):
    """Limits (length, nesting, encoding, number size) and bad values (non-finite or out-of-range
    observations, masks that are not 0/1 or have no legal action, a NaN id, an empty state) over a real pipe."""
    agent = OnnxAgent(cromlet_onnx_dir)
    ((state, obs, mask),), _ = positions(1)
    obs, mask = obs.tolist(), mask.tolist()
    limit = wire.line_limit(agent.obs_size + agent.num_actions)

    def vectors(observation=obs, action_mask=mask) -> bytes:
        return json.dumps({"observation": observation, "action_mask": action_mask}).encode()

    def with_obs(index: int, literal: str) -> bytes:  # one observation entry replaced by raw JSON text
        return vectors(obs[:index] + [123456.5] + obs[index + 1 :]).replace(b"123456.5", literal.encode())

    hand = agent.segments.index("hand")
    scores = agent.segments.index("scores")
    cases = [
        (b"[" * 100_000, "nested 100000 levels deep"),
        (b'{"state": ' + b"{" * 40 + b"}" * 40 + b"}", "at most 32 deep"),
        (b'{"state": "\xff\xfe"}', "not UTF-8 text: byte 11"),
        (b'{"id": "' + b"x" * limit + b'"}', f"line longer than {limit} bytes"),
        (with_obs(hand, "NaN"), f"observation[{hand}] (segment 'hand') is nan: observations must be finite numbers"),
        (with_obs(hand, "Infinity"), "is inf: observations must be finite"),
        (with_obs(hand, "-Infinity"), "is -inf: observations must be finite"),
        (with_obs(hand, "1e39"), f"observation[{hand}] (segment 'hand') is 1e+39, outside its range [0, 1]"),
        (with_obs(scores, "-1e39"), "(segment 'scores') is -1e+39, outside its range [0, 3.57"),
        (with_obs(hand, "1e400"), "is inf: observations must be finite"),
        (with_obs(hand, "1" * 400), f"observation[{hand}] is an integer too large for any float"),
        (with_obs(hand, "1" * 5000), "a number on this line is too long to read"),
        (with_obs(hand, "true"), f"observation[{hand}] is bool"),
        (with_obs(hand, "[0]"), f"observation[{hand}] is list"),
        (vectors(action_mask=[0.5] + mask[1:]), "action_mask[0] = 0.5: each entry must be 0 (illegal) or 1 (legal)"),
        (vectors(action_mask=[2] + mask[1:]), "action_mask[0] = 2"),
        (vectors(action_mask=[-1] + mask[1:]), "action_mask[0] = -1"),
        (vectors(action_mask=[float("nan")] + mask[1:]), "action_mask[0] = nan: each entry must be 0"),
        (vectors(action_mask=[0] * len(mask)), "all-zero action mask"),
        (vectors(action_mask=mask[:-1]), f"got {len(obs)} and {len(mask) - 1}"),
        (b'{"state": {}}', "game: missing"),
        (b'{"state": {}, "id": NaN}', "id must be plain JSON"),
        (b'{"state": {}, "id": [1, {"a": Infinity}]}', "id must be plain JSON"),
        (b"\x1c", "not valid JSON"),
        (b"\xef\xbb\xbf{}", "not valid JSON"),  # a byte-order mark is not JSON whitespace
    ]
    good = json.dumps({"state": state.to_json(), "id": "last"}).encode()
    answers = serve_bytes(cromlet_onnx_dir, [line for line, _ in cases] + [b" \t\r", good])
    assert len(answers) == len(cases) + 1  # the whitespace line is skipped, every other line answered once
    for (line, message), answer in zip(cases, answers):
        assert set(answer) == {"error"} and message in answer["error"], (line[:80], answer)
    assert answers[-1]["id"] == "last" and mask[answers[-1]["action"]] == 1


def test_the_onnx_graph_never_picks_a_masked_action(cromlet_onnx_dir):
    """A frontend that feeds the model directly, skipping every check: NaN, infinite and huge observations
    make NaN or infinite logits, and the argmax still lands on a legal action (action 0 always masked)."""
    ort = pytest.importorskip("onnxruntime")
    agent = OnnxAgent(cromlet_onnx_dir)
    session = ort.InferenceSession(str(cromlet_onnx_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    fills = [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e38]
    observations = np.zeros((64, agent.obs_size), dtype=np.float32)
    for row in observations:  # every row holds some of the hostile values, at random places
        spots = rng.choice(agent.obs_size, rng.integers(1, agent.obs_size), replace=False)
        row[spots] = rng.choice(fills, len(spots))
    observations[: len(fills)] = np.array(fills, dtype=np.float32)[:, None]  # and some rows hold nothing else
    masks = (rng.random((64, agent.num_actions)) < 0.05).astype(np.float32)
    masks[:, 0] = 0
    masks[np.arange(64), rng.integers(1, agent.num_actions, 64)] = 1
    logits, actions = session.run(["logits", "action"], {"observation": observations, "action_mask": masks})
    assert (masks[np.arange(64), actions] == 1).all()
    assert np.isfinite(logits).all() and (logits[masks == 0] == export.MASKED_LOGIT).all()
    nan_rows = logits[0][masks[0] == 1]  # the all-NaN row: every legal logit read as -LOGIT_LIMIT
    assert (nan_rows == -export.LOGIT_LIMIT).all()


def test_an_export_without_recorded_ranges_still_refuses_what_float32_cannot_hold(cromlet_onnx_dir, tmp_path):
    """Exports made before value ranges were recorded: finite float32 values pass, the rest is refused."""
    for name in ("model.onnx", "metadata.json"):
        (tmp_path / name).write_bytes((cromlet_onnx_dir / name).read_bytes())
    meta = json.loads((tmp_path / "metadata.json").read_text())
    for segment in meta["observation"]["layout"]:
        del segment["low"], segment["high"]
    (tmp_path / "metadata.json").write_text(json.dumps(meta))
    agent = OnnxAgent(tmp_path)
    ((_, obs, mask),), _ = positions(1)
    obs = obs.astype(np.float64)
    obs[0] = 1e30  # outside the real range, but an export without bounds cannot know: answered, and legally
    assert mask[agent.act(obs, mask)] == 1
    obs[0] = 1e39
    with pytest.raises(
        ValueError,
        match=r"observation\[0\] \(segment 'hand'\) is 1e\+39, outside its range \[-3.40282e\+38, 3.40282e\+38\]",
    ):
        agent.act(obs, mask)
    for broken, message in [("{", "is not valid JSON"), ('{"env_id": "cromlet_v0"}', "it has no env_kwargs")]:
        (tmp_path / "metadata.json").write_text(broken)
        with pytest.raises(ValueError, match=message):
            OnnxAgent(tmp_path)
    (tmp_path / "metadata.json").write_text(json.dumps(meta))
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="is not a model onnxruntime can load"):
        OnnxAgent(tmp_path)

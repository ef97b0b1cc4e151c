"""Fuzz the agent server with hostile lines: every non-blank line gets exactly one strict-JSON answer, an
answered action is always legal in the request, and the server never stops.

The lines come from a seeded generator (the same lines every run): random bytes, deep nesting, huge and
non-finite numbers, wrong types, random JSON structures, and valid requests and saved states with one
part mutated. Set TABLETOP_FUZZ_LINES to run more than the default."""

from __future__ import annotations

import io
import json
import os
from collections import Counter

import numpy as np
import pytest

from tabletop.agents import OnnxAgent
from tabletop.envs import EnvSpec
from tabletop.train.serving import wire
from tabletop.train.serving.agent_server import AgentServer

LINES = int(os.environ.get("TABLETOP_FUZZ_LINES", "3000"))
HOSTILE_NUMBERS = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e39",
    "-1e39",
    "1e400",
    "1" * 400,
    "1" * 5000,
    "-0",
    "0.5",
    "2",
    "1e-400",
]
WRONG_VALUES = ['"x"', "true", "false", "null", "[]", "[0]", "{}", '{"a": 1}', '""']


class Fuzzer:
    """Hostile request lines for one exported Cromlet policy, drawn from a seeded generator."""

    def __init__(self, rng: np.random.Generator, samples: list[tuple[dict, list[float], list[int]]]):
        self.rng = rng
        self.samples = samples  # (state JSON, observation, mask) from real games

    def line(self) -> bytes:
        kinds = [self.random_bytes, self.deep, self.random_json, self.mutated_vectors, self.mutated_state, self.odd_id]
        return kinds[self.rng.integers(len(kinds))]()

    def pick(self, options):
        return options[self.rng.integers(len(options))]

    def random_bytes(self) -> bytes:
        return bytes(self.rng.integers(0, 256, self.rng.integers(1, 200), dtype=np.uint8)).replace(b"\n", b" ")

    def deep(self) -> bytes:
        depth = int(self.pick([wire.MAX_DEPTH, wire.MAX_DEPTH + 1, 1000, 20_000]))  # 100,000: test_agent_server
        opener, closer = self.pick([(b"[", b"]"), (b'{"a":', b"}"), (b'{"state":[', b"]}")])
        return opener * depth + closer * int(self.rng.integers(0, 2) * depth)

    def random_json(self) -> bytes:
        return json.dumps(self.value(4)).encode()

    def value(self, depth: int):
        kind = self.rng.integers(8 if depth > 0 else 5)
        if kind == 0:
            return None
        if kind == 1:
            return bool(self.rng.integers(2))
        if kind == 2:
            return float(self.pick([0.0, -1.0, 1e308, 0.5, 7.0]))
        if kind == 3:
            return int(self.rng.integers(-(2**40), 2**40))
        if kind == 4:
            return self.pick(["", "state", "observation", "\u00b2", "\x00", "play A2"])
        if kind == 5:
            return [self.value(depth - 1) for _ in range(self.rng.integers(0, 6))]
        keys = ["state", "observation", "action_mask", "id", "x"]
        return {self.pick(keys): self.value(depth - 1) for _ in range(self.rng.integers(0, 4))}

    def mutated_vectors(self) -> bytes:
        _, obs, mask = self.pick(self.samples)
        obs, mask = list(obs), list(mask)
        target = obs if self.rng.random() < 0.5 else mask
        how = self.rng.integers(5)
        if how == 0 and target:  # one entry replaced by a hostile number or a wrong value (raw JSON text)
            spot = int(self.rng.integers(len(target)))
            target[spot] = 123456.25
            text = json.dumps({"observation": obs, "action_mask": mask})
            return text.replace("123456.25", self.pick(HOSTILE_NUMBERS + WRONG_VALUES), 1).encode()
        if how == 1:  # shorter or longer
            del target[: int(self.rng.integers(1, 4))]
        elif how == 2:
            target.extend([0] * int(self.rng.integers(1, 4)))
        elif how == 3:  # a different mask: all zeros, or a single legal action anywhere (a valid request)
            mask[:] = [0] * len(mask)
            if self.rng.random() < 0.5:
                mask[int(self.rng.integers(len(mask)))] = 1
        else:  # the vector swapped for a wrong value
            return json.dumps({"observation": self.value(2), "action_mask": mask}).encode()
        return json.dumps({"observation": obs, "action_mask": mask}).encode()

    def mutated_state(self) -> bytes:
        state, _, _ = self.pick(self.samples)
        state = json.loads(json.dumps(state))
        key = self.pick(sorted(state))
        how = self.rng.integers(3)
        if how == 0:
            del state[key]
        elif how == 1:
            state[key] = self.value(3)
        else:
            text = json.dumps({"state": state})
            return text.replace(json.dumps(state[key]), self.pick(HOSTILE_NUMBERS + WRONG_VALUES), 1).encode()
        return json.dumps({"state": state}).encode()

    def odd_id(self) -> bytes:
        _, obs, mask = self.pick(self.samples)
        literal = self.pick(["NaN", "[Infinity]", '"' + "x" * 10_000 + '"', "[[[[1]]]]", "-0", '{"a": null}'])
        return (
            '{"id": ' + literal + ', "observation": ' + json.dumps(obs) + ', "action_mask": ' + json.dumps(mask) + "}"
        ).encode()


def _strict(text: str):
    def refuse(name):
        raise AssertionError(f"answer holds {name}")

    return json.loads(text, parse_constant=refuse)


def _legal_mask(line: bytes, game) -> np.ndarray:
    """The mask an answered request carried: its own action_mask, or its state's legal actions."""
    request = json.loads(line)
    if "state" in request:
        return game.state_from_json(request["state"]).legal_action_mask()
    return np.asarray(request["action_mask"])


@pytest.mark.slow
def test_every_hostile_line_gets_one_answer_and_never_a_masked_action(cromlet_onnx_dir):
    server = AgentServer(OnnxAgent(cromlet_onnx_dir))
    env = EnvSpec("cromlet_v0").make_raw()
    rng = np.random.default_rng(2024)
    samples = []
    for seed in range(3):
        env.reset(seed=seed)
        while not env.game_state.is_terminal():
            seen = env.observe(env.agent_selection)
            if rng.random() < 0.1:
                samples.append((env.game_state.to_json(), seen["observation"].tolist(), seen["action_mask"].tolist()))
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    fuzzer = Fuzzer(rng, samples)
    lines = [fuzzer.line() for _ in range(LINES)]
    lines.append(b"x" * (server.max_line_bytes + 10))  # one line over the limit
    out = io.StringIO()
    answered = server.serve(io.BytesIO(b"\n".join(lines) + b"\n"), out)

    answers = [_strict(text) for text in out.getvalue().splitlines()]
    expected = [line for line in lines if not wire.is_blank(line)]
    assert answered == len(answers) == len(expected) > 0.99 * len(lines)
    outcome = Counter()
    for line, answer in zip(expected, answers):
        assert ("action" in answer) != ("error" in answer), answer
        if "action" in answer:
            assert _legal_mask(line, env.game)[answer["action"]] == 1
        outcome["action" if "action" in answer else "error"] += 1
    assert outcome["action"] > 50 and outcome["error"] > 0.8 * len(lines)  # both paths were exercised
    assert "longer than" in answers[-1]["error"]
    print(f"fuzz: {len(lines)} hostile lines, {len(answers)} answered ({dict(outcome)})")

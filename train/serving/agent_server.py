"""`tabletop agent --model DIR`: an exported policy behind a line-oriented JSON protocol on stdin/stdout.

One JSON object per line in, one JSON line out (docs/protocol.md):

    {"state": <State.to_json()>}                      -> {"action": 17, "name": "play B6"}
    {"observation": [...], "action_mask": [...]}      -> {"action": 17}
    anything else                                     -> {"error": "..."}   (and the server keeps going)

An optional "id" is echoed back, so a client may keep several requests in flight. Blank lines are
ignored. Runs on onnxruntime and numpy only, like `OnnxAgent`.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

import numpy as np

from tabletop.agents import OnnxAgent
from tabletop.envs import EnvSpec

KEYS = ("state", "observation", "action_mask", "id")


class AgentServer:
    """Answers requests for one exported policy; `answer` never raises, whatever the line holds."""

    def __init__(self, agent: OnnxAgent):
        self.agent = agent
        meta = agent.metadata
        self.env = EnvSpec(meta["env_id"], meta["env_kwargs"]).make_raw()  # its observer encodes as in training

    def answer(self, line: str) -> dict[str, Any]:
        try:
            request = json.loads(line)
        except json.JSONDecodeError as err:
            return {"error": f"not valid JSON: {err}"}
        if not isinstance(request, dict):
            return {"error": 'expected a JSON object: {"state": ...} or {"observation": [...], "action_mask": [...]}'}
        reply = {"id": request["id"]} if "id" in request else {}
        try:
            reply.update(self._choose(request))
        except Exception as err:  # noqa: BLE001 - a server must survive any request: report it and go on
            reply["error"] = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
        return reply

    def serve(self, lines: TextIO, out: TextIO) -> None:
        for line in lines:
            if line.strip():
                out.write(json.dumps(self.answer(line)) + "\n")
                out.flush()

    # --- internals -------------------------------------------------------------------------------
    def _choose(self, request: dict) -> dict[str, Any]:
        unknown = sorted(set(request) - set(KEYS))
        if unknown:
            raise ValueError(f"unknown key {unknown[0]!r}; allowed keys: {', '.join(KEYS)}")
        if "state" in request:
            if "observation" in request or "action_mask" in request:
                raise ValueError("send either a state or an observation with an action_mask, not both")
            return self._from_state(request["state"])
        if "observation" not in request or "action_mask" not in request:
            raise ValueError('a request needs "state", or both "observation" and "action_mask"')
        observation = _numbers(request["observation"], "observation")
        mask = _numbers(request["action_mask"], "action_mask")
        return {"action": self.agent.act(observation, mask)}

    def _from_state(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise ValueError(f"state must be a JSON object (what State.to_json writes), got {type(data).__name__}")
        state = self.env.game.state_from_json(data)
        if state.is_terminal():
            raise ValueError("the game in this state is over: no one is to move")
        observation = self.env.observer.encode(state, state.current_player)
        action = self.agent.act(observation, state.legal_action_mask())
        return {"action": action, "name": state.action_to_string(action)}


def _numbers(value: Any, key: str) -> np.ndarray:
    """A flat list of numbers as float32, or a ValueError naming the key."""
    if not isinstance(value, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
        raise ValueError(f"{key} must be a flat list of numbers")
    return np.asarray(value, dtype=np.float32)


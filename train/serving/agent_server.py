"""`tabletop agent --model DIR`: an exported policy behind a line-oriented JSON protocol on stdin/stdout.

One JSON object per line in, one JSON line out (docs/protocol.md):

    {"state": <State.to_json()>}                      -> {"action": 17, "name": "play B6"}
    {"observation": [...], "action_mask": [...]}      -> {"action": 17}
    anything else                                     -> {"error": "..."}   (and the server keeps going)

An optional "id" is echoed back, so a client may keep several requests in flight. Blank lines are
ignored. Every other line gets exactly one answer, whatever it holds: the line is checked for length,
encoding and nesting (`wire`) before it is parsed, the vectors for type, finiteness and range, a state
by its game's loader; and an answered action is always legal in the request. Runs on onnxruntime and
numpy only, like `OnnxAgent`.
"""

from __future__ import annotations

import math
from typing import Any, BinaryIO, TextIO

import numpy as np

from tabletop.agents import OnnxAgent
from tabletop.envs import EnvSpec
from tabletop.train.serving.wire import LineError, encode, is_blank, line_limit, parse, read_lines

KEYS = ("state", "observation", "action_mask", "id")
MAX_ERROR_CHARS = 2000
"""An error message quotes the request at most this far, so an answer never grows with a hostile line."""


class AgentServer:
    """Answers requests for one exported policy; `answer` never raises, whatever the line holds."""

    def __init__(self, agent: OnnxAgent, table: dict[str, Any] | None = None):
        """`table`: the game arguments of the client's table where they differ from the export's; a moves-mode
        Kings Cribbage export at a tiles-mode table (`{"action_mode": "tiles"}`) plays through the tiles adapter,
        from states only (it reads the position, not a vector)."""
        from tabletop.agents.kings_cribbage_tiles import at_table

        self.agent = agent
        meta = agent.metadata
        trained = EnvSpec(meta["env_id"], meta["env_kwargs"])
        spec = trained.with_kwargs(**table) if table else trained
        self.player = at_table(agent, spec, trained) if table else agent
        self.adapted = self.player is not agent
        if table and not self.adapted and spec != trained:
            raise ValueError(f"{meta['env_id']} {dict(table)}: the export plays {trained} only")
        self.env = spec.make_raw()  # the table's rules; an unadapted export's observer encodes as in training
        self.max_line_bytes = line_limit(agent.obs_size + agent.num_actions)

    def answer(self, line: bytes | str) -> dict[str, Any]:
        """The reply to one line: `action` (and `name` for a state), or `error`; `id` echoed when given."""
        try:
            request = parse(line)
        except LineError as err:
            return {"error": str(err)}
        if not isinstance(request, dict):
            return {"error": 'expected a JSON object: {"state": ...} or {"observation": [...], "action_mask": [...]}'}
        reply = {}
        if "id" in request:
            if not _plain_json(request["id"]):
                return {"error": "id must be plain JSON: no NaN or Infinity in it"}
            reply["id"] = request["id"]
        try:
            reply.update(self._choose(request))
        except Exception as err:  # noqa: BLE001 - a server must survive any request: report it and go on
            text = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
            reply["error"] = text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "..."
        return reply

    def serve(self, lines: BinaryIO, out: TextIO) -> int:
        """Answer every non-blank line of `lines` (bytes) on `out`, flushing each answer; returns how many."""
        answered = 0
        for line in read_lines(lines, self.max_line_bytes):
            if isinstance(line, LineError):
                reply = {"error": str(line)}
            elif is_blank(line):
                continue
            else:
                reply = self.answer(line)
            out.write(encode(reply) + "\n")
            out.flush()
            answered += 1
        return answered

    # --- internals -------------------------------------------------------------------------------
    def _choose(self, request: dict) -> dict[str, Any]:
        unknown = sorted(set(request) - set(KEYS))
        if unknown:
            raise ValueError(f"unknown key {unknown[0][:100]!r}; allowed keys: {', '.join(KEYS)}")
        if "state" in request:
            if "observation" in request or "action_mask" in request:
                raise ValueError("send either a state or an observation with an action_mask, not both")
            return self._from_state(request["state"])
        if "observation" not in request or "action_mask" not in request:
            raise ValueError('a request needs "state", or both "observation" and "action_mask"')
        if self.adapted:
            raise ValueError('at this table the policy reads the position: send {"state": ...}, not vectors')
        observation = _numbers(request["observation"], "observation")
        mask = _numbers(request["action_mask"], "action_mask")
        return {"action": self.agent.act(observation, mask)}  # the agent checks both, and its answer

    def _from_state(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise ValueError(f"state must be a JSON object (what State.to_json writes), got {type(data).__name__}")
        try:
            state = self.env.game.state_from_json(data)  # an InvalidStateError names the field and the problem
        except (KeyError, IndexError, TypeError, AttributeError, OverflowError) as err:  # a loader's oversight
            raise ValueError(
                f"invalid state ({type(err).__name__}: {err}); State.to_json() writes every key the game needs "
                "(docs/protocol.md lists them)"
            ) from None
        if state.is_terminal():
            raise ValueError("the game in this state is over: no one is to move")
        seat, mask = state.current_player, state.legal_action_mask()
        if self.adapted:
            action = self.player.act(None, mask, state.view(seat))
        else:
            action = self.agent.act(self.env.observer.encode(state, seat), mask)
        return {"action": action, "name": state.action_to_string(action)}


def _numbers(value: Any, key: str) -> np.ndarray:
    """A flat list of JSON numbers as float64 (ranges are the agent's to check), or a ValueError naming the key."""
    if not isinstance(value, list):
        raise ValueError(f"{key} must be a flat list of numbers, got {type(value).__name__}")
    if not set(map(type, value)) <= {int, float}:  # bools, strings, lists, null: name the first one
        i, x = next((i, x) for i, x in enumerate(value) if type(x) not in (int, float))
        raise ValueError(f"{key} must be a flat list of numbers: {key}[{i}] is {type(x).__name__}")
    try:
        return np.array(value, dtype=np.float64)
    except OverflowError:
        big = next(i for i, x in enumerate(value) if isinstance(x, int) and abs(x) > 1e308)
        raise ValueError(f"{key}[{big}] is an integer too large for any float") from None


def _plain_json(value: Any) -> bool:
    """True unless `value` holds a NaN or an infinity (which strict JSON cannot write back)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    if isinstance(value, dict):
        return all(_plain_json(v) for v in value.values())
    return True

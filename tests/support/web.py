"""Web helpers shared by the server tests: HTTP requests, tables and page sockets against a running site."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import numpy as np
from websockets.sync.client import connect

from tabletop.agents import RandomAgent
from tabletop.train.web.table import Table


def http(base: str, path: str, body: bytes | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(base + path.lstrip("/"), data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def new_table(base: str, **request) -> dict:
    status, _, body = http(base, "/api/tables", json.dumps({"pace_ms": 0, **request}).encode())
    assert status == 200, body
    return json.loads(body)


def socket(base: str, link: str, suffix: str = ""):
    return connect(base.replace("http://", "ws://") + "ws/" + link.rsplit("/", 1)[1] + suffix)


def receive(ws, until=lambda m: True, limit: int = 5000) -> dict:
    for _ in range(limit):
        message = json.loads(ws.recv(timeout=30))
        if until(message):
            return message
    raise AssertionError("the expected message never came")


def step_once(table: Table, rng: RandomAgent) -> None:
    """One move: the agent's own choice, or a random legal move sent for the seat played from a page."""
    if table.agent_to_move() is not None:
        agent, arguments, keywords = table.agent_inputs()
        table.apply(agent.act(*arguments, **keywords))
        return
    mover = table.state.current_player
    mask = np.zeros(table.env.game.num_actions, dtype=np.int8)
    mask[[a for a, _ in table.frame(mover)["legal"]]] = 1
    table.play(mover, [rng.act(None, mask, {})], len(table.moves))


def play_out(table: Table, seed: int = 0, record: bool = True) -> dict:
    """Agents move themselves; each seat played from a page picks a random legal move from its own frame.
    Returns every viewer's frame at every step: {(viewer, step): frame}."""
    rng = RandomAgent(seed)
    frames = {}
    while True:
        if record:
            for viewer in table.viewers():
                frames[viewer, len(table.moves)] = table.frame(viewer)
        if table.over:
            return frames
        step_once(table, rng)

"""A bounded load test of `tabletop serve` on this machine's loopback: many tables at once, agents on the
server in every seat but one, which a scripted client plays over the websocket like a page.

    python -m tabletop.train.web.load --games 50 [--waves 2] [--game cromlet_v0] [--opponent greedy]

The server runs in its own process (`tabletop serve --port 0`, loopback only). Each wave opens `games`
tables at once; each client plays random legal moves until its game ends and checks every frame: its own
seat only, steps in order, every move answered by a frame at a later step, the game over at the end.
Reported: moves per second (the clients' and the agents' together), the latency from sending a move to
the frame that shows it (percentiles), and the server's resident memory after each wave, which must stay
flat once the server holds its limit of tables (finished tables make room for new ones).
Bounded in count (games, waves, moves per game) and in time (a deadline per wave).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

LOOPBACK = "127.0.0.1"
MAX_MOVES_PER_GAME = 2000


class LoadError(AssertionError):
    """A game lost, mixed up or left unanswered."""


@dataclass
class Game:
    """What one client saw of its table."""

    seat: int
    moves: int = 0  # the table's moves at the end
    own_moves: int = 0
    latencies: list[float] = field(default_factory=list)
    over: bool = False


@dataclass
class Wave:
    games: list[Game]
    seconds: float
    rss_kib: int

    @property
    def moves(self) -> int:
        return sum(g.moves for g in self.games)


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


async def play(base: str, link: str, seat: int, seed: int) -> Game:
    """Play one seat to the end with random legal moves, checking every frame the server sends."""
    import websockets

    rng = random.Random(seed)
    game = Game(seat)
    url = base.replace("http://", "ws://") + "ws/" + link.rsplit("/", 1)[1]
    async with websockets.connect(url, max_size=1 << 24) as socket:
        hello = json.loads(await socket.recv())
        if hello["type"] != "hello" or hello["viewer"] != seat:
            raise LoadError(f"seat {seat}'s link opened viewer {hello.get('viewer')}")
        last_step = -1
        while True:
            frame = json.loads(await socket.recv())
            if frame["type"] == "error":
                raise LoadError(f"seat {seat}: the server refused a move: {frame['message']}")
            _check(frame, seat, last_step)
            last_step = frame["step"]
            if frame["over"]:
                game.moves, game.over = frame["moves"], True
                return game
            if not frame["legal"]:
                continue
            if frame["step"] >= MAX_MOVES_PER_GAME:
                raise LoadError(f"seat {seat}: the game passed {MAX_MOVES_PER_GAME} moves")
            action = rng.choice(frame["legal"])[0]
            sent = time.perf_counter()
            await socket.send(json.dumps({"type": "move", "actions": [action], "step": frame["step"]}))
            answer = json.loads(await socket.recv())
            if answer["type"] == "error":
                raise LoadError(f"seat {seat}: move {action} at step {frame['step']} refused: {answer['message']}")
            if answer["step"] <= frame["step"]:
                raise LoadError(f"seat {seat}: move at step {frame['step']} answered with step {answer['step']}")
            game.latencies.append(time.perf_counter() - sent)
            game.own_moves += 1
            _check(answer, seat, last_step)
            last_step = answer["step"]
            if answer["over"]:
                game.moves, game.over = answer["moves"], True
                return game


def _check(frame: dict[str, Any], seat: int, last_step: int) -> None:
    """A frame of this seat's own table and view, later than the one before."""
    view = frame["view"]
    mine = view.get("player", view.get("seat"))
    if mine != seat:
        raise LoadError(f"seat {seat} was sent the view of {mine}")
    if frame["step"] <= last_step:
        raise LoadError(f"seat {seat}: step {frame['step']} after step {last_step}")
    if frame["legal"] is not None and frame["to_move"] != seat:
        raise LoadError(f"seat {seat} was offered moves while player_{frame['to_move']} is to move")


async def wave(base: str, games: int, game_id: str, opponent: str, seed: int, deadline: float) -> list[Game]:
    """`games` tables at once, one client each; every game must end before `deadline` seconds."""
    links = []
    for i in range(games):
        seats = ["you", opponent]
        answer = await asyncio.to_thread(
            _post, base + "api/tables", {"game": game_id, "seats": seats, "seed": seed + i, "pace_ms": 0}
        )
        links.append(answer["link"])
    clients = [play(base, link, 0, seed + i) for i, link in enumerate(links)]
    try:
        return await asyncio.wait_for(asyncio.gather(*clients), deadline)
    except asyncio.TimeoutError:
        raise LoadError(f"a game of this wave did not end within {deadline:.0f} s") from None


def start_server(*flags: str, **popen: Any) -> tuple[subprocess.Popen, str]:
    """`tabletop serve FLAGS` on a free loopback port, in its own process; returns it and its address."""
    server = subprocess.Popen(
        [sys.executable, "-m", "tabletop.train.cli", "serve", "--host", LOOPBACK, "--port", "0", *flags],
        stdout=subprocess.PIPE,
        text=True,
        **popen,
    )
    line = server.stdout.readline()
    match = re.search(r"http://[\d.]+:\d+/", line)
    if not match:
        server.kill()
        raise LoadError(f"the server did not start: {line!r}")
    return server, match.group(0)


def resident_kib(pid: int) -> int:
    """The process's resident memory (VmRSS), in KiB."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def run(
    games: int = 50,
    waves: int = 2,
    game_id: str = "cromlet_v0",
    opponent: str = "greedy",
    seed: int = 0,
    deadline: float = 240.0,
) -> list[Wave]:
    """Start a server, play `waves` waves of `games` concurrent games, stop the server."""
    server, base = start_server("--max-tables", str(games), "--tables-per-client", str(games))
    try:
        done = []
        for w in range(waves):
            started = time.perf_counter()
            played = asyncio.run(wave(base, games, game_id, opponent, seed + w * games, deadline))
            done.append(Wave(played, time.perf_counter() - started, resident_kib(server.pid)))
        return done
    finally:
        server.terminate()
        server.wait(timeout=30)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(waves: list[Wave]) -> str:
    lines = []
    for i, w in enumerate(waves, 1):
        latencies = [x for g in w.games for x in g.latencies]
        lines.append(
            f"wave {i}: {len(w.games)} concurrent games, {w.moves} moves ({sum(g.own_moves for g in w.games)} by the "
            f"clients) in {w.seconds:.1f} s = {w.moves / w.seconds:.0f} moves/s; move answered in "
            f"p50 {1000 * percentile(latencies, 0.5):.1f} ms, p95 {1000 * percentile(latencies, 0.95):.1f} ms, "
            f"p99 {1000 * percentile(latencies, 0.99):.1f} ms, max {1000 * max(latencies):.1f} ms; "
            f"server memory {w.rss_kib / 1024:.1f} MiB"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabletop.train.web.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent games per wave (default 50)")
    parser.add_argument("--waves", type=int, default=3, help="waves of games, one after another (default 3)")
    parser.add_argument("--game", default="cromlet_v0")
    parser.add_argument("--opponent", default="greedy", help="the agent on the server (default greedy)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 500 or not 1 <= args.waves <= 20:
        parser.error("--games is bounded to 1..500 and --waves to 1..20")
    print(report(run(args.games, args.waves, args.game, args.opponent, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

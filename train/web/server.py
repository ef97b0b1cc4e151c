"""`tabletop serve`: the web server (Starlette on uvicorn): pages, the table API and one websocket per page.

Routes:
    GET  /                       the new-table form (static/index.html)
    GET  /t/<token>              a seat's page, or the spectator's (static/table.html); 404 for any other token
    GET  /api/games              games, their parameters and the players each seat may hold
    POST /api/tables             a new table: {"game", "args", "seats", "seed", "position", "pace_ms"}
    GET  /api/position/<token>   the whole position as JSON (the spectator's at any time, a seat's once it is over)
    GET  /models/<token>/<file>  model.onnx and metadata.json, for the page of a seat whose policy runs there
    GET  /vendor/onnxruntime-web/<file>   onnxruntime-web, installed from npm beside this module (no CDN)
    WS   /ws/<token>             frames out; moves, reviews and pace in

A page learns its seat from its link alone: the websocket is bound to the token's viewer when it opens,
and no message may name a seat; only the link of the table's creator sets its pace. Agents on the server
move in the table's own task once a page of the table is open, paced so a person can follow; their
choices run in a worker thread, so a slow policy never holds up the other tables, and so does the
building of a new table, once the lobby has room for it.

Nothing a client sends ends in a traceback: a body too large is refused by its length, or as soon as it
passes the limit; a binary frame is answered and the socket closed with 1003; a page that leaves in the
middle of anything just loses its socket. The connection limits are in `connections`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketDisconnected

from tabletop.agents.onnx_agent import METADATA_FILE, MODEL_FILE
from tabletop.train.serving.wire import LineError, parse
from tabletop.train.web.connections import (
    DEFAULT_MAX_CONNECTIONS,
    Guard,
    connection_budget,
    guarded,
    listener,
    open_file_limit,
    quiet_out_of_files,
)
from tabletop.train.web.lobby import LOCAL, Entry, Lobby, RequestError
from tabletop.train.web.table import MAX_CHAIN, MoveRefused, Table

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
RUNTIME = HERE / "node_modules" / "onnxruntime-web" / "dist"
RUNTIME_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
"""The only files of onnxruntime-web a page loads: the WebAssembly build, single-threaded."""
MAX_MESSAGE_BYTES = 4096
MAX_REQUEST_BYTES = 4 << 20  # a saved Chromino position on the largest web grid stays far below
MAX_HEAD_BYTES = 16 << 10
"""A request's line and headers (h11's default, named): longer is answered 400."""
REQUEST_TIMEOUT = 10.0
"""Seconds a client has to send a request's headers, and again its body."""
KEEP_ALIVE = 5
"""Seconds an idle connection is kept for the client's next request (uvicorn's default, named)."""
SEND_TIMEOUT = 10.0
GONE = (WebSocketDisconnect, WebSocketDisconnected, OSError, asyncio.TimeoutError)
"""What sending to a page raises once it has left, or stopped reading for SEND_TIMEOUT."""
HEADERS = {
    # scripts and models come from this server only; WebAssembly compiles need 'wasm-unsafe-eval'
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'self'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",  # a seat's link never travels in a Referer header
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def runtime_installed(folder: Path = RUNTIME) -> bool:
    return all((folder / name).is_file() for name in RUNTIME_FILES)


class PageGone(Exception):
    """A page's socket closed, or stopped reading: the page loses its socket, never the table."""


@dataclass(eq=False)
class Connection:
    """One open page: its websocket, its viewer, whether it holds the creator's link, and how much of the
    viewer's transcript it has."""

    socket: WebSocket
    viewer: int | None
    host: bool = False
    cursor: int = 0

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await asyncio.wait_for(self.socket.send_text(json.dumps(message, allow_nan=False)), SEND_TIMEOUT)
        except GONE as err:
            raise PageGone() from err

    async def close(self, code: int, reason: str) -> None:
        try:
            await self.socket.close(code=code, reason=reason)
        except GONE:
            pass


@dataclass(eq=False)
class Room:
    """A table's live side: its open pages, the lock that orders moves and frames, the agents' task."""

    entry: Entry
    connections: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task | None = None

    @property
    def table(self) -> Table:
        return self.entry.table

    async def broadcast(self) -> None:
        """Each open page gets its viewer's frame and the transcript lines it has not seen."""
        for conn in list(self.connections):
            frame = self.table.frame(conn.viewer, conn.cursor)
            conn.cursor += len(frame["log"])
            try:
                await conn.send(frame)
            except PageGone:
                self.connections.discard(conn)

    def wake(self) -> None:
        """Start the agents' task if an agent on the server is to move."""
        if self.table.agent_to_move() and not self.table.paused and (self.task is None or self.task.done()):
            self.task = asyncio.create_task(self._agents())

    async def _agents(self) -> None:
        table = self.table
        while table.agent_to_move() and not table.paused:
            await asyncio.sleep(table.pace_ms / 1000)
            if table.paused:
                return
            await self.advance()

    async def advance(self) -> None:
        """One agent move, if an agent is to move."""
        table = self.table
        if table.agent_to_move() is None:
            return
        step = len(table.moves)
        agent, arguments, keywords = table.agent_inputs()
        try:
            action = await asyncio.to_thread(agent.act, *arguments, **keywords)
        except Exception as err:  # noqa: BLE001 - a failing policy stops its table, with the reason shown
            table.failure = f"the agent at seat {table.state.current_player} ({agent.name}) failed: {err}"
            action = None
        async with self.lock:
            if action is not None and len(table.moves) == step:
                table.apply(action)
            await self.broadcast()


class Server:
    """The application: a lobby of tables and a room for each table with open pages."""

    def __init__(self, lobby: Lobby, runtime: Path = RUNTIME, request_timeout: float = REQUEST_TIMEOUT):
        self.lobby = lobby
        self.runtime = runtime
        self.request_timeout = request_timeout
        self.rooms: dict[str, Room] = {}  # host token -> room
        self.app = Starlette(
            routes=[
                Route("/", self.index),
                Route("/t/{token}", self.table_page),
                Route("/api/games", self.games),
                Route("/api/tables", self.new_table, methods=["POST"]),
                Route("/api/position/{token}", self.position),
                Route("/models/{token}/{name}", self.model_file),
                Route("/vendor/onnxruntime-web/{name}", self.vendor),
                WebSocketRoute("/ws/{token}", self.socket),
                Mount("/static", StaticFiles(directory=STATIC), name="static"),
            ]
        )
        self.app.add_middleware(_Headers)

    def room(self, entry: Entry) -> Room:
        if entry.host not in self.rooms:
            self.rooms[entry.host] = Room(entry)
        return self.rooms[entry.host]

    async def _forget_dropped(self) -> None:
        """Rooms of tables the lobby dropped: their agents stop, their pages are told."""
        for host in [h for h in self.rooms if h not in self.lobby.entries]:
            room = self.rooms.pop(host)
            if room.task is not None:
                room.task.cancel()
            await asyncio.gather(*(conn.close(4410, "this table has ended") for conn in room.connections))

    # --- pages and API -----------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def table_page(self, request: Request) -> Response:
        if self.lobby.find(request.path_params["token"]) is None:
            return PlainTextResponse("No table has this link (it may have ended long ago). Start one at /", 404)
        return FileResponse(STATIC / "table.html")

    async def games(self, request: Request) -> Response:
        return JSONResponse({"games": self.lobby.games(), "runtime": self.lobby.runtime})

    async def new_table(self, request: Request) -> Response:
        """The body is read within its limits; then the lobby makes room (the table limit, the client's share)
        before the table is built, in a worker thread: a large game never stalls the other tables."""
        client = client_of(request)
        try:
            body = await read_body(request, MAX_REQUEST_BYTES, self.request_timeout)
            with self.lobby.place(client):
                table, seats = await run_in_threadpool(lambda: self.lobby.build(parse(body)))
                entry = self.lobby.register(table, seats, client)
        except BodyRefused as err:  # the rest of the body is read and dropped, within the header deadline
            return _error(str(err), err.status)
        except LineError as err:
            return _error(str(err), 400)
        except RequestError as err:
            return _error(str(err), err.status)
        await self._forget_dropped()
        self.room(entry)
        return JSONResponse({"link": f"/t/{entry.host}", "invites": entry.invites})

    async def position(self, request: Request) -> Response:
        found = self.lobby.find(request.path_params["token"])
        if found is None:
            return _error("no table has this link", 404)
        entry, viewer = found
        step = request.query_params.get("step")
        if step is not None and not (step.isascii() and step.isdigit() and len(step) < 10):
            return _error("step: the number of moves into the game, a whole number", 400)
        try:
            saved = entry.table.saved_position(viewer, None if step is None else int(step))
        except MoveRefused as err:
            return _error(str(err), 403)
        name = f"{entry.table.spec.env_id}-step{step or len(entry.table.moves)}.json"
        return JSONResponse(saved, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def model_file(self, request: Request) -> Response:
        found = self.lobby.find(request.path_params["token"])
        name = request.path_params["name"]
        if found is None or name not in (MODEL_FILE, METADATA_FILE):
            return _error("not found", 404)
        entry, viewer = found
        seat = None if viewer is None else entry.table.seats[viewer]
        if seat is None or seat.policy is None:
            return _error("this seat's policy does not run in its page", 404)
        return FileResponse(seat.policy / name)

    async def vendor(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in RUNTIME_FILES or not (self.runtime / name).is_file():
            return _error("not found: install the browser runtime with `npm ci --prefix train/web` (docs/play.md)", 404)
        return FileResponse(self.runtime / name)

    # --- the websocket -----------------------------------------------------------------------------
    async def socket(self, websocket: WebSocket) -> None:
        found = self.lobby.find(websocket.path_params["token"])
        if found is None:  # accepted first, so the page reads the reason rather than a failed handshake
            await websocket.accept()
            await websocket.close(code=4404, reason="no table has this link")
            return
        entry, viewer = found
        room = self.room(entry)
        await websocket.accept()
        conn = Connection(websocket, viewer, host=websocket.path_params["token"] == entry.host)
        table = room.table
        hello = {
            "type": "hello",
            "game": table.spec.env_id,
            "args": table.spec.kwargs,
            "viewer": viewer,
            "watch": table.watch,
            "players": table.describe_seats(),
            "static": table.static,
            "drawing": table.drawing,
            "policy": viewer is not None and table.seats[viewer].kind == "page",
            "host": conn.host,
            "invites": entry.invites if conn.host else [],
        }
        entry.page_opened()
        try:
            async with room.lock:
                await conn.send(hello)
                frame = table.frame(viewer)
                conn.cursor = len(frame["log"])
                await conn.send(frame)
                room.connections.add(conn)
            room.wake()  # agents start once a page of the table is open, so nobody misses the first moves
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if message.get("text") is None:
                    await conn.send(
                        {
                            "type": "error",
                            "message": "this server reads text frames only, each a JSON "
                            "message; a binary frame closes the socket",
                        }
                    )
                    await conn.close(1003, "binary frames are not read here")
                    return
                await self.handle(room, conn, message["text"])
        except PageGone:
            pass
        finally:
            room.connections.discard(conn)
            entry.page_closed()

    async def handle(self, room: Room, conn: Connection, text: str) -> None:
        """One message from a page; any problem is answered with an error that names it."""
        try:
            message = _read_message(text)
            kind = message["type"]
            table = room.table
            if kind == "move":
                if conn.viewer is None:
                    raise MoveRefused("the spectator watches: only seated players move")
                async with room.lock:
                    table.play(conn.viewer, message["actions"], message["step"])
                    await room.broadcast()
                room.wake()
            elif kind == "review":
                await conn.send(table.review(conn.viewer, message["step"]))
            elif kind == "pace":
                if not conn.host:
                    raise MoveRefused("only the table's creator sets its pace")
                table.pace_ms = message["ms"]
                async with room.lock:
                    await room.broadcast()
            elif kind in ("pause", "advance"):
                if conn.viewer is not None:
                    raise MoveRefused("only the spectator of a table of agents pauses and steps it")
                if kind == "pause":
                    table.paused = message["paused"]
                    async with room.lock:
                        await room.broadcast()
                    room.wake()
                elif table.paused:
                    await room.advance()
        except (MoveRefused, MessageError) as err:
            await conn.send({"type": "error", "message": str(err)})


class MessageError(ValueError):
    """A message that is not one the page protocol knows."""


MESSAGES = {
    "move": {"actions": "a list of 1 to 4 action numbers", "step": "the step the move was chosen at"},
    "review": {"step": "the step to show"},
    "pace": {"ms": "milliseconds before each agent move, 0 to 10000"},
    "pause": {"paused": "true or false"},
    "advance": {},
}


def _read_message(text: str) -> dict[str, Any]:
    if len(text) > MAX_MESSAGE_BYTES:
        raise MessageError(f"a message is at most {MAX_MESSAGE_BYTES} characters")
    try:
        message = parse(text)
    except LineError as err:
        raise MessageError(str(err)) from None
    if not isinstance(message, dict) or message.get("type") not in MESSAGES:
        raise MessageError(f"a message is a JSON object whose type is one of {', '.join(MESSAGES)}")
    expected = MESSAGES[message["type"]]
    unknown = sorted(set(message) - {"type", *expected})
    if unknown:
        raise MessageError(
            f"unknown key {unknown[0][:40]!r} in a {message['type']} message; it takes "
            f"{', '.join(expected) or 'nothing else'} (a page's seat is the one its link names)"
        )
    missing = [k for k in expected if k not in message]
    if missing:
        raise MessageError(f"a {message['type']} message needs {missing[0]}: {expected[missing[0]]}")
    for key, value in message.items():
        if key == "actions":
            if not (isinstance(value, list) and 1 <= len(value) <= MAX_CHAIN and all(_is_int(a) for a in value)):
                raise MessageError(f"actions: {expected['actions']}")
        elif key == "paused":
            if not isinstance(value, bool):
                raise MessageError("paused: true or false")
        elif key in ("step", "ms") and not (_is_int(value) and 0 <= value <= (10_000 if key == "ms" else 10**9)):
            raise MessageError(f"{key}: {expected[key]}")
    return message


def _is_int(value: Any) -> bool:
    return type(value) is int


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class BodyRefused(Exception):
    """A request body too large or too slow, or cut off; `status` is the answer."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


async def read_body(request: Request, limit: int, timeout: float) -> bytes:
    """The body of `request`, never more than `limit` bytes of it held: refused by its declared length
    before a byte is read, as soon as a chunked one passes `limit`, or unless it arrives within `timeout`."""
    declared = request.headers.get("content-length")
    if declared is not None and int(declared) > limit:
        raise BodyRefused(f"a table request is at most {limit} bytes; this one declares {declared}", 413)

    async def collect() -> bytes:
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise BodyRefused(f"a table request is at most {limit} bytes", 413)
        return bytes(body)

    try:
        return await asyncio.wait_for(collect(), timeout)
    except asyncio.TimeoutError:
        raise BodyRefused(f"a table request's body must arrive within {timeout:g} s", 408) from None
    except ClientDisconnect:
        raise BodyRefused("the client left before its request's body arrived", 400) from None


def client_of(request: Request) -> str:
    """Whose share of tables a request counts against: its address, an IPv6 one by its /64 network (the
    addresses one household or one machine is given)."""
    host = request.client.host if request.client else LOCAL
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(getattr(address, "ipv4_mapped", None) or address)


class _Headers:
    """Adds the security headers to every HTTP answer."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (k.lower().encode(), v.encode()) for k, v in HEADERS.items()
                ]
            await send(message)

        return await self.app(scope, receive, with_headers)


def check_policies(policies: tuple[str, ...]) -> tuple[str, ...]:
    """The operator's extra players: `onnx:DIR` or `ppo:PATH` naming something on disk, or a ValueError."""
    for spec in policies:
        kind, _, path = spec.partition(":")
        if kind not in ("onnx", "ppo") or not path:
            raise ValueError(f"--policy {spec!r}: give onnx:DIR (an export folder) or ppo:PATH (a run or checkpoint)")
        if not Path(path).exists():
            raise ValueError(f"--policy {spec!r}: {path} does not exist")
    return policies


def uvicorn_server(app, guard: Guard, log_level: str = "warning"):
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol

    config = uvicorn.Config(
        app,
        http=guarded(H11Protocol, guard),
        ws="websockets-sansio",
        ws_max_size=MAX_MESSAGE_BYTES * 4,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        timeout_keep_alive=KEEP_ALIVE,
        log_level=log_level,
        lifespan="off",
    )
    return uvicorn.Server(config)


async def _serve(runner, sock: socket.socket) -> None:
    """uvicorn on the standard asyncio loop (the listener's accept must be the one called), quiet when out of files."""
    asyncio.get_running_loop().set_exception_handler(quiet_out_of_files)
    await runner.serve(sockets=[sock])


@contextmanager
def running(
    server: Server, host: str = "127.0.0.1", max_connections: int = 200, header_timeout: float = REQUEST_TIMEOUT
) -> Iterator[str]:
    """`server` on a free port of `host`, in a background thread (tests, tools); yields its base URL."""
    sock = listener(host, 0, Guard(max_connections, header_timeout))
    runner = uvicorn_server(server.app, sock.guard)
    thread = threading.Thread(target=asyncio.run, args=(_serve(runner, sock),), daemon=True)
    thread.start()
    try:
        while not runner.started:
            if not thread.is_alive():
                raise RuntimeError("the web server stopped while starting")
            time.sleep(0.02)
        yield f"http://{host}:{sock.getsockname()[1]}/"
    finally:
        runner.should_exit = True
        thread.join(timeout=10)
        sock.close()


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    policies: tuple[str, ...] = (),
    max_tables: int = 200,
    tables_per_client: int = 5,
    idle_minutes: float = 10.0,
    max_connections: int | None = None,
    request_timeout: float = REQUEST_TIMEOUT,
    open_browser: bool = False,
) -> None:
    """Run the server until interrupted; prints its address first. A limit that cannot hold (more connections
    than the open-file limit allows) is a ValueError before anything starts."""
    files = open_file_limit()
    guard = Guard(connection_budget(max_connections, files), request_timeout)
    lobby = Lobby(
        check_policies(policies),
        runtime=runtime_installed(),
        max_tables=max_tables,
        tables_per_client=tables_per_client,
        idle_seconds=idle_minutes * 60,
    )
    server = Server(lobby, request_timeout=request_timeout)
    sock = listener(host, port, guard)
    address = sock.getsockname()
    url = f"http://{'[' + address[0] + ']' if ':' in address[0] else address[0]}:{address[1]}/"
    print(f"tabletop serve: open {url}", flush=True)
    if not lobby.runtime:
        print(f"  (policies in the page need onnxruntime-web: npm ci --prefix {HERE})", file=sys.stderr, flush=True)
    if guard.max_connections < DEFAULT_MAX_CONNECTIONS:
        print(
            f"  (at most {guard.max_connections} connections at once: this process may open {files} files)",
            file=sys.stderr,
            flush=True,
        )
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    asyncio.run(_serve(uvicorn_server(server.app, guard), sock))

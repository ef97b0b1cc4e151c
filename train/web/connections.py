"""The connection limits of `tabletop serve`: a cap on open sockets and a deadline for each request's headers.

uvicorn (h11) has neither: a connection that never finishes its headers is held for ever, and once the
open-file limit is reached asyncio's accept loop logs a traceback for every connection in the queue, many
times a second, while a normal request waits in vain. Here:

- `Listener`, the listening socket, counts the sockets it hands out (each one uncounts itself on close).
  Once `max_connections` are open, a newcomer makes room by closing the connection that has waited
  longest for its request's headers (a slow or idle client); where every connection is busy (pages'
  websockets, requests being answered), or while closed ones are still being let go, the newcomer is
  answered 503 and closed at once. So the process never runs out of descriptors, and a normal request
  gets in while hundreds of partial ones are held.
- `guarded(protocol)` gives every connection `header_timeout` seconds, from its opening and again after
  each answer, to deliver a whole request head (after an early answer, such as a 413, that includes the
  rest of the body, which is read and dropped); a websocket leaves the clock once it is upgraded. Where
  uvicorn would close a connection whose client is still sending the body it was answered early about,
  the close lingers as nginx's does: the answer is sent and the writing side shut, and what still comes
  is dropped until the client stops or the clock runs out; a plain close would reset the connection and
  the client could lose the answer.

Python's own accept is what counts, so the server runs on the standard asyncio loop (not uvloop).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import socket
from dataclasses import dataclass, field
from typing import Any

import h11

LOG = logging.getLogger("uvicorn.error")
RESERVED_FILES = 64
"""Descriptors kept for the server itself: its listening socket, stdio, the event loop, policy files."""
FILES_PER_CONNECTION = 3
"""A connection's socket, a file it may be downloading (a static file, a model), and room for the sockets
being closed to make way for newcomers."""
DEFAULT_MAX_CONNECTIONS = 1000
REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
    b"Content-Length: 51\r\nRetry-After: 5\r\n\r\nthis server holds all the connections it can: retry"
)
OUT_OF_FILES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def open_file_limit() -> int:
    """How many descriptors this process may open, after raising its soft limit to the hard one (as Go
    programs do at start): a server's connections are its open files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def connection_budget(requested: int | None, files: int) -> int:
    """The connection cap for an open-file limit of `files`: `requested`, or by default 1000 or what the
    limit allows; a ValueError where a requested cap does not fit."""
    allowed = (files - RESERVED_FILES) // FILES_PER_CONNECTION
    if requested is None:
        if allowed < 1:
            raise ValueError(
                f"this process may open only {files} files (ulimit -n): the server needs more than "
                f"{RESERVED_FILES + FILES_PER_CONNECTION}"
            )
        return min(DEFAULT_MAX_CONNECTIONS, allowed)
    if requested > allowed:
        raise ValueError(
            f"--max-connections {requested} needs an open-file limit of at least "
            f"{RESERVED_FILES + FILES_PER_CONNECTION * requested} ({FILES_PER_CONNECTION} per connection, "
            f"{RESERVED_FILES} for the server); this process may open {files} (ulimit -n): "
            f"allow at most {max(allowed, 0)} or raise the limit"
        )
    return requested


@dataclass(eq=False)
class Guard:
    """What the listener and the connections share: how many sockets are open, and who waits for headers."""

    max_connections: int
    header_timeout: float
    open: int = 0
    waiting: dict[Any, asyncio.TimerHandle] = field(default_factory=dict)  # protocol -> its deadline, oldest first

    @property
    def per_turn(self) -> int:
        """Newcomers accepted in one turn of the event loop."""
        return max(1, self.max_connections // 4)

    @property
    def most_open(self) -> int:
        """Past this, newcomers are refused outright: the sockets closed to make room are not yet let go."""
        return self.max_connections + self.max_connections // 2

    def admit(self) -> bool:
        """Room for the socket just accepted (and counted): past the cap, the longest wait for headers ends
        to make it; refused where nobody waits, or while too many closed sockets are still being let go."""
        if self.open <= self.max_connections:
            return True
        if not self.waiting:
            return False
        oldest = next(iter(self.waiting))
        self.stop_waiting(oldest)
        oldest.transport.abort()  # its socket leaves the count once asyncio lets it go, a moment later
        return self.open <= self.most_open

    def wait(self, protocol) -> None:
        """`protocol` has `header_timeout` seconds from now to deliver a request head."""
        self.stop_waiting(protocol)
        self.waiting[protocol] = asyncio.get_running_loop().call_later(self.header_timeout, protocol.transport.abort)

    def stop_waiting(self, protocol) -> None:
        deadline = self.waiting.pop(protocol, None)
        if deadline is not None:
            deadline.cancel()


class _Accepted(socket.socket):
    """A socket the listener handed out; it leaves the count when asyncio closes it."""

    guard: Guard

    def close(self) -> None:
        if not self._closed:
            self.guard.open -= 1
        super().close()


class Listener(socket.socket):
    """The listening socket: counts what it accepts and refuses what does not fit (see the module's doc).

    asyncio accepts in bursts, up to its backlog in one turn of the loop, and the sockets closed to make
    room are let go only in a later turn; so one turn takes at most `guard.per_turn` newcomers, and the
    rest of the queue waits a turn, once the room made is free."""

    guard: Guard
    _turn = 0  # newcomers accepted in this turn of the event loop

    def accept(self) -> tuple[socket.socket, Any]:
        if self._turn >= self.guard.per_turn:
            raise BlockingIOError(errno.EAGAIN, "the rest of the queue waits a turn")  # ends asyncio's burst
        if self._turn == 0:
            asyncio.get_running_loop().call_soon(self._next_turn)
        while True:
            try:
                fd, address = self._accept()  # BlockingIOError once the queue is empty ends asyncio's burst
            except OSError as err:
                if err.errno in OUT_OF_FILES:  # asyncio logs it (see quiet_out_of_files), retries in a second
                    self._turn = self.guard.per_turn
                raise
            self._turn += 1
            conn = _Accepted(self.family, self.type, self.proto, fileno=fd)
            conn.guard = self.guard
            self.guard.open += 1
            if self.guard.admit():
                return conn, address
            _refuse(conn)
            if self._turn >= self.guard.per_turn:
                raise BlockingIOError(errno.EAGAIN, "the rest of the queue waits a turn")

    def _next_turn(self) -> None:
        self._turn = 0


def _refuse(conn: socket.socket) -> None:
    conn.setblocking(False)
    try:
        conn.send(REFUSAL)
    except OSError:
        pass
    conn.close()


def listener(host: str, port: int, guard: Guard) -> Listener:
    """A listening socket (port 0: any free port), bound before the server starts so its address is known."""
    sock = Listener(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.guard = guard
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)  # connections queue from now on, even before the server accepts them
    return sock


class _Lingering:
    """A connection's transport as uvicorn sees it, with a lingering `close` (see the module's doc)."""

    def __init__(self, transport: asyncio.Transport, protocol):
        self._transport = transport
        self._protocol = protocol

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def close(self) -> None:
        protocol = self._protocol
        if protocol.lingering:
            return
        if protocol.conn.their_state is not h11.SEND_BODY or not self._transport.can_write_eof():
            self._transport.close()
            return
        protocol.lingering = True
        self._transport.write_eof()  # after the answer: the client reads it once it has sent what it sends


def guarded(protocol: type, guard: Guard) -> type:
    """uvicorn's h11 protocol with `guard`'s deadline on every request head, and a lingering close."""

    class Guarded(protocol):
        lingering = False

        def connection_made(self, transport) -> None:
            super().connection_made(_Lingering(transport, self))
            guard.wait(self)

        def data_received(self, data: bytes) -> None:
            if self.lingering:
                return  # the rest of a body already answered
            before = self.cycle
            super().data_received(data)
            if self.cycle is not before or self.transport.get_protocol() is not self:
                guard.stop_waiting(self)  # a request head arrived, or a websocket took the connection over

        def on_response_complete(self) -> None:
            """The clock starts again: for the rest of a body answered early (read and dropped) and the next head."""
            before = self.cycle
            super().on_response_complete()
            if self.cycle is before and not self.transport.is_closing():
                guard.wait(self)

        def connection_lost(self, exc: Exception | None) -> None:
            guard.stop_waiting(self)
            super().connection_lost(exc)

    return Guarded


def quiet_out_of_files(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's error handler: running out of files is one warning line, not a traceback."""
    if context.get("message", "").startswith("socket.accept() out of system resource"):
        LOG.warning(
            "out of open files (%s): new connections wait a second; lower --max-connections or raise ulimit -n",
            context.get("exception"),
        )
        return
    loop.default_exception_handler(context)

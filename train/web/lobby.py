"""The tables a server holds, the links to their seats, and the checks on a request for a new table.

Every seat played from a page gets its own link, `/t/<token>`, with a token of 128 random bits: the
token is the seat's key, the only thing that says which seat a page is, so a page can never name another
seat, and a link cannot be guessed from another one. A table of agents only gets one more link, the
spectator's, which shows everything.

What one client may cost the server is bounded: at most `max_tables` tables in all and
`tables_per_client` from one address at once (finished tables make room), each built from arguments
within their web bounds (`bounds`); a table ends once nothing has happened at it (no move, no page
opened or closed) for `idle_seconds` while nobody has it open, or for `abandon_seconds` while someone does.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.agents import make_agent
from tabletop.agents.kings_cribbage_tiles import plays_at
from tabletop.agents.onnx_agent import METADATA_FILE, MODEL_FILE
from tabletop.agents.registry import (
    PRETRAINED,
    agent_names,
    game_of,
    pretrained_folder,
    pretrained_folders,
)
from tabletop.agents.search import PREFIX as SEARCH
from tabletop.agents.search import searchable
from tabletop.envs import ENV_IDS, EnvSpec, definition
from tabletop.envs.core import InvalidStateError, ParameterError
from tabletop.train.web.bounds import web_allowed, web_bound_problem
from tabletop.train.web.table import HUMAN, PAGE, Seat, Table

YOU = "you"
"""The seat of the person asking for the table (at most one; none: a table to watch)."""
PERSON = "person"
"""Another person's seat: the answer holds a link to pass on."""
REQUEST_KEYS = ("game", "args", "seats", "seed", "position", "pace_ms")
MAX_PACE_MS = 10_000
TOKEN_BYTES = 16
LOCAL = "local"
"""The client of a table made in this process (tests, tools) rather than over the web."""


class RequestError(ValueError):
    """A request for a table that cannot be met; the message names the field and what is allowed. `status`:
    the HTTP answer (400 a bad request, 429 the client's share of tables taken, 503 the server full)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class Entry:
    """A table and its links: token -> viewer (a seat, or None for the spectator)."""

    table: Table
    links: dict[str, int | None]
    host: str  # the token of whoever asked for the table
    client: str = LOCAL  # the address it was asked from (see server.client_of)
    invites: list[dict[str, Any]] = field(default_factory=list)
    pages: int = 0  # pages of the table open now
    seen: float = field(default_factory=time.monotonic)  # when a page last opened or closed

    def page_opened(self) -> None:
        self.pages += 1
        self.seen = time.monotonic()

    def page_closed(self) -> None:
        self.pages -= 1
        self.seen = time.monotonic()

    def quiet_for(self, now: float) -> float:
        """Seconds since the last move, or the last page opened or closed."""
        return now - max(self.table.last_active, self.seen)


class Lobby:
    """Makes tables from requests and finds them by link. `policies` are the agent specs the operator
    offers beyond random, the heuristics and `pretrained` (`tabletop serve --policy onnx:DIR`); nothing
    else on the server's disk can be named by a page."""

    def __init__(
        self,
        policies: tuple[str, ...] = (),
        runtime: bool = False,
        max_tables: int = 200,
        tables_per_client: int | None = None,
        idle_seconds: float = 600.0,
        abandon_seconds: float = 3600.0,
    ):
        self.policies = tuple(policies)
        self.runtime = runtime  # onnxruntime-web is installed: policies may run in pages
        self.max_tables = max_tables
        self.tables_per_client = tables_per_client  # None: no share per client (tests, tools); serve sets one
        self.idle_seconds = idle_seconds
        self.abandon_seconds = abandon_seconds
        self.entries: dict[str, Entry] = {}  # host token -> entry
        self.links: dict[str, tuple[Entry, int | None]] = {}
        self._building: Counter[str] = Counter()  # client -> tables being built for it now
        self._shared_agents: dict[tuple[str, str], Any] = {}
        self._agents_lock = threading.Lock()  # tables are built in worker threads

    # --- what a page may ask for -------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        """Every game, its parameters and the players a seat may hold: what the new-table form offers."""
        out = []
        for env_id in ENV_IDS:
            d = definition(env_id)
            params = [
                {
                    "name": p.name,
                    "default": plain_default(p.default),
                    "doc": p.doc,
                    "allowed": web_allowed(env_id, p.name) or p.describe_allowed(),
                    "choices": None if p.choices is None else [plain_default(c) for c in p.choices],
                }
                for p in d.game.parameters
            ]
            out.append({"id": env_id, "summary": d.summary, "parameters": params, "players": self.players(env_id)})
        return out

    def players(self, env_id: str) -> list[str]:
        """Seat choices for `env_id`: you, another person, agents on the server, policies in their page."""
        policies = [p for p in self.policies if _export_game(p) in (env_id, None)]
        # the search player at its default budget only: a request cannot ask the server for more rollouts
        search = [SEARCH] if searchable(game_of(env_id)) else []
        served = [*agent_names(env_id), *search, *policies]
        exported = [p for p in policies if p.startswith("onnx:")]
        if _ships_pretrained(env_id):
            served.insert(len(agent_names(env_id)) + len(search), PRETRAINED)
            exported.insert(0, PRETRAINED)
        in_page = [PAGE + p for p in exported] if self.runtime else []
        return [YOU, PERSON, *served, *in_page]

    # --- making tables ---------------------------------------------------------------------------
    def create(self, request: Any, client: str = LOCAL) -> Entry:
        """A new table from a request (the JSON the form posts), or a `RequestError` naming what is wrong.
        The server does the same in three steps, building off its event loop (see `Server.new_table`)."""
        with self.place(client):
            return self.register(*self.build(request), client)

    @contextmanager
    def place(self, client: str) -> Iterator[None]:
        """Room for one more table of `client` while it is built, or a `RequestError` (429, 503): checked before
        anything is built, and held, so requests being built at once cannot pass the limits together."""
        self.evict()
        share = self.tables_per_client
        if share is not None and self._held(client) >= share:
            self._drop_finished([h for h, e in self.entries.items() if e.client == client], 1)
            if self._held(client) >= share:
                raise RequestError(
                    f"you hold {share} tables in play on this server, as many as "
                    f"one player may: finish one, or leave it (a table nobody has open ends after "
                    f"{self.idle_seconds / 60:g} minutes)",
                    429,
                )
        if len(self.entries) + sum(self._building.values()) >= self.max_tables:
            raise RequestError(f"this server holds {self.max_tables} tables in play: try again once one has ended", 503)
        self._building[client] += 1
        try:
            yield
        finally:
            self._building[client] -= 1

    def _held(self, client: str) -> int:
        return sum(e.client == client for e in self.entries.values()) + self._building[client]

    def build(self, request: Any) -> tuple[Table, list[str]]:
        """The table a request asks for and its seats' choices; slow for a large game, so the server runs
        it in a worker thread (it touches nothing shared but the cache of exported policies)."""
        game, args, seats, seed, position, pace = _read_request(request)
        problem = web_bound_problem(game, args)
        if problem:
            raise RequestError(problem)
        try:
            spec = EnvSpec(game, args)
            rules = spec.new_game()
        except ParameterError as err:
            raise RequestError(str(err)) from None
        if len(seats) != rules.num_players:
            raise RequestError(f"seats: this game has {rules.num_players} seats, the request names {len(seats)}")
        allowed = self.players(game)
        for i, choice in enumerate(seats):
            if choice not in allowed:
                raise RequestError(f"seats[{i}]: {choice!r} is not offered for {game}; allowed: {', '.join(allowed)}")
        if seats.count(YOU) > 1:
            raise RequestError("seats: you can take one seat; give the others to a person, an agent or a policy")
        if PERSON in seats and YOU not in seats:
            raise RequestError(
                "seats: a table with other people needs your seat too (a table without you is "
                "watched, and the spectator sees every hand)"
            )
        rng = np.random.default_rng(seed)
        if position is None:
            state = rules.new_initial_state(rng)
        else:
            state = _load_position(rules, position, rng)
        players = [self._seat(spec, i, choice, seed) for i, choice in enumerate(seats)]
        return Table(spec, players, state, watch=YOU not in seats, pace_ms=pace), seats

    def _seat(self, spec: EnvSpec, index: int, choice: str, seed: int | None) -> Seat:
        if choice in (YOU, PERSON):
            return Seat(index, HUMAN)
        if choice.startswith(PAGE) and not _adapted_on_server(spec, choice[len(PAGE) :]):
            folder, options = _page_policy(spec, choice[len(PAGE) :])
            return Seat(index, choice, policy=folder, observation_options=options)
        choice = choice.removeprefix(PAGE)  # a policy that needs its game's adapter (Python) plays on the server
        try:
            agent = self._agent(spec, choice, None if seed is None else seed + 1 + index)
        except (ValueError, ImportError) as err:  # a policy for another game, a missing extra
            raise RequestError(f"seats[{index}]: {err}") from None
        return Seat(index, choice, agent=agent)

    def _agent(self, spec: EnvSpec, choice: str, seed: int | None):
        """Exported policies choose deterministically and keep no state: one copy serves every table."""
        if choice != PRETRAINED and not choice.startswith("onnx:"):
            return make_agent(spec, choice, seed=seed)
        key = (str(spec), choice)
        with self._agents_lock:
            if key not in self._shared_agents:
                self._shared_agents[key] = make_agent(spec, choice)
            return self._shared_agents[key]

    def register(self, table: Table, seats: list[str], client: str = LOCAL) -> Entry:
        """Give a built table its links (within a `place` held for `client`)."""
        links: dict[str, int | None] = {}
        for i, choice in enumerate(seats):
            if choice != YOU and table.seats[i].kind == "agent":
                continue
            links[new_token()] = i
        if table.watch:
            links[new_token()] = None
        host = next(t for t, v in links.items() if v == (seats.index(YOU) if YOU in seats else None))
        entry = Entry(table, links, host, client)
        entry.invites = [
            {"seat": v, "plays": table.seats[v].label(), "link": f"/t/{t}"}
            for t, v in links.items()
            if t != host and v is not None
        ]
        self.entries[host] = entry
        for token, viewer in links.items():
            self.links[token] = (entry, viewer)
        return entry

    # --- finding and dropping tables -------------------------------------------------------------------
    def find(self, token: str) -> tuple[Entry, int | None] | None:
        return self.links.get(token)

    def evict(self, now: float | None = None) -> None:
        """Drop tables quiet for `idle_seconds` with no page open, or `abandon_seconds` with one; at the limit,
        finished tables go first, oldest first."""
        now = time.monotonic() if now is None else now
        for host, entry in list(self.entries.items()):
            if entry.quiet_for(now) > (self.abandon_seconds if entry.pages else self.idle_seconds):
                self.drop(host)
        if len(self.entries) >= self.max_tables:
            self._drop_finished(list(self.entries), len(self.entries) - self.max_tables + 1)

    def _drop_finished(self, hosts: list[str], count: int) -> None:
        """Drop up to `count` of these tables whose game has ended, the longest finished first."""
        done = sorted(
            (self.entries[h].table.last_active, h)
            for h in hosts
            if self.entries[h].table.over or self.entries[h].table.failure
        )
        for _, host in done[:count]:
            self.drop(host)

    def drop(self, host: str) -> None:
        entry = self.entries.pop(host)
        for token in entry.links:
            self.links.pop(token, None)


def new_token() -> str:
    """128 random bits, URL-safe: a seat's key."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def plain_default(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _export_game(policy: str) -> str | None:
    """The game an `onnx:DIR` export was made for (its metadata says); None for a `ppo:` run or an unreadable one."""
    kind, _, path = policy.partition(":")
    if kind != "onnx":
        return None
    try:
        return json.loads((Path(path) / METADATA_FILE).read_text()).get("env_id")
    except (OSError, ValueError):
        return None


def _ships_pretrained(env_id: str) -> bool:
    wanted = EnvSpec(env_id).current_id
    for folder in pretrained_folders():
        try:
            if EnvSpec(json.loads((folder / METADATA_FILE).read_text()).get("env_id")).current_id == wanted:
                return True
        except (OSError, ValueError):
            continue
    return False


def _adapted_on_server(spec: EnvSpec, choice: str) -> bool:
    """Whether the export `choice` plays at `spec` only through its game's adapter (a moves-mode Kings Cribbage
    policy at a tiles-mode table), which runs in Python: then the seat is played on the server, not in the page."""
    try:
        folder = pretrained_folder(spec) if choice == PRETRAINED else Path(choice.partition(":")[2])
        meta = json.loads((folder / METADATA_FILE).read_text())
        trained = EnvSpec(meta.get("env_id"), meta.get("env_kwargs") or {})
    except (OSError, TypeError, ValueError):  # _page_policy names what is wrong
        return False
    return plays_at(trained, spec)


def _page_policy(spec: EnvSpec, choice: str) -> tuple[Path, dict[str, Any]]:
    """The export folder a page seat loads, checked to fit this game and to read only its seat's view, and the
    observer options it was trained with (its page is sent that encoding)."""
    try:
        folder = pretrained_folder(spec) if choice == PRETRAINED else Path(choice.partition(":")[2])
        meta = json.loads((folder / METADATA_FILE).read_text())
    except (OSError, ValueError) as err:
        raise RequestError(f"seats: the policy {choice!r} cannot be loaded: {err}") from None
    if not (folder / MODEL_FILE).is_file():
        raise RequestError(f"seats: {folder} holds no {MODEL_FILE}")
    try:
        trained = EnvSpec(meta.get("env_id"), meta.get("env_kwargs") or {})
    except (TypeError, ValueError) as err:  # ParameterError is both
        raise RequestError(f"seats: {choice} names a game this server does not know: {err}") from None
    if trained.current_id != spec.current_id:
        raise RequestError(f"seats: {choice} is a policy for {meta.get('env_id')}, not for {spec.env_id}")
    if trained.resolved()["observation_mode"] == "omniscient":
        raise RequestError(f"seats: {choice} reads omniscient observations; a page is sent only its own seat's view")
    options = trained.definition.observer_options(trained.kwargs)
    env = spec.make_raw()
    size = env.observer_for(options).layout.size
    sizes = (meta.get("observation", {}).get("size"), meta.get("actions", {}).get("count"))
    if sizes != (size, env.game.num_actions):
        raise RequestError(
            f"seats: {choice} takes {sizes[0]} observation numbers and {sizes[1]} actions; "
            f"this configuration has {size} and {env.game.num_actions}"
        )
    return folder, options


def _load_position(rules, position: Any, rng: np.random.Generator):
    """A saved position, validated by the game's own loader; an `InvalidStateError` becomes the answer."""
    if not isinstance(position, dict):
        raise RequestError(
            f"position: a saved position is a JSON object (what State.to_json writes), got {type(position).__name__}"
        )
    try:
        state = rules.state_from_json(position, rng)
    except InvalidStateError as err:
        raise RequestError(f"position: {err}") from None
    except (KeyError, IndexError, TypeError, AttributeError, OverflowError, ValueError) as err:
        raise RequestError(f"position: not a saved position of this game ({type(err).__name__}: {err})") from None
    if state.is_terminal():
        raise RequestError("position: the game in this position is over: no one is to move")
    return state


def _read_request(request: Any) -> tuple[str, dict, list[str], int | None, Any, int]:
    if not isinstance(request, dict):
        raise RequestError("a table request is a JSON object with " + ", ".join(REQUEST_KEYS))
    unknown = sorted(set(request) - set(REQUEST_KEYS))
    if unknown:
        raise RequestError(f"unknown key {unknown[0][:60]!r}; allowed keys: {', '.join(REQUEST_KEYS)}")
    game = request.get("game")
    if game not in ENV_IDS:
        raise RequestError(f"game: {str(game)[:60]!r} is not a game here; allowed: {', '.join(ENV_IDS)}")
    args = request.get("args", {})
    if not isinstance(args, dict):
        raise RequestError('args: the game\'s arguments are a JSON object, e.g. {"num_players": 3}')
    rules_only = definition(game).game.parameters
    outside = [k for k in args if k not in rules_only]
    if outside:
        raise RequestError(
            f"args: {outside[0][:60]!r} is not an argument of {game}'s rules; allowed: {', '.join(rules_only.names)}"
        )
    seats = request.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise RequestError('seats: a list with one player per seat, e.g. ["you", "greedy"]')
    seed = request.get("seed")
    if seed is not None and not (type(seed) is int and 0 <= seed < 2**63):
        raise RequestError(f"seed: a whole number from 0 to {2**63 - 1:,}, or no seed for a fresh deal")
    pace = request.get("pace_ms", 600)
    if not (type(pace) is int and 0 <= pace <= MAX_PACE_MS):
        raise RequestError(
            f"pace_ms: the pause before each agent move, a whole number of milliseconds from 0 to {MAX_PACE_MS}"
        )
    return game, args, seats, seed, request.get("position"), pace

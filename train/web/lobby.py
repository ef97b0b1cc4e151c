"""The tables a server holds, the links to their seats, and the checks on a request for a new table.

Every seat played from a page gets its own link, `/t/<token>`, with a token of 128 random bits: the
token is the seat's key, the only thing that says which seat a page is, so a page can never name another
seat, and a link cannot be guessed from another one. A table of agents only gets one more link, the
spectator's, which shows everything. The server holds at most `max_tables` tables; the oldest idle ones
make room for new ones.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.agents import make_agent
from tabletop.agents.onnx_agent import METADATA_FILE, MODEL_FILE
from tabletop.agents.registry import (
    PRETRAINED,
    agent_names,
    pretrained_folder,
    pretrained_folders,
)
from tabletop.envs import ENV_IDS, EnvSpec, definition
from tabletop.envs.core import InvalidStateError, ParameterError
from tabletop.train.web.table import HUMAN, PAGE, Seat, Table

YOU = "you"
"""The seat of the person asking for the table (at most one; none: a table to watch)."""
PERSON = "person"
"""Another person's seat: the answer holds a link to pass on."""
REQUEST_KEYS = ("game", "args", "seats", "seed", "position", "pace_ms")
MAX_PACE_MS = 10_000
TOKEN_BYTES = 16


class RequestError(ValueError):
    """A request for a table that cannot be met; the message names the field and what is allowed."""


@dataclass
class Entry:
    """A table and its links: token -> viewer (a seat, or None for the spectator)."""

    table: Table
    links: dict[str, int | None]
    host: str  # the token of whoever asked for the table
    invites: list[dict[str, Any]] = field(default_factory=list)


class Lobby:
    """Makes tables from requests and finds them by link. `policies` are the agent specs the operator
    offers beyond random, the heuristics and `pretrained` (`tabletop serve --policy onnx:DIR`); nothing
    else on the server's disk can be named by a page."""

    def __init__(self, policies: tuple[str, ...] = (), runtime: bool = False, max_tables: int = 200,
                 idle_seconds: float = 3600.0):
        self.policies = tuple(policies)
        self.runtime = runtime  # onnxruntime-web is installed: policies may run in pages
        self.max_tables = max_tables
        self.idle_seconds = idle_seconds
        self.entries: dict[str, Entry] = {}  # host token -> entry
        self.links: dict[str, tuple[Entry, int | None]] = {}
        self._shared_agents: dict[tuple[str, str], Any] = {}

    # --- what a page may ask for -------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        """Every game, its parameters and the players a seat may hold: what the new-table form offers."""
        out = []
        for env_id in ENV_IDS:
            d = definition(env_id)
            params = [
                {"name": p.name, "default": plain_default(p.default), "allowed": p.describe_allowed(), "doc": p.doc,
                 "choices": None if p.choices is None else [plain_default(c) for c in p.choices]}
                for p in d.game.parameters
            ]
            out.append({"id": env_id, "summary": d.summary, "parameters": params, "players": self.players(env_id)})
        return out

    def players(self, env_id: str) -> list[str]:
        """Seat choices for `env_id`: you, another person, agents on the server, policies in their page."""
        policies = [p for p in self.policies if _export_game(p) in (env_id, None)]
        served = [*agent_names(env_id), *policies]
        exported = [p for p in policies if p.startswith("onnx:")]
        if _ships_pretrained(env_id):
            served.insert(len(agent_names(env_id)), PRETRAINED)
            exported.insert(0, PRETRAINED)
        in_page = [PAGE + p for p in exported] if self.runtime else []
        return [YOU, PERSON, *served, *in_page]

    # --- making tables ---------------------------------------------------------------------------
    def create(self, request: Any) -> Entry:
        """A new table from a request (the JSON the form posts), or a `RequestError` naming what is wrong."""
        game, args, seats, seed, position, pace = _read_request(request)
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
            raise RequestError("seats: a table with other people needs your seat too (a table without you is "
                               "watched, and the spectator sees every hand)")
        rng = np.random.default_rng(seed)
        if position is None:
            state = rules.new_initial_state(rng)
        else:
            state = _load_position(rules, position, rng)
        players = [self._seat(spec, i, choice, seed) for i, choice in enumerate(seats)]
        table = Table(spec, players, state, watch=YOU not in seats, pace_ms=pace)
        return self._register(table, seats)

    def _seat(self, spec: EnvSpec, index: int, choice: str, seed: int | None) -> Seat:
        if choice in (YOU, PERSON):
            return Seat(index, HUMAN)
        if choice.startswith(PAGE):
            return Seat(index, choice, policy=_page_policy(spec, choice[len(PAGE):]))
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
        if key not in self._shared_agents:
            self._shared_agents[key] = make_agent(spec, choice)
        return self._shared_agents[key]

    def _register(self, table: Table, seats: list[str]) -> Entry:
        self.evict()
        if len(self.entries) >= self.max_tables:
            raise RequestError(f"this server holds {self.max_tables} tables in play: try again once one has ended")
        links: dict[str, int | None] = {}
        for i, choice in enumerate(seats):
            if choice != YOU and table.seats[i].kind == "agent":
                continue
            links[new_token()] = i
        if table.watch:
            links[new_token()] = None
        host = next(t for t, v in links.items() if v == (seats.index(YOU) if YOU in seats else None))
        entry = Entry(table, links, host)
        entry.invites = [{"seat": v, "plays": table.seats[v].label(), "link": f"/t/{t}"}
                         for t, v in links.items() if t != host and v is not None]
        self.entries[host] = entry
        for token, viewer in links.items():
            self.links[token] = (entry, viewer)
        return entry

    # --- finding and dropping tables -------------------------------------------------------------------
    def find(self, token: str) -> tuple[Entry, int | None] | None:
        return self.links.get(token)

    def evict(self, now: float | None = None) -> None:
        """Drop tables idle longer than `idle_seconds`; at the limit, finished tables go first, oldest first."""
        now = time.monotonic() if now is None else now
        for host, entry in list(self.entries.items()):
            if now - entry.table.last_active > self.idle_seconds:
                self.drop(host)
        if len(self.entries) >= self.max_tables:
            done = sorted((e.table.last_active, h) for h, e in self.entries.items() if e.table.over or e.table.failure)
            for _, host in done[: len(self.entries) - self.max_tables + 1]:
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
    for folder in pretrained_folders():
        try:
            if json.loads((folder / METADATA_FILE).read_text()).get("env_id") == env_id:
                return True
        except (OSError, ValueError):
            continue
    return False


def _page_policy(spec: EnvSpec, choice: str) -> Path:
    """The export folder a page seat loads, checked to fit this game and to read only its seat's view."""
    try:
        folder = pretrained_folder(spec) if choice == PRETRAINED else Path(choice.partition(":")[2])
        meta = json.loads((folder / METADATA_FILE).read_text())
    except (OSError, ValueError) as err:
        raise RequestError(f"seats: the policy {choice!r} cannot be loaded: {err}") from None
    if not (folder / MODEL_FILE).is_file():
        raise RequestError(f"seats: {folder} holds no {MODEL_FILE}")
    if meta.get("env_id") != spec.env_id:
        raise RequestError(f"seats: {choice} is a policy for {meta.get('env_id')}, not for {spec.env_id}")
    if (meta.get("env_kwargs") or {}).get("observation_mode") == "omniscient":
        raise RequestError(f"seats: {choice} reads omniscient observations; a page is sent only its own seat's view")
    env = spec.make_raw()
    sizes = (meta.get("observation", {}).get("size"), meta.get("actions", {}).get("count"))
    if sizes != (env.observer.layout.size, env.game.num_actions):
        raise RequestError(f"seats: {choice} takes {sizes[0]} observation numbers and {sizes[1]} actions; "
                           f"this configuration has {env.observer.layout.size} and {env.game.num_actions}")
    return folder


def _load_position(rules, position: Any, rng: np.random.Generator):
    """A saved position, validated by the game's own loader; an `InvalidStateError` becomes the answer."""
    if not isinstance(position, dict):
        raise RequestError(f"position: a saved position is a JSON object (what State.to_json writes), got {type(position).__name__}")
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
        raise RequestError("args: the game's arguments are a JSON object, e.g. {\"num_players\": 3}")
    rules_only = definition(game).game.parameters
    outside = [k for k in args if k not in rules_only]
    if outside:
        raise RequestError(f"args: {outside[0][:60]!r} is not an argument of {game}'s rules; allowed: "
                           f"{', '.join(rules_only.names)}")
    seats = request.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise RequestError("seats: a list with one player per seat, e.g. [\"you\", \"greedy\"]")
    seed = request.get("seed")
    if seed is not None and not (type(seed) is int and 0 <= seed < 2**63):
        raise RequestError("seed: a whole number from 0 to 2**63 - 1, or null for a fresh deal")
    pace = request.get("pace_ms", 600)
    if not (type(pace) is int and 0 <= pace <= MAX_PACE_MS):
        raise RequestError(f"pace_ms: the pause before each agent move, a whole number of milliseconds from 0 to {MAX_PACE_MS}")
    return game, args, seats, seed, request.get("position"), pace

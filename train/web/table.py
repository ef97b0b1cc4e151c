"""One game at one table: its seats, the position, the history, and what each viewer is shown.

A viewer is a seat, or None: the spectator of a table where only agents play. A viewer's frame is built
from what that viewer may know and nothing else: `State.view(viewer)`, the transcript lines
`Renderer.describe(state, action, viewer)` gave it, the public scores, and, on its own turn only, its
legal moves with their names (and, for a seat whose policy runs in its page, its private observation
and mask). No other path reads the state for a page, so a frame cannot carry another seat's secrets.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.agents import Agent
from tabletop.agents.base import observation_for, sample_for
from tabletop.envs import EnvSpec
from tabletop.envs.core import State
from tabletop.train.web.games import drawing, plain

HUMAN = "human"
"""A person, clicking in the page that holds the seat's link."""
PAGE = "page:"
"""Prefix of a policy that runs in the seat's own page (`page:pretrained`, `page:onnx:DIR`)."""
MAX_CHAIN = 4
"""Most actions one move message may chain: a turn's sub-steps (Chromino: take a tile, then lay it)."""
ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
"""A colour code in a renderer's text: a text drawing shows the words without them."""


class MoveRefused(ValueError):
    """A move a page sent that cannot be played now; the message says why and what is possible."""


@dataclass
class Seat:
    """Who plays one seat: a person, a policy in the seat's page, or an agent on the server."""

    index: int
    spec: str
    agent: Agent | None = None
    policy: Path | None = None  # the export folder a page seat's page loads
    observation_options: dict[str, Any] | None = None  # the observer options that policy was trained with

    @property
    def kind(self) -> str:
        if self.spec == HUMAN:
            return "human"
        return "page" if self.spec.startswith(PAGE) else "agent"

    def label(self) -> str:
        """How the other seats see this player named: its kind, never anything private."""
        if self.kind == "human":
            return "a person"
        if self.kind == "page":
            return f"{self.spec[len(PAGE) :]} (in its page)"
        return self.spec


@dataclass
class Line:
    """One transcript line as a viewer reads it: the move's number, the mover and the words."""

    step: int
    seat: int
    text: str


@dataclass
class Table:
    """A game in progress (or over) and its history; nothing here knows about the web."""

    spec: EnvSpec
    seats: list[Seat]
    state: State
    watch: bool
    pace_ms: int = 600
    paused: bool = False
    moves: list[tuple[int, int]] = field(default_factory=list)
    failure: str | None = None
    last_active: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.env = self.spec.make_raw()  # the observer (private) and the renderer of this configuration
        self.initial = self.state.clone()
        self.static = plain(self.spec.definition.frontend_constants(self.env.game))
        self.drawing = drawing(self.spec.env_id)
        self.lines: dict[int | None, list[Line]] = {v: [] for v in self.viewers()}
        self._replay: tuple[int, State] | None = None

    # --- who sees what ---------------------------------------------------------------------------
    def viewers(self) -> list[int | None]:
        """Seats played from a page, and the spectator (None) of a table where only agents play."""
        seated = [s.index for s in self.seats if s.kind != "agent"]
        return seated + [None] if self.watch else seated

    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    def frame(self, viewer: int | None, since: int = 0) -> dict[str, Any]:
        """What `viewer`'s page shows now: its view, its transcript from line `since` on, its moves if it is to move."""
        return self._frame(self.state, viewer, len(self.moves), self.lines[viewer][since:])

    def review(self, viewer: int | None, step: int) -> dict[str, Any]:
        """The position after `step` moves of a finished game, as `viewer` saw it then."""
        if not self.over:
            raise MoveRefused("the game is still on: step back and forth once it is over")
        if not 0 <= step <= len(self.moves):
            raise MoveRefused(f"step {step} is not in this game: steps run from 0 to {len(self.moves)}")
        lines = [line for line in self.lines[viewer] if line.step < step]
        return self._frame(self.position_at(step), viewer, step, lines) | {"type": "review"}

    def _frame(self, state: State, viewer: int | None, step: int, lines: list[Line]) -> dict[str, Any]:
        view = plain(state.view(viewer))
        mover = state.current_player
        frame = {
            "type": "frame",
            "step": step,
            "moves": len(self.moves),
            "to_move": mover,
            "over": state.is_terminal(),
            "scores": plain(state.scores()),
            "returns": plain(state.returns()) if state.is_terminal() else None,
            "view": view,
            "names": plain(self.spec.definition.names_in_view(view)),
            "log": [vars(line) for line in lines],
            "legal": None,
            "policy": None,
            "pace_ms": self.pace_ms,
            "paused": self.paused,
            "failure": self.failure,
        }
        if self.drawing == "text":  # no drawing of its own: the renderer's text, as this viewer may read it
            frame["text"] = ANSI_CODE.sub("", self.env.renderer.ansi(state, viewer))
        live = step == len(self.moves) and not state.is_terminal()
        if live and viewer is not None and viewer == mover:
            legal = np.flatnonzero(state.legal_action_mask())
            frame["legal"] = [[int(a), state.action_to_string(int(a))] for a in legal]
            if self.seats[viewer].kind == "page":
                frame["policy"] = {
                    "observation": self.env.observer_for(self.seats[viewer].observation_options)
                    .encode(state, viewer)
                    .tolist(),
                    "mask": state.legal_action_mask().astype(int).tolist(),
                }
        return frame

    def describe_seats(self) -> list[dict[str, Any]]:
        """The players as everyone may see them (kinds of player, no links)."""
        return [{"seat": s.index, "plays": s.label(), "kind": s.kind} for s in self.seats]

    # --- moves -----------------------------------------------------------------------------------
    def play(self, seat: int, actions: list[int], step: int) -> None:
        """Apply a move sent from `seat`'s page: one action, or the sub-steps of one turn in order.

        Checked whole on a copy first, so a refused move changes nothing."""
        if self.failure:
            raise MoveRefused(f"this table has stopped: {self.failure}")
        if self.over:
            raise MoveRefused("the game is over")
        if step != len(self.moves):
            raise MoveRefused(
                f"this move was made for step {step}, but the table is at step {len(self.moves)}: look again"
            )
        if self.state.current_player != seat:
            raise MoveRefused(f"it is not your turn: player_{self.state.current_player} is to move")
        trial = self.state.clone()
        for i, action in enumerate(actions):
            if trial.current_player != seat:
                raise MoveRefused(
                    f"action {i + 1} of {len(actions)} comes after your turn ended: send one turn at a time"
                )
            if not 0 <= action < self.env.game.num_actions or not trial.legal_action_mask()[action]:
                raise MoveRefused(f"action {action} is not legal here; your page lists the legal moves")
            trial.apply(action)
        for action in actions:
            self.apply(action)

    def agent_to_move(self) -> Seat | None:
        """The seat to move if an agent on the server plays it (and the game goes on)."""
        if self.over or self.failure:
            return None
        seat = self.seats[self.state.current_player]
        return seat if seat.kind == "agent" else None

    def agent_inputs(self) -> tuple[Agent, tuple, dict[str, Any]]:
        """The agent to move and what it reads, as `act`'s arguments: its observation (if it reads one), its mask
        and its seat's view, and for a search player one resample of what the seat knows (never the state)."""
        seat = self.agent_to_move()
        assert seat is not None and seat.agent is not None
        state = self.state
        observation = observation_for(seat.agent, self.env, state, seat.index)
        arguments = (observation, state.legal_action_mask().copy(), state.view(seat.index))
        return seat.agent, arguments, sample_for(seat.agent, state, seat.index)

    def apply(self, action: int) -> None:
        """Play `action` for the seat to move, writing each viewer's transcript line first (the state before)."""
        state, step = self.state, len(self.moves)
        mover = state.current_player
        for viewer, lines in self.lines.items():
            text = self.env.renderer.describe(state, action, viewer)
            if text is not None:
                lines.append(Line(step, mover, text))
        state.apply(int(action))
        self.moves.append((mover, int(action)))
        self.last_active = time.monotonic()

    # --- history ---------------------------------------------------------------------------------
    def position_at(self, step: int) -> State:
        """The state after the first `step` moves, replayed from the start (the latest replay is kept, so
        stepping forward costs one move)."""
        if step == len(self.moves):
            return self.state
        if self._replay is None or self._replay[0] > step:
            self._replay = (0, self.initial.clone())
        done, state = self._replay
        for _, action in self.moves[done:step]:
            state.apply(action)
        self._replay = (step, state)
        return state.clone()

    def saved_position(self, viewer: int | None, step: int | None = None) -> dict[str, Any]:
        """The whole position (every hidden part) as `State.to_json` writes it: for the spectator of a table
        of agents at any time, for a seat only once the game is over."""
        if viewer is not None and not self.over:
            raise MoveRefused("a saved position holds every hand: it can be saved once the game is over")
        step = len(self.moves) if step is None else step
        if not 0 <= step <= len(self.moves):
            raise MoveRefused(f"step {step} is not in this game: steps run from 0 to {len(self.moves)}")
        return self.position_at(step).to_json()

"""`tabletop play GAME --opponent AGENT`: a human at the terminal against any agent.

The table is drawn with the game's ansi renderer for the human's seat, so it shows only what that seat
may know (the whole table once the game is over); every other seat's move is printed as the human's
seat may learn of it (`Renderer.describe`: the rulebook's words for a public move, what an onlooker
sees for a private one, nothing for a move nobody else sees). On the human's turn the legal actions are
listed, numbered from 1, and the human answers with a number or an action's exact name; anything else
(letters, other digits, huge numbers, control characters, an overlong line) asks again. Input is read
line by line from a stream, so a session can be scripted.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

import numpy as np

from tabletop.agents import make_agent
from tabletop.agents.base import observation_for
from tabletop.envs import EnvSpec

MAX_ANSWER_CHARS = 500
"""Longer answers are read to their end and refused (no action name comes close)."""
_NUMBER = re.compile(r"[0-9]{1,9}")  # ASCII digits only: "²" and "٣" are not choices


class InputEnded(Exception):
    """The input stream ended before the game did."""


def choose(names: list[str], lines: TextIO, out: TextIO) -> int:
    """Index into `names` of the human's answer; asks until the answer is a listed number or a unique name."""
    while True:
        out.write("your move (number or name): ")
        out.flush()
        answer = _read_answer(lines)
        if answer is None:
            raise InputEnded("input ended before the game did")
        text, overlong = answer
        if not lines.isatty():  # echo scripted answers, so a transcript reads like a terminal session
            out.write((f"({MAX_ANSWER_CHARS}+ characters)" if overlong else printable(text)) + "\n")
        if overlong:
            out.write(f"answers are at most {MAX_ANSWER_CHARS} characters: enter a number from 1 to {len(names)} or an action's exact name\n")
            continue
        if _NUMBER.fullmatch(text) and 1 <= int(text) <= len(names):
            return int(text) - 1
        matches = [i for i, name in enumerate(names) if name == text]
        if len(matches) == 1:
            return matches[0]
        if matches:
            out.write(f"{len(matches)} actions are named {text!r}: choose one by its number\n")
        else:
            out.write(f"{text!r} is not a choice: enter a number from 1 to {len(names)} or an action's exact name\n")


def _read_answer(lines: TextIO) -> tuple[str, bool] | None:
    """(the answer, stripped; whether it was too long, its rest read and dropped), or None at the end of input."""
    line = lines.readline(MAX_ANSWER_CHARS + 1)
    if not line:
        return None
    if len(line) <= MAX_ANSWER_CHARS or line.endswith("\n"):
        return line.strip(), False
    while line and not line.endswith("\n"):
        line = lines.readline(MAX_ANSWER_CHARS + 1)
    return "", True


def printable(text: str) -> str:
    """`text` with control characters escaped, so echoing an answer cannot drive the terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def play(
    spec: EnvSpec,
    opponent: str,
    seat: int = 0,
    seed: int | None = None,
    lines: TextIO | None = None,
    out: TextIO | None = None,
) -> np.ndarray:
    """Play one game with the human at `seat` (input from `lines`, default stdin); returns the final returns per seat."""
    lines, out = lines or sys.stdin, out or sys.stdout
    env = spec.make_raw(render_mode="ansi")
    if not 0 <= seat < env.game.num_players:
        raise ValueError(f"seat {seat} is not at this table; allowed: 0 to {env.game.num_players - 1}")
    agent = make_agent(spec, opponent, seed=seed)
    human = env.possible_agents[seat]
    env.reset(seed=seed)
    out.write(f"{spec.env_id}: you are {human}; every other seat is {opponent}\n")
    while not env.game_state.is_terminal():
        mover = env.agent_selection
        seen = env.observe(mover)
        legal = np.flatnonzero(seen["action_mask"])
        if mover == human:
            out.write("\n" + env.renderer.ansi(env.game_state, seat) + "\n")
            names = [env.action_to_string(a) for a in legal]
            out.writelines(f"{i:>4}. {name}\n" for i, name in enumerate(names, 1))
            action = int(legal[choose(names, lines, out)])
            out.write(f"you: {env.action_to_string(action)}\n")
        else:
            obs = observation_for(agent, env, env.game_state, env.game_state.current_player)
            action = agent.act(obs, seen["action_mask"], env.view(mover))
            seen_by_human = env.renderer.describe(env.game_state, action, seat)
            if seen_by_human is not None:
                out.write(f"{mover} ({opponent}): {seen_by_human}\n")
        env.step(action)
    state = env.game_state
    returns = state.returns()
    scores = ", ".join(f"{a} {s:g}" for a, s in zip(env.possible_agents, state.scores()))
    out.write(f"\n{env.render()}\ngame over: {verdict(returns, seat)} (scores: {scores})\n")
    return returns


def verdict(returns: np.ndarray, seat: int) -> str:
    """The result in words: win, loss or draw at a table of several; the return itself when playing alone."""
    if len(returns) == 1:
        return f"your return is {returns[0]:g}"
    return "you win" if returns[seat] > 0 else "you lose" if returns[seat] < 0 else "a draw"

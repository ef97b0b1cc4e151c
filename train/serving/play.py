"""`tabletop play GAME --opponent AGENT`: a human at the terminal against any agent.

The table is drawn with the game's ansi renderer for the human's seat, so it shows only what that seat
may know (the whole table once the game is over); every other seat's move is printed as the human's
seat may learn of it (`Renderer.describe`: the rulebook's words for a public move, what an onlooker
sees for a private one, nothing for a move nobody else sees). On the human's turn the legal actions are
listed under the table, numbered from 1, in columns; a long list comes as short menus, the actions
grouped by the words they share (a Cromlet wild: "play wild …", then which circle), each under a fresh
copy of the table so the board stays on screen. The human answers with a number, `back`, or an
action's exact name; anything else (letters, other digits, huge numbers, control characters, an
overlong line) asks again. Input is read line by line from a stream, so a game can be scripted.
"""

from __future__ import annotations

import math
import re
import shutil
import sys
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from tabletop.agents import make_agent
from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec

MAX_ANSWER_CHARS = 500
"""Longer answers are read to their end and refused (no action name comes close)."""
_NUMBER = re.compile(r"[0-9]{1,9}")  # ASCII digits only: "²" and "٣" are not choices
MENU_LIMIT = 24
"""A menu lists at most this many actions by name; more are grouped by the words they share (`menu`)."""
COLUMNS_FROM = 8  # a menu longer than this is laid out in columns, as many as the terminal is wide
BACK = "back"


class InputEnded(Exception):
    """The input stream ended before the game did."""


@dataclass
class Option:
    """One line of a menu: a single action, or a group of actions that share their first words."""

    label: str
    members: list[int]  # indices into the names being chosen from


def menu(names: list[str], members: list[int]) -> tuple[str, list[Option]]:
    """(a heading, the options) for choosing among `members`: at most MENU_LIMIT options, so a menu is a
    few lines beside the board. Up to MENU_LIMIT actions are listed by name. A longer list is grouped by
    the word after the words all its actions share ("play wild …" beside "play I6"), or, when that makes
    too many groups, by that word's first letter under a heading of the shared words ("play wild on …":
    "Q… (8 choices)"); only a list that neither shortens comes whole."""
    whole = "", [Option(names[m], [m]) for m in members]
    if len(members) <= MENU_LIMIT:
        return whole
    words = {m: names[m].split(" ") for m in members}
    first = words[members[0]]
    shared = 0
    while shared < len(first) and all(len(w) > shared and w[shared] == first[shared] for w in words.values()):
        shared += 1
    by_word = _grouped(members, lambda m: " ".join(words[m][: shared + 1]))
    if len(by_word) <= MENU_LIMIT:
        return "", [
            Option(names[ms[0]] if len(ms) == 1 else f"{key} … ({len(ms)} choices)", ms) for key, ms in by_word.items()
        ]
    rest = {m: " ".join(words[m][shared:]) for m in members}
    by_letter = _grouped(members, lambda m: rest[m][:1])
    if len(by_letter) <= MENU_LIMIT:
        heading = f"{' '.join(first[:shared])} …"
        return heading, [
            Option(rest[ms[0]] if len(ms) == 1 else f"{key}… ({len(ms)} choices)", ms) for key, ms in by_letter.items()
        ]
    return whole


def _grouped(members: list[int], key) -> dict[str, list[int]]:
    """`members` by `key`, in the order each key first appears."""
    groups: dict[str, list[int]] = {}
    for m in members:
        groups.setdefault(key(m), []).append(m)
    return groups


def columns(cells: list[str], width: int) -> list[str]:
    """`cells` in as many columns as fit in `width`, read down each column (as `ls` lists files)."""
    for count in range(min(len(cells), width // 4), 1, -1):
        rows = math.ceil(len(cells) / count)
        cols = [cells[i : i + rows] for i in range(0, len(cells), rows)]
        widths = [max(map(len, col)) for col in cols]
        if sum(widths) + 3 * (len(cols) - 1) <= width:
            return [
                "   ".join(col[r].ljust(w) for col, w in zip(cols, widths) if r < len(col)).rstrip()
                for r in range(rows)
            ]
    return cells


def choose(names: list[str], lines: TextIO, out: TextIO, board: str = "") -> int:
    """Index into `names` of the human's choice, made in menus short enough to read beside the board
    (`menu`), each shown under a fresh copy of `board`. An answer is an option's number, `back` (to the
    menu before) or any action's exact name; anything else asks again."""
    path = [list(range(len(names)))]  # the menus entered, the last one on screen
    while True:
        heading, options = menu(names, path[-1])
        cells = [f"{i:>4}. {option.label}" for i, option in enumerate(options, 1)]
        listed = columns(cells, shutil.get_terminal_size().columns - 1) if len(cells) > COLUMNS_FROM else cells
        out.write("\n" + board + "\n" + (heading + "\n" if heading else "") + "".join(f"{line}\n" for line in listed))
        choice = _answer(names, options, len(path) > 1, lines, out)
        if choice == BACK:
            path.pop()
        elif isinstance(choice, Option) and len(choice.members) > 1:
            path.append(choice.members)
        else:
            return choice.members[0] if isinstance(choice, Option) else choice


def _answer(names: list[str], options: list[Option], nested: bool, lines: TextIO, out: TextIO) -> Option | int | str:
    """The human's answer to one menu: an `Option`, the index of an action named in full, or BACK."""
    more = ", back for the menu before," if nested else ""
    allowed = f"enter a number from 1 to {len(options)}{more} or an action's exact name"
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
            out.write(f"answers are at most {MAX_ANSWER_CHARS} characters: {allowed}\n")
            continue
        if _NUMBER.fullmatch(text) and 1 <= int(text) <= len(options):
            return options[int(text) - 1]
        matches = [i for i, name in enumerate(names) if name == text]
        if len(matches) == 1:
            return matches[0]
        if nested and text == BACK:
            return BACK
        if matches:
            out.write(f"{len(matches)} actions are named {text!r}: choose one by its number\n")
        else:
            out.write(f"{text!r} is not a choice: {allowed}\n")


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
    env = spec.make_raw(render_mode="ansi", illegal_action="raise")  # an agent's illegal move is a bug to show
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
            names = [env.action_to_string(a) for a in legal]
            action = int(legal[choose(names, lines, out, env.renderer.ansi(env.game_state, seat))])
            out.write(f"you: {env.action_to_string(action)}\n")
        else:
            action = act_for(agent, env, env.game_state, env.game_state.current_player)
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

"""The JSON form of a KRZ GRTN position: `write` puts a state down, `read` takes it back and checks it.

`read(game, data)` returns the `Position` a saved state describes if the rules can reach it in `game`'s
configuration, and raises `InvalidStateError(field, problem)` otherwise. Every check is an invariant of play:

* keys: exactly the keys `write` puts down, each of its JSON type (a bool is not an int); `game` and
  `config` name this game and this env's configuration; `rng` is numpy's PCG64 (or PCG64DXSM) state, or
  null for "the generator the loader is given".
* ranges: seats, level index, lives, picture cards, concept names of the deck, capital consonants (and `_` in
  clues), blanks, counters and the drawing round's amount.
* conservation: the 56 letter tiles (bag + screens + clues), each seat's blanks (screen + clue) and the 167
  picture cards (deck + discard + table) are each there exactly once.
* the tile limit: nobody owns more than `tile_limit` letters (screen + clue), except the giver returning
  tiles, who owns more, by at most the draw just made.
* the phase: who acts (the voter `votes` places after X, the giver `clues_done` places after X, X guessing,
  a drawer returning); the table (the target alone face up while voting and making clues, A pictures with the
  target at `target_position` while X guesses, nothing between attempts); the clues (none for X, 2+ letters
  once finished, none before a giver's turn); clues are made only when every giver owns 2+ letters; a vote
  only while a life card is left; a drawing round only while a giver returns tiles; `outcome` and
  `end_reason` only at the end, and as that ending leaves the table.
* history: a passed level or a guess that ended the game leaves `last_attempt`; its X sits right of today's
  X, its level, result and clues fit the present and its two pictures lie in the discard. The deck holds
  enough pictures for every attempt the game can still need.

Left free, because a table may differ there without changing any rule: which seat was the first X and how
many pictures are in the discard (the box).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop.envs.core import InvalidStateError
from tabletop.envs.core.validate import check_header, generator_state, get, integer, require, seat
from tabletop.envs.krz_grtn.phases import (
    CLUE,
    END_FAILED,
    END_REASONS,
    END_SHORT,
    END_WON,
    GUESS,
    MIN_CLUE_LETTERS,
    NUM_LEVELS,
    OVER,
    PHASES,
    RETURN,
    VOTE,
)
from tabletop.envs.krz_grtn.pictures import CONCEPT_ID, CONCEPTS, NUM_CARDS
from tabletop.envs.krz_grtn.tiles import (
    BLANK,
    LETTER_COUNTS,
    LETTERS,
    NUM_LETTERS,
    TOTAL_LETTERS,
    counts_string,
    parse_counts,
    parse_tiles,
    tiles_string,
)

NAME = "krz_grtn"
KEYS = (
    "game",
    "config",
    "num_players",
    "phase",
    "current_player",
    "x",
    "level_index",
    "lives",
    "deck",
    "discard",
    "bag",
    "supplies",
    "blanks",
    "clues",
    "target",
    "candidates",
    "target_position",
    "votes",
    "clues_done",
    "draw_queue",
    "draw_amount",
    "after_draws",
    "outcome",
    "end_reason",
    "last_attempt",
    "rng",
)
LAST_ATTEMPT_KEYS = ("level", "x", "target", "guess", "passed", "clues")
AFTER_DRAWS = ("", "vote", "level")
GENERATORS = ("PCG64", "PCG64DXSM")
LETTER_FIELDS = "bag+supplies+clues"
CARD_FIELDS = "deck+discard+candidates"


@dataclass
class Position:
    """The fields of a saved state, checked, in the rules' own terms (tile kinds, concept ids, -1 for none)."""

    phase: int
    current: int
    x: int
    level_index: int
    lives: int
    deck: list[int]
    discard: list[int]
    bag: np.ndarray
    supply: np.ndarray
    blanks: list[int]
    clues: list[list[int]]
    target: int
    candidates: list[int]
    target_position: int
    votes: int
    clues_done: int
    draw_queue: list[int]
    draw_amount: int
    after_draws: str
    outcome: int
    end_reason: str
    last_attempt: dict[str, Any] | None
    rng: dict[str, Any] | None

    def owned(self, player: int) -> int:
        """Letters `player` owns: behind the screen plus in the clue."""
        return int(self.supply[player].sum()) + _letter_count(self.clues[player])


# --- writing ---------------------------------------------------------------------------------------------------
def write(state: Any) -> dict[str, Any]:
    """A `KrzGrtnState` as JSON: letters as strings, pictures by concept name, deck entries by card number."""
    return {
        "game": NAME,
        "config": state.game.config(),
        "num_players": state.game.num_players,
        "phase": PHASES[state.phase],
        "current_player": state.current,
        "x": state.x,
        "level_index": state.level_index,
        "lives": state.lives,
        "deck": list(state.deck),
        "discard": list(state.discard),
        "bag": counts_string(state.bag),
        "supplies": [counts_string(row) for row in state.supply],
        "blanks": list(state.blanks),
        "clues": [tiles_string(c) for c in state.clues],
        "target": CONCEPTS[state.target].name if state.target >= 0 else None,
        "candidates": [CONCEPTS[c].name for c in state.candidates],
        "target_position": state.target_position,
        "votes": state.votes,
        "clues_done": state.clues_done,
        "draw_queue": list(state.draw_queue),
        "draw_amount": state.draw_amount,
        "after_draws": state.after_draws,
        "outcome": state.outcome,
        "end_reason": state.end_reason,
        "last_attempt": _last_attempt_json(state.last_attempt),
        "rng": state.chance.rng.bit_generator.state,
    }


def _last_attempt_json(last: dict[str, Any] | None) -> dict[str, Any] | None:
    if last is None:
        return None
    return {
        **last,
        "target": CONCEPTS[last["target"]].name,
        "guess": CONCEPTS[last["guess"]].name,
        "clues": {str(giver): tiles_string(c) for giver, c in last["clues"].items()},
    }


# --- reading ---------------------------------------------------------------------------------------------------
def read(game: Any, data: Any) -> Position:
    """The position in `data` (a dict as `write` puts it down), or `InvalidStateError` naming field and problem."""
    check_header(data, NAME, game.config())
    extra = sorted(str(k) for k in data if k not in KEYS)
    require(not extra, extra[0] if extra else "state", f"not a field of a KRZ GRTN state (fields: {', '.join(KEYS)})")
    n = game.num_players
    players = get(data, "num_players", int)
    require(players == n, "num_players", f"the state is for {players} players, this env has {n}")
    phase = get(data, "phase", str)
    require(phase in PHASES, "phase", f"{phase!r} is not a phase; phases: {', '.join(PHASES)}")
    position = Position(
        phase=PHASES.index(phase),
        current=seat(get(data, "current_player", int), "current_player", n),
        x=seat(get(data, "x", int), "x", n),
        level_index=integer(get(data, "level_index", int), "level_index", 0, NUM_LEVELS),
        lives=integer(get(data, "lives", int), "lives", 0, game.lives),
        deck=_cards(data, "deck"),
        discard=_cards(data, "discard"),
        bag=_letters(get(data, "bag", str), "bag"),
        supply=np.stack([_letters(text, f"supplies[{s}]") for s, text in enumerate(_per_seat(data, "supplies", n))]),
        blanks=[
            integer(b, f"blanks[{s}]", 0, game.blanks_per_player) for s, b in enumerate(_per_seat(data, "blanks", n))
        ],
        clues=[_tiles(text, f"clues[{s}]") for s, text in enumerate(_per_seat(data, "clues", n))],
        target=_concept_or_none(get(data, "target", (str, type(None))), "target"),
        candidates=_candidates(data, game.max_candidates),
        target_position=integer(get(data, "target_position", int), "target_position", -1, game.max_candidates - 1),
        votes=integer(get(data, "votes", int), "votes", 0, n - 2),
        clues_done=integer(get(data, "clues_done", int), "clues_done", 0, n - 1),
        draw_queue=[seat(s, f"draw_queue[{i}]", n) for i, s in enumerate(get(data, "draw_queue", list))],
        draw_amount=integer(get(data, "draw_amount", int), "draw_amount", 0, max(game.life_letters, *game.level_draws)),
        after_draws=_choice(get(data, "after_draws", str), "after_draws", AFTER_DRAWS),
        outcome=integer(get(data, "outcome", int), "outcome", -1, 1),
        end_reason=_choice(get(data, "end_reason", str), "end_reason", ("", *END_REASONS)),
        last_attempt=_last_attempt(game, get(data, "last_attempt", (dict, type(None)))),
        rng=_saved_rng(get(data, "rng", (dict, type(None)))),
    )
    check_conservation(game, position)
    _check_end(game, position)
    _check_turn(game, position)
    _check_table(game, position)
    _check_clues(game, position)
    _check_tile_limit(game, position)
    _check_draws(game, position)
    _check_history(game, position)
    _check_deck(game, position)
    return position


def generator(saved: dict[str, Any] | None, fallback: np.random.Generator | None) -> np.random.Generator:
    """The saved generator; without one (`rng: null`), `fallback`, else a fresh one."""
    if saved is None:
        return fallback if fallback is not None else np.random.default_rng()
    bit_generator = getattr(np.random, saved["bit_generator"])()
    bit_generator.state = saved
    return np.random.Generator(bit_generator)


def _saved_rng(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """The saved generator's state; null: none saved (the loading env's generator carries on)."""
    return None if state is None else generator_state(state, "rng", GENERATORS)


def _per_seat(data: Any, name: str, n: int) -> list[Any]:
    items = get(data, name, list)
    require(len(items) == n, name, f"must hold one entry per seat ({n}), got {len(items)}")
    return items


def _choice(value: str, field: str, allowed: tuple[str, ...]) -> str:
    require(value in allowed, field, f"{value!r} is not allowed; allowed: {', '.join(map(repr, allowed))}")
    return value


def _cards(data: Any, name: str) -> list[int]:
    return [integer(c, f"{name}[{i}]", 0, NUM_CARDS - 1) for i, c in enumerate(get(data, name, list))]


def _letters(text: Any, field: str) -> np.ndarray:
    require(isinstance(text, str), field, f"must be a string of letters, got {type(text).__name__}")
    try:
        return parse_counts(text)
    except ValueError as error:
        raise InvalidStateError(field, str(error)) from None


def _tiles(text: Any, field: str) -> list[int]:
    require(isinstance(text, str), field, f"must be a string of tiles, got {type(text).__name__}")
    try:
        return parse_tiles(text)
    except ValueError as error:
        raise InvalidStateError(field, str(error)) from None


def _letter_count(tiles: list[int]) -> int:
    return sum(t != BLANK for t in tiles)


def _concept(name: Any, field: str) -> int:
    require(isinstance(name, str), field, f"must be a picture's name, got {type(name).__name__}")
    require(name in CONCEPT_ID, field, f"{name!r} is not a picture in the deck (envs/krz_grtn/pictures.json)")
    return CONCEPT_ID[name]


def _concept_or_none(name: str | None, field: str) -> int:
    return -1 if name is None else _concept(name, field)


def _candidates(data: Any, most: int) -> list[int]:
    names = get(data, "candidates", list)
    require(len(names) <= most, "candidates", f"at most {most} pictures lie on the table, got {len(names)}")
    return [_concept(name, f"candidates[{i}]") for i, name in enumerate(names)]


def _last_attempt(game: Any, data: dict[str, Any] | None) -> dict[str, Any] | None:
    """The previous attempt's record, checked on its own: its X's givers, their clues, target and guess."""
    if data is None:
        return None
    extra = sorted(str(k) for k in data if k not in LAST_ATTEMPT_KEYS)
    require(
        not extra,
        f"last_attempt.{extra[0]}" if extra else "last_attempt",
        f"not a field of last_attempt (fields: {', '.join(LAST_ATTEMPT_KEYS)})",
    )
    level = integer(get(data, "level", int, "last_attempt.level"), "last_attempt.level", 1, NUM_LEVELS)
    x = seat(get(data, "x", int, "last_attempt.x"), "last_attempt.x", game.num_players)
    target = _concept(get(data, "target", str, "last_attempt.target"), "last_attempt.target")
    guess = _concept(get(data, "guess", str, "last_attempt.guess"), "last_attempt.guess")
    passed = get(data, "passed", bool, "last_attempt.passed")
    require(passed == (guess == target), "last_attempt.passed", "must be true exactly when the guess is the target")
    require(
        passed or guess // 2 != target // 2,
        "last_attempt.guess",
        "the other side of the target's card was never on the table",
    )
    clues_data = get(data, "clues", dict, "last_attempt.clues")
    givers = game.giver_orders[x]
    keys = [str(g) for g in givers]
    require(
        sorted(clues_data) == sorted(keys),
        "last_attempt.clues",
        f"must hold the clue of each giver of player_{x}'s attempt, keyed {keys}",
    )
    clues, used = {}, np.zeros(NUM_LETTERS, dtype=np.int64)
    for g, key in zip(givers, keys):
        field = f"last_attempt.clues.{key}"
        tiles = _tiles(get(clues_data, key, str, field), field)
        letters = _letter_count(tiles)
        require(
            MIN_CLUE_LETTERS <= letters <= game.tile_limit,
            field,
            f"a finished clue holds {MIN_CLUE_LETTERS} to {game.tile_limit} (the tile limit) letters, got {letters}",
        )
        require(
            tiles.count(BLANK) <= game.blanks_per_player,
            field,
            f"holds {tiles.count(BLANK)} blanks; each player has {game.blanks_per_player}",
        )
        used += np.bincount([t for t in tiles if t != BLANK], minlength=NUM_LETTERS)
        clues[g] = tiles
    over = [f"{LETTERS[k]} x{used[k]}" for k in np.flatnonzero(used > LETTER_COUNTS)]
    require(not over, "last_attempt.clues", f"hold more of a letter than the game has: {', '.join(over)}")
    return {"level": level, "x": x, "target": target, "guess": guess, "passed": passed, "clues": clues}


# --- the checks ------------------------------------------------------------------------------------------------
def check_conservation(game: Any, p: Any) -> None:
    """Every letter tile, every seat's blanks and every picture card exactly once (`p`: a Position or a state)."""
    letters = p.bag + p.supply.sum(axis=0)
    for clue in p.clues:
        letters = letters + np.bincount([t for t in clue if t != BLANK], minlength=NUM_LETTERS)
    wrong = [
        f"{LETTERS[k]} x{letters[k]} (the game has {LETTER_COUNTS[k]})"
        for k in np.flatnonzero(letters != LETTER_COUNTS)
    ]
    require(
        not wrong,
        LETTER_FIELDS,
        f"the bag, the screens and the clues must hold the {TOTAL_LETTERS} letter tiles once each; "
        f"they hold {', '.join(wrong)}",
    )
    for s, clue in enumerate(p.clues):
        owned = p.blanks[s] + clue.count(BLANK)
        require(
            owned == game.blanks_per_player,
            f"blanks[{s}]",
            f"player_{s} owns {owned} blanks (screen {p.blanks[s]}, clue {clue.count(BLANK)}); "
            f"each player keeps {game.blanks_per_player}",
        )
    counts = Counter([*p.deck, *p.discard, *(c // 2 for c in p.candidates)])
    twice = sorted(c for c, k in counts.items() if k > 1)
    missing = sorted(set(range(NUM_CARDS)) - set(counts))
    require(
        not twice and not missing,
        CARD_FIELDS,
        f"the deck, the discard and the table must hold each of the {NUM_CARDS} picture cards once; "
        f"more than once: {twice[:10]}, missing: {missing[:10]}",
    )


def _check_end(game: Any, p: Position) -> None:
    """`outcome`, `end_reason` and the levels passed tell one story: playing, won, or lost one of two ways."""
    if p.phase != OVER:
        require(p.outcome == 0, "outcome", f"{p.outcome}, but the game is not over (phase {PHASES[p.phase]})")
        require(p.end_reason == "", "end_reason", "must be empty while the game is on")
        require(
            p.level_index < NUM_LEVELS,
            "level_index",
            f"{NUM_LEVELS} levels passed is a won game (phase over); while playing it is 0..{NUM_LEVELS - 1}",
        )
        return
    require(
        p.end_reason != "", "end_reason", f"must say how the game ended: one of {', '.join(map(repr, END_REASONS))}"
    )
    won = p.end_reason == END_WON
    require(p.outcome == (1 if won else -1), "outcome", f"must be {1 if won else -1} for {p.end_reason!r}")
    if won:
        require(p.level_index == NUM_LEVELS, "level_index", f"a won game has passed all {NUM_LEVELS} levels")
        return
    require(p.level_index < NUM_LEVELS, "level_index", f"{NUM_LEVELS} levels passed is a win, not a loss")
    require(p.lives == 0, "lives", "a game is lost only when no life card is left")
    if p.end_reason == END_SHORT:
        givers = game.giver_orders[p.x]
        require(
            any(p.owned(g) < MIN_CLUE_LETTERS for g in givers),
            "end_reason",
            f"{p.end_reason!r}, but every giver of player_{p.x}'s attempt owns {MIN_CLUE_LETTERS}+ letters",
        )


def _check_turn(game: Any, p: Position) -> None:
    """Who acts follows from the phase and its counter."""
    n, givers = game.num_players, game.giver_orders[p.x]
    if p.phase == VOTE:
        require(p.lives >= 1, "lives", "the Life! vote is held only while a life card is left")
        require(
            p.current == givers[p.votes],
            "current_player",
            f"{p.votes} givers have said Life!, so player_{givers[p.votes]} votes next",
        )
    else:
        require(p.votes == 0, "votes", "must be 0 outside the Life! vote (phase vote)")
    if p.phase == CLUE:
        require(p.clues_done <= n - 2, "clues_done", f"{p.clues_done} finished clues would have ended the clue round")
        require(
            p.current == givers[p.clues_done],
            "current_player",
            f"{p.clues_done} givers have finished, so player_{givers[p.clues_done]} lays the next clue",
        )
    elif p.phase == GUESS:
        require(p.clues_done == n - 1, "clues_done", f"X guesses once all {n - 1} givers have finished their clues")
        require(p.current == p.x, "current_player", f"X (player_{p.x}) guesses")
    else:
        require(p.clues_done == 0, "clues_done", "must be 0 outside the clue round and the guess")
    if p.end_reason in (END_WON, END_FAILED):
        previous = (p.x - 1) % n
        require(p.current == previous, "current_player", f"the game ended on player_{previous}'s guess")


def _check_table(game: Any, p: Position) -> None:
    """The target alone face up while voting and making clues; A pictures while X guesses; else none."""
    if p.phase == GUESS:
        wanted = game.candidates_at(p.level_index)
        require(p.target >= 0, "target", "X is guessing, so a target lies on the table")
        require(
            len(p.candidates) == wanted,
            "candidates",
            f"level card {game.levels[p.level_index]} lays out {wanted} pictures, got {len(p.candidates)}",
        )
        require(p.target in p.candidates, "candidates", "the target must be among the pictures on the table")
        where = p.candidates.index(p.target)
        require(
            p.target_position == where,
            "target_position",
            f"{p.target_position}, but the target lies at position {where}",
        )
        return
    require(p.target_position == -1, "target_position", "must be -1 until the pictures are laid out (phase guess)")
    face_up = p.phase in (VOTE, CLUE) or (p.phase == RETURN and p.after_draws == "vote")
    cleared = (p.phase == RETURN and p.after_draws == "level") or p.end_reason in (END_WON, END_FAILED)
    if face_up:
        require(p.target >= 0, "target", f"must name the picture turned up for this attempt (phase {PHASES[p.phase]})")
    if cleared:
        require(p.target < 0, "target", "must be null: the attempt's pictures have gone to the box")
    expected = [p.target] if p.target >= 0 else []
    require(
        p.candidates == expected,
        "candidates",
        "must be [target] alone until the decoys are turned up" if expected else "must be empty between attempts",
    )


def _check_clues(game: Any, p: Position) -> None:
    """X lays no clue; finished clues hold 2+ letters; a clue exists only from its giver's turn to the guess."""
    require(not p.clues[p.x], f"clues[{p.x}]", f"player_{p.x} is X this attempt and lays no clue")
    for i, g in enumerate(game.giver_orders[p.x]):
        if p.phase == GUESS or (p.phase == CLUE and i < p.clues_done):
            letters = _letter_count(p.clues[g])
            require(
                letters >= MIN_CLUE_LETTERS,
                f"clues[{g}]",
                f"a finished clue holds at least {MIN_CLUE_LETTERS} letters, got {letters}",
            )
        elif not (p.phase == CLUE and i == p.clues_done):
            require(
                not p.clues[g],
                f"clues[{g}]",
                f"player_{g} has not started a clue"
                if p.phase == CLUE
                else f"must be empty: clues lie on the table only while they are made and guessed, not in phase "
                f"{PHASES[p.phase]}",
            )
        if p.phase == CLUE:
            owned = p.owned(g)
            require(
                owned >= MIN_CLUE_LETTERS,
                f"supplies[{g}]",
                f"player_{g} owns {owned} letters; clues are made only when every giver can lay {MIN_CLUE_LETTERS}",
            )


def _check_tile_limit(game: Any, p: Position) -> None:
    """Nobody owns more than the tile limit, except the giver returning tiles (checked in `_check_draws`)."""
    for s in range(game.num_players):
        if p.phase == RETURN and s == p.current:
            continue
        owned = p.owned(s)
        require(
            owned <= game.tile_limit,
            f"supplies[{s}]",
            f"player_{s} owns {owned} letters (screen and clue), above the tile limit {game.tile_limit}",
        )


def _check_draws(game: Any, p: Position) -> None:
    """A drawing round pauses only while its drawer is above the tile limit."""
    if p.phase != RETURN:
        require(not p.draw_queue, "draw_queue", "must be empty: a drawing round pauses only for returns (phase return)")
        require(p.draw_amount == 0, "draw_amount", "must be 0 outside a drawing round (phase return)")
        require(p.after_draws == "", "after_draws", "must be '' outside a drawing round (phase return)")
        return
    require(p.after_draws != "", "after_draws", "must be 'vote' or 'level': what the drawing round follows")
    n = game.num_players
    if p.after_draws == "vote":
        drawers, amount = game.giver_orders[p.x], game.life_letters
        require(
            p.lives < game.lives, "lives", f"a unanimous Life! spent a life card, so fewer than {game.lives} are left"
        )
    else:
        require(p.level_index >= 1, "level_index", "draws for a pass follow a passed level")
        require(
            p.last_attempt is not None and p.last_attempt["passed"],
            "last_attempt",
            "draws for a pass follow a passed attempt",
        )
        drawers, amount = game.giver_orders[(p.x - 1) % n], game.draws_at(p.level_index - 1)
    require(
        p.current in drawers,
        "current_player",
        f"player_{p.current} draws nothing in this round; drawers: {list(drawers)}",
    )
    require(p.draw_amount == amount, "draw_amount", f"must be {amount}, the letters each giver draws in this round")
    rest = list(drawers[drawers.index(p.current) + 1 :])
    require(p.draw_queue == rest, "draw_queue", f"must be {rest}: the drawers after player_{p.current}, in order")
    owned, limit = p.owned(p.current), game.tile_limit
    require(
        limit < owned <= limit + amount,
        f"supplies[{p.current}]",
        f"player_{p.current} is returning tiles with {owned} letters; a draw of {amount} from at most {limit} "
        f"leaves {limit + 1}..{limit + amount}",
    )


def _check_history(game: Any, p: Position) -> None:
    """The previous attempt's record fits the present: X moved on, the level, the result, the box."""
    last = p.last_attempt
    if last is None:
        require(p.level_index == 0, "last_attempt", f"{p.level_index} levels were passed, so an attempt is on record")
        require(
            p.end_reason not in (END_WON, END_FAILED), "last_attempt", "the game ended on a guess, which is on record"
        )
        return
    n = game.num_players
    require(
        last["x"] == (p.x - 1) % n,
        "last_attempt.x",
        f"X moves on after every attempt, so the last X was player_{(p.x - 1) % n}",
    )
    if p.end_reason == END_WON:
        require(last["passed"], "last_attempt.passed", "the game was won on the last attempt")
    if p.end_reason == END_FAILED:
        require(not last["passed"], "last_attempt.passed", "the game was lost on the last attempt")
    if last["passed"]:
        require(p.level_index >= 1, "last_attempt.passed", "a passed attempt passed a level, but level_index is 0")
        level = game.levels[p.level_index - 1]
    else:
        level = game.levels[p.level_index]
        if p.end_reason != END_FAILED:
            require(
                p.lives < game.lives,
                "lives",
                f"the failed last attempt cost a life card, so fewer than {game.lives} are left",
            )
    require(last["level"] == level, "last_attempt.level", f"must be {level}, the level card of that attempt")
    for name in ("target", "guess"):
        require(
            last[name] // 2 in p.discard,
            f"last_attempt.{name}",
            "the attempt's pictures went to the box, so its card must be in the discard",
        )


def _check_deck(game: Any, p: Position) -> None:
    """Enough pictures for every attempt still possible: levels left plus one per life card."""
    if p.phase == OVER:
        return
    attempts = NUM_LEVELS - p.level_index + p.lives
    need = attempts * game.max_candidates - len(p.candidates)
    require(
        len(p.deck) >= need,
        "deck",
        f"holds {len(p.deck)} pictures; the rest of the game can need {need} ({attempts} attempts of up to "
        f"{game.max_candidates})",
    )

"""Reading a saved Chromino position (what `ChrominoState.to_json` writes), checked field by field.

`read` accepts what the rules can reach in the game's configuration, judged from the position itself:
each of the 80 tiles exactly once; a table that starts with the start chameleon and whose placements,
replayed in the order listed, were each legal when laid (by the junior rule in `junior`); hands that a
deal of `hand_size` and the draws and placements so far can leave, in turns going round from the first
player; the turn's sub-step fields (chosen, drawn, orientation, drew) as that sub-step leaves them; a
seat went out exactly when its hand is empty, and the round is finished after it; idle turns only with
an empty bag and only by seats that had nothing to lay; expert points that the placements add up to.
Anything else is an `InvalidStateError` naming the field. The order of the draws is not in the position,
so the bag's order is not checked. What the rules derive from a position, the mover's legal actions,
`ChrominoState.from_json` checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import CHOOSE, DRAWN, NUM_ORIENTATIONS, OVER, PHASES, PLACE
from tabletop.envs.chromino.table import ORIENTATION_WORDS, Placement, Table, start_placement
from tabletop.envs.core.errors import InvalidStateError
from tabletop.envs.core.validate import check_header, get, integer, require, seat

NAME = "chromino"
KEYS = (
    "game",
    "config",
    "first_player",
    "current_player",
    "phase",
    "chosen",
    "orientation",
    "drawn",
    "drew",
    "idle_turns",
    "hands",
    "bag",
    "placements",
    "finished",
    "points",
)


@dataclass
class Position:
    """A saved position, every field checked. Tiles are ids; -1 stands for "none"."""

    first: int
    current: int
    phase: int
    chosen: int
    orientation: int
    drawn: int
    drew: bool
    idle_turns: int
    hands: list[list[int]]  # sorted
    bag: list[int]  # drawn from its end
    placements: list[Placement]  # in the order laid
    table: Table
    finished: list[bool]
    points: list[int]


def write(state: Any) -> dict[str, Any]:
    """The JSON form of a state (tiles by name, in their canonical reading)."""
    return {
        "game": NAME,
        "config": state.game.config(),
        "first_player": state.first_player,
        "current_player": state.current,
        "phase": PHASES[state.phase],
        "chosen": _name(state.chosen),
        "orientation": state.orientation,
        "drawn": _name(state.drawn),
        "drew": state.drew,
        "idle_turns": state.idle_turns,
        "hands": [[T.tile_name(t) for t in h] for h in state.hands],
        "bag": [T.tile_name(t) for t in state.bag],
        "placements": [[T.tile_name(p.tile), p.orientation, p.row, p.col] for p in state.placements],
        "finished": list(state.finished),
        "points": list(state.points),
    }


def read(game: Any, data: Any) -> Position:
    """The position in `data`, or `InvalidStateError` for anything the rules cannot reach in `game`."""
    check_header(data, NAME, game.config())
    unknown = sorted(map(str, set(data) - set(KEYS)))
    require(
        not unknown, unknown[0] if unknown else "state", f"unknown key; a saved Chromino state has {', '.join(KEYS)}"
    )
    n = game.num_players
    first = seat(get(data, "first_player", int), "first_player", n)
    current = seat(get(data, "current_player", int), "current_player", n)
    phase = get(data, "phase", str)
    require(phase in PHASES, "phase", f"{phase!r} is not a phase; phases are {', '.join(PHASES)}")
    phase = PHASES.index(phase)
    hands = [sorted(h) for h in _hands(data, n)]
    bag = _tiles(get(data, "bag", list), "bag")
    placements = _placements(data, game.grid_size)
    _check_every_tile_once(hands, bag, placements, game)
    values = _check_layout(placements, game)
    finished = _flags(data, "finished", n)
    points = _ints(data, "points", n)
    chosen, drawn = _tile_or_none(data, "chosen"), _tile_or_none(data, "drawn")
    orientation = integer(get(data, "orientation", int), "orientation", -1, NUM_ORIENTATIONS - 1)
    drew = get(data, "drew", bool)
    idle_turns = integer(get(data, "idle_turns", int), "idle_turns", 0, n)
    position = Position(
        first,
        current,
        phase,
        chosen,
        orientation,
        drawn,
        drew,
        idle_turns,
        hands,
        bag,
        placements,
        Table.laid(game.grid_size, placements),
        finished,
        points,
    )
    _check_turn_stage(position, game)
    _check_round(position, n)
    _check_idle_turns(position, game)
    _check_turn_counts(position, game)
    _check_points(position, game, values)
    return position


# --- fields ------------------------------------------------------------------------------------------------
def _name(tile: int) -> str | None:
    return T.tile_name(tile) if tile >= 0 else None


def _tile(name: Any, field: str) -> int:
    require(isinstance(name, str), field, f"a tile is named by its three squares, such as 'RGB' or 'R*Y', got {name!r}")
    try:
        return T.tile_id(name)
    except ValueError as error:
        raise InvalidStateError(field, str(error)) from None


def _tiles(value: Any, field: str) -> list[int]:
    require(isinstance(value, list), field, f"must be a list of tiles, got {type(value).__name__}")
    return [_tile(name, f"{field}[{i}]") for i, name in enumerate(value)]


def _tile_or_none(data: Any, key: str) -> int:
    value = get(data, key, (str, type(None)))
    return -1 if value is None else _tile(value, key)


def _hands(data: Any, n: int) -> list[list[int]]:
    hands = get(data, "hands", list)
    require(len(hands) == n, "hands", f"must list {n} hands (one per seat), got {len(hands)}")
    return [_tiles(tiles, f"hands[{s}]") for s, tiles in enumerate(hands)]


def _flags(data: Any, key: str, n: int) -> list[bool]:
    values = get(data, key, list)
    require(len(values) == n, key, f"must list {n} values (one per seat), got {len(values)}")
    for s, value in enumerate(values):
        require(isinstance(value, bool), f"{key}[{s}]", f"must be true or false, got {value!r}")
    return list(values)


def _ints(data: Any, key: str, n: int) -> list[int]:
    values = get(data, key, list)
    require(len(values) == n, key, f"must list {n} values (one per seat), got {len(values)}")
    return [integer(value, f"{key}[{s}]", -(2**31), 2**31 - 1) for s, value in enumerate(values)]


def _placements(data: Any, grid_size: int) -> list[Placement]:
    entries = get(data, "placements", list)
    require(len(entries) > 0, "placements", "the start chameleon is always on the table")
    placements = []
    for i, entry in enumerate(entries):
        field = f"placements[{i}]"
        require(
            isinstance(entry, list) and len(entry) == 4,
            field,
            f"a placement is [tile, orientation, row, col], got {entry!r}",
        )
        tile = _tile(entry[0], f"{field}[0]")
        orientation = integer(entry[1], f"{field}[1]", 0, NUM_ORIENTATIONS - 1)
        row = integer(entry[2], f"{field}[2]", 0, grid_size - 1)
        col = integer(entry[3], f"{field}[3]", 0, grid_size - 1)
        placements.append(Placement(tile, orientation, row, col))
    return placements


# --- the tiles and the table ---------------------------------------------------------------------------------
def _check_every_tile_once(hands: list[list[int]], bag: list[int], placements: list[Placement], game: Any) -> None:
    places = [(f"hands[{s}]", h) for s, h in enumerate(hands)] + [
        ("bag", bag),
        ("placements", [p.tile for p in placements]),
    ]
    seen = np.zeros(T.NUM_TILES, dtype=np.int64)
    for field, tiles in places:
        seen += np.bincount(np.asarray(tiles, dtype=np.int64), minlength=T.NUM_TILES)
        again = np.flatnonzero(seen > 1)
        if again.size:
            raise InvalidStateError(
                field, f"{T.tile_name(int(again[0]))} is here again: each of the 80 tiles exists once"
            )
    in_play = np.zeros(T.NUM_TILES, dtype=bool)
    in_play[game.tiles_in_play(placements[0].tile)] = True
    extra = np.flatnonzero(seen.astype(bool) & ~in_play)
    if extra.size:
        raise InvalidStateError("tiles", f"{T.tile_name(int(extra[0]))} is not in this game's box")
    missing = np.flatnonzero((seen == 0) & in_play)
    if missing.size:
        raise InvalidStateError(
            "tiles", f"{T.tile_name(int(missing[0]))} is missing: in no hand, not in the bag, not on the table"
        )


def _check_layout(placements: list[Placement], game: Any) -> list[int]:
    """Each placement was legal on the table the earlier ones made; returns each later placement's expert value.

    Judged from the contacts each tile makes with the tiles laid before it: standard, at least two and every
    one matching; junior, exactly one, matching, at an open end (an end square, outward along its tile, or a
    side of a crosswise chameleon's centre) and in line with it (or, a chameleon, crosswise)."""
    g = game.grid_size
    start = placements[0]
    if not (T.IS_CHAMELEON[start.tile] and start == start_placement(g, start.tile)):
        raise InvalidStateError(
            "placements[0]",
            f"the game starts with a chameleon lying left to right centred on the "
            f"middle cell ({g // 2}, {g // 2}), got {_describe(start)}",
        )
    order, colour = {}, {}  # cell -> the placement covering it, the colour there
    for i, p in enumerate(placements):
        for (r, c), square in zip(p.cells(), p.colours().tolist()):
            if not (0 <= r < g and 0 <= c < g):
                raise InvalidStateError(f"placements[{i}]", f"{_describe(p)} leaves the {g}x{g} grid")
            if (r, c) in order:
                raise InvalidStateError(
                    f"placements[{i}]", f"{_describe(p)} covers a square of placements[{order[r, c]}]"
                )
            order[r, c], colour[r, c] = i, square
    crosswise = [True]  # per placement: a chameleon whose centre offers open ends (the start one does)
    values = []
    for i, p in enumerate(placements[1:], start=1):
        contacts = []  # (square of p, its cell, the touched cell) for every contact with an earlier tile
        for k, (r, c) in enumerate(p.cells()):
            for dr, dc in _SIDES:
                if order.get((r + dr, c + dc), i) < i:
                    contacts.append((k, (r, c), (r + dr, c + dc)))
        problem = _contact_problem(p, contacts, colour, order, placements, crosswise, game.junior)
        if problem:
            raise InvalidStateError(
                f"placements[{i}]",
                f"{_describe(p)} cannot have been laid on the table that placements[0:{i}] make: {problem}",
            )
        crosswise.append(bool(T.IS_CHAMELEON[p.tile]) and contacts[0][0] == 1)
        touched = {placements[order[a]].tile for _, _, a in contacts}
        values.append(int(T.VALUE[p.tile] + sum(T.VALUE[t] for t in touched)))
    return values


_SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _contact_problem(p, contacts, colour, order, placements, crosswise, junior: bool) -> str:
    """What is wrong with `p`'s contacts with the earlier tiles ('' if nothing)."""
    if T.PALINDROME[p.tile] and p.orientation & 1:
        return "a palindrome lies in orientation 0 or 2 (1 and 3 read the same)"
    for _, x, a in contacts:
        if T.WILD not in (colour[x], colour[a]) and colour[x] != colour[a]:
            return f"its square on {x} touches a different colour on {a}"
    if not junior:
        return "" if len(contacts) >= 2 else f"it makes {len(contacts)} contact(s); a placement needs at least two"
    if len(contacts) != 1:
        return f"it makes {len(contacts)} contacts; a junior placement makes exactly one, at an open end"
    ((k, x, a),) = contacts
    e = (x[0] - a[0], x[1] - a[1])  # from the touched square to the new one
    if not _attaches(p, k, e, is_chameleon=bool(T.IS_CHAMELEON[p.tile]), laid=False):
        return "a junior tile continues straight on from an open end with an end square (a chameleon may lie crosswise)"
    j = order[a]
    other = placements[j]
    if not _attaches(other, other.cells().index(a), e, is_chameleon=crosswise[j], laid=True):
        return (
            f"the square it touches on {a} is no open end (an end square outward along its tile, or a side of a "
            "crosswise chameleon's centre)"
        )
    return ""


def _attaches(p: Placement, k: int, e: tuple[int, int], is_chameleon: bool, laid: bool) -> bool:
    """Whether square `k` of `p` can make a junior contact in direction `e` (pointing from the laid tile to
    the new one): an end square in line (outward for the laid tile, running on for the new one), or the centre
    crosswise (of a chameleon: for the laid tile, a crosswise one)."""
    step = (p.cells()[1][0] - p.cells()[0][0], p.cells()[1][1] - p.cells()[0][1])
    if k == 1:
        return is_chameleon and e not in (step, (-step[0], -step[1]))
    outward = (-step[0], -step[1]) if k == 0 else step  # from the end square away from its tile
    return e == (outward if laid else (-outward[0], -outward[1]))


def _describe(p: Placement) -> str:
    return f"{T.tile_name(p.tile)} {ORIENTATION_WORDS[p.orientation]} centred on ({p.row}, {p.col})"


def _fitting(table: Table, hand: list[int], junior: bool) -> int:
    """A tile of `hand` that has a legal placement (-1 if none); a lone chameleon never does."""
    if len(hand) == 1 and T.IS_CHAMELEON[hand[0]]:
        return -1
    moves = table.search(hand, junior)
    return int(moves[0, 0]) if len(moves) else -1


# --- the turn ------------------------------------------------------------------------------------------------
def _check_turn_stage(pos: Position, game: Any) -> None:
    """chosen, orientation, drawn and drew as the turn's sub-step leaves them."""
    hand = pos.hands[pos.current]
    if pos.phase in (CHOOSE, DRAWN, OVER):
        require(pos.chosen < 0, "chosen", f"a tile is chosen only in phase 'place', not in {PHASES[pos.phase]!r}")
        require(pos.orientation == -1, "orientation", f"is -1 (none) outside phase 'place', got {pos.orientation}")
    if pos.phase in (CHOOSE, OVER):
        require(
            pos.drawn < 0,
            "drawn",
            f"a drawn tile is held only in phases 'drawn' and 'place', not in {PHASES[pos.phase]!r}",
        )
    if pos.phase == OVER:
        require(not pos.drew, "drew", "is false once the game is over (no turn is going on)")
        return
    require(not pos.finished[pos.current], "current_player", f"seat {pos.current} went out; it has no more turns")
    if pos.phase == DRAWN:
        require(pos.drawn >= 0, "drawn", "phase 'drawn' holds the tile just drawn")
        require(pos.drew, "drew", "is true in phase 'drawn' (a tile was drawn this turn)")
    if pos.phase == PLACE:
        require(pos.chosen >= 0, "chosen", "phase 'place' lays a chosen tile")
        require(pos.chosen in hand, "chosen", f"{T.tile_name(pos.chosen)} is not in the hand of seat {pos.current}")
        require(pos.drawn < 0 or pos.chosen == pos.drawn, "chosen", "after a draw only the drawn tile may be laid")
        require(
            pos.orientation >= 0, "orientation", "phase 'place' lays the chosen tile in its chosen orientation (0-3)"
        )
        require(
            not (T.PALINDROME[pos.chosen] and pos.orientation & 1),
            "orientation",
            f"{T.tile_name(pos.chosen)} reads the same both ways, so it is chosen in orientation 0 or 2 only",
        )
        require(
            not (len(hand) == 1 and T.IS_CHAMELEON[pos.chosen]),
            "chosen",
            "a lone chameleon cannot be played as the last tile",
        )
        moves = pos.table.search([pos.chosen], game.junior)
        require(
            bool((moves[:, 1] == pos.orientation).any()),
            "orientation",
            f"{T.tile_name(pos.chosen)} {ORIENTATION_WORDS[pos.orientation]} fits nowhere, so it could not have been chosen",
        )
    if pos.drawn >= 0:  # phases 'drawn' and 'place': a tile was drawn because none in hand fitted
        require(pos.drew, "drew", "is true when a tile was drawn this turn")
        require(pos.drawn in hand, "drawn", f"{T.tile_name(pos.drawn)} is not in the hand of seat {pos.current}")
        before = list(hand)
        before.remove(pos.drawn)
        fits = _fitting(pos.table, before, game.junior)
        if fits >= 0:
            raise InvalidStateError(
                "drawn", f"a tile is drawn only when none in hand fits, but {T.tile_name(fits)} does"
            )
    elif pos.drew:  # the compulsory draw of a lone chameleon: the turn then goes on with two tiles
        require(
            len(hand) == 2 and bool(T.IS_CHAMELEON[hand].any()),
            "drew",
            "a turn goes on after a draw only after the compulsory draw of a lone chameleon (the hand is then "
            f"that chameleon and the drawn tile), but seat {pos.current} holds {len(hand)} tiles",
        )


def _round_position(seat_: int, first: int, n: int) -> int:
    return (seat_ - first) % n


def _check_round(pos: Position, n: int) -> None:
    """A seat went out exactly when its hand is empty; the game ends when the round in which someone went
    out is complete (the seat before the first player moved last), or after a full round of idle turns."""
    for s, (hand, out) in enumerate(zip(pos.hands, pos.finished)):
        require(
            out == (not hand),
            f"finished[{s}]",
            f"is {str(out).lower()}, but seat {s} holds {len(hand)} tiles: "
            "a seat has gone out exactly when its hand is empty",
        )
    last = (pos.first - 1) % n
    if pos.phase == OVER:
        if any(pos.finished):
            require(
                pos.current == last,
                "current_player",
                f"the round ends with seat {last} (the seat before the "
                f"first player, seat {pos.first}), so the last mover is seat {last}, not {pos.current}",
            )
            require(pos.idle_turns < n, "idle_turns", "a full idle round cannot follow a seat going out")
        else:
            require(
                pos.idle_turns == n,
                "idle_turns",
                f"nobody went out, so the game ended blocked after {n} idle turns, not {pos.idle_turns}",
            )
        return
    require(pos.idle_turns < n, "idle_turns", f"{n} idle turns in a row end the game, yet it is not over")
    mover = _round_position(pos.current, pos.first, n)
    for s in np.flatnonzero(pos.finished).tolist():
        require(
            _round_position(s, pos.first, n) < mover,
            f"finished[{s}]",
            f"seat {s} went out, so the round is being finished: the seats after it up to seat {last} still play, "
            f"and seat {pos.current} is not among them",
        )


def _check_idle_turns(pos: Position, game: Any) -> None:
    """Idle turns (no placement, no draw) happen only with the bag empty, by seats with nothing to lay."""
    k, n = pos.idle_turns, game.num_players
    if k == 0:
        return
    require(
        not pos.bag and not pos.drew,
        "idle_turns",
        "an idle turn (no placement, no draw) happens only with the bag empty",
    )
    movers = (
        [(pos.current - i) % n for i in range(k)]
        if pos.phase == OVER
        else [(pos.current - 1 - i) % n for i in range(k)]
    )
    for s in movers:
        require(
            not pos.finished[s],
            "idle_turns",
            f"seat {s} moved in one of the last {k} turns, which were idle, so it did not go out",
        )
        fits = _fitting(pos.table, pos.hands[s], game.junior)
        if fits >= 0:
            raise InvalidStateError(
                "idle_turns",
                f"seat {s} passed in one of the last {k} turns, yet {T.tile_name(fits)} "
                "in its hand fits the table (a seat that can lay a tile must)",
            )


def _draws_this_turn(pos: Position) -> tuple[int, ...]:
    """How many tiles the mover may have drawn in the turn going on (two after a lone chameleon's draw)."""
    if pos.phase == OVER or not pos.drew:
        return (0,)
    if pos.drawn < 0:
        return (1,)
    before = list(pos.hands[pos.current])
    before.remove(pos.drawn)
    return (1, 2) if len(before) == 2 and T.IS_CHAMELEON[before].any() else (1,)


def _check_turn_counts(pos: Position, game: Any) -> None:
    """The hands follow from the deal, the draws and the placements, in turns going round from the first player.

    Every seat was dealt `hand_size`; since then it drew d and laid p tiles. In each finished turn a seat lays
    at most one tile and draws at most two (two only after a lone chameleon's draw), and while the bag still
    has tiles it lays or draws at least one. With t turns finished, seat s has had its share of them; some t
    must let every seat's (p, d) fit and the placements add up."""
    n, h = game.num_players, game.hand_size
    dealt_bag = len(game.tiles_in_play(pos.placements[0].tile)) - 1 - n * h
    require(
        len(pos.bag) <= dealt_bag,
        "bag",
        f"holds {len(pos.bag)} tiles; after dealing {n} hands of {h} it holds {dealt_bag}",
    )
    draws, laid = dealt_bag - len(pos.bag), len(pos.placements) - 1
    for s, hand in enumerate(pos.hands):
        require(
            len(hand) <= h + draws,
            f"hands[{s}]",
            f"holds {len(hand)} tiles; a seat holds at most its deal of {h} and every tile drawn so far ({draws})",
        )
    sizes = np.array([len(hand) for hand in pos.hands])
    order = (np.arange(n) - pos.first) % n  # each seat's place in the round
    done = (pos.current - pos.first) % n + (1 if pos.phase == OVER else 0)  # turns finished, modulo n
    for now in _draws_this_turn(pos):
        net = h - sizes  # placements minus finished-turn draws, per seat
        net[pos.current] += now
        for t in range(done, n * (laid + draws + 2) + 1, n):
            turns = np.maximum(0, (t - order + n - 1) // n)
            low = np.maximum(np.maximum(net, 0), (turns + net + 1) // 2 if pos.bag else 0)
            high = np.minimum(turns, 2 * turns + net)
            if t >= pos.idle_turns and (low <= high).all() and low.sum() <= laid <= high.sum():
                return
    raise InvalidStateError(
        "hands",
        f"hands of {sizes.tolist()} tiles cannot follow from a deal of {h} each, {laid} "
        f"placements and {draws} draws in turns going round from seat {pos.first} to seat {pos.current}",
    )


def _check_points(pos: Position, game: Any, values: list[int]) -> None:
    """Expert points: the placements' values shared among the seats, plus the end's bonus and penalty."""
    if game.variant != "expert":
        for s, points in enumerate(pos.points):
            require(points == 0, f"points[{s}]", f"only the expert variant scores points; got {points}")
        return
    played = list(pos.points)
    if pos.phase == OVER:
        for s, hand in enumerate(pos.hands):
            played[s] -= game.out_bonus if pos.finished[s] else -game.tile_penalty * len(hand)
    end = " before the end's bonus and penalty" if pos.phase == OVER else ""
    require(
        sum(played) == sum(values),
        "points",
        f"the seats' points{end} add up to {sum(played)}, but the placements on the table are worth {sum(values)}",
    )
    sums = 1  # bit v set: some placements are worth v in all
    for value in values:
        sums |= sums << value
    for s, points in enumerate(played):
        require(
            points >= 0 and sums >> points & 1,
            f"points[{s}]",
            f"seat {s}'s {points} points{end} are not the value of any of the placements on the table",
        )

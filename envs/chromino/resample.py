"""Determinization: a full Chromino position drawn from what one seat knows (OpenSpiel's `resample_from_infostate`).

Hidden from `seat`: the tiles in the other hands and the bag's order (and, while another seat lays a tile, which
tile it took and which way, and the tile it drew this turn). Known to it: its own hand, the table, every hand
size, every lone tile (a hand of one tile is public), and what this turn has shown. The unseen tiles (every
tile less the table, the own hand and the lone tiles) are dealt at random into the other hands and the bag,
uniformly over the deals the position allows (docs/chromino.md, "Determinization"):

- a seat that passed idle in the last `idle_turns` turns (bag empty, nothing to lay) holds no tile that fits
  the table, which has not changed since;
- the player to move who drew this turn held no tile that fitted before the draw; the drawn tile is any
  unseen tile, one that fits if the mover went on to lay it; a lone tile it held before the draw is known;
- the player to move who took a tile to lay holds one that fits; the tile and the way it lies are drawn
  uniformly from the hand's legal (tile, orientation) choices.

The state is built with `ChrominoState`'s constructor on the same table, as `from_json` builds one.
"""

from __future__ import annotations

from math import comb

import numpy as np

from tabletop.envs.chromino import tiles as T
from tabletop.envs.chromino.actions import OVER, PLACE


def fitting_choices(state) -> np.ndarray:
    """Every (tile, orientation) that has a legal place on `state`'s table, for all 80 tiles: rows of 2 ints.

    Read through a probe state on the same table whose mover holds every tile (so no lone-chameleon rule)."""
    hands = [[] for _ in range(state.game.num_players)]
    hands[state.current] = list(range(T.NUM_TILES))
    probe = type(state)(state.game, hands, [], state.placements, state.first_player, state.table)
    probe.current = state.current
    return np.unique(np.asarray(probe.legal_moves())[:, :2], axis=0)


def resample(state, seat: int, rng: np.random.Generator):
    """A new state with the other hands, the bag and the mover's hidden turn fields redrawn from what `seat` knows."""
    n = state.game.num_players
    if not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
        raise ValueError(f"seat must be an int in [0, {n}), got {seat!r}")
    seat, mover = int(seat), state.current
    choices = fitting_choices(state)
    fits = np.zeros(T.NUM_TILES, dtype=bool)
    fits[choices[:, 0]] = True

    # what each hidden hand is known to hold, and what its other tiles are known to be
    hidden = [p for p in range(n) if p != seat and len(state.hands[p]) > 1]
    known = {p: [] for p in hidden}
    rule = {p: "any" for p in hidden}  # "any", "none_fit" (idle, or held before this turn's draw)
    for p in _idle_seats(state):
        if p in rule:
            rule[p] = "none_fit"
    drawn_rule = None  # the mover's tile drawn this turn: "any" or "fit"
    need_fit = False  # the mover (taking a tile to lay, no draw) holds one that fits
    if mover in known and state.phase != OVER:
        hand = state.hands[mover]
        if state.drawn >= 0:  # drew, no tile fitted: the rest of the hand fits nowhere
            rule[mover], drawn_rule = "none_fit", "fit" if state.phase == PLACE else "any"
            if len(hand) == 2:  # the tile held before the draw was a lone tile: public then
                known[mover] = [t for t in hand if t != state.drawn]
        elif state.drew:  # a lone chameleon's compulsory draw (choose or place): that chameleon is known
            chameleons = [t for t in hand if T.IS_CHAMELEON[t]]
            known[mover] = [chameleons[int(rng.integers(len(chameleons)))]]
        need_fit = state.phase == PLACE and not state.drawn >= 0

    seen = set(state.hands[seat]) | {t for h in state.hands if len(h) == 1 for t in h}
    seen |= {p.tile for p in state.placements} | {t for p in hidden for t in known[p]}
    pool = np.array(sorted(set(state.game.tiles_in_play(state.placements[0].tile)) - seen), dtype=np.int64)
    taken = np.zeros(len(pool), dtype=bool)

    def take(count: int, allowed: np.ndarray) -> list[int]:
        """`count` tiles drawn uniformly from the allowed ones not yet dealt."""
        free_at = np.flatnonzero(allowed & ~taken)
        if len(free_at) < count:
            raise ValueError("no deal of the unseen tiles fits this position")
        at = rng.choice(free_at, count, replace=False)
        taken[at] = True
        return pool[at].tolist()

    hands = {p: list(known[p]) for p in hidden}
    free = {p: len(state.hands[p]) - len(known[p]) - (p == mover and drawn_rule is not None) for p in hidden}
    for p in hidden:  # tiles known to fit nowhere first, then the drawn tile, then the rest (exact: see docs)
        if rule[p] == "none_fit":
            hands[p] += take(free[p], ~fits[pool])
            free[p] = 0
    drawn = -1
    if drawn_rule is not None:
        drawn = take(1, fits[pool] if drawn_rule == "fit" else np.ones(len(pool), dtype=bool))[0]
        hands[mover].append(drawn)
    if need_fit and not fits[hands[mover]].any():
        left = ~taken
        good = int(np.count_nonzero(left & fits[pool]))
        k = _fitting_count(good, int(np.count_nonzero(left)) - good, free[mover], rng)
        hands[mover] += take(k, fits[pool]) + take(free[mover] - k, ~fits[pool])
        free[mover] = 0
    for p in hidden:
        hands[p] += take(free[p], np.ones(len(pool), dtype=bool))
    bag = rng.permutation(pool[~taken]).tolist()  # the rest, in random order

    new_hands = [sorted(hands[p]) if p in hands else list(state.hands[p]) for p in range(n)]
    new = type(state)(state.game, new_hands, bag, state.placements, state.first_player, state.table)
    new.current, new.phase, new.drew, new.idle_turns = state.current, state.phase, state.drew, state.idle_turns
    new.finished, new.points = list(state.finished), list(state.points)
    new.chosen, new.orientation, new.drawn = state.chosen, state.orientation, state.drawn
    if mover in hands and state.phase != OVER:
        new.drawn = drawn
        if state.phase == PLACE:
            legal = choices[np.isin(choices[:, 0], [drawn] if drawn >= 0 else new_hands[mover])]
            new.chosen, new.orientation = (int(v) for v in legal[int(rng.integers(len(legal)))])
    return new


def _idle_seats(state) -> list[int]:
    """The seats of the last `idle_turns` turns (passes with an empty bag and nothing to lay)."""
    n = state.game.num_players
    last = state.current if state.phase == OVER else state.current - 1  # whose turn was the latest complete one
    return [(last - k) % n for k in range(min(state.idle_turns, n))]


def _fitting_count(good: int, bad: int, size: int, rng: np.random.Generator) -> int:
    """Fitting tiles in a uniform hand of `size` from `good` fitting and `bad` other tiles, given at least one."""
    weights = np.array([comb(good, k) * comb(bad, size - k) for k in range(1, size + 1)], dtype=float)
    if not weights.sum():
        raise ValueError("no deal of the unseen tiles gives the player to move a tile that fits")
    return 1 + int(rng.choice(size, p=weights / weights.sum()))

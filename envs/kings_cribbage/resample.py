"""Determinization: a full Kings Cribbage position drawn from what one seat knows (`resample_from_infostate`).

Hidden from `seat`: the other racks, the order of every bag (the contents too, where other racks draw from
it), the tiles the player to move has chosen for an exchange, and the generator behind later bag shuffles.
Known to it: its own rack, the board, the move being built (`pending`: public tiles of the mover's rack),
every rack size, bag size, score and the count of turns without a move. Per bag, the unseen tiles are that
bag's tiles less the board and the racks `seat` can see; they are dealt at random into the hidden racks that
draw from it and the bag, uniformly over the deals the position allows (docs/kings_cribbage.md,
"Determinization"), by drawing deals and keeping the first the saved-state loader accepts:

- the move being built must still extend to a legal move with the mover's rack;
- an exchange being chosen means the mover has no legal move; the chosen tiles are a uniform choice of
  `marked_count` of its rack's tiles;
- with every bag empty, an unfinished game has a seat that can move.

Once the game is over the racks are counted out in the open, so only the bags' order is redrawn. The state is
built through the JSON form (`position_json` / `state_from_json`).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from tabletop.envs.core import InvalidStateError
from tabletop.envs.kings_cribbage.tiles import FACE_KIND, NUM_RANKS

MAX_TRIES = 5000


def unseen_tiles(state, seat: int) -> list[Counter]:
    """Per bag: the tile kinds `seat` has not seen (in that bag or in a rack drawing from it, not `seat`'s own)."""
    g = state.game
    board = Counter((state.colours * NUM_RANKS + state.printed - 1)[state.values > 0].tolist())
    pools = []
    for b, tiles in enumerate(g.bag_tiles()):
        pool = Counter(tiles)
        pool.subtract(board)
        if g.bag_of[seat] == b:
            pool.subtract(state.racks[seat])
        pools.append(+pool)
    return pools


def resample(state, seat: int, rng: np.random.Generator):
    """A new state with the hidden racks, the bags and the generator redrawn from what `seat` knows."""
    g = state.game
    n = g.num_players
    if not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
        raise ValueError(f"seat must be an int in [0, {n}), got {seat!r}")
    seat = int(seat)
    data = state.position_json(None)  # every try draws its own generator
    hidden = [] if state.terminal else [p for p in range(n) if p != seat]
    pending = [int(FACE_KIND[a // g.cells]) for a in state.pending]  # laid in the open, still on the mover's rack
    pools = unseen_tiles(state, seat)
    if state.terminal:  # the racks are shown at the end: only the bags' order is unknown
        pools = [Counter(bag) for bag in state.bags]
    last = None
    for _ in range(MAX_TRIES):
        racks = [list(r) for r in state.racks]
        bags = []
        for b, pool in enumerate(pools):
            tiles = np.array(sorted(pool.elements()), dtype=np.int64)
            if state.current in hidden and g.bag_of[state.current] == b:
                tiles = _without(tiles, pending)
            rng.shuffle(tiles)
            for p in hidden:
                if g.bag_of[p] != b:
                    continue
                keep = pending if p == state.current else []
                size = len(state.racks[p]) - len(keep)
                racks[p], tiles = sorted(keep + tiles[:size].tolist()), tiles[size:]
            bags.append(tiles.tolist())
        data.update(racks=racks, bags=bags, rng=_fresh_generator_state(rng))
        if state.marked and state.current != seat:
            rack = racks[state.current]
            data["marked"] = sorted(rack[i] for i in rng.choice(len(rack), len(state.marked), replace=False))
        try:
            return g.state_from_json(data)
        except InvalidStateError as error:  # a deal the position rules out: draw again
            last = error
    raise RuntimeError(f"no deal of the unseen tiles fitted this position in {MAX_TRIES} tries (last: {last})")


def _without(tiles: np.ndarray, kinds: list[int]) -> np.ndarray:
    """`tiles` less one tile of each of `kinds`."""
    tiles = tiles.tolist()
    for kind in kinds:
        tiles.remove(kind)
    return np.array(tiles, dtype=np.int64)


def _fresh_generator_state(rng: np.random.Generator) -> dict:
    """A new PCG64 state seeded from `rng`, for the shuffles after later exchanges."""
    return np.random.PCG64(int(rng.integers(2**63))).state

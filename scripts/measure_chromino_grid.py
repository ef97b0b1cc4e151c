"""Measure how far Chromino layouts spread, to choose the bounded grid (docs/chromino.md, "The grid").

Plays games on a grid so large that no game reaches its edge (checked), with random and heuristic
players, and records the Chebyshev radius (cells from the start tile's centre) of every layout, every
placement made, and every legal placement offered at the start of a turn. For each odd grid side G it
then reports how many games would have fitted, and how often a legal placement fell outside.

    python scripts/measure_chromino_grid.py --games 10000 --out /tmp/chromino_grid.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from tabletop.agents.base import RandomAgent
from tabletop.agents.chromino import MostContacts, ShedHardest
from tabletop.envs.chromino.rules import ChrominoGame

HUGE = 241  # a chain of 79 tiles could reach 120 cells out only in a straight line; checked below
PLAYER_COUNTS = (2, 2, 3, 4)


def radius(moves: np.ndarray, middle: int) -> np.ndarray:
    """Chebyshev distance from the middle cell of the farthest square of each placement."""
    vertical = moves[:, 1] >= 2
    return np.maximum(np.abs(moves[:, 2] - middle) + vertical, np.abs(moves[:, 3] - middle) + ~vertical)


def play(game: ChrominoGame, agents, rng: np.random.Generator, record: dict) -> int:
    state = game.new_initial_state(rng)
    middle = game.grid_size // 2
    layout = 1
    while not state.is_terminal():
        seat = state.current_player
        view = state.view(seat)
        if view["phase"] == "choose" and len(view["legal_moves"]):
            record["offered"].append(int(radius(view["legal_moves"], middle).max()))
        placed = len(state.placements)
        state.apply(agents[seat].act(None, state.legal_action_mask(), view))
        if len(state.placements) > placed:
            p = state.placements[-1]
            r = int(radius(np.array([[p.tile, p.orientation, p.row, p.col, 0]]), middle)[0])
            record["placed"].append(r)
            layout = max(layout, r)
    record["layout"].append(layout)
    return layout


def summarise(record: dict, sides: range) -> list[dict]:
    layout, offered, placed = (np.array(record[k]) for k in ("layout", "offered", "placed"))
    rows = []
    for g in sides:
        reach = g // 2
        rows.append(
            {
                "grid": g,
                "actions": 322 + g * g,
                "games_fitting": float((layout <= reach).mean()),
                "turns_with_legal_placement_outside": float((offered > reach).mean()),
                "placements_outside": float((placed > reach).mean()),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the raw radii and the table as JSON here")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    games = {n: ChrominoGame(num_players=n, grid_size=HUGE) for n in set(PLAYER_COUNTS)}
    pools = {
        "random": lambda i: RandomAgent(args.seed + i),
        "heuristic": lambda i: (MostContacts, ShedHardest)[i % 2](args.seed + i),
    }
    record = {"layout": [], "offered": [], "placed": []}
    kinds = {"random": 0, "heuristic": 0}
    start = time.perf_counter()
    for i in range(args.games):
        n = PLAYER_COUNTS[i % len(PLAYER_COUNTS)]
        kind = "random" if (i // len(PLAYER_COUNTS)) % 2 == 0 else "heuristic"
        kinds[kind] += 1
        agents = [pools[kind](i * 8 + seat) for seat in range(n)]
        if play(games[n], agents, rng, record) >= HUGE // 2 - 1:
            raise SystemExit(f"game {i} reached the edge of the {HUGE}-cell measurement grid")
    seconds = time.perf_counter() - start
    rows = summarise(record, range(15, 62, 2))
    layout = np.array(record["layout"])
    print(f"{args.games} games ({kinds}) in {seconds:.0f}s; player counts cycle {PLAYER_COUNTS}")
    print(
        f"layout radius: median {np.median(layout):.0f}, 99th pct {np.percentile(layout, 99):.0f}, "
        f"99.9th pct {np.percentile(layout, 99.9):.0f}, max {layout.max()}"
    )
    print(f"{'grid':>5} {'actions':>8} {'games fit':>10} {'turns w/ legal outside':>23} {'placements outside':>19}")
    for row in rows:
        print(
            f"{row['grid']:>5} {row['actions']:>8} {row['games_fitting']:>10.4%} "
            f"{row['turns_with_legal_placement_outside']:>23.4%} {row['placements_outside']:>19.4%}"
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"games": args.games, "kinds": kinds, "table": rows, **record}, f)


if __name__ == "__main__":
    main()

"""Time code that replaced slower code against the replaced code kept in tests/oracles/, in one process,
alternating, by CPU time (docs/speed.md: the encoders and Kings Cribbage's rack templates):

    python scripts/bench_replaced.py

- KRZ GRTN's and Kings Cribbage's encoders against `OracleObserver` (the plain numpy encoders), on the
  positions of seeded random games, best of 7 passes each;
- Kings Cribbage's engine alone (`engine_play`, as `tabletop bench` drives it) with the rack templates built by
  the numpy oracle against the kernel, the template cache emptied before every 10 games (a fresh process);
- Cromlet's heuristics (`act`) against their one-action-at-a-time Python (docs/speed.md: Cromlet's heuristics
  in one compiled loop), best of 7 passes over the positions of seeded random games.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from oracles import cromlet_heuristics  # noqa: E402
from oracles.kings_cribbage_observe import OracleObserver as KingsCribbageOracle  # noqa: E402
from oracles.kings_cribbage_rack import template as numpy_template  # noqa: E402
from oracles.krz_grtn_observe import OracleObserver as KrzGrtnOracle  # noqa: E402

from tabletop.agents import cromlet  # noqa: E402
from tabletop.envs import EnvSpec  # noqa: E402
from tabletop.envs.cromlet.rules import CromletGame  # noqa: E402
from tabletop.envs.kings_cribbage import rack  # noqa: E402
from tabletop.envs.kings_cribbage.observe import KingsCribbageObserver  # noqa: E402
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame  # noqa: E402
from tabletop.envs.krz_grtn.observe import KrzGrtnObserver  # noqa: E402
from tabletop.envs.krz_grtn.rules import KrzGrtnGame  # noqa: E402
from tabletop.train.evaluation.bench import engine_play  # noqa: E402


def _positions(game, games: int) -> list:
    states = []
    for seed in range(games):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            states.append(state.clone())
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    return states


def _alternate(name: str, what: str, count: int, calls: dict) -> None:
    """Best of 7 passes of each side's call over `count` items, the sides alternating; one line of us per item."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(7):
        for side, call in calls.items():
            start = time.process_time()
            call()
            best[side] = min(best[side], (time.process_time() - start) / count * 1e6)
    print(
        f"{name}, {count} positions: {what} {best['replaced']:.1f} us replaced, {best['now']:.1f} us now, "
        f"{best['replaced'] / best['now']:.2f}x"
    )


def encoders(name: str, game, replaced, now, games: int) -> None:
    states = _positions(game, games)
    sides = {"replaced": replaced, "now": now}
    calls = {side: lambda o=o: [o.encode(s, s.current_player) for s in states] for side, o in sides.items()}
    _alternate(name, "encoding", len(states), calls)


def heuristics(name: str, games: int = 20) -> None:
    states = _positions(CromletGame(num_players=2), games)
    asked = [(s.legal_action_mask(), s.view(s.current_player)) for s in states]
    sides = {"replaced": cromlet_heuristics.HEURISTICS[name](seed=0), "now": cromlet.HEURISTICS[name](seed=0)}
    calls = {side: lambda h=h: [h.act(None, mask, view) for mask, view in asked] for side, h in sides.items()}
    _alternate(f"Cromlet 2p {name}", "act", len(asked), calls)


def templates(rounds: int = 4, games: int = 10) -> None:
    spec, kernel_builder = EnvSpec("kings_cribbage_v0"), rack._template
    builders = {"numpy templates (replaced)": numpy_template, "kernel templates (now)": kernel_builder}
    engine_play(spec, 1, 999)  # kernels loaded
    totals = {name: [0, 0.0] for name in builders}
    try:
        for r in range(rounds):
            for name, builder in builders.items():
                rack._template = builder
                rack._TEMPLATES.clear()
                start = time.process_time()
                totals[name][0] += engine_play(spec, games, 100 * r).steps
                totals[name][1] += time.process_time() - start
    finally:
        rack._template = kernel_builder
    for name, (steps, seconds) in totals.items():
        print(f"Kings Cribbage engine alone, {name}: {steps} steps, {steps / seconds:,.0f} steps per CPU-second")


def main() -> None:
    krz = KrzGrtnGame(num_players=4)
    encoders("KRZ GRTN 4p private", krz, KrzGrtnOracle(krz, False), KrzGrtnObserver(krz, False), 60)
    kc = KingsCribbageGame()
    encoders(
        "Kings Cribbage 2p tiles private", kc, KingsCribbageOracle(kc, False), KingsCribbageObserver(kc, False), 15
    )
    templates()
    for name in ("patient", "blocker"):
        heuristics(name)


if __name__ == "__main__":
    main()

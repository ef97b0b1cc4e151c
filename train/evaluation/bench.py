"""Random-play throughput of a game against what users would pick instead, measured in one run.

Three loops over our game: the **engine** alone (`State.apply` and `legal_action_mask`, no observation:
what a search player or a custom batched learner pays), the **AEC** loop through the public PettingZoo API
(`agent_iter`, `last`, `step`: what a PettingZoo user pays, observation included), and a baseline in the
same process. A PettingZoo classic baseline (`connect_four_v3`, `go_v5`, ...) runs the same AEC loop; an
OpenSpiel baseline (`openspiel:cribbage`) runs the same engine loop on `pyspiel`, chance nodes sampled from
their outcomes. Every loop draws uniformly among the legal actions with one numpy generator (not
gymnasium's `Discrete.sample(mask)`, which costs ~20 us a call and would hide the envs behind the driver;
`legal_actions` reads a mask as a bool view for the same reason; the engine loop asks the State for its
`legal_actions()`, as the OpenSpiel loop asks pyspiel's),
and the sides take turns over a few rounds, so a machine whose load changes slows them alike. Each loop is
timed by the wall clock and by the process's CPU time: on a shared machine a loop's share of a core swings
from round to round, and the ratio of steps per CPU-second is the steadier figure (every loop runs on one
thread).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tabletop.envs import EnvSpec
from tabletop.envs.core.state import mask_indices as legal_actions  # the driver's read of an AEC mask

PETTINGZOO_CLASSIC = {
    "connect_four_v3": "pettingzoo.classic.connect_four_v3",
    "go_v5": "pettingzoo.classic.go_v5",
    "tictactoe_v3": "pettingzoo.classic.tictactoe_v3",
    "texas_holdem_v4": "pettingzoo.classic.texas_holdem_v4",
}
OPENSPIEL = "openspiel:"


@dataclass
class Throughput:
    name: str
    games: int = 0
    steps: int = 0
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # the process's CPU time

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds

    @property
    def steps_per_cpu_second(self) -> float:
        return self.steps / self.cpu_seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    def add(self, other: Throughput) -> None:
        self.games += other.games
        self.steps += other.steps
        self.seconds += other.seconds
        self.cpu_seconds += other.cpu_seconds


class _Clocks:
    """The wall clock and the CPU time since it was made."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def throughput(self, name: str, games: int, steps: int) -> Throughput:
        return Throughput(name, games, steps, time.perf_counter() - self.wall, time.process_time() - self.cpu)


def random_play(env, games: int, seed: int = 0, name: str = "") -> Throughput:
    """Play `games` uniformly random games through the AEC API (the env's own observations and masks) and time them."""
    steps = 0
    clocks = _Clocks()
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        env.reset(seed=seed + g)
        for _ in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = legal_actions(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    return clocks.throughput(name, games, steps)


def engine_play(env: EnvSpec, games: int, seed: int = 0) -> Throughput:
    """Play `games` uniformly random games on the rules alone (no observation, no PettingZoo) and time them: each
    step draws among `State.legal_actions()` (the mask's nonzero indices, which a game may keep from its mask's
    kernel instead of a scan of the whole mask)."""
    game = env.new_game()
    steps = 0
    clocks = _Clocks()
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
            steps += 1
    return clocks.throughput(f"{env} engine", games, steps)


def openspiel_play(name: str, games: int, seed: int = 0) -> Throughput:
    """Random games of an OpenSpiel game driven from Python as `engine_play` drives ours: a uniform draw among
    `legal_actions()`, chance outcomes sampled by their probabilities. Counts the players' decisions."""
    pyspiel = _import_openspiel()
    game = pyspiel.load_game(name)
    steps = 0
    clocks = _Clocks()
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                continue
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    return clocks.throughput(f"{OPENSPIEL}{name} engine", games, steps)


def baseline_env(name: str, **kwargs):
    from tabletop.agents.extras import require  # here: scripts/bench_commit.py runs these loops on older engines

    if name not in PETTINGZOO_CLASSIC:
        raise ValueError(f"unknown baseline {name!r}; allowed: {', '.join(allowed_baselines())}")
    require(f"the {name} baseline", "pygame")  # every PettingZoo classic module imports it
    if name == "texas_holdem_v4":
        require(f"the {name} baseline", "rlcard")
    return importlib.import_module(PETTINGZOO_CLASSIC[name]).env(**kwargs)


def allowed_baselines() -> list[str]:
    return [*PETTINGZOO_CLASSIC, f"{OPENSPIEL}GAME (e.g. {OPENSPIEL}cribbage)"]


def _import_openspiel():
    try:
        import pyspiel
    except ModuleNotFoundError:
        from tabletop.agents.extras import MissingExtra

        raise MissingExtra("an OpenSpiel baseline needs OpenSpiel: pip install open-spiel", name="pyspiel") from None
    return pyspiel


def _loops(
    env: EnvSpec, baselines: list[str], games: int, baseline_games: int
) -> list[tuple[str, int, Callable, Throughput]]:
    """(kind, games, play(count, seed), running total) for every loop of the run; bad baselines fail before any plays."""
    aec = env.make()
    loops = [
        ("engine", games, lambda count, s: engine_play(env, count, s), Throughput(f"{env} engine")),
        ("aec", games, lambda count, s: random_play(aec, count, s), Throughput(f"{env} AEC")),
    ]
    for name in baselines:
        if name.startswith(OPENSPIEL):
            game = name[len(OPENSPIEL) :]
            pyspiel = _import_openspiel()
            try:
                pyspiel.load_game(game)
            except Exception:  # noqa: BLE001 - pyspiel raises its own error for an unknown game
                raise ValueError(f"unknown OpenSpiel game {game!r} (pyspiel.registered_names() lists them)") from None
            loops.append(
                (
                    "engine",
                    baseline_games,
                    lambda count, s, g=game: openspiel_play(g, count, s),
                    Throughput(f"{name} engine"),
                )
            )
        else:
            baseline = baseline_env(name)
            loops.append(
                (
                    "aec",
                    baseline_games,
                    lambda count, s, b=baseline: random_play(b, count, s),
                    Throughput(f"{name} AEC"),
                )
            )
    return loops


def compare(
    env: EnvSpec, baselines: list[str] | str, games: int, baseline_games: int, seed: int = 0, rounds: int = 10
) -> str:
    """Measure our engine and AEC loop and each baseline in the same process, taking turns `rounds` times
    (each round plays its share of the games); return a report with the ratios: a PettingZoo baseline
    against our AEC loop, an OpenSpiel one against our engine."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    baselines = [baselines] if isinstance(baselines, str) else list(baselines)
    loops = _loops(env, baselines, games, baseline_games)
    for _, count, play, _ in loops:
        play(1, seed + count)  # untimed, a seed the timed games do not use: compiled kernels load, caches fill
    for r in range(rounds):
        for _, count, play, total in loops:
            start, stop = count * r // rounds, count * (r + 1) // rounds
            if stop > start:
                total.add(play(stop - start, seed + start))
    rows = [f"{'loop':<52} {'games':>6} {'steps':>8} {'steps/s':>10} {'games/s':>9} {'steps/CPU-s':>12}"]
    for _, _, _, t in loops:
        rows.append(
            f"{t.name:<52} {t.games:>6} {t.steps:>8} {t.steps_per_second:>10.0f} {t.games_per_second:>9.2f} "
            f"{t.steps_per_cpu_second:>12.0f}"
        )
    ours = {kind: total for kind, _, _, total in loops[:2]}
    for kind, _, _, theirs in loops[2:]:
        rows.append(
            f"ratio ({ours[kind].name} / {theirs.name}): steps/s "
            f"{ours[kind].steps_per_second / theirs.steps_per_second:.2f}x; steps per CPU-second "
            f"{ours[kind].steps_per_cpu_second / theirs.steps_per_cpu_second:.2f}x"
        )
    rows.append(f"({rounds} rounds, taking turns; engine = rules only, AEC = the PettingZoo loop with observations)")
    return "\n".join(rows)

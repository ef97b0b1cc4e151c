"""Exact exploitability on the small variants (`tabletop.envs.openspiel.SMALL`), with OpenSpiel's own tools.

`count` walks the whole tree (histories, decisions, chance nodes, terminals, information states);
`nash_conv` is OpenSpiel's `exploitability.nash_conv` of a policy; `best_response_values` the value of each
seat's exact best response to it; `cfr_plus` runs `cfr.CFRPlusSolver` and records NashConv along the way.

    python -m tabletop.train.benchmark.openspiel_exact chromino_small --agents random,most_contacts --cfr 200 --every 10
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

from open_spiel.python.algorithms import best_response, cfr, expected_game_score, exploitability

from tabletop.agents.openspiel_policy import AgentPolicy
from tabletop.envs import EnvSpec
from tabletop.envs.openspiel import PREFIX, SMALL, load
from tabletop.envs.openspiel.game import ADAPTER_ONLY, env_kwargs


def small_variant(env: EnvSpec) -> str | None:
    """The name of the small variant `env` is (its game's arguments those of one of `SMALL`), or None."""
    for name, (game, params) in SMALL.items():
        env_id = game.removeprefix(PREFIX)
        if env_id == env.env_id and _game_args(EnvSpec(env_id, env_kwargs(env_id, params))) == _game_args(env):
            return name
    return None


def _game_args(env: EnvSpec) -> dict[str, Any]:
    return {k: v for k, v in env.resolved().items() if k not in ADAPTER_ONLY}


def count(game: Any) -> dict[str, int]:
    """The size of `game`'s whole tree: every history by kind, the information states of the decisions and the
    most decisions in one game."""
    sizes = {"histories": 0, "decisions": 0, "chance_nodes": 0, "terminals": 0, "longest": 0}
    states: set[str] = set()
    stack = [(game.new_initial_state(), 0)]
    while stack:
        state, depth = stack.pop()
        sizes["histories"] += 1
        if state.is_terminal():
            sizes["terminals"] += 1
            sizes["longest"] = max(sizes["longest"], depth)
        elif state.is_chance_node():
            sizes["chance_nodes"] += 1
            stack.extend((state.child(a), depth) for a, _ in state.chance_outcomes())
        else:
            sizes["decisions"] += 1
            states.add(state.information_state_string())
            stack.extend((state.child(a), depth + 1) for a in state.legal_actions())
    return {**sizes, "information_states": len(states)}


def nash_conv(game: Any, policy: Any) -> float:
    """The sum over seats of what each seat's exact best response gains over `policy` (0 at a Nash equilibrium)."""
    return float(exploitability.nash_conv(game, policy))


def best_response_values(game: Any, policy: Any) -> list[float]:
    """Each seat's expected return when it plays its exact best response and `policy` plays every other seat."""
    return [
        float(best_response.BestResponsePolicy(game, p, policy).value(game.new_initial_state()))
        for p in range(game.num_players())
    ]


def policy_values(game: Any, policy: Any) -> list[float]:
    """Each seat's expected return when `policy` plays every seat."""
    return [float(v) for v in expected_game_score.policy_value(game.new_initial_state(), [policy] * game.num_players())]


def values_against(game: Any, learner: Any, target: Any) -> list[float]:
    """Each seat's expected return when `learner` plays that seat and `target` every other one."""
    n, start = game.num_players(), game.new_initial_state()
    return [
        float(expected_game_score.policy_value(start, [learner if s == seat else target for s in range(n)])[seat])
        for seat in range(n)
    ]


def cfr_plus(game: Any, iterations: int, every: int) -> tuple[Any, list[tuple[int, float]]]:
    """CFR+ for `iterations` iterations; its average policy and NashConv every `every` iterations."""
    solver, curve = cfr.CFRPlusSolver(game), []
    for done in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if done % every == 0 or done == iterations:
            curve.append((done, nash_conv(game, solver.average_policy())))
    return solver.average_policy(), curve


def plot(curve: Sequence[tuple[int, float]], uniform: float, title: str, path: str) -> None:
    """The CFR+ curve (NashConv against iterations) beside the uniform policy's NashConv, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.6))
    axes.plot([i for i, _ in curve], [v for _, v in curve], marker="o", markersize=3, label="CFR+ average policy")
    axes.axhline(uniform, color="grey", linestyle="--", label="uniform random")
    axes.axhline(0.05 * uniform, color="grey", linestyle=":", label="5% of uniform")
    axes.set_yscale("log")
    axes.set_xlabel("CFR+ iterations")
    axes.set_ylabel("NashConv")
    axes.set_title(title)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tabletop.train.benchmark.openspiel_exact", description=__doc__.split("\n")[0]
    )
    parser.add_argument("variant", choices=sorted(SMALL), help="the small variant")
    parser.add_argument("--agents", default="random", help="comma-separated agent specs whose NashConv to compute")
    parser.add_argument("--count", action="store_true", help="walk the tree and count it")
    parser.add_argument("--cfr", type=int, default=0, help="CFR+ iterations (0: none)")
    parser.add_argument("--every", type=int, default=10, help="NashConv of CFR+ every this many iterations")
    parser.add_argument("--png", help="write the CFR+ curve here")
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args(argv)
    game, result = load(args.variant), {"variant": args.variant, "game": str(load(args.variant))}
    if args.count:
        start = time.perf_counter()
        result["count"] = count(game)
        print(f"tree: {result['count']} ({time.perf_counter() - start:.0f} s)", flush=True)
    result["nash_conv"] = {}
    for spec in filter(None, args.agents.split(",")):
        start = time.perf_counter()
        policy = AgentPolicy(game, spec)
        value = result["nash_conv"][spec] = nash_conv(game, policy)
        print(f"NashConv {spec}: {value:.4f} ({time.perf_counter() - start:.0f} s)", flush=True)
    if args.cfr:
        start = time.perf_counter()
        _, curve = cfr_plus(game, args.cfr, args.every)
        result["cfr_plus"] = curve
        print(f"CFR+ {curve} ({time.perf_counter() - start:.0f} s)", flush=True)
        if args.png:
            uniform = result["nash_conv"].get("random") or nash_conv(game, AgentPolicy(game, "random"))
            plot(curve, uniform, f"CFR+ on {args.variant}", args.png)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

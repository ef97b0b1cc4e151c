"""The `tabletop` command: tournaments, benchmarks (training, evaluation and export join here)."""

from __future__ import annotations

import argparse
import json
import sys

import envs


def _tournament(args: argparse.Namespace) -> int:
    from train.tournament import run_tournament

    result = run_tournament(
        args.env_id, args.agents, args.games, seed=args.seed, env_kwargs=args.env_kwargs, progress=not args.quiet
    )
    print(result.table())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(), f, indent=2)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from train.bench import compare

    print(compare(args.env_id, args.baseline, args.games, args.baseline_games, args.seed, **args.env_kwargs))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop", description="tabletop-rl: four tabletop games for multi-agent RL")
    sub = parser.add_subparsers(dest="command", required=True)

    t = sub.add_parser("tournament", help="play seeded games between named agents (seats rotate every game)")
    t.add_argument("env_id", choices=envs.ENV_IDS)
    t.add_argument("agents", nargs="+", help="agent specs: random, a heuristic name, ppo:PATH, onnx:DIR")
    t.add_argument("--games", type=int, default=200)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--env-kwargs", type=json.loads, default={}, help='JSON, e.g. \'{"num_players": 4}\'')
    t.add_argument("--json", help="also write the results to this JSON file")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=_tournament)

    b = sub.add_parser("bench", help="random-play throughput against a PettingZoo classic env in the same run")
    b.add_argument("env_id", choices=envs.ENV_IDS)
    b.add_argument("--baseline", default="connect_four_v3")
    b.add_argument("--games", type=int, default=200)
    b.add_argument("--baseline-games", type=int, default=500)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--env-kwargs", type=json.loads, default={})
    b.set_defaults(func=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:  # bad agent names, game options: say what is wrong, no traceback
        print(f"tabletop {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

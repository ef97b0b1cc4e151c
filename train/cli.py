"""The `tabletop` command: training, evaluation, tournaments, benchmarks, export, the agent server, play."""

from __future__ import annotations

import argparse
import json
import sys

from tabletop import envs
from tabletop.train import agent_server, export, play


def _tournament(args: argparse.Namespace) -> int:
    from tabletop.train.tournament import run_tournament

    result = run_tournament(
        args.env_id, args.agents, args.games, seed=args.seed, env_kwargs=args.env_kwargs, progress=not args.quiet
    )
    print(result.table())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(), f, indent=2)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from tabletop.train.bench import compare

    print(compare(args.env_id, args.baseline, args.games, args.baseline_games, args.seed, **args.env_kwargs))
    return 0


def _train(args: argparse.Namespace) -> int:
    from tabletop.train.config import load_config
    from tabletop.train.trainer import summary, train

    config = load_config(args.config)
    result = train(config, out=args.out, steps=args.steps, resume=args.resume, progress=not args.quiet)
    print(summary(result, config))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tabletop.train.ratings import round_robin

    result = round_robin(
        args.env_id, args.agents, args.games, seed=args.seed, env_kwargs=args.env_kwargs, progress=not args.quiet
    )
    print(result.table())
    if args.out:
        for path in result.write(Path(args.out)):
            print(f"wrote {path}")
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

    tr = sub.add_parser("train", help="self-play MaskablePPO against heuristics, random and snapshots (YAML config)")
    tr.add_argument("config", help="a YAML config, e.g. configs/cromlet.yaml")
    tr.add_argument("--steps", type=int, help="total learner env steps (default: the config's total_steps)")
    tr.add_argument("--out", help="run folder (default: runs/<env_id>-<date-time>)")
    tr.add_argument("--resume", help="continue from a checkpoint folder or a run folder's newest checkpoint")
    tr.add_argument("--quiet", action="store_true", help="no progress bar")
    tr.set_defaults(func=_train)

    e = sub.add_parser("eval", help="round robin among agents: win-rate matrix and OpenSkill ratings")
    e.add_argument("env_id", choices=envs.ENV_IDS)
    e.add_argument("agents", nargs="+", help="two or more agent specs: random, a heuristic name, ppo:PATH, onnx:DIR")
    e.add_argument("--games", type=int, default=200, help="games per pair of agents")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--env-kwargs", type=json.loads, default={})
    e.add_argument("--out", help="write round_robin.json, win_rates.csv, ratings.csv and win_rates.png here")
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.set_defaults(func=_eval)

    b = sub.add_parser("bench", help="random-play throughput against a PettingZoo classic env in the same run")
    b.add_argument("env_id", choices=envs.ENV_IDS)
    b.add_argument("--baseline", default="connect_four_v3")
    b.add_argument("--games", type=int, default=200)
    b.add_argument("--baseline-games", type=int, default=500)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--env-kwargs", type=json.loads, default={})
    b.set_defaults(func=_bench)

    for module in (export, agent_server, play):  # each registers its own subcommand
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:  # bad agent names, game options, configs: say what is wrong, no traceback
        print(f"tabletop {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

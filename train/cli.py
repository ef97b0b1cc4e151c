"""The `tabletop` command: training, evaluation, tournaments, benchmarks, export, the agent server, play.

Each subcommand parses its arguments, builds the game as an `EnvSpec` and calls one room of
`tabletop.train`; the rooms are imported only when their subcommand runs, so the command starts without
torch or onnxruntime. Every bad argument (an unknown agent, a game option out of range, a config typo)
ends as one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tabletop.envs import ENV_IDS, EnvSpec

AGENT_SPECS = "random, a heuristic name, ppo:PATH, onnx:DIR"


def env_spec(env_id: str, env_kwargs: str | None) -> EnvSpec:
    """The game from a GAME argument and the `--env-kwargs` JSON object (absent: the defaults)."""
    try:
        kwargs = json.loads(env_kwargs) if env_kwargs is not None else {}
    except json.JSONDecodeError as err:
        raise ValueError(f"--env-kwargs is not valid JSON ({err}): {env_kwargs}") from None
    if not isinstance(kwargs, dict):
        raise ValueError(f"--env-kwargs must be a JSON object such as '{{\"num_players\": 3}}', got {env_kwargs}")
    return EnvSpec(env_id, kwargs)


# --- subcommands --------------------------------------------------------------------------------------------
def _tournament(args: argparse.Namespace) -> int:
    from tabletop.train.evaluation.tournament import run_tournament

    result = run_tournament(
        env_spec(args.env_id, args.env_kwargs), args.agents, args.games, seed=args.seed, progress=not args.quiet
    )
    print(result.table())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(), f, indent=2)
    return 0


def _train(args: argparse.Namespace) -> int:
    from tabletop.train.selfplay.config import load_config
    from tabletop.train.selfplay.trainer import summary, train

    config = load_config(args.config)
    result = train(config, out=args.out, steps=args.steps, resume=args.resume, progress=not args.quiet)
    print(summary(result, config))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from tabletop.train.evaluation.ratings import round_robin

    result = round_robin(
        env_spec(args.env_id, args.env_kwargs), args.agents, args.games, seed=args.seed, progress=not args.quiet
    )
    print(result.table())
    if args.out:
        for path in result.write(Path(args.out)):
            print(f"wrote {path}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from tabletop.train.evaluation.bench import compare

    print(compare(env_spec(args.env_id, args.env_kwargs), args.baseline, args.games, args.baseline_games, args.seed))
    return 0


def _export(args: argparse.Namespace) -> int:
    from tabletop.agents.onnx_agent import METADATA_FILE, MODEL_FILE
    from tabletop.train.serving.export import export_trained

    if args.env_kwargs is not None and args.env_id is None:
        raise ValueError("--env-kwargs needs --env-id: they name the game together")
    env = env_spec(args.env_id, args.env_kwargs) if args.env_id is not None else None
    meta = export_trained(args.source, args.out, env)
    check = meta["verification"]
    print(
        f"wrote {Path(args.out) / MODEL_FILE} and {METADATA_FILE}: {meta['env_id']} {meta['env_kwargs']}, "
        f"{meta['observation']['size']} inputs, {meta['actions']['count']} actions; onnxruntime matches torch on "
        f"{check['positions']} positions (max logit difference {check['max_abs_logit_diff']:.2e})"
    )
    return 0


def _agent(args: argparse.Namespace) -> int:
    from tabletop.agents import OnnxAgent
    from tabletop.train.serving.agent_server import AgentServer

    AgentServer(OnnxAgent(args.model)).serve(sys.stdin, sys.stdout)
    return 0


def _play(args: argparse.Namespace) -> int:
    from tabletop.train.serving.play import InputEnded, play

    try:
        play(env_spec(args.env_id, args.env_kwargs), args.opponent, args.seat, args.seed)
    except InputEnded as err:
        print(f"\n{err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # a human leaving mid-game is not an error worth a traceback
        print("\ngame abandoned", file=sys.stderr)
        return 130
    return 0


# --- the parser -----------------------------------------------------------------------------------------------
def _game_arguments(p: argparse.ArgumentParser, example: str = '{"num_players": 3}') -> None:
    p.add_argument("env_id", metavar="GAME", choices=ENV_IDS, help=f"one of {', '.join(ENV_IDS)}")
    p.add_argument("--env-kwargs", metavar="JSON", help=f"the game's arguments as a JSON object, e.g. '{example}'")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop", description="tabletop-rl: four tabletop games for multi-agent RL")
    sub = parser.add_subparsers(dest="command", required=True)

    t = sub.add_parser("tournament", help="play seeded games between named agents (seats rotate every game)")
    _game_arguments(t, '{"num_players": 4}')
    t.add_argument("agents", nargs="+", help=f"agent specs: {AGENT_SPECS}")
    t.add_argument("--games", type=int, default=200)
    t.add_argument("--seed", type=int, default=0)
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
    _game_arguments(e)
    e.add_argument("agents", nargs="+", help=f"two or more agent specs: {AGENT_SPECS}")
    e.add_argument("--games", type=int, default=200, help="games per pair of agents")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--out", help="write round_robin.json, win_rates.csv, ratings.csv and win_rates.png here")
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.set_defaults(func=_eval)

    b = sub.add_parser("bench", help="random-play throughput against a PettingZoo classic env in the same run")
    _game_arguments(b)
    b.add_argument("--baseline", default="connect_four_v3")
    b.add_argument("--games", type=int, default=200)
    b.add_argument("--baseline-games", type=int, default=500)
    b.add_argument("--seed", type=int, default=0)
    b.set_defaults(func=_bench)

    x = sub.add_parser("export", help="export a trained policy to ONNX with metadata for other frontends")
    x.add_argument("source", metavar="RUN_OR_CHECKPOINT", help="a run folder, a checkpoint folder or a model .zip")
    x.add_argument("--out", required=True, help="folder to write model.onnx and metadata.json into")
    x.add_argument("--env-id", choices=ENV_IDS, help="the game, for a model zip outside a run folder")
    x.add_argument("--env-kwargs", metavar="JSON", help="the game's arguments as a JSON object, with --env-id")
    x.set_defaults(func=_export)

    a = sub.add_parser(
        "agent",
        help="serve an exported policy: one JSON state (or observation + mask) per stdin line, one action per stdout line",
    )
    a.add_argument("--model", required=True, help="an export folder (tabletop export): model.onnx and metadata.json")
    a.set_defaults(func=_agent)

    p = sub.add_parser("play", help="play a game in the terminal against an agent")
    _game_arguments(p)
    p.add_argument("--opponent", required=True, help=f"agent for every other seat: {AGENT_SPECS}")
    p.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0)")
    p.add_argument("--seed", type=int, help="deal seed (default: a fresh deal)")
    p.set_defaults(func=_play)
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

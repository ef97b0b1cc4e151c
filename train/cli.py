"""The `tabletop` command: training, evaluation, tournaments, benchmarks, export, the agent server, play,
and the web server for play in the browser.

Each subcommand parses its arguments, builds the game as an `EnvSpec` and calls one room of
`tabletop.train`; the rooms are imported only when their subcommand runs, so the command starts without
torch or onnxruntime. Every bad argument (an unknown agent, a game option out of range, a config typo)
ends as one line on stderr and exit status 2, never a traceback; so does a missing extra, the line naming
the pip command that installs it (`tabletop.agents.extras`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from tabletop.agents.extras import EXTRA_OF, MissingExtra, missing
from tabletop.envs import ENV_IDS, EnvSpec

AGENT_SPECS = "random, a heuristic name, pretrained, ppo:PATH, onnx:DIR, search[:KEY=VALUE,...]"
DISTRIBUTION = "tabletop-rl"


def version() -> str:
    """The installed distribution's version (pyproject.toml's, once installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (game counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def env_spec(env_id: str, env_kwargs: str | None) -> EnvSpec:
    """The game from a GAME argument and the `--env-kwargs` JSON object (absent: the defaults)."""
    try:
        kwargs = json.loads(env_kwargs) if env_kwargs is not None else {}
    except json.JSONDecodeError as err:
        raise ValueError(f"--env-kwargs is not valid JSON ({err}): {env_kwargs}") from None
    except RecursionError:
        raise ValueError(
            "--env-kwargs is nested too deeply: give a flat JSON object such as '{\"num_players\": 3}'"
        ) from None
    except ValueError as err:  # an integer literal beyond Python's digit limit
        raise ValueError(f"--env-kwargs holds a number too long to read: {str(err).split(':')[0]}") from None
    if not isinstance(kwargs, dict):
        raise ValueError(f"--env-kwargs must be a JSON object such as '{{\"num_players\": 3}}', got {env_kwargs}")
    return EnvSpec(env_id, kwargs)


# --- subcommands --------------------------------------------------------------------------------------------
def _tournament(args: argparse.Namespace) -> int:
    from tabletop.train.evaluation.tournament import run_tournament, self_play_warning

    env = env_spec(args.env_id, args.env_kwargs)
    warning = self_play_warning(args.agents, env.new_game())
    if warning:  # before the games: it may be a slip in the agent list
        print(f"tabletop tournament: warning: {warning}", file=sys.stderr)
    result = run_tournament(env, args.agents, args.games, seed=args.seed, progress=not args.quiet)
    print(result.table())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(), f, indent=2)
    return 0


def _train(args: argparse.Namespace) -> int:
    """`tabletop train`: the config's family (`family:`, benchmark/training.py) trains it; Ctrl-C keeps the progress."""
    if Path(args.config).is_dir():  # the paths first: a mistyped one is refused before torch loads
        raise ValueError(_folder_of_configs(Path(args.config)))
    if not Path(args.config).is_file():
        raise ValueError(f"config file {args.config!r} does not exist")
    if args.resume is not None and not Path(args.resume).exists():
        raise ValueError(f"nothing to resume at {args.resume!r}: no such folder")
    from tabletop.train.benchmark.training import load_training, trainer_of

    try:
        config = load_training(args.config)  # any family of the registry (`family:`, or the older `backend:`)
    except RecursionError:  # YAML parses nesting recursively: 100,000 `[` exhaust the stack
        raise ValueError(f"{args.config} is nested too deeply to be a training config") from None
    from tabletop.train.selfplay.checkpoints import TrainingInterrupted  # torch: once the config is known good

    config, plan = final_evaluation(config, args.steps, args.eval_games)
    if not args.quiet:
        print(plan, flush=True)
    trainer = trainer_of(config)
    try:
        result = trainer.train(config, out=args.out, steps=args.steps, resume=args.resume, progress=not args.quiet)
    except TrainingInterrupted as stop:  # Ctrl-C: the checkpoint is written; say how to continue, no traceback
        print(f"\n{stop.advice(args.config, args.steps)}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("\ntraining stopped; the run folder keeps the checkpoints written so far", file=sys.stderr)
        return 130
    print(trainer.summary(result, config))
    return 0


def final_evaluation(config: Any, steps: int | None, eval_games: int | None) -> tuple[Any, str]:
    """The config with its final evaluation's games per opponent set, and the plan line that says what it costs.

    `eval_games` sets them; else `--steps` below the config's budget scales the config's count by the same
    fraction (at least 1 game), so a short run is not followed by a full-length evaluation."""
    import dataclasses
    import math

    from tabletop.agents import agent_names
    from tabletop.train.benchmark.training import FamilyConfig

    family = isinstance(config, FamilyConfig)
    total = config.task.budget if family else config.total_steps
    configured = config.task.eval_games if family else config.evaluation.final_games
    opponents = list(config.task.panel) if family else agent_names(config.env_id)
    seats = config.task.learner_seats if family else config.learner_seats
    rounds = len(opponents) + (seats == "all")  # a cooperative learner's own team is scored too
    steps = total if steps is None else steps
    games, why = configured, "the config's; --eval-games N sets it"
    if eval_games is not None:
        games, why = eval_games, f"--eval-games {eval_games}"
    elif steps < total:
        games = max(1, math.ceil(configured * steps / total))
        why = f"the config's {configured:,} scaled to {steps:,} of its {total:,} steps; --eval-games N sets it"
    if family:
        config = dataclasses.replace(
            config, task=dataclasses.replace(config.task, eval_games=games), data={**config.data, "eval_games": games}
        )
    else:
        config = dataclasses.replace(config, evaluation=dataclasses.replace(config.evaluation, final_games=games))
    each = f"{games:,} game{'s' * (games != 1)}"
    against = (
        f"for its own team and each of {len(opponents)} other teams"
        if seats == "all"
        else f"against each of {len(opponents)} opponents"
    )
    plan = (
        f"plan: {steps:,} learner steps, then a final evaluation of {each} {against} ({', '.join(opponents)}), "
        f"{games * rounds:,} games in all ({why})"
    )
    return config, plan


def _benchmark(args: argparse.Namespace) -> int:
    """`tabletop benchmark SUITE ...` runs (or resumes) a grid; `tabletop benchmark report DIR` reports one."""
    if args.suite == "report":
        if args.folder is None:
            raise ValueError("report needs the benchmark folder: tabletop benchmark report DIR")
        if not Path(args.folder).is_dir():
            raise ValueError(f"{args.folder} holds no benchmark (no such folder): give the --out of tabletop benchmark")
        if args.population_with and args.population is None:
            raise ValueError("--population-with adds families to the population table: give --population GAMES too")
        for other in args.population_with:
            if not (Path(other) / "benchmark.json").is_file():
                raise ValueError(f"--population-with {other}: holds no benchmark (no benchmark.json)")
        from tabletop.train.benchmark.report import REPORT, results_table, write_report

        written = write_report(Path(args.folder), plots=not args.no_plots)
        if args.ship is not None:  # the raw records without the saves, and the report made from them alone
            from tabletop.train.benchmark.ship import ship

            written = ship(Path(args.folder), Path(args.ship), plots=not args.no_plots)
        if args.population is not None:  # every family's final policy, the heuristics and search, one table a task
            from tabletop.train.benchmark.population import population_tables

            out = Path(args.ship if args.ship is not None else args.folder) / REPORT  # shipped, the table ships too
            more = [Path(f) for f in args.population_with]
            population_tables(Path(args.folder), args.population, more=more, out=out, progress=True)
        print(results_table(json.loads((Path(args.folder) / REPORT / "summary.json").read_text())))
        print("wrote " + ", ".join(str(p) for p in written))
        return 0
    if args.folder is not None:
        raise ValueError(
            f"unexpected argument {args.folder!r}: run a suite with --out DIR, or report with: tabletop benchmark report DIR"
        )
    if args.out is None:
        raise ValueError("give the benchmark folder: --out DIR (an existing one resumes)")
    if not Path(args.suite).is_file():  # before the runner's imports (torch): a mistyped path answers at once
        raise ValueError(f"suite file {args.suite!r} does not exist (the shipped ones: configs/benchmark/*.yaml)")
    from tabletop.train.benchmark.runner import grid_table, plan, record_grid, run_grid
    from tabletop.train.benchmark.suite import load_suite

    def names(text: str | None) -> list[str] | None:
        return None if text is None else [n.strip() for n in text.split(",") if n.strip()]

    def skipped(line: str) -> None:  # a family whose extra is missing: one line, before any run starts
        print(f"tabletop benchmark: {line}", file=sys.stderr)

    suite = load_suite(args.suite)
    out = Path(args.out)
    if args.restore is not None:  # a grid shipped part-done carries on: its finished runs are not trained again
        from tabletop.train.benchmark.ship import restore

        kept = restore(Path(args.restore), out)
        print(f"tabletop benchmark: {out} starts from the {kept} finished runs of {args.restore}", file=sys.stderr)
    jobs = plan(suite, names(args.tasks), names(args.algorithms), args.seeds, out, skip=skipped)
    record_grid(out, suite, jobs, warn=skipped)
    try:
        statuses = run_grid(jobs, workers=args.workers, ray_address=args.ray_address, progress=not args.quiet)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: every run keeps its last save; the same command resumes it (report: tabletop benchmark report {out})",
            file=sys.stderr,
        )
        return 130
    print(grid_table(jobs, statuses))
    print(f"report: tabletop benchmark report {out}")
    return 1 if "failed" in statuses.values() else 0


def _folder_of_configs(folder: Path) -> str:
    """What to say when `tabletop train` is given a folder: the configs in it, and its subfolders that hold some."""
    configs = sorted(str(p) for p in folder.glob("*.y*ml"))
    deeper = sorted(f"{p}{os.sep}" for p in folder.iterdir() if p.is_dir() and any(p.glob("*.y*ml")))
    if not configs and not deeper:
        return f"{folder} is a folder with no YAML config in it: give a config file such as configs/cromlet.yaml"
    listed = f"one of {', '.join(configs)}" if configs else "a config file"
    more = f" (more in {', '.join(deeper)})" if deeper else ""
    return f"{folder} is a folder, not a config: give {listed}{more}"


def _crossplay(args: argparse.Namespace) -> int:
    from tabletop.train.evaluation.crossplay import crossplay, format_crossplay

    rows = crossplay(env_spec(args.env_id, args.env_kwargs), args.candidate, args.partner, args.games, seed=args.seed)
    print(format_crossplay(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.to_dict() for r in rows], f, indent=2)
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


def _speed(args: argparse.Namespace) -> int:
    """`tabletop speed`: random-play throughput against baselines, or (--train) learner throughput, in one run."""
    if args.command == "bench":
        print("tabletop bench is deprecated and goes in the next release: use tabletop speed", file=sys.stderr)
    if args.old_config is not None:
        print("--old-config is deprecated and goes in the next release: use --dummy-config", file=sys.stderr)
        args.dummy_config = args.dummy_config or args.old_config
    if args.train is not None:
        if args.env_id is not None or args.env_kwargs is not None:
            raise ValueError("--train CONFIG measures training on the config's game: give GAME or --train, not both")
        for config in (args.train, args.dummy_config):  # before torch loads: a mistyped path answers at once
            if config is not None and not Path(config).is_file():
                raise ValueError(f"config file {config!r} does not exist")
        from tabletop.train.selfplay.config import load_config

        config = load_config(args.train)
        if config.backend == "rllib":
            raise ValueError(
                f"--train measures the SB3 training paths; for {args.train} (backend: rllib) run: python -m tabletop.train.rllib.scaling {args.train}"
            )
        baseline = load_config(args.dummy_config) if args.dummy_config is not None else None
        from tabletop.train.selfplay.throughput import compare_paths, report  # torch: once the configs are good

        rounds = args.rounds or 2
        speeds = compare_paths(config, args.train_steps or 8192, rounds, args.batched_games, baseline)
        print(report(config, args.train, speeds, rounds))
        return 0
    if args.train_steps is not None or args.batched_games is not None or args.dummy_config is not None:
        raise ValueError("--train-steps, --batched-games and --dummy-config go with --train CONFIG")
    if args.env_id is None:
        raise ValueError("give a GAME to measure random play, or --train CONFIG to measure training")
    from tabletop.train.evaluation.bench import compare

    env = env_spec(args.env_id, args.env_kwargs)
    print(
        compare(
            env, args.baseline or ["connect_four_v3"], args.games, args.baseline_games, args.seed, args.rounds or 10
        )
    )
    return 0


def _exploit(args: argparse.Namespace) -> int:
    """`tabletop exploit`: a fresh PPO best response to one frozen policy, and its result against it; on a small
    variant (docs/openspiel.md) OpenSpiel's exact best response instead."""
    from tabletop.train.benchmark.exploit import exact_exploit, exploit

    exact = exact_exploit(env_spec(args.env_id, args.env_kwargs), args.policy)
    if exact is not None:
        print(exact.line())
        if args.json:
            with open(args.json, "w") as f:
                json.dump(exact.to_dict(), f, indent=2)
        return 0
    try:
        override = json.loads(args.override) if args.override is not None else {}
    except json.JSONDecodeError as err:
        raise ValueError(f"--override is not valid JSON ({err}): {args.override}") from None
    if not isinstance(override, dict):
        raise ValueError(
            f'--override must be a JSON object such as \'{{"ppo": {{"ent_coef": 0.0}}}}\', got {args.override}'
        )
    result = exploit(
        env_spec(args.env_id, args.env_kwargs),
        args.policy,
        budget=args.budget,
        games=args.games,
        seed=args.seed,
        out=args.out,
        override=override,
        progress=not args.quiet,
    )
    print(result.line())
    print(f"run folder {result.run_dir}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(), f, indent=2)
    return 0


def _export(args: argparse.Namespace) -> int:
    if args.env_kwargs is not None and args.env_id is None:
        raise ValueError("--env-kwargs needs --env-id: they name the game together")
    env = env_spec(args.env_id, args.env_kwargs) if args.env_id is not None else None
    if not Path(args.source).exists():  # before torch loads: a mistyped path answers at once
        raise ValueError(
            f"no trained model at {args.source!r}: expected a run folder, a checkpoint folder, a policy.pt or a model.zip"
        )
    from tabletop.agents.onnx_agent import METADATA_FILE, MODEL_FILE
    from tabletop.train.serving.export import export_trained

    if args.made_by is not None and not args.made_by.strip():
        raise ValueError("--command is empty: give the commands that reproduce the policy, or leave it out")
    meta = export_trained(args.source, args.out, env, players=args.players, command=args.made_by)
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

    try:
        table = json.loads(args.env_kwargs) if args.env_kwargs is not None else None
    except json.JSONDecodeError as err:
        raise ValueError(f"--env-kwargs is not valid JSON ({err}): {args.env_kwargs}") from None
    if table is not None and not isinstance(table, dict):
        raise ValueError(
            f'--env-kwargs must be a JSON object such as \'{{"action_mode": "tiles"}}\', got {args.env_kwargs}'
        )
    server = AgentServer(OnnxAgent(args.model), table)
    try:
        server.serve(sys.stdin.buffer, sys.stdout)  # bytes: the server checks each line's encoding itself
    except BrokenPipeError:  # the client closed its end: nobody is left to answer
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit flush cannot fail again
    except KeyboardInterrupt:
        return 130
    return 0


def _play(args: argparse.Namespace) -> int:
    from tabletop.train.serving.play import InputEnded, play

    if hasattr(sys.stdin, "reconfigure"):  # a typed byte that is not UTF-8 becomes U+FFFD, a wrong answer, not a crash
        sys.stdin.reconfigure(errors="replace")
    try:
        play(env_spec(args.env_id, args.env_kwargs), args.opponent, args.seat, args.seed)
    except InputEnded as err:
        print(f"\n{err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # a human leaving mid-game is not an error worth a traceback
        print("\ngame abandoned", file=sys.stderr)
        return 130
    return 0


def _serve(args: argparse.Namespace) -> int:
    from tabletop.train.web.server import serve

    try:
        serve(
            args.host,
            args.port,
            tuple(args.policy),
            max_tables=args.max_tables,
            tables_per_client=args.tables_per_client,
            idle_minutes=args.idle_minutes,
            max_connections=args.max_connections,
            request_timeout=args.request_timeout,
            open_browser=args.open,
        )
    except OSError as err:  # the port is taken, or the address is not this machine's
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    except KeyboardInterrupt:
        return 0
    return 0


def _soak(args: argparse.Namespace) -> int:
    from tabletop.envs.testing import SoakFailure, soak

    try:
        report = soak(env_spec(args.env_id, args.env_kwargs), args.games, seed=args.seed)
    except SoakFailure as failure:
        print(f"tabletop soak: FAILED: {failure}", file=sys.stderr)
        return 1
    print(report.line())
    return 0


# --- the parser -----------------------------------------------------------------------------------------------
class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless the help already speaks of it or there is none
    to show (None, False, []: the help says what leaving the option out means); the agent list after a
    subcommand's options keeps its lines."""

    def _get_help_string(self, action: argparse.Action) -> str:
        help = action.help or ""
        shown = not (action.default is None or action.default is False or action.default in ([], argparse.SUPPRESS))
        if shown and "default" not in help and (action.option_strings or action.nargs == argparse.OPTIONAL):
            help += " (default: %(default)s)"
        return help


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser; with `lists_agents`, its --help ends with every game's agents (listed only
    when asked for: naming the heuristics imports every game)."""

    lists_agents = False

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        if self.lists_agents:
            from tabletop.agents.registry import agent_names

            rows = [f"  {env_id:<20} {', '.join(agent_names(env_id))}" for env_id in ENV_IDS]
            self.epilog = (
                "agents by game (every game also takes pretrained, ppo:PATH and onnx:DIR; competitive ones search[:KEY=VALUE,...]):\n"
                + "\n".join(rows)
            )
        return super().format_help()


def _game_arguments(p: argparse.ArgumentParser, example: str = '{"num_players": 3}') -> None:
    p.add_argument("env_id", metavar="GAME", choices=ENV_IDS, help=f"one of {', '.join(ENV_IDS)}")
    p.add_argument(
        "--env-kwargs",
        metavar="JSON",
        help=f"the game's arguments as a JSON object, e.g. '{example}' (default: the game's defaults)",
    )


def _seed_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="game g is dealt with seed SEED + g, so a run repeats exactly")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop", description="tabletop-rl: four tabletop games for multi-agent RL")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)

    t = sub.add_parser(
        "tournament",
        help="play seeded games between named agents (seats rotate every game); a row per agent and per pair",
        description="Seeded games between named agents, seats rotating every game. With more agents than seats, "
        "every table of them plays in every seat order, so each agent's row is over the same opponents (the game "
        "count must then be a whole number of such cycles). In a cooperative game (KRZ GRTN) each named agent is a "
        "team holding every seat, the teams taking turns on the same deals. Win rates count one result per game "
        "and side, never seats that share an outcome.",
    )
    t.lists_agents = True
    _game_arguments(t, '{"num_players": 4}')
    t.add_argument(
        "agents",
        nargs="+",
        help=f"agent specs: {AGENT_SPECS}. They fill the seats in turn, so "
        "repeating one gives it more seats (a warning says when an agent meets itself); in a cooperative game "
        "each is a team of its own",
    )
    t.add_argument("--games", type=positive_int, default=200, help="games in all")
    _seed_argument(t)
    t.add_argument("--json", help="also write the results (agents and pairs) to this JSON file")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=_tournament)

    c = sub.add_parser(
        "crossplay",
        help="ad-hoc teamwork (KRZ GRTN): a candidate's givers with a partner's X and back, next to both teams",
    )
    c.lists_agents = True
    _game_arguments(c, '{"num_players": 4}')
    c.add_argument("candidate", help=f"the agent under test: {AGENT_SPECS}")
    c.add_argument("partner", nargs="?", default="skeleton", help="the stranger it teams up with")
    c.add_argument("--games", type=positive_int, default=200, help="games per team")
    _seed_argument(c)
    c.add_argument("--json", help="also write the four teams' results to this JSON file")
    c.set_defaults(func=_crossplay)

    from tabletop.train.benchmark.families import FAMILIES  # names only: no family module is imported here

    tr = sub.add_parser(
        "train",
        help=f"train an algorithm family from a YAML config (family: {', '.join(FAMILIES)}; default ppo)",
    )
    tr.add_argument("config", help="a YAML config, e.g. configs/cromlet.yaml (configs/ holds one per game)")
    tr.add_argument("--steps", type=positive_int, help="total learner env steps (default: the config's total_steps)")
    tr.add_argument("--out", help="run folder (default: runs/<env_id>-<date-time>)")
    tr.add_argument("--resume", help="continue from a checkpoint folder or a run folder's newest checkpoint")
    tr.add_argument(
        "--eval-games",
        type=positive_int,
        metavar="N",
        help="games against each opponent in the final evaluation (default: the config's evaluation.final_games, "
        "or eval_games for other families; with a shorter --steps, scaled down by the same fraction)",
    )
    tr.add_argument("--quiet", action="store_true", help="no progress output: only the summary at the end")
    tr.set_defaults(func=_train)

    bm = sub.add_parser(
        "benchmark",
        help="run a benchmark suite (tasks x algorithms x seeds, resumable), or `benchmark report DIR`",
        description="tabletop benchmark SUITE --algorithms A,B --seeds N --out DIR runs every (task, algorithm, "
        "seed) of the suite as a resumable run folder (the same command resumes an interrupted grid; a finished run "
        "is never redone); tabletop benchmark report DIR writes IQM and mean with bootstrap intervals, "
        "probability of improvement, performance profiles and sample-efficiency curves (docs/benchmark.md)",
    )
    bm.add_argument(
        "suite", metavar="SUITE|report", help="a suite file (configs/benchmark/suite.yaml), or the word report"
    )
    bm.add_argument("folder", nargs="?", metavar="DIR", help="with report: the benchmark folder (the run's --out)")
    bm.add_argument(
        "--algorithms",
        help=f"comma-separated families of {', '.join(FAMILIES)} (default: every one the suite lists)",
    )
    bm.add_argument("--tasks", help="comma-separated task names (default: every task of the suite)")
    bm.add_argument(
        "--seeds", type=positive_int, default=3, help="runs per task and algorithm, seeds 0..N-1 (default 3)"
    )
    bm.add_argument("--out", help="the benchmark folder: run folders, references, report (an existing one resumes)")
    bm.add_argument(
        "--from",
        dest="restore",
        metavar="SHIPPED",
        help="start a new --out from a shipped folder's finished runs (docs/benchmark/NAME), so a grid shipped "
        "part-done carries on",
    )
    bm.add_argument("--workers", type=positive_int, default=1, help="runs in parallel processes (default 1)")
    bm.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="run the grid as Ray tasks on this running cluster (auto, ray://head:10001) instead of local processes",
    )
    bm.add_argument("--no-plots", action="store_true", help="with report: tables and JSON only")
    bm.add_argument("--quiet", action="store_true", help="no progress bar")
    bm.set_defaults(func=_benchmark)

    e = sub.add_parser("eval", help="round robin among agents: win-rate matrix and OpenSkill ratings")
    e.lists_agents = True
    _game_arguments(e)
    e.add_argument("agents", nargs="+", help=f"two or more agent specs: {AGENT_SPECS}")
    e.add_argument("--games", type=positive_int, default=200, help="games per pair of agents")
    _seed_argument(e)
    e.add_argument("--out", help="write round_robin.json, win_rates.csv, ratings.csv and win_rates.png here")
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.set_defaults(func=_eval)

    b = sub.add_parser(
        "speed",
        aliases=["bench"],  # its name until 0.2.0: kept for one release, with a warning
        help="random-play throughput against a PettingZoo classic env, or (--train) learner throughput of the "
        "training paths, in the same run",
    )
    b.add_argument("env_id", metavar="GAME", nargs="?", choices=ENV_IDS, help=f"one of {', '.join(ENV_IDS)}")
    b.add_argument(
        "--env-kwargs",
        metavar="JSON",
        help="the game's arguments as a JSON object, e.g. '{\"num_players\": 3}' (default: the game's defaults)",
    )
    b.add_argument(
        "--baseline",
        action="append",
        metavar="NAME",
        help="what to compare with, in the same run; repeat for several: a PettingZoo classic env "
        "(connect_four_v3, go_v5, tictactoe_v3, texas_holdem_v4; against our AEC loop) or openspiel:GAME "
        "(e.g. openspiel:cribbage; against our engine alone) (default: connect_four_v3)",
    )
    b.add_argument("--games", type=positive_int, default=200, help="random games of GAME")
    b.add_argument("--baseline-games", type=positive_int, default=500, help="random games of each baseline")
    _seed_argument(b)
    b.add_argument(
        "--rounds",
        type=positive_int,
        help="the sides take turns this many times, so load hits both alike "
        "(default: 10 for random play, 2 with --train)",
    )
    b.add_argument(
        "--train",
        metavar="CONFIG",
        help="instead: learner steps/s of the dummy (one env per game) and batched training paths on this config",
    )
    b.add_argument(
        "--train-steps", type=positive_int, help="with --train: learner steps per path and round (default 8192)"
    )
    b.add_argument(
        "--batched-games",
        type=positive_int,
        help="with --train: the batched path plays this many games, "
        "sb3.n_steps scaled to keep the rollout size (default: the config's num_envs)",
    )
    b.add_argument(
        "--dummy-config",
        metavar="CONFIG",
        help="with --train: the dummy path trains this config instead (the same game; "
        "e.g. a flat MLP beside a structured network)",
    )
    b.add_argument("--old-config", help=argparse.SUPPRESS)  # --dummy-config's name until 0.2.0, for one release
    b.set_defaults(func=_speed)

    from tabletop.train.benchmark.exploit import DEFAULT_BUDGET, DEFAULT_GAMES

    xp = sub.add_parser(
        "exploit",
        help="approximate exploitability: train a fresh PPO best response to a frozen policy, report its win rate "
        "against it (a lower bound on how exploitable the policy is)",
    )
    xp.lists_agents = True
    _game_arguments(xp, '{"num_players": 2}')
    xp.add_argument("policy", metavar="POLICY", help=f"the frozen policy to exploit: {AGENT_SPECS}")
    xp.add_argument(
        "--budget", type=positive_int, default=DEFAULT_BUDGET, help="learner steps of the best response's training"
    )
    xp.add_argument(
        "--games", type=positive_int, default=DEFAULT_GAMES, help="evaluation games, on seeds 10,000,000 and up"
    )
    xp.add_argument(
        "--seed", type=int, default=0, help="the training run's seed (the learner's weights, its games' deals)"
    )
    xp.add_argument(
        "--override",
        metavar="JSON",
        help='change the stated protocol, e.g. \'{"ppo": {"ent_coef": 0.0}, "network": {"kind": "mlp"}}\' '
        "(keys as in training configs, docs/training.md; default: none, the protocol of docs/benchmark.md)",
    )
    xp.add_argument("--out", help="run folder (default: runs/exploit-<GAME>-<POLICY>-<BUDGET>-s<SEED>)")
    xp.add_argument("--json", help="also write the result to this JSON file (the run folder holds exploit.json)")
    xp.add_argument("--quiet", action="store_true", help="no progress bar for the evaluation games")
    xp.set_defaults(func=_exploit)

    x = sub.add_parser("export", help="export a trained policy to ONNX with metadata for other frontends")
    x.add_argument(
        "source",
        metavar="RUN_OR_CHECKPOINT",
        help="a run folder or checkpoint folder (either backend), a policy.pt, or a model .zip saved before policy files",
    )
    x.add_argument("--out", required=True, help="folder to write model.onnx and metadata.json into")
    x.add_argument("--env-id", choices=ENV_IDS, help="the game, for a model zip outside a run folder")
    x.add_argument("--env-kwargs", metavar="JSON", help="the game's arguments as a JSON object, with --env-id")
    x.add_argument(
        "--players",
        type=int,
        metavar="N",
        help="export for N players (a network whose weights are shared across seats: roles)",
    )
    x.add_argument(
        "--command",
        dest="made_by",  # `command` is the subcommand's name
        metavar="TEXT",
        help="how the policy was made (the commands that reproduce it), kept in metadata.json as source.command",
    )
    x.set_defaults(func=_export)

    a = sub.add_parser(
        "agent",
        help="serve an exported policy: one JSON state (or observation + mask) per stdin line, one action per stdout line",
    )
    a.add_argument("--model", required=True, help="an export folder (tabletop export): model.onnx and metadata.json")
    a.add_argument(
        "--env-kwargs",
        metavar="JSON",
        help="the table's game arguments where they differ from the export's, e.g. '{\"action_mode\": \"tiles\"}' "
        "for a moves-mode Kings Cribbage export at the default tiles table (it then answers states only)",
    )
    a.set_defaults(func=_agent)

    p = sub.add_parser("play", help="play a game in the terminal against an agent")
    p.lists_agents = True
    _game_arguments(p)
    p.add_argument("--opponent", required=True, help=f"agent for every other seat: {AGENT_SPECS}")
    p.add_argument("--seat", type=int, default=0, help="your seat, from 0")
    p.add_argument("--seed", type=int, help="deal seed (default: a fresh deal)")
    p.set_defaults(func=_play)

    s = sub.add_parser("soak", help="random games with every invariant and the state validator checked on every step")
    _game_arguments(s, '{"variant": "junior"}')
    s.add_argument("--games", type=positive_int, default=1000, help="random games, each checked on every step")
    _seed_argument(s)
    s.set_defaults(func=_soak)

    w = sub.add_parser("serve", help="play and watch in the browser: a local web page for every game (docs/play.md)")
    w.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; "
        "0.0.0.0 lets others on the network join a table by its links)",
    )
    w.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port)")
    w.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="SPEC",
        help="also offer this policy (onnx:DIR or ppo:PATH) as a player; repeat for more",
    )
    w.add_argument(
        "--max-tables",
        type=positive_int,
        default=200,
        help="tables held at once (default 200); finished and idle ones make room for new ones",
    )
    w.add_argument(
        "--tables-per-client",
        type=positive_int,
        default=5,
        metavar="N",
        help="tables one client address (an IPv6 one by its /64) may hold in play at once (default 5)",
    )
    w.add_argument(
        "--idle-minutes",
        type=positive_int,
        default=10,
        metavar="M",
        help="a table nobody has open ends after M quiet minutes (default 10; with a page open: 60)",
    )
    w.add_argument(
        "--max-connections",
        type=positive_int,
        default=None,
        metavar="N",
        help="open connections at most (default 1000, or what the open-file limit allows: 3 files each, "
        "64 for the server); past it, the client that has waited longest for its headers makes room",
    )
    w.add_argument(
        "--request-timeout",
        type=positive_int,
        default=10,
        metavar="S",
        help="seconds a client has to send a request's headers, and again its body (default 10)",
    )
    w.add_argument("--open", action="store_true", help="open the page in the default browser")
    w.set_defaults(func=_serve)
    return parser


def report_parser() -> argparse.ArgumentParser:
    """`tabletop benchmark report DIR`'s own parser, so its --help is its own (a suite path shares its position)."""
    r = CommandParser(
        prog="tabletop benchmark report",
        description="write a benchmark folder's report: IQM and mean with bootstrap intervals, probability of "
        "improvement, performance profiles and sample-efficiency curves (docs/benchmark.md)",
    )
    r.add_argument("folder", metavar="DIR", help="the benchmark folder (the --out of tabletop benchmark SUITE)")
    r.add_argument("--no-plots", action="store_true", help="tables and JSON only")
    r.add_argument(
        "--ship",
        metavar="DEST",
        help="also copy the folder's raw records (no saves) into the new folder DEST and report there "
        "(what docs/benchmark/ ships)",
    )
    r.add_argument(
        "--population",
        type=positive_int,
        metavar="GAMES",
        help="also a round robin of every family's final policy, random, the game's heuristics and a search player "
        "per competitive task, GAMES per pair, with ratings (DIR's report/population/<task>/, DEST's with --ship; "
        "default: none)",
    )
    r.add_argument(
        "--population-with",
        metavar="DIR",
        action="append",
        default=[],
        help="another benchmark folder whose families' final policies on the same tasks join the population "
        "table (repeatable)",
    )
    r.set_defaults(func=_benchmark, command="benchmark", suite="report")
    return r


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:2] == ["benchmark", "report"]:
        args = report_parser().parse_args(argv[2:])
    else:
        args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:  # bad agent names, game options, configs: say what is wrong, no traceback
        print(f"tabletop {args.command}: error: {err}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:  # an optional dependency: say which extra installs it
        if not isinstance(err, MissingExtra):
            if err.name not in EXTRA_OF:
                raise
            err = missing("this command", err.name)
        print(f"tabletop {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

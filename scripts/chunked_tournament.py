"""A long two-agent tournament as resumable chunks, for runs that may be interrupted: chunk c is `tabletop tournament GAME A B --games CHUNK --seed FIRST + CHUNK*c` (with `--env-kwargs`
if given), written to OUT/NAME.SEED.txt once it finishes, so a rerun skips finished chunks and redoes only those
under way. `--jobs N` plays N chunks at a time, one process each (a core each: the games are one-threaded). At
the end (or alone, with --sum) it adds up the first agent's wins, draws and losses over the finished chunks, in
order, with the Wilson 95% interval (draws count as no win, as in `tabletop tournament`). `--csv FILE` also
writes each finished chunk's seed and W-D-L there: the chunk files live in a git-ignored run folder and die with
the machine, so the headline runs' records are committed under docs/records/.

    python scripts/chunked_tournament.py cromlet_v0 search:sims=64 blocker --first 5000030 --chunk 20 \\
        --chunks 49 --out runs/search --name cr_blocker --jobs 2
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tabletop.train.evaluation.tournament import wilson_interval


def run_chunk(args: argparse.Namespace, seed: int) -> str | None:
    """Play the chunk that starts at `seed` unless it is finished; the error text if it failed."""
    done = args.out / f"{args.name}.{seed}.txt"
    if done.exists():
        return None
    command = ["tabletop", "tournament", args.game, args.a, args.b, "--games", str(args.chunk)]
    if args.env_kwargs is not None:
        command += ["--env-kwargs", args.env_kwargs]
    result = subprocess.run([*command, "--seed", str(seed), "--quiet"], capture_output=True, text=True)
    if result.returncode:
        return f"chunk at seed {seed} failed:\n{result.stderr}"
    part = done.with_suffix(".part")
    part.write_text(result.stdout)
    part.rename(done)
    return None


def run_chunks(args: argparse.Namespace) -> None:
    """Every chunk, `args.jobs` at a time (threads that wait on one process each); stop at the first failure."""
    seeds = [args.first + args.chunk * c for c in range(args.chunks)]
    pool = ThreadPoolExecutor(args.jobs)
    for error in pool.map(lambda seed: run_chunk(args, seed), seeds):
        if error:
            pool.shutdown(cancel_futures=True)  # the chunks under way finish; none starts
            sys.exit(error)
    pool.shutdown()


def total(out: Path, name: str, csv: Path | None = None) -> str:
    """The pair row of every finished chunk summed: games, W-D-L, win rate and interval; each chunk's row
    written to `csv` if given."""
    wins = draws = losses = chunks = 0
    rows = ["seed,games,wins,draws,losses"]
    for path in sorted(out.glob(f"{name}.*.txt"), key=lambda p: int(p.suffixes[-2][1:])):
        row = path.read_text().strip().splitlines()[-1].split()  # ... games wins draws losses rate [lo, hi]
        w, d, lose = (int(x) for x in row[-6:-3])
        wins, draws, losses, chunks = wins + w, draws + d, losses + lose, chunks + 1
        rows.append(f"{path.suffixes[-2][1:]},{w + d + lose},{w},{d},{lose}")
    if csv:
        csv.write_text("\n".join(rows) + "\n")
    games = wins + draws + losses
    if not games:
        return f"no finished chunks named {name} in {out}"
    lo, hi = wilson_interval(wins, games)
    return f"{name}: {chunks} chunks, {games} games ({wins}-{draws}-{losses}): {wins / games:.3f} [{lo:.3f}, {hi:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("a", help="the agent whose results are summed")
    parser.add_argument("b")
    parser.add_argument("--first", type=int, required=True, help="the first chunk's seed")
    parser.add_argument("--chunk", type=int, default=20, help="games per chunk (default: 20)")
    parser.add_argument("--chunks", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--name", required=True, help="file names NAME.SEED.txt")
    parser.add_argument("--sum", action="store_true", help="only add up the finished chunks")
    parser.add_argument("--jobs", type=int, default=1, help="chunks played at a time (default: 1)")
    parser.add_argument("--csv", type=Path, help="also write each finished chunk's seed and W-D-L here")
    parser.add_argument(
        "--env-kwargs", help="the game's arguments as a JSON object, passed to every chunk (default: the defaults)"
    )
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if not args.sum:
        args.out.mkdir(parents=True, exist_ok=True)
        run_chunks(args)
    print(total(args.out, args.name, args.csv))


if __name__ == "__main__":
    main()

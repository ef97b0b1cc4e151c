"""DAgger passes for a trained policy, the last stages of the shipped Chromino and 2-player Cromlet `pretrained`
policies (docs/results.md; docs/training.md, "DAgger"): the policy plays, a search player labels each of its decisions
(`imitation.collect` with an `actor`), and a policy's own weights are fitted to those labels (`imitation.fit`).
Expert iteration cloned the search on the search's own games; here its labels fall where the policy goes. With the
guided search over the policy itself as the teacher and `--search-share 1`, each label is the search's improved
policy: search in the loop, one pass at a time. `collect` defaults to the Chromino recipe's game, teacher and
opponents; `--game`, `--env-kwargs`, `--teacher`, `--opponents` and `--gamma` name another's. The shipped Chromino
policy (about 105 CPU-minutes in all):

    tabletop train configs/results/chromino_pretrained_2p.yaml --out runs/chromino_2p   # the base, 20.3 CPU-minutes
    tabletop export runs/chromino_2p --out runs/chromino_2p_onnx   # the actor: the base policy
    for c in $(seq 0 19); do python scripts/dagger.py collect --actor onnx:runs/chromino_2p_onnx \
        --first $((50700000 + 25 * c)) --games 25 --out runs/dagger/c$(printf %02d $c).npz; done   # 62.5 CPU-minutes
    python scripts/dagger.py fit runs/chromino_2p runs/chromino_dagger --chunks 'runs/dagger/c*.npz' --move-only  # 2.8
    for c in $(seq 0 39); do python scripts/dagger.py collect --actor ppo:runs/chromino_dagger \
        --teacher search:policy=ppo:runs/chromino_dagger,sims=32,leaf=rollout --search-share 1 \
        --first $((54000000 + 25 * c)) --games 25 --out runs/guided/c$(printf %02d $c).npz; done   # 14 CPU-minutes
    python scripts/dagger.py fit runs/chromino_dagger runs/chromino_guided --chunks 'runs/guided/c*.npz'   # 5
    tabletop export runs/chromino_guided --out agents/pretrained/chromino_2p

The shipped 2-player Cromlet policy is its base, one guided pass (about 52 CPU-minutes in all), then AlphaZero
from the guided pass's weights (configs/alphazero/cromlet_warm.yaml, 4.6 CPU-minutes):

    tabletop train configs/results/cromlet_pretrained_2p.yaml --out runs/cromlet_2p   # the base, 15.9 CPU-minutes
    for c in $(seq 0 39); do python scripts/dagger.py collect --game cromlet_v0 --env-kwargs '{"num_players": 2}' \
        --actor ppo:runs/cromlet_2p --teacher search:policy=ppo:runs/cromlet_2p,sims=64,leaf=rollout \
        --search-share 1 --opponents patient,blocker,search:sims=64 \
        --first $((57000000 + 25 * c)) --games 25 --out runs/cromlet_labels/c$(printf %02d $c).npz; done   # 35.0
    python scripts/dagger.py fit runs/cromlet_2p runs/cromlet_guided --chunks 'runs/cromlet_labels/c*.npz'   # 1.4
    tabletop export runs/cromlet_guided --out exported/cromlet_guided
    python scripts/dagger.py adopt exported/cromlet_guided configs/results/cromlet_pretrained_2p.yaml runs/cromlet_adopted
    tabletop train configs/alphazero/cromlet_warm.yaml --out runs/az_cromlet_warm
    tabletop export runs/az_cromlet_warm --out agents/pretrained/cromlet_2p

Float rounding has moved since the bases were trained, so a rerun gives another policy of its own (the shipped
passes started from the bases as they shipped, brought back with `adopt`). `adopt` brings a
shipped export back as a run folder (the ONNX actor's weights, a fresh critic), the start of a further pass:

    python scripts/dagger.py adopt agents/pretrained/chromino_2p configs/results/chromino_pretrained_2p.yaml runs/ch

`fit` writes a run folder (config.yaml and final/policy.pt) that `ppo:OUT` plays and `tabletop export` reads; the
last tenth of the games is held out. `agreement` prints how often a policy's most likely move is the teacher's,
over the decisions with a choice:

    python scripts/dagger.py agreement runs/chromino_dagger --chunks 'runs/dagger/c19.npz'
"""

from __future__ import annotations

import argparse
import glob
import shutil
import time
from pathlib import Path

import numpy as np
import torch

from tabletop.agents.networks import POLICY_FILE
from tabletop.agents.networks.actor_critic import CRITIC_PREFIXES
from tabletop.agents.networks.runs import FINAL, load_saved
from tabletop.agents.networks.saved import write_policy
from tabletop.train.cli import env_spec
from tabletop.train.selfplay.config import load_config
from tabletop.train.selfplay.imitation import Decisions, collect, fit, masked_log_probs
from tabletop.train.selfplay.policy import config_spec, policy_file
from tabletop.train.selfplay.trainer import fresh_policy

# the shipped Chromino recipe's: another game names its own with --game, --env-kwargs, --teacher and --opponents
TEACHER = "search:sims=192,rollout=block_rivals"  # 0.553 against block_rivals over 1,000 games
OPPONENTS = "block_rivals,keep_options"
GAME, ENV_KWARGS = "chromino_v1", '{"num_players": 2, "features": ["lookahead"]}'


def run_policy(run: str):
    """(the run's config, its final policy as the learner's SB3 policy, critic included)."""
    config = load_config(Path(run) / "config.yaml")
    policy = fresh_policy(config)
    policy.load_state_dict(load_saved(run).weights)
    return config, policy


def write_run(out: Path, config_path: Path, config, policy) -> None:
    """A run folder that `ppo:OUT` plays, `tabletop export` reads and `fit` starts from: the config and the policy."""
    (out / FINAL).mkdir(parents=True, exist_ok=True)
    shutil.copy(config_path, out / "config.yaml")
    write_policy(out / FINAL / POLICY_FILE, policy_file(policy, config_spec(config.network, config.env), config.env))


def read_chunks(pattern: str) -> Decisions:
    """The chunks' decisions joined, their games renumbered one after the other (the fit holds out whole games)."""
    parts, games = [], 0
    for path in sorted(glob.glob(pattern)):
        chunk = np.load(path)
        parts.append([chunk[k] for k in ("observations", "masks", "target", "returns")] + [chunk["game"] + games])
        games += int(chunk["game"].max()) + 1
    if not parts:
        raise SystemExit(f"no chunks match {pattern!r}")
    return Decisions(*[np.concatenate(column) for column in zip(*parts)])


def adopt(shipped: Path, config_path: Path, out: Path) -> dict:
    """A shipped policy, which keeps its actor as ONNX alone, back into a run folder for `fit`: the config's
    network with the ONNX initializers as its actor (a fresh critic). The exporter keeps a parameter's name where
    it can; a weight it folds into a product (`onnx::MatMul_*` holds the transpose, `onnx::Gemm_*` the weight) is
    matched to the first unclaimed parameter of its shape in the network's own order, the order the exporter
    traced and numbered them in (the moves network has five 64x64 products), and biases it folded into one sum
    go to the first such bias (the others 0), which computes the same function. Whether the copy is the shipped
    policy is not assumed: torch and onnxruntime must agree on sampled positions, or nothing is written."""
    import onnx
    from onnx import numpy_helper

    from tabletop.train.serving.export import sample_positions, verify

    config = load_config(config_path)
    policy = fresh_policy(config)
    state = policy.state_dict()
    actor = [k for k in state if not k.startswith(CRITIC_PREFIXES)]  # in the network's own order
    weights = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(shipped / "model.onnx")).graph.initializer}
    claimed: dict[str, np.ndarray] = {}
    for name, value in weights.items():
        if name.startswith("policy.") and name[len("policy.") :] in actor:
            claimed[name[len("policy.") :]] = value
    for name, value in weights.items():
        if name.startswith("policy."):
            continue
        folded = value.T if name.startswith("onnx::MatMul") else value
        free = [k for k in actor if k not in claimed and tuple(state[k].shape) == folded.shape]
        if not free:
            raise SystemExit(f"dagger.py adopt: no parameter of the network takes {name} {list(value.shape)}")
        claimed[free[0]] = folded
    for key in [k for k in actor if k not in claimed]:
        if not key.endswith(".bias"):
            raise SystemExit(f"dagger.py adopt: the ONNX model holds nothing for {key}")
        claimed[key] = np.zeros(tuple(state[key].shape), dtype=np.float32)
    policy.load_state_dict(state | {k: torch.from_numpy(np.array(v)) for k, v in claimed.items()})
    observations, masks = sample_positions(config.env, 256)
    check = verify(policy, shipped / "model.onnx", observations, masks)
    if not (check["logits_agree"] and check["actions_agree"]):
        raise SystemExit(f"dagger.py adopt: the copy is not the shipped policy ({check})")
    write_run(out, config_path, config, policy)
    return check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    gather = steps.add_parser("collect", help="the actor plays, the teacher labels; one .npz")
    gather.add_argument("--actor", required=True)
    gather.add_argument("--teacher", default=TEACHER)
    gather.add_argument("--game", default=GAME)
    gather.add_argument("--env-kwargs", default=ENV_KWARGS, help="a JSON object (default: %(default)s)")
    gather.add_argument(
        "--opponents",
        default=OPPONENTS,
        help="comma-separated agent specs, in turn; `teacher`: the teacher in every seat (a cooperative team)",
    )
    gather.add_argument("--gamma", type=float, default=0.995, help="the returns' discount (the critic's target)")
    gather.add_argument("--first", type=int, required=True, help="the first game's seed")
    gather.add_argument("--games", type=int, required=True)
    gather.add_argument("--search-share", type=float, default=0.5)
    gather.add_argument("--out", required=True)
    tune = steps.add_parser("fit", help="fit a run's policy to the chunks' labels; writes a run folder")
    tune.add_argument("run")
    tune.add_argument("out")
    tune.add_argument("--chunks", required=True, help="a glob of collect's .npz files")
    tune.add_argument("--epochs", type=int, default=8)
    tune.add_argument("--lr", type=float, default=2e-3)
    tune.add_argument("--move-only", action="store_true", help="the teacher's move alone as the target, no shares")
    take = steps.add_parser("adopt", help="a shipped policy's ONNX actor into a run folder that `fit` starts from")
    take.add_argument("shipped", help="the shipped policy's folder (model.onnx), e.g. agents/pretrained/chromino_2p")
    take.add_argument("config", help="the config whose network it is")
    take.add_argument("out")
    agree = steps.add_parser("agreement", help="how often the policy's top move is the teacher's")
    agree.add_argument("run")
    agree.add_argument("--chunks", required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    began = time.process_time()
    if args.step == "collect":
        opponents = [args.teacher if name == "teacher" else name for name in args.opponents.split(",")]
        try:  # a bad game, option or agent spec: one line, as the CLI says it (agents are made before any game)
            env = env_spec(args.game, args.env_kwargs)
            data = collect(
                env, args.teacher, opponents, args.games, args.gamma, args.first, args.search_share, args.actor
            )
        except ValueError as err:
            raise SystemExit(f"dagger.py collect: {err}") from None
        np.savez_compressed(
            args.out, **{k: getattr(data, k) for k in ("observations", "masks", "target", "returns", "game")}
        )
        print(f"{len(data)} decisions in {args.games} games, {time.process_time() - began:.0f} CPU s")
    elif args.step == "adopt":
        check = adopt(Path(args.shipped), Path(args.config), Path(args.out))
        print(f"{args.out}: the shipped actor, max logit difference {check['max_abs_logit_diff']:.2e}")
    elif args.step == "fit":
        config, policy = run_policy(args.run)
        data = read_chunks(args.chunks)
        if args.move_only:  # the move holds at least 1 - search_share of a target, so it is the largest entry
            moves = data.target.argmax(axis=1)
            data.target = np.zeros_like(data.target)
            data.target[np.arange(len(moves)), moves] = 1
        result = fit(policy, data, args.epochs, 512, args.lr, holdout=0.1, seed=0, log=print)
        out = Path(args.out)
        write_run(out, Path(args.run) / "config.yaml", config, policy)
        print(f"{result.decisions} decisions fitted in {result.seconds:.0f} CPU s; the policy is in {out}")
    else:
        _, policy = run_policy(args.run)
        data = read_chunks(args.chunks)
        choice = data.masks.sum(axis=1) > 1
        target = data.target[choice].astype(np.float32)
        with torch.no_grad():
            observations = torch.from_numpy(data.observations[choice].astype(np.float32))
            top = masked_log_probs(policy, observations, torch.from_numpy(data.masks[choice])).argmax(dim=1).numpy()
        agreed = float((target[np.arange(len(top)), top] == target.max(axis=1)).mean())
        print(f"{args.run}: {len(top)} decisions with a choice, the policy's top move is the teacher's in {agreed:.3f}")


if __name__ == "__main__":
    main()

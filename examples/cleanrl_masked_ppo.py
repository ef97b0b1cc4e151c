"""Masked PPO in one file, CleanRL-style, on one benchmark task through the public vector interface
(docs/benchmark.md, "Bring your own algorithm").

    python examples/cleanrl_masked_ppo.py --task cromlet_2p --total-steps 20000 --out runs/bench
    tabletop benchmark report runs/bench

It trains on the task's games (`TaskVectorEnv`: the learner's seat against the task's opponents, "self"
opponents being snapshots of this very policy), evaluates on the task's panel at the task's schedule with the
benchmark's own scoring (`play_panel`), and writes the run where the report reads runs:
OUT/<task>/<name>/seed_<k>/{run.json, evals.json, timing.json, finished}, the task's reference.json and
OUT/benchmark.json. Everything a reader needs is here, top to bottom: the network, the rollout, GAE, the update.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from tabletop.train.benchmark.runner import GRID_FILE, read_json, task_dict, write_json
from tabletop.train.benchmark.scoring import play_panel, reference
from tabletop.train.benchmark.suite import SuiteError, eval_steps, load_suite
from tabletop.train.benchmark.vector import TaskVectorEnv


def count(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--suite", default="configs/benchmark/suite.yaml", help="the suite file that declares the task")
    p.add_argument("--task", default="cromlet_2p", help="the task's name in the suite")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (torch, numpy and the games)")
    p.add_argument("--total-steps", type=count, default=None, help="learner steps (default: the task's budget)")
    p.add_argument(
        "--eval-every", type=count, default=None, help="learner steps between evaluations (default: the task's)"
    )
    p.add_argument("--eval-games", type=count, default=None, help="games per panel member (default: the task's)")
    p.add_argument("--out", default="runs/bench", help="the benchmark folder the run is written into")
    p.add_argument("--name", default="cleanrl_ppo", help="the algorithm's name in the report")
    p.add_argument("--num-envs", type=count, default=8, help="games played at once")
    p.add_argument("--num-steps", type=count, default=128, help="vector steps per rollout")
    p.add_argument("--hidden", type=count, default=64, help="width of the two hidden layers of actor and critic")
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=count, default=4)
    p.add_argument("--update-epochs", type=count, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--snapshot-every", type=count, default=10_000, help="learner steps between self-play snapshots")
    return p.parse_args(argv)


MASKED = -1e8  # the logit of an illegal action: never sampled, never the argmax


class ActorCritic(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.actor = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, num_actions)
        )
        self.critic = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1)
        )

    def forward(self, obs):  # logits: what a snapshot opponent plays
        return self.actor(obs)

    def get_value(self, obs):
        return self.critic(obs).squeeze(-1)

    def get_action_and_value(self, obs, mask, action=None):
        logits = torch.where(mask, self.actor(obs), torch.full_like(mask, MASKED, dtype=torch.float32))
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.get_value(obs)


class Player:
    """The policy as a benchmark player (the Agent protocol): its most likely legal action."""

    needs_observation = True

    def __init__(self, net: ActorCritic, name: str):
        self.net, self.name = net, name

    def act(self, observation, action_mask, view):
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observation, dtype=torch.float32)[None])[0].numpy()
        return int(np.where(np.asarray(action_mask, dtype=bool), logits, -np.inf).argmax())


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    try:  # a wrong suite or task name: one line, no traceback
        task = load_suite(args.suite).select_tasks([args.task])[0]
    except SuiteError as err:
        sys.exit(f"cleanrl_masked_ppo.py: error: {err}")
    overrides = {"budget": args.total_steps, "eval_every": args.eval_every, "eval_games": args.eval_games}
    task = dataclasses.replace(task, **{k: v for k, v in overrides.items() if v is not None})
    out = Path(args.out)
    run_dir = out / task.name / args.name / f"seed_{args.seed}"
    run_dir.mkdir(parents=True, exist_ok=True)

    envs = TaskVectorEnv(task, args.num_envs, seed=args.seed)
    obs_size, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = ActorCritic(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    self_play = envs.opponents.get("self", 0) > 0
    if self_play:
        envs.add_snapshot("0", agent)

    # storage, CleanRL's layout: (num_steps, num_envs, ...)
    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    next_obs = torch.from_numpy(envs.reset(seed=args.seed)[0])
    next_mask = torch.from_numpy(envs.action_masks())
    next_done = torch.zeros(args.num_envs)
    steps, last_snapshot, evals, train_cpu, eval_cpu = 0, 0, [], 0.0, 0.0
    schedule = eval_steps(task)

    def evaluate():
        nonlocal eval_cpu
        began = time.process_time()
        last = len(schedule) == 1  # the last evaluation plays the task's final deals, as the runner's does
        result = play_panel(Player(agent, args.name), task, task.final_games if last else None)
        eval_cpu += time.process_time() - began
        evals.append({"step": schedule.pop(0), "learner_steps": steps, **result})
        print(f"step {steps}: raw score {result['raw']:.3f}", flush=True)

    evaluate()  # the untrained policy, at step 0
    while schedule:
        began = time.process_time()
        for t in range(args.num_steps):  # the rollout: every row is a learner decision
            obs[t], masks[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            actions[t], logprobs[t], values[t] = action, logprob, value
            o, r, terminated, truncated, _ = envs.step(action.numpy())
            rewards[t] = torch.from_numpy(r)
            next_obs, next_mask = torch.from_numpy(o), torch.from_numpy(envs.action_masks())
            next_done = torch.from_numpy(terminated | truncated).float()
            steps += args.num_envs

        with torch.no_grad():  # GAE; same-step autoreset: a done row's next value is never read
            next_value = agent.get_value(next_obs)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nonterminal * lastgaelam
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        batch = args.num_steps * args.num_envs
        minibatch = batch // args.num_minibatches
        for _ in range(args.update_epochs):
            order = torch.randperm(batch)
            for start in range(0, batch, minibatch):
                mb = order[start : start + minibatch]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if self_play and steps - last_snapshot >= args.snapshot_every:
            envs.add_snapshot(str(steps), agent)
            last_snapshot = steps
        train_cpu += time.process_time() - began
        while schedule and steps >= schedule[0]:
            evaluate()

    # the run, as the benchmark runner writes one (tabletop benchmark report reads it)
    params = {k: v for k, v in vars(args).items() if k not in ("suite", "out")}
    write_json(
        run_dir / "run.json", {"task": task_dict(task), "algorithm": args.name, "params": params, "seed": args.seed}
    )
    write_json(run_dir / "evals.json", evals)
    write_json(run_dir / "timing.json", {"train_cpu_seconds": train_cpu, "eval_cpu_seconds": eval_cpu})
    (run_dir / "finished").write_text("")
    if not (out / task.name / "reference.json").is_file():
        write_json(out / task.name / "reference.json", reference(task))
    grid = read_json(out / GRID_FILE, {"suite": args.suite, "runs": []})
    folder = str(run_dir.relative_to(out))
    runs = {r["folder"]: r for r in grid["runs"]}
    runs[folder] = {"folder": folder, "task": task.name, "algorithm": args.name, "seed": args.seed}
    grid["runs"] = sorted(runs.values(), key=lambda r: r["folder"])
    write_json(out / GRID_FILE, grid)
    print(f"wrote {run_dir}")


if __name__ == "__main__":
    main()

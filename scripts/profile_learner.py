"""Where the learner's time goes on one config: engine, observations, opponents, policy inference, PPO update.

Trains a fresh learner on the config's `batched` path as `tabletop bench --train` does (no warm start, the
pool full of copies of it) and charges every second of `learn` to the innermost of these that is running:

- engine: the AEC table's `step` (the rules and the adapter's bookkeeping) and the state's mask;
- observation: the game's observer encoding any seat's view (the learner's and the opponents');
- heuristic opponents: the pool's fixed players choosing a move (their own look-ahead included);
- snapshot inference: the frozen snapshots' batched forward passes and their sampling;
- learner inference: the learner's forward passes while collecting (actions, values);
- PPO update: MaskablePPO's gradient steps;
- rollout bookkeeping: the rest of collecting (SB3's buffer and distributions, the batched env's loops);
- waiting for the update: with `sb3.overlap: true`, the collecting thread waiting for the update of the
  previous rollout, which runs on its own thread (reported apart, with its own share of the wall clock).

With `--top N` it also prints the top of a cProfile of the rollout and of the update (tottime):

    python scripts/profile_learner.py configs/cromlet.yaml --steps 8192 --top 25
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

from tabletop.train.selfplay import batched, pipeline

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learner_configs import fresh_learner, learner_config, load_kernels  # noqa: E402  (a sibling script)

ROLLOUT_REST = "rollout bookkeeping"


class ExclusiveClock:
    """Seconds per (thread, category), each call charged to the innermost timed category running in its
    thread: with `sb3.overlap` the update runs on a thread of its own beside the collecting."""

    def __init__(self):
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)
        self._local = threading.local()  # each thread's stack of its open calls' children's seconds
        self._lock = threading.Lock()

    def wrap(self, category: str, fn):
        def timed(*args, **kwargs):
            children = self._local.__dict__.setdefault("children", [])
            began = time.perf_counter()
            children.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - began
                with self._lock:
                    self.seconds[threading.current_thread().name, category] += spent - children.pop()
                if children:
                    children[-1] += spent

        return timed


def instrument(model, vec_env, clock: ExclusiveClock) -> None:
    """Wrap the learner, its batched env and the pools' players in the clock's categories. The learner's
    methods are wrapped on their classes: the overlapped update works on a shallow copy of the model and the
    rollout on a frozen copy of the policy, which instance attributes would miss or misdirect."""
    games = vec_env.venv.games  # VecMonitor around BatchedSelfPlayEnv
    table = games[0].aec
    table.reset(seed=0)  # for the state's class; `learn` deals every game again
    state = table.game_state
    type(table).step = clock.wrap("engine", type(table).step)
    type(state).legal_action_mask = clock.wrap("engine", type(state).legal_action_mask)
    observer = type(table.observer)
    observer.encode = clock.wrap("observation", observer.encode)
    batched.actor_logits = clock.wrap("snapshot inference", batched.actor_logits)
    batched._masked_choice = clock.wrap("snapshot inference", batched._masked_choice)
    for game in games:
        for player in game.pool.fixed.values() if game.pool is not None else ():
            player.act = clock.wrap("heuristic opponents", player.act)
    policy, learner = type(model.policy), type(model)
    policy.forward = clock.wrap("learner inference", policy.forward)
    policy.predict_values = clock.wrap("learner inference", policy.predict_values)
    learner.collect_rollouts = clock.wrap(ROLLOUT_REST, learner.collect_rollouts)
    learner.train = clock.wrap("PPO update", learner.train)
    pipeline._Update.run = clock.wrap("PPO update", pipeline._Update.run)  # re-anchoring and `train`
    pipeline._Update.finish = clock.wrap("waiting for the update", pipeline._Update.finish)


def profiled(fn, profile: cProfile.Profile):
    def run(*args, **kwargs):
        profile.enable()
        try:
            return fn(*args, **kwargs)
        finally:
            profile.disable()

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", help="a training config (YAML), or SUITE.yaml:TASK for a suite task's ppo family")
    parser.add_argument("--steps", type=int, default=4096, help="learner steps (default: 4096)")
    parser.add_argument("--top", type=int, default=0, help="also print the top N of a cProfile of each phase")
    args = parser.parse_args()
    config = learner_config(args.config)
    if config.sb3.vec_env.kind != "batched":
        raise SystemExit(f"{args.config}: vec_env.kind is {config.sb3.vec_env.kind!r}; this profiles the batched path")
    load_kernels(config)
    model, vec_env = fresh_learner(config)
    clock = ExclusiveClock()
    instrument(model, vec_env, clock)
    profiles = {"rollout": cProfile.Profile(), "update": cProfile.Profile()}
    if args.top:  # on the classes, as `instrument` does; cProfile profiles the thread that enables it
        learner = type(model)
        learner.collect_rollouts = profiled(learner.collect_rollouts, profiles["rollout"])
        learner.train = profiled(learner.train, profiles["update"])
    began = time.perf_counter()
    model.learn(args.steps)
    seconds = time.perf_counter() - began
    print(
        f"{args.config}: {model.num_timesteps} learner steps in {seconds:.1f} s ({model.num_timesteps / seconds:.0f}/s)"
    )
    for thread in dict.fromkeys(name for name, _ in clock.seconds):
        if thread != threading.main_thread().name:
            print(f"  on the update's thread ({thread}), beside the collecting:")
        mine = {category: spent for (name, category), spent in clock.seconds.items() if name == thread}
        for category, spent in sorted(mine.items(), key=lambda item: -item[1]):
            print(f"  {category:<22} {spent:>7.1f} s  {100 * spent / seconds:>4.0f}%")
    for phase, profile in profiles.items() if args.top else ():
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(args.top)
        lines = [line for line in text.getvalue().splitlines() if line.strip()]
        print(f"--- {phase}, top {args.top} by tottime (clock wrappers add their own lines)")
        print("\n".join(lines[lines.index(next(x for x in lines if "ncalls" in x)) :]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

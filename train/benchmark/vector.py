"""The public vectorised interface to one benchmark task: bring your own algorithm (docs/benchmark.md).

`TaskVectorEnv(task, num_envs, seed)` is a gymnasium `VectorEnv` of `num_envs` games of `task.env`. With
`learner_seats="one"` the learner plays one seat per game (rotating every game) and the other seats are
filled from the task's opponent pool (agent specs, and "self": the snapshots an algorithm adds with
`add_snapshot`); every opponent move happens inside `step`, one batched forward pass per snapshot. With
`learner_seats="all"` (cooperative) the learner plays whichever seat is to move and is paid the team's reward.

Conventions (gymnasium 1.x `VectorEnv`):
- `reset(seed=s)` -> `(obs, infos)`; `step(actions)` -> `(obs, rewards, terminations, truncations, infos)`;
  obs `(N, size)` float32, rewards `(N,)` float32, terminations `(N,)` bool, truncations always False
  (every game ends by its rules); `action_masks()` -> `(N, num_actions)` bool: the legal actions of the
  seat the learner plays now in each game, exact (the env's own mask). Arrays returned are the caller's.
- Autoreset is `AutoresetMode.SAME_STEP`: a game that ends is dealt again inside the same `step`, whose
  obs row and mask row are already the new game's first learner decision. `infos["final_obs"]` holds zeros
  for it (the learner has no decision in a finished game: do not bootstrap through `terminations`).
- Rewards are the env's rewards for the learner's seat, summed over everything since its last decision
  (win/draw/loss +1/0/-1 at the end by default). `infos["outcome"]` (+1/0/-1, masked by `_outcome`) is the
  finished game's result for the learner; `infos["seat"]` the seat the learner plays now in each game.
- Seeding: game i's generator is `seed + i`; each deal draws its table seed from it below
  `TRAINING_SEEDS_BELOW` (evaluation seeds are above), then the opponents. `reset(seed=s)` rebuilds the games
  and their opponents' generators from `s` (snapshots kept), so the same seed and actions give the same games
  bit for bit; `reset()` without a seed deals on from where the games are.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from torch import nn

from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW, Task
from tabletop.train.selfplay.batched import BatchedSelfPlayEnv
from tabletop.train.selfplay.config import SELF
from tabletop.train.selfplay.opponents import OpponentPool


def run_seed(seed: int, steps: int, num_envs: int) -> int:
    """The seed of a run's vector env after `steps` learner steps: from the run's seed and how far it got, so a
    resumed run deals new games; always a training seed."""
    return (seed * 100_003 + steps) % (TRAINING_SEEDS_BELOW - num_envs)


class _Passthrough(nn.Module):
    """The feature slot of a snapshot: the observation as it is (the snapshot's module does the rest)."""

    def forward_actor(self, observation):
        return observation


class Snapshot(nn.Module):
    """A frozen copy of any module `observation batch -> one logit per action`, in the layout the batched
    opponents call (`mlp_extractor.forward_actor`, then `action_net`)."""

    def __init__(self, module: nn.Module):
        super().__init__()
        self.mlp_extractor = _Passthrough()
        self.action_net = copy.deepcopy(module).cpu().eval().requires_grad_(False)


def frozen(module: nn.Module) -> nn.Module:
    """A frozen copy of `module` as the batched opponents call it: one that scores legal actions itself (its
    `legal_head`, as `families.qlearning.MlpSnapshot`) as it is, any other in `Snapshot`'s layout."""
    if getattr(module, "legal_head", False):
        return copy.deepcopy(module).cpu().eval().requires_grad_(False)
    return Snapshot(module)


class TaskVectorEnv(VectorEnv):
    """`num_envs` games of one task as a gymnasium VectorEnv (the module docstring states the conventions).

    `opponents` replaces the task's training opponents (weights by agent spec, "heuristics", "self"), e.g.
    `{"self": 1.0}` for pure self-play; `max_snapshots` is how many "self" snapshots the pool keeps (the oldest
    goes)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        task: Task,
        num_envs: int,
        seed: int = 0,
        opponents: dict[str, float] | None = None,
        max_snapshots: int = 10,
    ):
        if num_envs < 1:
            raise ValueError(f"num_envs={num_envs}; a vector env needs at least 1 game")
        if not 0 <= seed <= TRAINING_SEEDS_BELOW - num_envs:
            raise ValueError(f"seed={seed}; training seeds lie in [0, {TRAINING_SEEDS_BELOW - num_envs}]")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots={max_snapshots}; keep at least 1")
        self.task = task
        self.num_envs = num_envs
        self.opponents = dict(task.opponents if opponents is None else opponents)
        self.cooperative = task.learner_seats == "all"
        if not self.cooperative and not any(w > 0 for w in self.opponents.values()):
            raise ValueError(f"task {task.name}: learner_seats 'one' needs opponents with a positive weight")
        self.max_snapshots = max_snapshots
        self._snapshots: OrderedDict[str, tuple[nn.Module, bool]] = OrderedDict()
        probe = task.env.make_raw()
        agent = probe.possible_agents[0]
        self._spaces = (probe.observation_space(agent)["observation"], probe.action_space(agent))
        size, actions = probe.observer.layout.size, self._spaces[1]
        self.single_observation_space = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self.single_action_space = spaces.Discrete(actions.n)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.num_players = len(probe.possible_agents)
        self._build(seed)

    # --- the VectorEnv API -------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal every game afresh (rebuilt from `seed` when given) and play opponents up to the learner's first
        decision in each."""
        if SELF in self.opponents and self.opponents[SELF] > 0 and not self._snapshots:
            raise RuntimeError(
                f"task {self.task.name}'s opponents include 'self': add a snapshot (add_snapshot) before reset"
            )
        if seed is not None:
            self._build(seed)
        self._started = True
        obs = self._batched.reset()
        return obs, {"seat": self._seats()}

    def step(self, actions):
        """One learner action per game; opponents move until each game is at the learner's next decision."""
        if not self._started:
            raise RuntimeError("step before reset: call reset() first")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} integers, one per game; got {actions.dtype} {actions.shape}"
            )
        masks = self._batched.action_masks()
        legal = (actions >= 0) & (actions < masks.shape[1])
        legal[legal] = masks[np.flatnonzero(legal), actions[legal]]
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"game {i}: action {int(actions[i])} is illegal there; choose where action_masks() is True"
            )
        obs, rewards, dones, game_infos = self._batched.step(actions)
        infos: dict[str, Any] = {"seat": self._seats()}
        if dones.any():
            outcome = np.zeros(self.num_envs, dtype=np.float32)
            final = np.zeros((self.num_envs, *self.single_observation_space.shape), dtype=np.float32)
            for i in np.flatnonzero(dones):
                outcome[i] = game_infos[i]["outcome"]
            infos.update({"outcome": outcome, "_outcome": dones.copy(), "final_obs": final, "_final_obs": dones.copy()})
        return obs, rewards, dones, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """`(num_envs, num_actions)` bool: the legal actions of the seat the learner plays now in each game."""
        return self._batched.action_masks()

    def close(self, **kwargs: Any) -> None:
        """Nothing to release: the games live in this process."""

    # --- the opponent pool --------------------------------------------------------------------------------
    def add_snapshot(self, name: str, module: nn.Module, greedy: bool = False) -> None:
        """Add a frozen copy of `module` (float observations `(B, size)` -> logits `(B, num_actions)`) to every
        game's pool as a "self" opponent named `self:<name>`: it plays the masked softmax of its logits, sampled
        with its own seeded generator (the argmax when `greedy`). Takes effect from each game's next deal; the
        oldest snapshot goes when more than `max_snapshots` are kept. A name already used replaces that
        snapshot."""
        snapshot = frozen(module)
        self._snapshots.pop(name, None)
        self._snapshots[name] = (snapshot, greedy)
        while len(self._snapshots) > self.max_snapshots:
            self._snapshots.popitem(last=False)
        self._join(name, snapshot, greedy)

    def set_mixture(self, members: dict[str, tuple[nn.Module, int]]) -> None:
        """Replace every "self" snapshot by a mixture: member `name` (a module as `add_snapshot` takes) fills
        `count` equal shares of the self weight, so a deal draws it with probability count / total. The copies of
        one member share one frozen module (one batched forward pass). The total must fit `max_snapshots`."""
        total = sum(count for _, count in members.values())
        if not 1 <= total <= self.max_snapshots or any(count < 1 for _, count in members.values()):
            raise ValueError(
                f"a mixture of {total} shares; give 1 to max_snapshots={self.max_snapshots}, each at least 1"
            )
        self._snapshots.clear()
        for game in self._batched.games:
            if game.pool is not None:
                game.pool.snapshots.clear()
        for name, (module, count) in members.items():
            snapshot = frozen(module)
            for copy_index in range(count):
                self._snapshots[f"{name}#{copy_index}"] = (snapshot, False)
                self._join(f"{name}#{copy_index}", snapshot, False)

    @property
    def snapshots(self) -> list[str]:
        """The snapshots' names, oldest first."""
        return list(self._snapshots)

    # --- internals ----------------------------------------------------------------------------------------
    def _build(self, seed: int) -> None:
        """The games and their pools, seeded from `seed`; the current snapshots join the new pools."""
        pools = [None if self.cooperative else self._pool(seed + i) for i in range(self.num_envs)]
        self._batched = BatchedSelfPlayEnv(self.task.env, pools, self.task.learner_seats, seed=seed)
        for game in self._batched.games:
            game.table_seeds = TRAINING_SEEDS_BELOW
        self._started = False
        for name, (snapshot, greedy) in self._snapshots.items():
            self._join(name, snapshot, greedy)

    def _pool(self, seed: int) -> OpponentPool:
        return OpponentPool(self.task.env, self.opponents, self.max_snapshots, {}, *self._spaces, seed=seed)

    def _join(self, name: str, snapshot: nn.Module, greedy: bool) -> None:
        for game in self._batched.games:
            if game.pool is not None:
                game.pool.snapshots.pop(name, None)
                game.pool.add_frozen(name, snapshot)
                if greedy:
                    game.pool.snapshots[name].rng = None  # the batched choice takes the argmax
        # snapshot generators are seeded by the pool's count: the same adds in the same order, the same games

    def _seats(self) -> np.ndarray:
        return np.fromiter((g.state.current_player for g in self._batched.games), dtype=np.int64, count=self.num_envs)

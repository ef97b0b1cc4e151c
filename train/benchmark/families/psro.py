"""The `psro` family: Policy-Space Response Oracles (Lanctot et al. 2017; OpenSpiel's `psro_v2`) with masked PPO
best responses (`policy_gradient.py`).

The population starts with the learner's untrained network. Each iteration trains a best response for `br_steps`
learner steps against the population mixed by the current meta-strategy (every other seat draws a member per
deal with the meta-strategy's probabilities, played from its masked softmax), freezes it as a new member, and
extends the empirical meta-game: the new member plays every member on `meta_deals` paired deals (each deal from
every seat, seeded below the evaluation seeds), its result u(i, j) in [0, 1]. The meta-game is symmetric (one
policy plays any seat): its zero-sum form is A = u - u^T.

Meta-solvers (`meta_solver`): `nash`, the symmetric Nash equilibrium of A, as the average strategy of
`solver_iterations` rounds of regret matching in self-play (deterministic); `uniform`, every member alike
(fictitious play). With more than two players a member faces one other member in every other seat, so the
meta-game is the two-strategy approximation of the n-player game, a documented simplification. The next best
response starts from the last one's weights (a warm start, as deep-RL PSRO commonly does).

`agent()`: the member the meta-strategy weights most (the newest on a tie), greedy, the suite's one evaluation
mode; the mixture itself is not a single player.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.train.benchmark.families.base import TRAINING_SEEDS_BELOW, Task
from tabletop.train.benchmark.families.hyperparameters import PSRO as DEFAULTS
from tabletop.train.benchmark.families.policy_gradient import PolicyGradientFamily, PolicyGradientLearner
from tabletop.train.benchmark.families.qlearning import build_network, policy_player, snapshot
from tabletop.train.benchmark.scoring import paired_deals
from tabletop.train.benchmark.vector import TaskVectorEnv, run_seed
from tabletop.train.selfplay.config import SELF

META_SOLVERS = ("nash", "uniform")


def regret_matching_nash(game: np.ndarray, iterations: int) -> np.ndarray:
    """A symmetric Nash equilibrium of the symmetric zero-sum game `game` (row payoffs, antisymmetric): the
    average strategy of regret matching played against itself."""
    n = len(game)
    regrets, total = np.zeros(n), np.zeros(n)
    for _ in range(iterations):
        positive = np.maximum(regrets, 0.0)
        strategy = positive / positive.sum() if positive.sum() > 0 else np.full(n, 1.0 / n)
        total += strategy
        values = game @ strategy
        regrets += values - strategy @ values
    return total / total.sum()


def shares(weights: np.ndarray, slots: int) -> np.ndarray:
    """`slots` whole shares split by `weights` (largest remainders; ties to the lower index)."""
    exact = weights / weights.sum() * slots
    whole = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - whole), kind="stable")[: slots - whole.sum()]:
        whole[i] += 1
    return whole


class PSROLearner(PolicyGradientLearner):
    family = "psro"

    def build(self) -> None:
        if self.params["meta_solver"] not in META_SOLVERS:
            raise ValueError(f"psro.meta_solver={self.params['meta_solver']!r}; allowed: {', '.join(META_SOLVERS)}")
        self.members: list[dict] = [self.frozen().state_dict()]
        self.payoffs = np.full((1, 1), 0.5)
        self.meta = np.ones(1)
        self.br_from = 0

    def opponents(self) -> dict[str, float]:
        return {SELF: 1.0}

    def make_env(self) -> TaskVectorEnv:
        n = self.params["num_envs"]
        env_seed = run_seed(self.seed, self.steps, n)
        env = TaskVectorEnv(self.task, n, env_seed, self.opponents(), self.params["mixture_slots"])
        self.mix_into(env)
        return env

    def mix_into(self, env: TaskVectorEnv) -> None:
        """The env's opponents become the population, each member in its share of the slots."""
        counts = shares(self.meta, self.params["mixture_slots"])
        networks = [self.member(i) for i in range(len(self.members))]
        env.set_mixture({f"member{i}": (snapshot(networks[i]), int(c)) for i, c in enumerate(counts) if c > 0})

    def member(self, i: int):
        network = build_network(self.task.env, self.params)
        network.load_state_dict(self.members[i])
        return network.eval().requires_grad_(False)

    def after_rollout(self) -> None:
        if self.steps - self.br_from >= self.params["br_steps"]:
            self.extend()

    def extend(self) -> None:
        """Freeze the best response as a member, play it against the population, solve the meta-game."""
        p = self.params
        self.members.append(self.frozen().state_dict())
        k = len(self.members) - 1
        newest = policy_player(self.member(k), self.task.env, f"member{k}", None, sample=False)
        row = np.full(k + 1, 0.5)
        for j in range(k):
            rival = policy_player(self.member(j), self.task.env, f"member{j}", None, sample=False)
            seed = (self.seed * 7_919 + (k * (k - 1) // 2 + j) * p["meta_deals"]) % (
                TRAINING_SEEDS_BELOW - p["meta_deals"]
            )
            row[j] = float(paired_deals(newest, rival, self.task.env, p["meta_deals"], seed).mean())
        payoffs = np.full((k + 1, k + 1), 0.5)
        payoffs[:k, :k] = self.payoffs
        payoffs[k, :], payoffs[:, k] = row, 1.0 - row
        payoffs[k, k] = 0.5
        self.payoffs = payoffs
        if p["meta_solver"] == "uniform":
            self.meta = np.full(k + 1, 1.0 / (k + 1))
        else:
            self.meta = regret_matching_nash(payoffs - payoffs.T, p["solver_iterations"])
        self.br_from = self.steps
        self.mix_into(self.env)

    def exported(self):
        """The member the meta-strategy weights most, the newest on a tie."""
        return self.member(len(self.meta) - 1 - int(np.argmax(self.meta[::-1])))

    def state(self) -> dict[str, Any]:
        return {
            **super().state(),
            "members": self.members,
            "payoffs": self.payoffs.tolist(),
            "meta": self.meta.tolist(),
            "br_from": self.br_from,
        }

    def load(self, state: dict[str, Any]) -> None:
        super().load(state)
        self.members = list(state["members"])
        self.payoffs, self.meta = np.array(state["payoffs"]), np.array(state["meta"])
        self.br_from = int(state["br_from"])


class PSROFamily(PolicyGradientFamily):
    """The `psro` algorithm family (module docstring)."""

    name = "psro"
    description = "PSRO: masked PPO best responses to the population's Nash (regret matching) meta-strategy"
    defaults = DEFAULTS
    learner = PSROLearner

    def unsupported(self, task: Task) -> str | None:
        if task.learner_seats == "all":
            return f"psro solves a game between opponents; task {task.name} is cooperative (learner_seats: all)"
        return None


FAMILY = PSROFamily()

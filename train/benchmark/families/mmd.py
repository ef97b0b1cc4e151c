"""The `mmd` family: magnetic mirror descent (Sokota et al. 2023, "A unified approach to reinforcement learning,
quantal response equilibria, and two-player zero-sum games"), as IIG-RL-Benchmark (Rudolph et al.) runs it: a
PPO-style update with a reverse-KL pull toward the rollout's policy and an entropy bonus.

MMD's step maximises `<q, pi> - alpha KL(pi, magnet) - (1/eta) KL(pi, pi_t)`. With the uniform magnet the first
penalty is minus the entropy up to a constant (`ent_coef` = alpha); the second is the mirror-descent proximity to
the current iterate, here the policy that collected the rollout (`kl_coef` = 1/eta), estimated per sample as
`r log r - (r - 1)`. Both default to IIG-RL-Benchmark's 0.05. The rest is the masked PPO learner of
`policy_gradient.py` (clipped ratio, GAE, value loss), trained against the task's opponents with the learner's
snapshots; the evaluation plays its greedy policy.
"""

from __future__ import annotations

from tabletop.train.benchmark.families.hyperparameters import MMD as DEFAULTS
from tabletop.train.benchmark.families.policy_gradient import PolicyGradientFamily, PolicyGradientLearner


class MMDLearner(PolicyGradientLearner):
    family = "mmd"


class MMDFamily(PolicyGradientFamily):
    """The `mmd` algorithm family (module docstring)."""

    name = "mmd"
    description = "magnetic mirror descent: masked PPO with a reverse-KL proximal term and the uniform magnet's entropy"
    defaults = DEFAULTS
    learner = MMDLearner


FAMILY = MMDFamily()

"""A learner runs torch's distributions without their argument checks (train/selfplay/trainer.py,
`unchecked_distributions`), only while it learns, and a NaN logit still fails."""

from __future__ import annotations

import pytest
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from stable_baselines3.common.callbacks import BaseCallback

from tabletop.train.selfplay.trainer import unchecked_distributions


class _Checks(BaseCallback):
    """Records whether torch checks distribution arguments at each step of the rollouts."""

    def __init__(self):
        super().__init__()
        self.seen: set[bool] = set()

    def _on_step(self) -> bool:
        self.seen.add(torch.distributions.Distribution._validate_args)
        return True


@pytest.mark.parametrize("overlap", [False, True])
def test_checks_are_off_while_learning_and_restored_after(overlap, smoke_learner):
    model = smoke_learner(overlap)
    assert torch.distributions.Distribution._validate_args
    checks = _Checks()
    model.learn(2 * model.n_steps * model.n_envs, callback=checks)
    assert checks.seen == {False}
    assert torch.distributions.Distribution._validate_args


def test_a_nan_logit_still_fails_at_the_draw_without_checks():
    logits = torch.tensor([[0.0, float("nan"), 1.0]])
    with unchecked_distributions():
        distribution = MaskableCategorical(logits=logits, masks=torch.tensor([[True, True, False]]))
        with pytest.raises(RuntimeError, match="probability tensor contains"):
            distribution.sample()

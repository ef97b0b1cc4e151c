"""The soak's short run for CI (the long one: `tabletop soak`, see docs/testing.md) and proof that it catches faults."""

import numpy as np
import pytest
from support.contract import CASES, IDS

from tabletop.envs import EnvSpec
from tabletop.envs.testing import SoakFailure, soak


@pytest.mark.slow
@pytest.mark.parametrize("env_id,config", CASES, ids=IDS)
def test_short_soak(env_id, config):
    report = soak(EnvSpec(env_id, config), games=2, seed=1000)
    assert report.games == 2 and report.states_validated == report.steps + 2


def test_soak_catches_a_mask_that_offers_an_illegal_move(monkeypatch):
    from tabletop.envs.cromlet.rules import CromletState

    honest = CromletState.legal_action_mask

    def lying(self):
        mask = honest(self).copy()
        mask[np.flatnonzero(mask == 0)[:1]] = 1
        return mask

    monkeypatch.setattr(CromletState, "legal_action_mask", lying)
    with pytest.raises(SoakFailure, match="game seed 5"):
        soak(EnvSpec("cromlet_v0"), games=1, seed=5)

"""Clients that step unmasked actions play every game unmodified: PettingZoo's own state and parallel seed tests,
and RLlib's `PettingZooEnv` with the environment check its env runners run. They rely on PettingZoo's convention for
an illegal action (the game ends, -1 to the offender's side, a warning), which is the default."""

import warnings

import pytest
from pettingzoo.test import parallel_seed_test, state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from tabletop import envs
from tabletop.envs.registry import SHIPPED_IDS


@pytest.fixture(autouse=True)
def _quiet_illegal_moves():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", envs.IllegalActionWarning)
        yield


@pytest.mark.parametrize("env_id", SHIPPED_IDS)
def test_pettingzoo_state_and_parallel_seed_tests_pass(env_id):
    state_test(envs.make(env_id), turn_based_aec_to_parallel(envs.make(env_id)))
    parallel_seed_test(lambda: turn_based_aec_to_parallel(envs.make(env_id)))


@pytest.mark.parametrize("env_id", SHIPPED_IDS)
def test_rllib_pettingzoo_env_passes_its_environment_check(env_id):
    pytest.importorskip("ray.rllib")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(PettingZooEnv(envs.make(env_id)))


def test_raise_keeps_refusing_for_debugging():
    env = envs.make("cromlet_v0", illegal_action="raise")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(envs.IllegalActionError, match="is illegal"):
        env.step(int((mask == 0).nonzero()[0][0]))

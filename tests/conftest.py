"""Fixtures shared across test modules."""

import pytest


@pytest.fixture(scope="session")
def cromlet_onnx_dir(tmp_path_factory):
    """An untrained Cromlet policy exported to a folder: for tests of the protocol, not of play strength."""
    torch = pytest.importorskip("torch")
    from tabletop.agents.policy_agent import build_policy
    from tabletop.envs import EnvSpec
    from tabletop.train.selfplay.policy import policy_kwargs
    from tabletop.train.serving.export import export_policy

    torch.manual_seed(0)
    spec = EnvSpec("cromlet_v0")
    env = spec.make_raw()
    agent = env.possible_agents[0]
    policy = build_policy(env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([32], "tanh"))
    out = tmp_path_factory.mktemp("cromlet_export")
    export_policy(policy, out, spec)
    return out

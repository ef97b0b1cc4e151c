"""Fixtures shared across test modules."""

import pytest


@pytest.fixture(scope="session")
def cromlet_onnx_dir(tmp_path_factory):
    """An untrained Cromlet policy exported to a folder: for tests of the protocol, not of play strength."""
    torch = pytest.importorskip("torch")
    import envs
    from train.export import export_policy
    from train.policy import build_policy, policy_kwargs

    torch.manual_seed(0)
    env = envs.make_raw("cromlet_v0")
    agent = env.possible_agents[0]
    policy = build_policy(env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([32], "tanh"))
    out = tmp_path_factory.mktemp("cromlet_export")
    export_policy(policy, out, "cromlet_v0", {})
    return out

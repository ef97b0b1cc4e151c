"""Fixtures shared across test modules."""

import pytest


@pytest.fixture(scope="session")
def cromlet_onnx_dir(tmp_path_factory):
    """An untrained Cromlet policy exported to a folder: for tests of the protocol, not of play strength."""
    torch = pytest.importorskip("torch")
    from tabletop import envs
    from tabletop.train.export import export_policy
    from tabletop.train.policy import build_policy, policy_kwargs

    torch.manual_seed(0)
    env = envs.make_raw("cromlet_v0")
    agent = env.possible_agents[0]
    policy = build_policy(env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([32], "tanh"))
    out = tmp_path_factory.mktemp("cromlet_export")
    export_policy(policy, out, "cromlet_v0", {})
    return out


def _aec_trace(env_id: str, seed: int, **config) -> list:
    """A seeded random game through the AEC API: every agent, observation, mask, reward and action."""
    import numpy as np

    from tabletop import envs

    env = envs.make(env_id, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, action))
        env.step(action)
    return trace


@pytest.fixture
def aec_trace():
    """`aec_trace(env_id, seed, **config)`: what determinism tests compare, bit for bit."""
    return _aec_trace

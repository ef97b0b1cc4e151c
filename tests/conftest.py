"""Fixtures shared across test modules."""

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--soak", action="store_true", help="also run the soak tests (hundreds of games per configuration)"
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--soak"):
        return
    skip = pytest.mark.skip(reason="a soak test: hundreds of games per configuration; run with --soak")
    for item in items:
        if item.get_closest_marker("soak"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def cromlet_onnx_dir(tmp_path_factory):
    """An untrained Cromlet policy exported to a folder: for tests of the protocol, not of play strength."""
    torch = pytest.importorskip("torch")
    from tabletop.envs import EnvSpec
    from tabletop.train.selfplay.policy import build_policy, policy_kwargs
    from tabletop.train.serving.export import export_policy

    torch.manual_seed(0)
    spec = EnvSpec("cromlet_v0")
    env = spec.make_raw()
    agent = env.possible_agents[0]
    policy = build_policy(
        env.observation_space(agent)["observation"], env.action_space(agent), policy_kwargs([32], "tanh")
    )
    out = tmp_path_factory.mktemp("cromlet_export")
    export_policy(policy, out, spec)
    return out


@pytest.fixture
def play_legal_game():
    """`play(agent, spec, seed, seats)`: one seeded game with `agent` in `seats` (every seat if None) and the
    first legal action elsewhere, checking every move the agent makes against the mask."""
    import numpy as np

    def play(agent, spec, seed: int, seats=(0,)) -> None:
        env = spec.make_raw()
        env.reset(seed=seed)
        state = env.game_state
        while not state.is_terminal():
            seat = state.current_player
            mask = state.legal_action_mask()
            if seats is None or seat in seats:
                action = agent.act(env.observer.encode(state, seat), mask, state.view(seat))
                assert mask[action], f"{agent} chose masked action {action}"
            else:
                action = int(np.flatnonzero(mask)[0])
            state.apply(action)

    return play


@pytest.fixture
def check_masks_reach_ppo():
    """`check(model, favourite)`: learn one rollout with the action head biased hard towards `favourite`,
    then assert every sampled action was legal and `favourite` was taken exactly when it was legal."""
    import numpy as np
    from stable_baselines3.common.logger import Logger

    def check(model, favourite: int) -> None:
        model.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-* folder
        model.learn(96)  # an illegal action would raise IllegalActionError inside the env
        buffer = model.rollout_buffer
        actions = buffer.actions.reshape(-1).astype(int)
        masks = buffer.action_masks.reshape(len(actions), -1).astype(bool)
        assert masks[np.arange(len(actions)), actions].all()
        np.testing.assert_array_equal(actions == favourite, masks[:, favourite])  # taken iff legal: the bias is huge

    return check


@pytest.fixture
def smoke_learner():
    """`make(overlap)`: a fresh self-play learner on the Cromlet smoke config (configs/smoke/cromlet.yaml), with
    `sb3.overlap` set and one snapshot of itself in the pool, ready to `learn`."""
    from pathlib import Path

    from tabletop.train.selfplay.config import load_config
    from tabletop.train.selfplay.policy import actor_weights
    from tabletop.train.selfplay.trainer import make_vec_env, new_model

    smoke = Path(__file__).resolve().parents[1] / "configs" / "smoke" / "cromlet.yaml"

    def make(overlap: bool):
        config = load_config(smoke)
        config.sb3.overlap = overlap
        vec_env = make_vec_env(config, seed=0)
        model = new_model(config, vec_env)
        vec_env.env_method("add_snapshot", "s0", actor_weights(model.policy))
        return model

    return make

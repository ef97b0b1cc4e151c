"""The registry and the entry modules: every game is reachable, and `raw_env` mirrors its Game's defaults."""

import inspect

import pytest

from tabletop import envs


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_entry_module_defaults_match_the_game_constructor(env_id):
    """Each entry module restates its game's arguments (PettingZoo style); the two must not drift apart."""
    module = envs.env_module(env_id)
    game_cls = type(module.raw_env().game)
    entry = inspect.signature(module.raw_env).parameters
    game = inspect.signature(game_cls.__init__).parameters
    shared = [name for name in game if name != "self"]
    assert set(shared) <= set(entry), f"raw_env lacks {set(shared) - set(entry)}"
    for name in shared:
        assert entry[name].default == game[name].default, f"{env_id}: default of {name!r} differs"
    assert set(entry) - set(shared) == {"reward", "observation_mode", "render_mode", "illegal_action"}


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_make_and_make_raw_build_the_registered_game(env_id):
    env = envs.make(env_id)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == env_id
    assert envs.make_raw(env_id).game.name == env_id

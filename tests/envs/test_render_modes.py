"""Every render mode PettingZoo knows: `human` prints the text table (and returns None), as its classic
environments do, so PettingZoo's own `render_test` passes for every game."""

from __future__ import annotations

from functools import partial

import pytest
from pettingzoo.test import render_test

from tabletop import envs


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_pettingzoo_render_test(env_id):
    render_test(partial(envs.make, env_id))


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_human_mode_prints_what_ansi_returns(env_id, capsys):
    human, text = envs.make(env_id, render_mode="human"), envs.make(env_id, render_mode="ansi")
    human.reset(seed=4)
    text.reset(seed=4)
    capsys.readouterr()
    assert human.render() is None
    assert capsys.readouterr().out == text.render() + "\n"

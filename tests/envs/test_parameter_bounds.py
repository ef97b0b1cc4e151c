"""Every size-like argument of every game has a declared upper end, checked when the game is made: its bound
builds, one past it is a one-line error naming the argument and what is allowed."""

from __future__ import annotations

import pytest

from tabletop.envs import ENV_IDS, EnvSpec, ParameterError, definition
from tabletop.envs.core.params import is_int

NEEDS = {  # what the other arguments must be for both ends to be playable
    ("kings_cribbage", "max_moves"): {"action_mode": "moves"},
    ("chromino", "hand_size"): {"num_players": 1, "variant": "solo"},  # the whole bag but the start tile
    ("krz_grtn", "start_letters"): {"num_players": 2, "tile_limit": 16},
    ("krz_grtn", "tile_limit"): {"num_players": 2, "start_letters": 2},
}


def _int_parameters():
    for env_id in ENV_IDS:
        for param in definition(env_id).game.parameters:
            if param.choices is None and (is_int(param.default) or param.bounds is not None):
                yield pytest.param(env_id, param, id=f"{env_id}-{param.name}")


@pytest.mark.parametrize("env_id, param", list(_int_parameters()))
def test_each_int_argument_builds_at_its_bound_and_refuses_one_past_it(env_id, param):
    assert param.bounds is not None, f"{env_id}: {param.name} declares no upper bound"
    low, high = param.bounds
    extra = NEEDS.get((env_id.rsplit("_v", 1)[0], param.name), {})
    for value in (low, high):
        game = EnvSpec(env_id, {**extra, param.name: value}).new_game()
        assert game.params[param.name] == value
    for value in (low - 1, high + 1):
        with pytest.raises(ParameterError) as refused:
            EnvSpec(env_id, {**extra, param.name: value})
        message = str(refused.value)
        assert f"{param.name}={value} is not allowed; allowed: an int from {low} to " in message
        assert "\n" not in message and "//" not in message and "[" not in message


def test_a_huge_chromino_grid_is_one_line_not_a_memory_error():
    with pytest.raises(
        ParameterError, match=r"^chromino_v1: grid_size=100000 is not allowed; allowed: an int from 5 to"
    ):
        EnvSpec("chromino_v1", {"grid_size": 100_000})


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_allowed_values_are_words_and_numbers_never_source_code(env_id):
    for param in definition(env_id).parameters:
        text = param.describe_allowed()
        assert "None" not in text and "null" not in text and "//" not in text and " in [" not in text, text

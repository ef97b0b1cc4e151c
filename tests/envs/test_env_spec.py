"""EnvSpec: one game however its arguments are spelled."""

from __future__ import annotations

from tabletop.envs import EnvSpec


def test_a_default_spelled_out_or_left_implicit_is_the_same_game():
    implicit = EnvSpec("cromlet_v0", {"num_players": 2})
    spelled = EnvSpec("cromlet_v0", {"num_players": 2, "hand_size": implicit.resolved()["hand_size"]})
    assert implicit.same_game(spelled) and spelled.same_game(implicit)
    assert not implicit.same_game(EnvSpec("cromlet_v0", {"num_players": 3}))
    assert not implicit.same_game(EnvSpec("chromino_v1", {"num_players": 2}))

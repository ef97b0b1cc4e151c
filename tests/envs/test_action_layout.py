"""`ActionLayout`: every action decodes to the block and index that encode it, for every game's layout."""

from __future__ import annotations

import itertools

import pytest

from tabletop.envs import EnvSpec
from tabletop.envs.core.actions import ActionLayout

LAYOUTS = {
    "cromlet": EnvSpec("cromlet_v0", {"num_players": 4}),
    "chromino": EnvSpec("chromino_v1", {}),
    "kings_cribbage_tiles": EnvSpec("kings_cribbage_v0", {}),
    "kings_cribbage_moves": EnvSpec("kings_cribbage_v0", {"action_mode": "moves"}),
    "krz_grtn": EnvSpec("krz_grtn_v1", {"num_players": 4}),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_decode_inverts_encode_for_every_action(name):
    layout = LAYOUTS[name].new_game().actions
    decoded = [layout.decode(a) for a in range(layout.num_actions)]
    assert [layout.encode(*d) for d in decoded] == list(range(layout.num_actions))
    expected = [
        (block.name, *index) for block in layout.blocks for index in itertools.product(*map(range, block.shape))
    ]
    assert decoded == expected  # blocks in order, each row-major
    assert layout.decode(layout.num_actions - 1) is decoded[-1]  # looked up, not worked out again


def test_decode_refuses_what_is_outside_the_layout():
    layout = ActionLayout.of(("play", 3, "a card"), ("pass", (), "no card"))
    assert layout.decode(3) == ("pass",) and layout.decode(2) == ("play", 2)
    for action in (-1, 4):
        with pytest.raises(ValueError, match=rf"action {action} is outside \[0, 4\)"):
            layout.decode(action)

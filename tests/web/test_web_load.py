"""The bounded loopback load test of `tabletop serve` (tabletop.train.web.load): 50 games at once, three
waves in a row, against a server in its own process."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("websockets", reason="the web extra is not installed: pip install -e '.[web]'")

from tabletop.train.web import load

pytestmark = pytest.mark.slow  # a load test: many concurrent games against one server

GAMES, WAVES = 50, 3
FLAT_KIB = 4096
"""How much the server's resident memory may grow from the second wave to the third: the first wave
warms it up (imports, caches); after that each wave's finished tables make room for the next wave's."""


def test_fifty_concurrent_games_are_all_answered_in_order_and_memory_stays_flat(record_property):
    waves = load.run(games=GAMES, waves=WAVES, deadline=300)
    print("\n" + load.report(waves))
    for wave in waves:
        assert len(wave.games) == GAMES and all(game.over for game in wave.games)  # no game lost
        assert all(len(game.latencies) == game.own_moves > 0 for game in wave.games)  # each move answered
        assert all(game.moves > game.own_moves for game in wave.games)  # the agents moved too
    record_property("moves_per_second", round(waves[-1].moves / waves[-1].seconds))
    record_property("server_rss_mib", [round(w.rss_kib / 1024, 1) for w in waves])
    assert waves[2].rss_kib - waves[1].rss_kib < FLAT_KIB, [w.rss_kib for w in waves]


def test_a_mixed_up_frame_is_caught():
    """The client's checks can fail: another seat's view, a step that goes back, moves offered out of turn."""
    frame = {"view": {"player": 0}, "step": 4, "legal": None, "to_move": 1}
    load._check(frame, 0, 3)
    with pytest.raises(load.LoadError, match="view of 1"):
        load._check({**frame, "view": {"player": 1}}, 0, 3)
    with pytest.raises(load.LoadError, match="step 4 after step 4"):
        load._check(frame, 0, 4)
    with pytest.raises(load.LoadError, match="offered moves"):
        load._check({**frame, "legal": [[1, "x"]]}, 0, 3)

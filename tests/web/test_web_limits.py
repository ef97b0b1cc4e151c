"""What one client may cost a `tabletop serve` lobby: every game argument bounded before anything is built,
a share of tables per client address, quiet tables ended, and the connection cap fitted to the open-file limit."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from tabletop.envs import ENV_IDS, definition
from tabletop.train.web.connections import connection_budget
from tabletop.train.web.lobby import Lobby, RequestError
from tabletop.train.web.server import client_of

CROMLET = {"game": "cromlet_v0", "seats": ["you", "greedy"]}


def chromino() -> str:
    return next(e for e in ENV_IDS if e.startswith("chromino"))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_game_argument_refuses_a_huge_value_before_anything_is_built(env_id, monkeypatch):
    from tabletop.envs import EnvSpec

    lobby = Lobby()

    def never(spec):
        raise AssertionError(f"{spec} was built")

    monkeypatch.setattr(EnvSpec, "new_game", never)  # validating a spec is cheap; building one is not
    for param in definition(env_id).game.parameters:
        for value in (10**6, 10**30):
            with pytest.raises(RequestError) as refused:
                lobby.create({"game": env_id, "args": {param.name: value}, "seats": ["you"]})
            assert "is not allowed" in str(refused.value) or "on a web table" in str(refused.value), param.name
    assert lobby.entries == {}


def test_chromino_grids_are_bounded_on_the_web_and_the_form_says_so():
    lobby = Lobby()
    with pytest.raises(RequestError, match=r"args: grid_size is 1500; an int from 5 to 61 on a web table"):
        lobby.create({"game": chromino(), "args": {"grid_size": 1500}, "seats": ["you", "random"]})
    with pytest.raises(RequestError, match="a 100-bit number"):
        lobby.create({"game": chromino(), "args": {"grid_size": 2**99}, "seats": ["you", "random"]})
    assert lobby.create({"game": chromino(), "args": {"grid_size": 61}, "seats": ["you", "random"]}).table
    (game,) = [g for g in lobby.games() if g["id"] == chromino()]
    allowed = {p["name"]: p["allowed"] for p in game["parameters"]}
    assert allowed["grid_size"] == "an int from 5 to 61 on a web table"


def test_each_client_holds_a_share_of_the_tables_and_its_finished_ones_make_room():
    from support.web import play_out

    lobby = Lobby(tables_per_client=2, max_tables=10)
    mine = [lobby.create(CROMLET, client="10.0.0.1") for _ in range(2)]
    with pytest.raises(RequestError, match="you hold 2 tables in play on this server") as refused:
        lobby.create(CROMLET, client="10.0.0.1")
    assert refused.value.status == 429
    lobby.create(CROMLET, client="10.0.0.2")  # another address has its own share
    play_out(mine[0].table, record=False)
    lobby.create(CROMLET, client="10.0.0.1")  # a finished table of its own makes room
    assert mine[0].host not in lobby.entries and mine[1].host in lobby.entries


def test_the_limits_are_checked_before_a_table_is_built(monkeypatch):
    lobby = Lobby(max_tables=1)
    lobby.create(CROMLET)
    built = []
    monkeypatch.setattr(lobby, "build", lambda request: built.append(request))
    with pytest.raises(RequestError, match="holds 1 tables") as refused:
        lobby.create({"game": chromino(), "args": {"grid_size": 61}, "seats": ["you", "random"]})
    assert refused.value.status == 503 and built == []


def test_a_table_being_built_holds_its_place():
    lobby = Lobby(tables_per_client=1)
    with lobby.place("10.0.0.1"):
        with pytest.raises(RequestError, match="you hold 1 tables"):
            lobby.create(CROMLET, client="10.0.0.1")
    lobby.create(CROMLET, client="10.0.0.1")


def test_a_table_nobody_has_open_ends_after_the_idle_time_one_with_a_page_open_after_an_hour():
    lobby = Lobby(idle_seconds=600, abandon_seconds=3600)
    closed, open_ = lobby.create(CROMLET), lobby.create(CROMLET)
    open_.page_opened()
    start = max(closed.seen, open_.seen)
    lobby.evict(now=start + 601)
    assert closed.host not in lobby.entries and open_.host in lobby.entries
    lobby.evict(now=start + 3601)
    assert open_.host not in lobby.entries


@pytest.mark.parametrize(
    "address, client",
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),  # one household's addresses count together
        ("::ffff:203.0.113.7", "203.0.113.7"),
    ],
)
def test_a_client_is_its_address_an_ipv6_one_by_its_network(address, client):
    class Request:
        client = type("Address", (), {"host": address})

    assert client_of(Request()) == client


def test_the_connection_cap_fits_the_open_file_limit():
    assert connection_budget(None, 20_000) == 1000
    assert connection_budget(None, 200) == 45  # (200 - 64) // 3
    assert connection_budget(40, 200) == 40
    with pytest.raises(
        ValueError,
        match=r"--max-connections 100 needs an open-file limit of at least 364.*may open "
        r"200 \(ulimit -n\): allow at most 45",
    ):
        connection_budget(100, 200)

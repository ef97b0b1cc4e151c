"""`tabletop serve` over HTTP and websockets (no browser): a page is its link's seat whatever its URL or its
messages say, the API refuses bad requests with a reason, models and positions go only where they may."""

from __future__ import annotations

import json

import pytest
from support.web import http, new_table, receive, socket

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
from websockets.exceptions import ConnectionClosed

from tabletop.train.web.lobby import Lobby
from tabletop.train.web.server import Server, running


@pytest.fixture(scope="module")
def site():
    lobby = Lobby()
    with running(Server(lobby)) as base:
        yield base, lobby


def test_pages_and_the_games_list(site):
    base, _ = site
    status, headers, body = http(base, "/")
    assert status == 200 and b"new-table" in body
    assert "script-src 'self'" in headers["content-security-policy"]  # no script from anywhere else
    assert headers["referrer-policy"] == "no-referrer"
    status, _, body = http(base, "/api/games")
    games = json.loads(body)["games"]
    assert [g["id"] for g in games] == ["cromlet_v0", "chromino_v1", "kings_cribbage_v0", "krz_grtn_v1"]
    cromlet = games[0]
    assert cromlet["players"][:3] == ["you", "person", "random"] and "greedy" in cromlet["players"]
    assert {p["name"] for p in cromlet["parameters"]} == {
        "num_players",
        "teams",
        "claim_limit",
        "hand_size",
        "cromlets",
        "wilds",
    }
    assert http(base, "/static/boards/krz_grtn.js")[0] == 200
    assert http(base, "/t/not-a-table")[0] == 404


@pytest.mark.parametrize(
    "body, status, message",
    [
        (b"{not json", 400, "not valid JSON"),
        (json.dumps({"game": "cromlet_v0", "seats": ["you", "nobody"]}).encode(), 400, "'nobody' is not offered"),
        (
            json.dumps({"game": "cromlet_v0", "seats": ["you", "greedy"], "position": {"game": "cromlet"}}).encode(),
            400,
            "invalid state",
        ),
        (b" " * (5 << 20), 413, "at most"),
    ],
)
def test_a_bad_table_request_gets_a_reason(site, body, status, message):
    base, _ = site
    got, _, answer = http(base, "/api/tables", body)
    assert got == status and message in json.loads(answer)["error"]


def test_a_page_is_its_links_seat_whatever_its_url_or_messages_say(site):
    base, lobby = site
    made = new_table(base, game="cromlet_v0", seats=["you", "person"], seed=3)
    (other,) = made["invites"]
    entry, _ = lobby.find(made["link"].rsplit("/", 1)[1])
    table = entry.table
    with socket(base, made["link"], "?seat=1&viewer=1") as mine, socket(base, other["link"]) as theirs:
        hello_mine, hello_theirs = receive(mine), receive(theirs)
        assert (hello_mine["viewer"], hello_theirs["viewer"]) == (0, 1)
        assert hello_mine["invites"] == made["invites"] and hello_theirs["invites"] == []  # links stay with the host
        frames = {0: receive(mine), 1: receive(theirs)}
        for seat, frame in frames.items():
            assert frame["view"]["player"] == seat and "hands" not in frame["view"] and "deck" not in frame["view"]
        mover = table.state.current_player
        waiting_ws, mover_ws = (theirs, mine) if mover == 0 else (mine, theirs)
        action = frames[mover]["legal"][0][0]
        assert frames[1 - mover]["legal"] is None
        # the waiting seat cannot move for the mover, name another seat, or smuggle keys in
        for message, reason in [
            ({"type": "move", "actions": [action], "step": 0}, "not your turn"),
            ({"type": "move", "actions": [action], "step": 0, "seat": mover}, "unknown key 'seat'"),
            ({"type": "move", "actions": [action], "step": 0, "token": made["link"]}, "unknown key 'token'"),
            ({"type": "move", "actions": [True], "step": 0}, "actions:"),
            ({"type": "review", "step": 0}, "still on"),
            ({"type": "pause", "paused": True}, "only the spectator"),
            ({"type": "look", "seat": mover}, "whose type is one of"),
        ]:
            waiting_ws.send(json.dumps(message))
            assert reason in receive(waiting_ws)["message"]
        waiting_ws.send("[" * 3000)
        assert "nested 3000 levels deep" in receive(waiting_ws)["message"]
        waiting_ws.send(" " * 5000)
        assert "at most 4096 characters" in receive(waiting_ws)["message"]
        assert table.moves == []
        mover_ws.send(json.dumps({"type": "move", "actions": [action], "step": 0}))
        assert receive(mover_ws)["step"] == 1
        seen = receive(waiting_ws)
        assert seen["step"] == 1 and seen["view"]["player"] == 1 - mover and seen["log"][0]["seat"] == mover
        assert table.moves == [(mover, action)]
    with pytest.raises(ConnectionClosed) as closed, socket(base, made["link"] + "x") as stranger:
        stranger.recv(timeout=10)
    assert closed.value.rcvd.code == 4404
    with pytest.raises(ConnectionClosed) as closed, socket(base, other["link"]) as flood:
        flood.send("x" * 100_000)  # beyond what the server reads at all: the socket closes, the table goes on
        while True:
            flood.recv(timeout=10)
    assert closed.value.rcvd.code == 1009 and table.moves == [(mover, action)]


def test_the_spectator_watches_pauses_and_saves_while_seats_save_only_at_the_end(site):
    base, lobby = site
    # a slow pace (5 s a move) until paused: at pace 0 a loaded machine could end the game before the pause came
    watched = new_table(
        base, game="kings_cribbage_v0", args={"board_size": 7}, seats=["greedy", "random"], seed=2, pace_ms=5_000
    )
    with socket(base, watched["link"]) as ws:
        assert receive(ws)["viewer"] is None
        first = receive(ws)
        assert "racks" in first["view"] and "bags" in first["view"]  # the spectator of agents sees everything
        ws.send(json.dumps({"type": "move", "actions": [0], "step": first["step"]}))
        assert "only seated players move" in receive(ws, lambda m: m["type"] == "error")["message"]
        ws.send(json.dumps({"type": "pause", "paused": True}))
        paused = receive(ws, lambda m: m["type"] == "frame" and m["paused"])
        ws.send(json.dumps({"type": "advance"}))
        assert receive(ws, lambda m: m["type"] == "frame" and m["step"] > paused["step"])["paused"]
        ws.send(json.dumps({"type": "pace", "ms": 0}))
        ws.send(json.dumps({"type": "pause", "paused": False}))
        over = receive(ws, lambda m: m["type"] == "frame" and m["over"])
        ws.send(json.dumps({"type": "review", "step": 3}))
        assert receive(ws, lambda m: m["type"] == "review")["step"] == 3
    status, headers, body = http(base, f"/api/position/{watched['link'].rsplit('/', 1)[1]}?step=5")
    assert status == 200 and "attachment" in headers["content-disposition"]
    entry, _ = lobby.find(watched["link"].rsplit("/", 1)[1])
    assert json.loads(body) == entry.table.position_at(5).to_json() and over["moves"] == len(entry.table.moves)
    played = new_table(base, game="cromlet_v0", seats=["you", "greedy"])
    status, _, body = http(base, f"/api/position/{played['link'].rsplit('/', 1)[1]}")
    assert status == 403 and "once the game is over" in json.loads(body)["error"]
    assert http(base, "/api/position/nobody")[0] == 404
    status, _, body = http(base, f"/api/position/{watched['link'].rsplit('/', 1)[1]}?step=-1")
    assert status == 400 and "whole number" in json.loads(body)["error"]


def test_a_model_is_served_only_to_the_page_whose_policy_plays_there(cromlet_onnx_dir):
    lobby = Lobby(policies=(f"onnx:{cromlet_onnx_dir}",), runtime=True)
    with running(Server(lobby)) as base:
        made = new_table(base, game="cromlet_v0", seats=["you", f"page:onnx:{cromlet_onnx_dir}"], seed=1)
        host, page = made["link"].rsplit("/", 1)[1], made["invites"][0]["link"].rsplit("/", 1)[1]
        status, _, model = http(base, f"/models/{page}/model.onnx")
        assert status == 200 and model == (cromlet_onnx_dir / "model.onnx").read_bytes()
        assert http(base, f"/models/{page}/metadata.json")[0] == 200
        for path in (
            f"/models/{host}/model.onnx",
            f"/models/{page}/other.bin",
            "/models/nobody/model.onnx",
            "/vendor/onnxruntime-web/package.json",
            "/vendor/onnxruntime-web/..%2F..%2Fpackage.json",
        ):
            assert http(base, path)[0] == 404, path
        entry, _ = lobby.find(page)
        table = entry.table
        with socket(base, made["invites"][0]["link"]) as ws:
            assert receive(ws)["policy"] is True
            frame = receive(ws)
            if frame["legal"] is None:  # the person moves first: play for them
                mover = table.state.current_player
                assert mover == 0
                with socket(base, made["link"]) as person:
                    receive(person)
                    legal = receive(person)["legal"]
                    person.send(json.dumps({"type": "move", "actions": [legal[0][0]], "step": 0}))
                    receive(person)
                frame = receive(ws, lambda m: m["type"] == "frame" and m["legal"] is not None)
            state = table.state
            assert frame["policy"]["observation"] == table.env.observer.encode(state, 1).tolist()
            assert frame["policy"]["mask"] == state.legal_action_mask().tolist()


def test_the_serve_command_explains_what_it_cannot_do(capsys, tmp_path):
    from tabletop.train import cli

    assert cli.main(["serve", "--policy", "greedy"]) == 2
    assert "give onnx:DIR (an export folder) or ppo:PATH" in capsys.readouterr().err
    assert cli.main(["serve", "--policy", f"onnx:{tmp_path / 'none'}"]) == 2
    assert "does not exist" in capsys.readouterr().err
    with running(Server(Lobby())) as base:
        port = base.rsplit(":", 1)[1].strip("/")
        assert cli.main(["serve", "--port", port]) == 2
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_a_search_player_plays_at_a_table_from_its_seats_resample(site):
    """A search player needs one resample of what its seat knows (agents.base.sample_for); the server hands it
    one, so a table with a search seat plays on instead of stopping with the agent's failure."""
    base, lobby = site
    made = new_table(base, game="cromlet_v0", seats=["search", "random"], seed=3)
    table = lobby.find(made["link"].rsplit("/", 1)[1])[0].table
    with socket(base, made["link"]) as watcher:
        receive(watcher, until=lambda m: m.get("step", 0) >= 6 or bool(table.failure))
    assert table.failure is None and 0 in {seat for seat, _ in table.moves}
    assert "search" in lobby.players("chromino_v1") and "search" not in lobby.players("krz_grtn_v1")  # cooperative
    status, _, body = http(
        base, "/api/tables", json.dumps({"game": "cromlet_v0", "seats": ["search:sims=99999", "you"]}).encode()
    )
    assert status == 400 and b"is not offered" in body  # only the default budget is served

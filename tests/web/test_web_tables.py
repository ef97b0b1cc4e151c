"""`tabletop serve` without a browser: what each viewer's frame holds, moves, replays, saved positions and
the checks on a request for a table (the websocket and HTTP side: tests/web/test_web_server.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from support.web import play_out, step_once

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from tabletop.agents import RandomAgent
from tabletop.envs import EnvSpec
from tabletop.envs.krz_grtn.phases import CLUE, GUESS, OVER
from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.train.web.games import plain
from tabletop.train.web.lobby import Lobby, RequestError, new_token
from tabletop.train.web.table import HUMAN, MoveRefused, Seat, Table

GAMES = {  # small configurations, so each game ends in well under a second
    "cromlet_v0": ({}, "greedy"),
    "chromino_v1": ({"grid_size": 15}, "most_contacts"),
    "kings_cribbage_v0": ({"board_size": 7}, "greedy"),
    "krz_grtn_v1": ({"num_players": 3}, "skeleton"),
}
FRAME_KEYS = {
    "type",
    "step",
    "moves",
    "to_move",
    "over",
    "scores",
    "returns",
    "view",
    "names",
    "log",
    "legal",
    "policy",
    "pace_ms",
    "paused",
    "failure",
}


def new_table(game: str, seats: list[str] | None = None, seed: int = 0) -> tuple[Lobby, object]:
    """A table of `game` (small arguments); by default you, another person and agents in the other seats."""
    args, agent = GAMES[game]
    if seats is None:
        count = EnvSpec(game, args).new_game().num_players
        seats = ["you", "person", *[agent] * (count - 2)]
    lobby = Lobby()
    return lobby, lobby.create({"game": game, "args": args, "seats": seats, "seed": seed, "pace_ms": 0})


@pytest.mark.parametrize("game", GAMES)
def test_a_frame_holds_its_viewers_view_and_nothing_else(game):
    _, entry = new_table(game)
    table = entry.table
    frames = play_out(table)
    assert table.over and len(table.moves) > 10
    for (viewer, step), frame in frames.items():
        state = table.position_at(step)
        assert set(frame) == FRAME_KEYS
        assert frame["view"] == plain(state.view(viewer)), (viewer, step)
        assert json.loads(json.dumps(frame, allow_nan=False)) == frame  # strict JSON, as the socket sends it
        if viewer == state.current_player:
            assert [a for a, _ in frame["legal"]] == np.flatnonzero(state.legal_action_mask()).tolist()
            assert all(name == state.action_to_string(a) for a, name in frame["legal"])
        else:
            assert frame["legal"] is None
        assert frame["policy"] is None  # no seat here runs a policy in its page
    # each viewer's transcript is what the renderer tells that viewer, move by move
    for viewer in table.viewers():
        expected = []
        for step, (seat, action) in enumerate(table.moves):
            text = table.env.renderer.describe(table.position_at(step), action, viewer)
            if text is not None:
                expected.append({"step": step, "seat": seat, "text": text})
        assert [vars(line) for line in table.lines[viewer]] == expected


def test_the_krz_guesser_is_never_sent_the_target():
    _, entry = new_table("krz_grtn_v1", seats=["you", "skeleton", "skeleton"], seed=3)
    table = entry.table
    frames = play_out(table)
    checked = 0
    for (viewer, step), frame in frames.items():
        state = table.position_at(step)
        if viewer != state.x or state.phase == OVER:  # once over, nothing is hidden any more
            continue
        assert frame["view"]["target"] is None and frame["view"]["target_position"] is None
        if state.phase != GUESS:  # before the pictures are laid out, the target is nowhere in the frame
            target = CONCEPTS[state.target]
            assert str(state.target) not in frame["names"]
            assert f'"{target.name}"' not in json.dumps(frame)
            checked += 1
    assert checked > 5


def test_a_frame_does_not_change_with_what_its_viewer_cannot_see():
    """Two positions that differ only behind X's back (another target, the deck) give X the same frame."""
    _, entry = new_table("krz_grtn_v1", seats=["you", "skeleton", "skeleton"], seed=1)
    table = entry.table
    rng = RandomAgent(1)
    while not (table.state.phase == CLUE and table.state.x == 0):  # clues being made, seat 0 guessing
        step_once(table, rng)
    data = table.state.to_json()
    by_name = {c.name: c.id for c in CONCEPTS}
    old = by_name[data["target"]]
    swapped = dict(data, deck=list(data["deck"]))
    swapped["target"], swapped["deck"][0] = CONCEPTS[2 * data["deck"][0]].name, old // 2
    swapped["candidates"] = [swapped["target"]]  # the target lies alone face up while clues are made
    other = table.env.game.state_from_json(swapped, np.random.default_rng(0))
    assert other.target != table.state.target
    people = [Seat(i, HUMAN) for i in range(3)]
    twin = Table(table.spec, people, other, watch=False)
    mine = Table(table.spec, people, table.state.clone(), watch=False)
    assert twin.frame(0) == mine.frame(0)
    assert twin.frame(1) != mine.frame(1)  # a clue giver sees the target


def test_moves_are_checked_whole_and_only_for_the_seat_to_move():
    _, entry = new_table("chromino_v1", seats=["you", "person"], seed=2)
    table = entry.table
    mover, other = table.state.current_player, 1 - table.state.current_player
    before = json.dumps(table.state.to_json())
    legal = [a for a, _ in table.frame(mover)["legal"]]
    with pytest.raises(MoveRefused, match="not your turn"):
        table.play(other, [legal[0]], 0)
    with pytest.raises(MoveRefused, match="step 5"):
        table.play(mover, [legal[0]], 5)
    with pytest.raises(MoveRefused, match="not legal"):
        table.play(mover, [table.env.game.num_actions - 2 if table.env.game.num_actions - 2 not in legal else 0], 0)
    with pytest.raises(MoveRefused, match="not legal"):
        table.play(mover, [10**6], 0)
    # a whole turn in one message: take a tile, then lay it; one more action would be the next seat's
    choose = legal[0]
    trial = table.state.clone()
    trial.apply(choose)
    place = int(np.flatnonzero(trial.legal_action_mask())[0])
    trial.apply(place)
    after = int(np.flatnonzero(trial.legal_action_mask())[0])
    with pytest.raises(MoveRefused, match="after your turn ended"):
        table.play(mover, [choose, place, after], 0)
    assert json.dumps(table.state.to_json()) == before and table.moves == []
    table.play(mover, [choose, place], 0)
    assert table.moves == [(mover, choose), (mover, place)] and table.state.current_player == other


def test_a_finished_game_replays_step_by_step_as_each_seat_saw_it():
    _, entry = new_table("kings_cribbage_v0", seed=4)
    table = entry.table
    with pytest.raises(MoveRefused, match="once it is over"):
        table.review(0, 0)
    frames = play_out(table)
    last = len(table.moves)
    for viewer in table.viewers():
        for step in (0, 1, last // 2, last - 1, last // 3, last):  # backwards too: the replay starts again
            shown = table.review(viewer, step)
            assert shown["view"] == frames[viewer, step]["view"] and shown["step"] == step
            assert shown["legal"] is None and shown["type"] == "review"
            assert all(line["step"] < step for line in shown["log"])
    with pytest.raises(MoveRefused, match="steps run from 0"):
        table.review(0, last + 1)


def test_positions_are_saved_for_a_seat_once_over_and_for_a_spectator_any_time():
    lobby, entry = new_table("cromlet_v0", seed=5)
    with pytest.raises(MoveRefused, match="once the game is over"):
        entry.table.saved_position(0)
    play_out(entry.table, record=False)
    saved = entry.table.saved_position(0, step=20)
    assert saved == entry.table.position_at(20).to_json()
    watched = lobby.create({"game": "cromlet_v0", "seats": ["greedy", "random"], "seed": 1})
    assert watched.table.watch and watched.table.saved_position(None) == watched.table.state.to_json()
    # a saved position starts a new table, validated by the game's own loader
    again = lobby.create({"game": "cromlet_v0", "seats": ["you", "greedy"], "position": saved})
    assert again.table.state.to_json() == saved


@pytest.mark.parametrize(
    "request_, message",
    [
        ([], "a table request is a JSON object"),
        ({"game": "cromlet_v0", "seats": ["you", "greedy"], "seat": 1}, "unknown key 'seat'"),
        ({"game": "chess", "seats": []}, "'chess' is not a game here"),
        (
            {"game": "cromlet_v0", "args": {"num_players": 9}, "seats": ["you"]},
            "num_players=9 is not allowed; allowed: 2, 3",
        ),
        (
            {"game": "cromlet_v0", "args": {"render_mode": "human"}, "seats": ["you"]},
            "not an argument of cromlet_v0's rules",
        ),
        ({"game": "cromlet_v0", "seats": ["you"]}, "this game has 2 seats, the request names 1"),
        ({"game": "cromlet_v0", "seats": ["you", "you"]}, "you can take one seat"),
        ({"game": "cromlet_v0", "seats": ["person", "greedy"]}, "needs your seat too"),
        ({"game": "cromlet_v0", "seats": ["you", "onnx:/etc"]}, "'onnx:/etc' is not offered"),
        ({"game": "cromlet_v0", "seats": ["you", "page:pretrained"]}, "is not offered"),
        ({"game": "cromlet_v0", "seats": ["you", "greedy"], "seed": -1}, "seed: a whole number"),
        ({"game": "cromlet_v0", "seats": ["you", "greedy"], "pace_ms": 10**6}, "pace_ms"),
        ({"game": "cromlet_v0", "seats": ["you", "greedy"], "position": {"game": "cromlet"}}, "invalid state: "),
        ({"game": "cromlet_v0", "seats": ["you", "greedy"], "position": "x"}, "a saved position is a JSON object"),
    ],
)
def test_a_bad_request_is_refused_naming_what_is_wrong(request_, message):
    with pytest.raises(RequestError, match=message.replace("(", r"\(")):
        Lobby().create(request_)


def test_a_position_from_another_configuration_or_a_finished_game_is_refused():
    lobby, entry = new_table("cromlet_v0", seed=6)
    saved = entry.table.state.to_json()
    with pytest.raises(RequestError, match="invalid state: config"):
        lobby.create(
            {"game": "cromlet_v0", "args": {"num_players": 3}, "seats": ["you", "greedy", "greedy"], "position": saved}
        )
    play_out(entry.table, record=False)
    with pytest.raises(RequestError, match="is over"):
        lobby.create({"game": "cromlet_v0", "seats": ["you", "greedy"], "position": entry.table.state.to_json()})


def test_every_seat_played_from_a_page_gets_its_own_unguessable_link():
    lobby = Lobby(max_tables=300)
    tokens = set()
    for seed in range(100):
        entry = lobby.create(
            {
                "game": "krz_grtn_v1",
                "args": {"num_players": 4},
                "seats": ["you", "person", "person", "skeleton"],
                "seed": seed,
            }
        )
        assert sorted(v for v in entry.links.values()) == [0, 1, 2]  # the agent's seat has no link
        tokens.update(entry.links)
    assert len(tokens) == 300 and all(len(t) >= 22 for t in tokens)  # 128 random bits each
    assert lobby.find(new_token()) is None
    found, viewer = lobby.find(next(iter(tokens)))
    assert found in lobby.entries.values() and viewer in (0, 1, 2)


def test_the_lobby_holds_a_bounded_number_of_tables():
    lobby = Lobby(max_tables=3)
    entries = [lobby.create({"game": "cromlet_v0", "seats": ["you", "greedy"], "seed": i}) for i in range(3)]
    with pytest.raises(RequestError, match="holds 3 tables"):
        lobby.create({"game": "cromlet_v0", "seats": ["you", "greedy"]})
    play_out(entries[1].table, record=False)  # a finished table makes room
    lobby.create({"game": "cromlet_v0", "seats": ["you", "greedy"]})
    assert entries[1].host not in lobby.entries and len(lobby.entries) == 3
    assert all(lobby.find(token) is None for token in entries[1].links)
    lobby.evict(now=entries[0].table.last_active + lobby.idle_seconds + 1)  # idle tables go
    assert entries[0].host not in lobby.entries


def test_a_shipped_policy_is_offered_on_the_server_and_in_the_page(monkeypatch, cromlet_onnx_dir):
    from tabletop.agents import registry
    from tabletop.train.web import lobby as lobby_module

    monkeypatch.setattr(registry, "pretrained_folders", lambda: [cromlet_onnx_dir])
    monkeypatch.setattr(lobby_module, "pretrained_folders", lambda: [cromlet_onnx_dir])
    lobby = Lobby(runtime=True)
    assert {"pretrained", "page:pretrained"} <= set(lobby.players("cromlet_v0"))
    assert "pretrained" not in lobby.players("chromino_v1")
    served = lobby.create({"game": "cromlet_v0", "seats": ["you", "pretrained"]}).table.seats[1]
    assert served.kind == "agent" and served.agent.name == "pretrained"
    in_page = lobby.create({"game": "cromlet_v0", "seats": ["you", "page:pretrained"]})
    seat = in_page.table.seats[1]
    assert seat.kind == "page" and seat.policy == cromlet_onnx_dir and seat.agent is None
    assert [i["seat"] for i in in_page.invites] == [1]
    with pytest.raises(RequestError, match="no pretrained policy for cromlet_v0"):
        lobby.create({"game": "cromlet_v0", "args": {"num_players": 3}, "seats": ["you", "page:pretrained", "greedy"]})


def test_a_page_policy_trained_with_a_feature_group_is_sent_that_encoding():
    """The shipped Chromino policy reads the look-ahead group; a page seat at a lean table gets it all the same."""
    lobby = Lobby(runtime=True)
    made = lobby.create({"game": "chromino_v1", "seats": ["page:pretrained", "page:pretrained"], "seed": 3})
    table = made.table
    state = table.state
    mover = state.current_player
    assert table.seats[mover].observation_options == {"features": ("lookahead",)}
    sent = table.frame(mover)["policy"]["observation"]
    expected = table.env.observer_for({"features": ("lookahead",)}).encode(state, mover)
    assert len(sent) == expected.size > table.env.observer.layout.size
    np.testing.assert_array_equal(np.asarray(sent, dtype=np.float32), expected)

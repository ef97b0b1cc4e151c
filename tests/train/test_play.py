"""`tabletop play`: a scripted human plays each game to its end."""

import io
import re

import numpy as np
import pytest

from tabletop.agents import RandomAgent
from tabletop.envs import EnvSpec
from tabletop.train import cli
from tabletop.train.serving import play


def last_legal_name(spec: EnvSpec, seed: int) -> str:
    env = spec.make_raw()
    env.reset(seed=seed)
    return env.action_to_string(int(np.flatnonzero(env.game_state.legal_action_mask())[-1]))


def replay(spec: EnvSpec, seed: int, transcript: str):
    """Replay the moves a transcript of a game without private moves reports, by name, on a fresh env: they
    must be legal in order and end the game. A line may add public detail after the name ("trade in one
    dead card: B4 face up on the discard pile")."""
    env = spec.make_raw()
    env.reset(seed=seed)
    for line in re.findall(r"^(?:you|player_\d+ \(.*?\)): (.*)$", transcript, flags=re.M):
        legal = [
            a
            for a in np.flatnonzero(env.game_state.legal_action_mask())
            if line.split(": ")[0] == env.action_to_string(a)
        ]
        assert legal, f"{line!r} is not legal at this point of the replay"
        env.step(int(legal[0]))
    return env.game_state


def test_scripted_game_against_an_exported_policy_runs_to_the_end(cromlet_onnx_dir):
    seed, cromlet = 4, EnvSpec("cromlet_v0")
    named = last_legal_name(cromlet, seed)
    script = ["what?", "0", "999", named] + ["1"] * 400
    out = io.StringIO()
    returns = play.play(
        cromlet, f"onnx:{cromlet_onnx_dir}", seat=0, seed=seed, lines=io.StringIO("\n".join(script)), out=out
    )
    text = out.getvalue()

    assert "game over: you " in text and sorted(returns.tolist()) == [-1.0, 1.0]
    for bad in ("what?", "0", "999"):
        assert f"{bad!r} is not a choice" in text
    human_moves = re.findall(r"^you: (.*)$", text, flags=re.M)
    assert human_moves[0] == named  # chosen by its exact name after three bad answers
    menus = text.count("    hand: ") - 2  # the human's own hand over every menu, and both hands at the end
    assert text.count("your move (number or name): ") == menus + 3 and menus >= len(human_moves)
    assert re.search(r"^ +1\. ", text, flags=re.M) and "deck:" in text  # numbered choices under the ansi table
    final = replay(cromlet, seed, text)
    assert final.is_terminal() and np.array_equal(final.returns(), returns)


def test_seat_and_other_games(capsys):
    """The human may sit anywhere, including a cooperative four-seat table, and reads other givers' clues
    only once they are laid out (tests/train/test_transcripts.py checks every game's transcripts in depth)."""
    lines = io.StringIO("\n".join(["1"] * 2000))
    out = io.StringIO()
    returns = play.play(EnvSpec("krz_grtn_v1"), "random", seat=2, seed=1, lines=lines, out=out)
    text = out.getvalue()
    assert "you are player_2" in text and "game over" in text
    assert len(set(returns.tolist())) == 1  # one shared team result
    others = re.findall(r"^player_[013] \(random\): (.*)$", text, flags=re.M)
    assert "finish the clue" in others and not any(" to the clue" in line for line in others)
    assert re.search(r"^you: add [A-Z] to the clue$", text, flags=re.M)  # the human's own letters are shown


def test_typed_input_never_aborts_a_game():
    """Digits that are not ASCII, empty lines, huge numbers, control characters, replacement characters
    and an overlong line are all refused with a prompt again; the end of input ends the game politely."""
    odd = [
        "²",
        "",
        "   ",
        "99999999999999999999999999999",
        "-1",
        "1.0",
        "\x1b[31m1",
        "\x00",
        "\ufffd\ufffd",
        "x" * 10_000,
    ]
    out = io.StringIO()
    try:
        play.play(EnvSpec("cromlet_v0"), "random", seed=0, lines=io.StringIO("\n".join(odd + ["1"])), out=out)
    except play.InputEnded:
        pass
    text = out.getvalue()
    assert text.count("you: ") == 1 and text.count("is not a choice") == len(odd) - 1
    assert "answers are at most 500 characters" in text
    assert "\x1b" not in text and "\x00" not in text  # echoed answers cannot drive the terminal
    assert "'\\x1b[31m1' is not a choice" in text


def test_a_solo_game_ends_with_its_return_and_no_negative_zero():
    out = io.StringIO()
    returns = play.play(
        EnvSpec("chromino_v1", {"variant": "solo", "num_players": 1}),
        "random",
        seed=3,
        lines=io.StringIO("1\n" * 3000),
        out=out,
    )
    assert returns.tolist() == [0.0]  # the hand emptied: this deal is the case that printed "-0"
    assert out.getvalue().splitlines()[-1] == "game over: your return is 0 (scores: player_0 0)"


def test_command_line_errors(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\n"))
    assert cli.main(["play", "cromlet_v0", "--opponent", "greedy", "--seed", "0"]) == 1
    assert "input ended before the game did" in capsys.readouterr().err
    assert cli.main(["play", "cromlet_v0", "--opponent", "greedy", "--seat", "2"]) == 2
    assert "seat 2 is not at this table; allowed: 0 to 1" in capsys.readouterr().err
    assert cli.main(["play", "cromlet_v0", "--opponent", "nobody"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def biggest_choice(spec: EnvSpec, games: int, seat_has: str = "") -> list[str]:
    """The legal action names of the longest list a seat met in seeded random games (whose view shows `seat_has`)."""
    env, agent, best = spec.make_raw(render_mode="ansi"), RandomAgent(0), []
    for seed in range(games):
        env.reset(seed=seed)
        while not env.game_state.is_terminal():
            state = env.game_state
            legal = np.flatnonzero(state.legal_action_mask())
            if len(legal) > len(best) and seat_has in env.renderer.ansi(state, state.current_player):
                best = [env.action_to_string(a) for a in legal]
            env.step(agent.act(None, state.legal_action_mask(), None))
    return best


def walk(names: list[str], members: list[int]) -> list[int]:
    """Every action reachable from the menu of `members`, asserting each menu on the way is short."""
    _, options = play.menu(names, members)
    assert len(options) <= play.MENU_LIMIT
    return [m for o in options for m in (o.members if len(o.members) == 1 else walk(names, o.members))]


@pytest.mark.parametrize(
    "spec, games, seat_has",
    [(EnvSpec("cromlet_v0"), 5, "wild"), (EnvSpec("kings_cribbage_v0"), 1, "")],
    ids=["cromlet wild", "kings cribbage"],
)
def test_every_action_of_a_long_list_is_reached_through_short_menus(spec, games, seat_has):
    names = biggest_choice(spec, games, seat_has)
    assert len(names) > 4 * play.MENU_LIMIT  # a list that once scrolled the board away
    assert sorted(walk(names, list(range(len(names))))) == list(range(len(names)))  # each action once


def test_a_wild_is_played_in_menus_each_under_the_board(monkeypatch):
    """Which card, which circle's letter, which space: every menu right under a fresh copy of the board and
    no wider than the terminal; `back` returns to the menu before, an exact name is taken anywhere."""
    monkeypatch.setenv("COLUMNS", "80")
    names = biggest_choice(EnvSpec("cromlet_v0"), 5, "wild")
    wild = next(
        i
        for i, line in enumerate(play.menu(names, list(range(len(names))))[1], 1)
        if line.label.startswith("play wild … (")
    )
    target = next(name for name in names if name.startswith("play wild on Q") and "claim" in name)
    letters = [o.label[0] for o in play.menu(names, [i for i, n in enumerate(names) if n.startswith("play wild")])[1]]
    spaces = [n for n in names if n.startswith("play wild on Q")]
    answers = [str(wild), "back", str(wild), str(letters.index("Q") + 1), str(spaces.index(target) + 1)]
    out = io.StringIO()
    assert names[play.choose(names, io.StringIO("\n".join(answers)), out, board="THE BOARD")] == target
    shown = out.getvalue().split("THE BOARD\n")[1:]
    assert len(shown) == len(answers)  # a board over every menu
    assert shown[0] == shown[2] and shown[1].startswith("play wild on …\n")  # back, and the circles by letter
    assert all(len(line) <= 79 for line in out.getvalue().splitlines())
    assert names[play.choose(names, io.StringIO(f"{wild}\n{target}\n"), io.StringIO(), board="")] == target

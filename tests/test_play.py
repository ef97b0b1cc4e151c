"""`tabletop play`: scripted human sessions that run to the end of a game."""

import io
import re

import numpy as np

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
        legal = [a for a in np.flatnonzero(env.game_state.legal_action_mask()) if line.split(": ")[0] == env.action_to_string(a)]
        assert legal, f"{line!r} is not legal at this point of the replay"
        env.step(int(legal[0]))
    return env.game_state


def test_scripted_game_against_an_exported_policy_runs_to_the_end(cromlet_onnx_dir):
    seed, cromlet = 4, EnvSpec("cromlet_v0")
    named = last_legal_name(cromlet, seed)
    script = ["what?", "0", "999", named] + ["1"] * 400
    out = io.StringIO()
    returns = play.play(cromlet, f"onnx:{cromlet_onnx_dir}", seat=0, seed=seed, lines=io.StringIO("\n".join(script)), out=out)
    text = out.getvalue()

    assert "game over: you " in text and sorted(returns.tolist()) == [-1.0, 1.0]
    for bad in ("what?", "0", "999"):
        assert f"{bad!r} is not a choice" in text
    human_moves = re.findall(r"^you: (.*)$", text, flags=re.M)
    assert human_moves[0] == named  # chosen by its exact name after three bad answers
    assert text.count("your move (number or name): ") == len(human_moves) + 3
    assert re.search(r"^ +1\. ", text, flags=re.M) and "deck:" in text  # numbered choices under the ansi table
    assert text.count("    hand: ") == len(human_moves) + 2  # the human's own hand each turn, both at the end
    final = replay(cromlet, seed, text)
    assert final.is_terminal() and np.array_equal(final.returns(), returns)


def test_seat_and_other_games(capsys):
    """The human may sit anywhere, including a cooperative four-seat table, and reads other givers' clues
    only once they are laid out (tests/test_transcripts.py checks every game's transcripts in depth)."""
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
    odd = ["²", "", "   ", "99999999999999999999999999999", "-1", "1.0", "\x1b[31m1", "\x00", "\ufffd\ufffd", "x" * 10_000]
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
    returns = play.play(EnvSpec("chromino_v1", {"variant": "solo", "num_players": 1}), "random", seed=3,
                        lines=io.StringIO("1\n" * 3000), out=out)
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

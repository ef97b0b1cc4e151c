"""The shipped policy (`pretrained`): it loads for the game it was trained for and plays legal moves.

Not a strength test: docs/results.md measures its strength."""

import json

import pytest

from tabletop.agents import make_agent
from tabletop.agents.registry import pretrained_folder, pretrained_folders
from tabletop.envs import EnvSpec
from tabletop.train.cli import main
from tabletop.train.evaluation.tournament import play_game


def test_a_policy_is_shipped_for_two_player_cromlet_with_its_metadata():
    folder = pretrained_folder(EnvSpec("cromlet_v0", {"num_players": 2}))
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["env_id"] == "cromlet_v0" and meta["verification"]["actions_agree"]
    assert "command" in meta["source"]  # how to reproduce it
    assert (folder / "model.onnx").stat().st_size < 5_000_000


@pytest.mark.parametrize("folder", pretrained_folders(), ids=lambda f: f.name)
def test_every_shipped_policy_plays_legal_moves_for_its_game(folder):
    meta = json.loads((folder / "metadata.json").read_text())
    spec = EnvSpec(meta["env_id"], meta["env_kwargs"])
    agent = make_agent(spec, "pretrained")
    assert agent.name == "pretrained"
    env = spec.make_raw()
    others = [make_agent(spec, "random", seed=s) for s in range(env.game.num_players - 1)]
    for seed in range(2):
        returns, _, steps = play_game(env, [agent, *others], seed=seed)  # an illegal move would raise
        assert steps > 0 and len(returns) == env.game.num_players


def test_pretrained_matches_the_game_and_ignores_what_a_policy_never_sees():
    assert pretrained_folder(EnvSpec("cromlet_v0", {"render_mode": "ansi", "reward": "score"})) == pretrained_folder(
        EnvSpec("cromlet_v0")
    )
    with pytest.raises(
        ValueError,
        match=r"no pretrained policy for cromlet_v0\(num_players=3\); shipped: .*cromlet_v0\(num_players=2\)",
    ):
        make_agent(EnvSpec("cromlet_v0", {"num_players": 3}), "pretrained")
    with pytest.raises(ValueError, match=r"no pretrained policy for chromino_v1\(num_players=3\)"):
        make_agent(EnvSpec("chromino_v1", {"num_players": 3}), "pretrained")


def test_pretrained_plays_in_a_tournament_from_the_command_line(capsys):
    assert main(["tournament", "cromlet_v0", "pretrained", "patient", "--games", "2", "--quiet"]) == 0
    assert "pretrained" in capsys.readouterr().out

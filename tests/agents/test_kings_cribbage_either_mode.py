"""A Kings Cribbage policy trained in moves mode plays the default tiles mode wherever a policy is named: `ppo:` run
files, exports (`onnx:`, `pretrained`), `tabletop agent` and web seats, through the tiles adapter."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch")

from tabletop.agents import make_agent
from tabletop.agents.kings_cribbage_tiles import MovesPolicyAtTiles
from tabletop.agents.networks.saved import write_policy
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import run_tournament

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke" / "kings_cribbage.yaml"
TILES = EnvSpec("kings_cribbage_v0")  # the default action mode


@pytest.fixture(scope="module")
def moves_policy_file(tmp_path_factory) -> Path:
    """An untrained moves-mode policy file, as a run writes it."""
    from tabletop.train.selfplay.config import parse_config
    from tabletop.train.selfplay.policy import config_spec, policy_file
    from tabletop.train.selfplay.trainer import fresh_policy

    data = yaml.safe_load(SMOKE.read_text())
    data["env_kwargs"] = {"action_mode": "moves"}
    config = parse_config(data)
    path = tmp_path_factory.mktemp("run") / "policy.pt"
    write_policy(path, policy_file(fresh_policy(config), config_spec(config.network, config.env), config.env))
    return path


def test_a_moves_mode_ppo_policy_plays_a_tiles_mode_game_to_the_end(moves_policy_file):
    agent = make_agent(TILES, f"ppo:{moves_policy_file}", seed=0)
    assert isinstance(agent, MovesPolicyAtTiles)
    result = run_tournament(TILES, ["learned", "greedy"], 2, seed=3, agents={"learned": agent})
    assert result.records["learned"].played == 2 and all(g["returns"] for g in result.per_game)


def test_at_its_own_mode_the_ppo_policy_is_not_wrapped(moves_policy_file):
    agent = make_agent(TILES.with_kwargs(action_mode="moves"), f"ppo:{moves_policy_file}")
    assert not isinstance(agent, MovesPolicyAtTiles)


def test_tabletop_agent_answers_a_tiles_mode_table_with_a_moves_mode_export():
    import json

    from tabletop.agents import OnnxAgent
    from tabletop.agents.registry import pretrained_folder
    from tabletop.train.serving.agent_server import AgentServer

    export = OnnxAgent(pretrained_folder(TILES.with_kwargs(action_mode="moves")))
    assert export.metadata["env_kwargs"]["action_mode"] == "moves"
    server = AgentServer(export, {"action_mode": "tiles"})
    table = TILES.make_raw()
    table.reset(seed=2)
    while not table.game_state.is_terminal():  # every answer is a legal tiles-mode step, to the end of the game
        reply = server.answer(json.dumps({"state": table.game_state.to_json()}))
        assert "action" in reply, reply
        table.step(reply["action"])
    assert 'send {"state": ...}' in server.answer(json.dumps({"observation": [0.0], "action_mask": [1]}))["error"]


def test_a_web_seat_for_an_in_page_moves_mode_policy_plays_through_the_adapter_on_the_server():
    pytest.importorskip("starlette")
    from support.web import play_out

    from tabletop.train.web.lobby import Lobby

    lobby = Lobby(runtime=True)
    seats = ["page:pretrained", "greedy"]
    assert "page:pretrained" in lobby.players("kings_cribbage_v0")
    entry = lobby.create({"game": "kings_cribbage_v0", "seats": seats, "seed": 4, "pace_ms": 0})
    assert isinstance(entry.table.seats[0].agent, MovesPolicyAtTiles)
    play_out(entry.table)
    assert entry.table.over

"""A fifth game from outside the package, registered for this module only, goes everywhere a shipped one does:
the contract checks and the soak (`tabletop.envs.testing`), a training run with the `mlp` network, export to
ONNX and a table in `tabletop serve`. Nothing outside this folder names it (docs/architecture.md, "Adding a game")."""

from __future__ import annotations

import numpy as np
import pytest
from three_cards import DEFINITION

from tabletop import envs
from tabletop.envs import EnvSpec, testing

CONFIGS = [{}, {"observation_mode": "omniscient", "reward": "score"}]


@pytest.fixture(scope="module", autouse=True)
def registered():
    envs.register(DEFINITION)
    yield
    envs.unregister(DEFINITION.env_id)


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "omniscient-score"])
def test_the_contract_checks_pass(config):
    testing.check_game(EnvSpec("three_cards_v0", config))


def test_bad_arguments_are_refused_like_a_shipped_games():
    testing.check_parameters("three_cards_v0")


def test_a_soak_finds_nothing():
    report = testing.soak(EnvSpec("three_cards_v0"), games=50, seed=1)
    assert report.games == 50 and report.steps == 50 * 6


def test_a_registered_id_is_listed_and_cannot_be_registered_twice():
    assert "three_cards_v0" in envs.ENV_IDS
    with pytest.raises(envs.ParameterError, match="registered already"):
        envs.register(DEFINITION)


@pytest.mark.slow
def test_it_trains_with_the_mlp_network_and_exports_to_onnx(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    from tabletop.agents import make_agent
    from tabletop.train.selfplay.config import parse_config
    from tabletop.train.selfplay.trainer import train
    from tabletop.train.serving.export import export_trained

    config = parse_config(
        {
            "env_id": "three_cards_v0",
            "total_steps": 128,
            "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
            "network": {"kind": "mlp", "hidden": [16]},
            "opponents": {"weights": {"self": 0.5, "random": 0.5}, "snapshot_every": 64},
            "vec_env": {"kind": "dummy", "num_envs": 2},
            "evaluation": {"every": 128, "games": 2, "final_games": 4},
            "checkpoint": {"every": 128, "keep": 1},
        }
    )
    run = tmp_path / "run"
    assert train(config, out=run, steps=128, progress=False).steps == 128
    exported = tmp_path / "export"
    export_trained(run, exported)
    spec = EnvSpec("three_cards_v0")
    state = spec.new_game().new_initial_state(np.random.default_rng(0))
    env = spec.make_raw()
    for name in (f"ppo:{run}", f"onnx:{exported}"):
        agent = make_agent(spec, name)
        action = agent.act(env.observer.encode(state, 0), state.legal_action_mask(), state.view(0))
        assert state.legal_action_mask()[action]


def test_a_web_table_plays_it_to_the_end_showing_each_seat_its_own_hand():
    pytest.importorskip("starlette")
    from tabletop.train.web.lobby import Lobby

    lobby = Lobby()
    assert "three_cards_v0" in [game["id"] for game in lobby.games()]
    table = lobby.create({"game": "three_cards_v0", "seats": ["you", "random"], "seed": 3, "pace_ms": 0}).table
    assert table.drawing == "text" and table.static == {"actions": {"play": 0, "num_actions": 7}}
    while not table.over:
        if table.agent_to_move() is not None:
            agent, arguments, keywords = table.agent_inputs()
            table.apply(agent.act(*arguments, **keywords))
            continue
        frame = table.frame(0)
        own, other = frame["text"].split("\n")[:2]
        assert own == f"player_0: {table.state.hands[0]}" and other == f"player_1: {len(table.state.hands[1])}"
        table.play(0, [frame["legal"][0][0]], len(table.moves))
    assert table.frame(0)["returns"] is not None and len(table.moves) == 6

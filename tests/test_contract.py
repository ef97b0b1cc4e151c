"""The contract every registered game keeps, checked the same way for each (OpenSpiel-style).

Per game, a list of configurations covers every variant, the smallest and largest player counts and
both observation and reward modes. A fifth game joins by adding its entry to `CONFIGS` (a test fails
until it does). Per-game test files hold only rule scenarios and game-specific checks.

`python tests/test_contract.py --record` rewrites tests/data/traces.json; do that only for a change of
rules or encoding that is meant, and say so in the commit.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop import envs
from tabletop.envs import EnvSpec, IllegalActionError, ParameterError

DOCS = Path(__file__).resolve().parents[1] / "docs"
TRACES = Path(__file__).resolve().parent / "data" / "traces.json"
BOTH_MODES = {"observation_mode": "omniscient", "reward": "score"}
COOPERATIVE = {"krz_grtn_v1"}  # one team sharing one reward (and the penalty for an illegal action)

CONFIGS: dict[str, list[dict]] = {
    "cromlet_v0": [{}, {"num_players": 6}, {"num_players": 4, "teams": 2}, {"num_players": 6, "teams": 3}, BOTH_MODES],
    "chromino_v1": [
        {},
        {"variant": "junior"},
        {"variant": "expert", "num_players": 8},
        {"variant": "solo", "num_players": 1},
        {"num_players": 8},
        {"variant": "expert", "grid_size": 15, "hand_size": 5, "out_bonus": 5, "tile_penalty": 3},
        BOTH_MODES,
        {"features": ["lookahead"]},
        {"features": ["lookahead"], "variant": "junior", "observation_mode": "omniscient"},
    ],
    "kings_cribbage_v0": [
        {},
        {"num_players": 4},
        {"variant": "solitaire"},
        {"board_size": 5},
        {"board_size": 5, "stall_rounds": 1},
        {"board_size": 26},
        BOTH_MODES,
        {"action_mode": "moves"},
        {"action_mode": "moves", "max_moves": 3, "board_size": 5, "num_players": 4},
        {"action_mode": "moves", "variant": "solitaire", **BOTH_MODES},
    ],
    "krz_grtn_v1": [
        {},
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 6},
        {"blanks_per_player": 0, "levels": [3, 4, 5, 5, 6, 6], "lives": 2},
        {"lives": 0},
        {"level_candidates": [3, 4, 5, 6, 7, 12]},
        BOTH_MODES,
        {"features": ["roles"]},
        {"features": ["roles"], "num_players": 2, "observation_mode": "omniscient"},
    ],
}

CASES = [(env_id, config) for env_id, configs in CONFIGS.items() for config in configs]
IDS = [f"{env_id}-{json.dumps(config, sort_keys=True)}" for env_id, config in CASES]
contract = pytest.mark.parametrize("env_id,config", CASES, ids=IDS)


def test_every_registered_game_has_contract_configurations():
    assert sorted(CONFIGS) == sorted(envs.ENV_IDS)


# --- helpers ---------------------------------------------------------------------------------------------
def random_game(spec: EnvSpec, seed: int, max_steps: int = 10_000):
    """Every state of one random game (the rules alone), each yielded before its move is applied."""
    rng = np.random.default_rng(seed)
    state = spec.new_game().new_initial_state(rng)
    for _ in range(max_steps):
        yield state
        if state.is_terminal():
            return
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    raise AssertionError(f"{spec}: no end after {max_steps} random steps")


def trace_digest(spec: EnvSpec, seed: int) -> str:
    """A seeded random game through the AEC API: agents, observations, masks, rewards, actions, final state()."""
    env = spec.make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        digest.update(agent.encode())
        digest.update(obs["observation"].tobytes())
        digest.update(obs["action_mask"].tobytes())
        digest.update(repr((float(reward), action)).encode())
        env.step(action)
    digest.update(env.state().tobytes())
    return digest.hexdigest()[:16]


def trace_key(env_id: str, config: dict) -> str:
    return f"{env_id} {json.dumps(config, sort_keys=True)}"


# --- PettingZoo's own contract -------------------------------------------------------------------------------
@contract
def test_pettingzoo_api_test(env_id, config):
    api_test(EnvSpec(env_id, config).make(), num_cycles=100)


@contract
def test_pettingzoo_seed_test(env_id, config):
    seed_test(EnvSpec(env_id, config).make, num_cycles=60)


# --- determinism --------------------------------------------------------------------------------------------
@contract
def test_seeded_trace_is_the_recorded_one(env_id, config):
    """Same seed, same game, bit for bit, today and in every later version (tests/data/traces.json)."""
    recorded = json.loads(TRACES.read_text())
    spec = EnvSpec(env_id, config)
    assert trace_digest(spec, 7) == recorded[trace_key(env_id, config)]
    assert trace_digest(spec, 8) != recorded[trace_key(env_id, config)]


RETIRED = [tuple(key.split(" ", 1)) for key in json.loads(TRACES.read_text()) if key.split(" ")[0] in envs.RETIRED_IDS]


@pytest.mark.parametrize("env_id,config", RETIRED, ids=[" ".join(r) for r in RETIRED])
def test_a_retired_id_replays_the_trace_recorded_under_it(env_id, config):
    """A retired id still builds its old env bit for bit, and is its successor with the old feature groups."""
    recorded = json.loads(TRACES.read_text())[f"{env_id} {config}"]
    config = json.loads(config)
    assert trace_digest(EnvSpec(env_id, config), 7) == recorded
    definition = envs.definition(env_id)
    old = {"features": list(definition.defaults["features"])}
    assert trace_digest(EnvSpec(definition.successor, {**config, **old}), 7) == recorded


# --- serialisation and copies ---------------------------------------------------------------------------------
@contract
def test_json_round_trip_on_every_visited_state(env_id, config):
    spec = EnvSpec(env_id, config)
    env = spec.make_raw()
    game = env.game
    for state in random_game(spec, seed=3):
        data = state.to_json()
        back = game.state_from_json(json.loads(json.dumps(data)))
        assert back.to_json() == data
        assert back.current_player == state.current_player and back.is_terminal() == state.is_terminal()
        np.testing.assert_array_equal(back.legal_action_mask(), state.legal_action_mask())
        np.testing.assert_array_equal(back.scores(), state.scores())
        for seat in range(game.num_players):
            np.testing.assert_array_equal(env.observer.encode(back, seat), env.observer.encode(state, seat))
        np.testing.assert_array_equal(env.omniscient_observer.encode(back, 0), env.omniscient_observer.encode(state, 0))


@contract
def test_clone_is_independent(env_id, config):
    spec = EnvSpec(env_id, config)
    rng = np.random.default_rng(5)
    for state in random_game(spec, seed=5):
        if state.is_terminal():
            break
        before, mask = state.to_json(), state.legal_action_mask().copy()
        copy = state.clone()
        assert copy.to_json() == before
        copy.apply(int(rng.choice(np.flatnonzero(mask))))
        assert state.to_json() == before
        np.testing.assert_array_equal(state.legal_action_mask(), mask)


# --- exact masks ---------------------------------------------------------------------------------------------
@contract
def test_mask_is_exactly_the_actions_apply_accepts(env_id, config):
    """Brute force: on states spread along a game, `clone().apply(a)` raises exactly when the mask is 0."""
    spec = EnvSpec(env_id, config)
    states = [s.clone() for s in random_game(spec, seed=9)]
    chosen = [states[i] for i in np.linspace(0, len(states) - 2, num=min(5, len(states) - 1)).astype(int)]
    for state in chosen:
        mask = state.legal_action_mask()
        assert mask.dtype == np.int8 and mask.any()
        for action in range(len(mask)):
            try:
                state.clone().apply(action)
                accepted = True
            except IllegalActionError:
                accepted = False
            assert accepted == bool(mask[action]), f"{spec}: action {action} ({state.action_to_string(action)})"


@contract
def test_terminal_states_offer_no_action(env_id, config):
    *_, last = random_game(EnvSpec(env_id, config), seed=4)
    assert last.is_terminal() and last.current_player == -1
    with pytest.raises(IllegalActionError):
        last.apply(0)


@contract
def test_states_refuse_what_is_not_an_action(env_id, config):
    """`apply` and `action_to_string` take ints in [0, num_actions) only; bools, floats and strings are refused."""
    state = next(random_game(EnvSpec(env_id, config), seed=6))
    before = state.to_json()
    for bad in (-1, len(state.legal_action_mask()), 5.0, True, "3"):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
        with pytest.raises(ValueError, match=str(len(state.legal_action_mask()))):
            state.action_to_string(bad)
    assert state.to_json() == before


# --- renders -------------------------------------------------------------------------------------------------
@contract
def test_renders(env_id, config):
    spec = EnvSpec(env_id, config)
    text_env = spec.make(render_mode="ansi")
    text_env.reset(seed=1)
    assert isinstance(text_env.render(), str) and text_env.render()
    picture_env = spec.make(render_mode="rgb_array")
    picture_env.reset(seed=1)
    picture = picture_env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    raw = spec.make_raw()
    for state in random_game(spec, seed=1):
        for seat in (None, *range(raw.game.num_players)):
            assert isinstance(raw.renderer.ansi(state, seat), str)
    silent = spec.make()
    silent.reset(seed=1)
    assert silent.render() is None  # no render_mode, nothing drawn


# --- illegal actions -----------------------------------------------------------------------------------------
def _first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


@contract
def test_illegal_action_raises_and_changes_nothing(env_id, config):
    env = EnvSpec(env_id, config).make()
    env.reset(seed=2)
    agent = env.agent_selection
    obs = env.observe(agent)
    before = env.unwrapped.game_state.to_json()
    illegal = _first_illegal(obs["action_mask"])
    for bad in (illegal, -1, len(obs["action_mask"]), 1.5, True, "3"):
        with pytest.raises(IllegalActionError, match=agent):
            env.step(bad)
    assert env.unwrapped.game_state.to_json() == before and env.agent_selection == agent


@contract
def test_illegal_action_penalize_ends_the_game_with_minus_one_for_the_offender(env_id, config):
    """-1 for the offender and its teammates (Cromlet teams; every seat in a cooperative game), 0 for the others."""
    env = EnvSpec(env_id, {**config, "illegal_action": "penalize"}).make()
    env.reset(seed=2)
    agent = env.agent_selection
    env.step(_first_illegal(env.observe(agent)["action_mask"]))
    assert all(env.terminations.values())
    shared = env_id in COOPERATIVE
    assert getattr(env.unwrapped.game, "shared_reward", False) == shared
    team_of = getattr(env.unwrapped.game, "team_of", np.arange(len(env.possible_agents)))
    offender = team_of[env.possible_agents.index(agent)]
    assert env.rewards == {
        a: -1.0 if shared or team_of[i] == offender else 0.0 for i, a in enumerate(env.possible_agents)
    }
    assert "illegal_action" in env.infos[agent]


# --- parameters and their messages -----------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_entry_module_signature_is_the_declaration(env_id):
    definition = envs.definition(env_id)
    module = importlib.import_module(f"tabletop.envs.{env_id}")
    for entry in (module.raw_env, module.env):
        params = inspect.signature(entry).parameters
        assert [(p.name, p.default) for p in params.values()] == list(definition.parameters.defaults().items())


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_unknown_argument_names_every_allowed_argument(env_id):
    with pytest.raises(ParameterError) as err:
        envs.make(env_id, bogus=1)
    for name in envs.definition(env_id).parameters.names:
        assert name in str(err.value)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_every_declared_choice_is_enforced_with_the_allowed_values_named(env_id):
    definition = envs.definition(env_id)
    for param in definition.parameters:
        for bad in ("no-such-value", -12345, 1.5):
            if param.choices is not None and bad in param.choices:
                continue
            with pytest.raises(ParameterError, match=re.escape(f"{param.name}=")) as err:
                envs.make(env_id, **{param.name: bad})
            assert "allowed" in str(err.value) and param.describe_allowed() in str(err.value)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_env_spec_rejects_non_mapping_arguments(env_id):
    with pytest.raises(ParameterError, match="mapping"):
        EnvSpec(env_id, [1, 2])


def test_unknown_env_id_lists_the_registered_ones():
    with pytest.raises(ParameterError, match="cromlet_v0"):
        envs.make("cromlet_v9")


CROSS_PARAMETER_MESSAGES = [
    ("cromlet_v0", {"teams": 2}, r"teams=2 needs num_players in \(4, 6\)"),
    ("chromino_v1", {"num_players": 1}, r"variant='solo'"),
    ("kings_cribbage_v0", {"variant": "solitaire", "num_players": 3}, r"num_players"),
]


@pytest.mark.parametrize("env_id,kwargs,message", CROSS_PARAMETER_MESSAGES)
def test_cross_parameter_errors_say_what_is_allowed(env_id, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        envs.make(env_id, **kwargs)


# --- docs ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_docs_page_shows_the_declared_parameters(env_id):
    page = (DOCS / f"{env_id.rsplit('_v', 1)[0]}.md").read_text()
    table = re.search(r"<!-- parameters -->\n(.*?)\n<!-- /parameters -->", page, re.S)
    assert table, f"docs for {env_id} need the parameter table between <!-- parameters --> markers"
    assert table.group(1).strip() == envs.definition(env_id).parameters.markdown()


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    TRACES.parent.mkdir(exist_ok=True)
    traces = json.loads(TRACES.read_text())  # kept: the retired ids' traces
    traces.update({trace_key(e, c): trace_digest(EnvSpec(e, c), 7) for e, c in CASES})
    TRACES.write_text(json.dumps(traces, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(traces)} traces to {TRACES}")

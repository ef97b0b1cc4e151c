"""The contract every registered game keeps, checked the same way for each (OpenSpiel-style).

Per game, a list of configurations covers every variant, the smallest and largest player counts and
both observation and reward modes; each check is one of `tabletop.envs.testing` (docs/testing.md), the same a
user runs on a game of their own. A shipped game joins by adding its entry to `support.contract.CONFIGS` (a test fails until it
does) and recording its traces. Per-game test files hold only rule scenarios and game-specific checks.

`PYTHONPATH=tests python tests/envs/test_contract.py --record` rewrites tests/data/traces.json; do that only for a change of
rules or encoding that is meant, and say so in the commit.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
from pathlib import Path

import pytest
from support.contract import CASES, CONFIGS, IDS

from tabletop import envs
from tabletop.envs import EnvSpec, ParameterError, testing

DOCS = Path(__file__).resolve().parents[2] / "docs"
TRACES = Path(__file__).resolve().parents[1] / "data" / "traces.json"
COOPERATIVE = {"krz_grtn_v1"}  # one team sharing one reward (and the penalty for an illegal action)


contract = pytest.mark.parametrize("env_id,config", CASES, ids=IDS)


def test_every_registered_game_has_contract_configurations():
    assert sorted(CONFIGS) == sorted(envs.ENV_IDS)


def trace_key(env_id: str, config: dict) -> str:
    return f"{env_id} {json.dumps(config, sort_keys=True)}"


# --- the checks (tabletop.envs.testing: the same ones a user runs on a game of their own) -------------------------
@contract
def test_pettingzoo_api_and_seed_tests(env_id, config):
    testing.check_pettingzoo(EnvSpec(env_id, config))


@contract
def test_seeded_trace_is_the_recorded_one(env_id, config):
    """Same seed, same game, bit for bit, today and in every later version (tests/data/traces.json)."""
    recorded = json.loads(TRACES.read_text())
    spec = EnvSpec(env_id, config)
    assert testing.trace_digest(spec, 7) == recorded[trace_key(env_id, config)]
    assert testing.trace_digest(spec, 8) != recorded[trace_key(env_id, config)]


RETIRED = [tuple(key.split(" ", 1)) for key in json.loads(TRACES.read_text()) if key.split(" ")[0] in envs.RETIRED_IDS]


@pytest.mark.parametrize("env_id,config", RETIRED, ids=[" ".join(r) for r in RETIRED])
def test_a_retired_id_replays_the_trace_recorded_under_it(env_id, config):
    """A retired id still builds its own env bit for bit, and is its successor with the retired feature groups."""
    recorded = json.loads(TRACES.read_text())[f"{env_id} {config}"]
    config = json.loads(config)
    assert testing.trace_digest(EnvSpec(env_id, config), 7) == recorded
    definition = envs.definition(env_id)
    old = {"features": list(definition.defaults["features"])}
    assert testing.trace_digest(EnvSpec(definition.successor, {**config, **old}), 7) == recorded


@contract
def test_json_round_trip_on_every_visited_state(env_id, config):
    testing.check_json_round_trip(EnvSpec(env_id, config))


@contract
def test_clone_is_independent(env_id, config):
    testing.check_clone_independence(EnvSpec(env_id, config))


@contract
def test_mask_is_exactly_the_actions_apply_accepts(env_id, config):
    testing.check_masks(EnvSpec(env_id, config))


@contract
def test_legal_actions_are_the_masks_nonzero_indices(env_id, config):
    testing.check_legal_actions(EnvSpec(env_id, config))


@contract
def test_terminal_states_offer_no_action(env_id, config):
    testing.check_terminal(EnvSpec(env_id, config))


@contract
def test_states_refuse_what_is_not_an_action(env_id, config):
    testing.check_non_actions(EnvSpec(env_id, config))


@contract
def test_renders(env_id, config):
    testing.check_renders(EnvSpec(env_id, config))


@contract
def test_illegal_actions_raise_or_penalize(env_id, config):
    testing.check_illegal_actions(EnvSpec(env_id, config))
    assert getattr(EnvSpec(env_id, config).new_game(), "shared_reward", False) == (env_id in COOPERATIVE)


@contract
def test_action_layout_covers_every_action(env_id, config):
    testing.check_action_layout(EnvSpec(env_id, config))


# --- parameters and their messages -----------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_entry_module_signature_is_the_declaration(env_id):
    definition = envs.definition(env_id)
    module = importlib.import_module(f"tabletop.envs.{env_id}")
    for entry in (module.raw_env, module.env):
        params = inspect.signature(entry).parameters
        assert [(p.name, p.default) for p in params.values()] == list(definition.parameters.defaults().items())


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_bad_arguments_name_the_argument_and_what_is_allowed(env_id):
    testing.check_parameters(env_id)


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


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_docs_page_shows_the_action_layout(env_id):
    """Each `<!-- actions {kwargs} -->` table is `ActionLayout.markdown()` of that configuration (no kwargs: the default)."""
    page = (DOCS / f"{env_id.rsplit('_v', 1)[0]}.md").read_text()
    tables = re.findall(r"<!-- actions ?([^\n]*?) -->\n(.*?)\n<!-- /actions -->", page, re.S)
    assert tables, f"docs for {env_id} need the action layout between <!-- actions --> markers"
    for kwargs, table in tables:
        assert table.strip() == EnvSpec(env_id, json.loads(kwargs or "{}")).new_game().actions.markdown()


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    TRACES.parent.mkdir(exist_ok=True)
    traces = json.loads(TRACES.read_text())  # kept: the retired ids' traces
    traces.update({trace_key(e, c): testing.trace_digest(EnvSpec(e, c), 7) for e, c in CASES})
    TRACES.write_text(json.dumps(traces, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(traces)} traces to {TRACES}")

"""The small variants load and are as small as documented; any agent spec is an OpenSpiel policy over information
states, and OpenSpiel's exact tools evaluate it."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra is not installed (pip install tabletop-rl[openspiel])"
)

from open_spiel.python import policy as openspiel_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

from tabletop.agents.openspiel_policy import AgentPolicy  # noqa: E402
from tabletop.envs import EnvSpec  # noqa: E402
from tabletop.envs.openspiel import SMALL, load  # noqa: E402
from tabletop.train.benchmark.exploit import exact_exploit  # noqa: E402
from tabletop.train.benchmark.openspiel_exact import best_response_values, cfr_plus, count, nash_conv  # noqa: E402

TINY = {"box": "7 52", "hand_size": 1, "grid_size": 5}  # two tiles: a tree of 242 histories


def tiny() -> pyspiel.Game:
    return pyspiel.load_game("tabletop_chromino_v1", TINY)


def tiny_cromlet() -> pyspiel.Game:
    """One cromlet, one wild, hands of 1: 497 histories."""
    return pyspiel.load_game("tabletop_cromlet_v0", {"cromlets": "A", "wilds": 1, "hand_size": 1})


def test_the_small_variants_are_two_player_zero_sum_games_of_the_documented_size():
    assert {"chromino_small", "cromlet_small", "kings_cribbage_small"} <= set(SMALL)
    game = load("chromino_small")
    assert game.num_players() == 2 and game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    sizes = count(game)
    assert sizes == {
        "histories": 12174,
        "decisions": 9128,
        "chance_nodes": 326,
        "terminals": 2720,
        "longest": 7,
        "information_states": 2282,
    }
    assert sizes["longest"] <= game.max_game_length()


@pytest.mark.slow
def test_tabletop_exploit_is_exact_on_a_small_variant_only():
    small = EnvSpec("chromino_v1", {"box": [7, 30, 52, 66], "hand_size": 2, "grid_size": 5})
    assert exact_exploit(EnvSpec("chromino_v1"), "most_contacts") is None
    result = exact_exploit(small, "most_contacts")
    assert result.variant == "chromino_small"
    assert result.nash_conv == pytest.approx(
        nash_conv(load("chromino_small"), AgentPolicy(load("chromino_small"), "most_contacts"))
    )


def test_the_random_agent_is_openspiels_uniform_policy():
    game = tiny()
    assert nash_conv(game, AgentPolicy(game, "random")) == pytest.approx(
        nash_conv(game, openspiel_policy.UniformRandomPolicy(game))
    )


@pytest.mark.parametrize("spec", ["most_contacts", "block_rivals"])
def test_a_heuristic_is_a_deterministic_policy_of_the_information_state(spec):
    game = tiny()
    policy = AgentPolicy(game, spec)
    tabular = openspiel_policy.tabular_policy_from_callable(game, policy)
    for row in range(len(tabular.action_probability_array)):
        probabilities = tabular.action_probability_array[row]
        assert sorted(probabilities[probabilities > 0]) == [1.0]
    value = nash_conv(game, policy)
    assert value == pytest.approx(exploitability.nash_conv(game, tabular))
    assert value >= 0 and max(best_response_values(game, policy)) <= 1.0


@pytest.mark.parametrize(
    "game, every",
    [
        pytest.param(tiny, 10, marks=pytest.mark.slow, id="tiny-chromino"),
        pytest.param(tiny_cromlet, 20, id="tiny-cromlet"),
    ],
)
def test_cfr_plus_drives_nash_conv_below_5_percent_of_uniform_in_20_iterations(game, every):
    game = game()
    uniform = nash_conv(game, AgentPolicy(game, "random"))
    _, curve = cfr_plus(game, 20, every)
    assert uniform > 0 and curve[-1][1] < 0.05 * uniform


def test_cromlet_small_is_the_documented_size():
    game = load("cromlet_small")
    assert game.num_players() == 2 and game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert count(game) == {
        "histories": 19515,
        "decisions": 9260,
        "chance_nodes": 5943,
        "terminals": 4312,
        "longest": 6,
        "information_states": 6604,
    }
    assert game.max_game_length() == 6  # the cards in play: each action moves one or more onto a discard pile


def test_cromlet_small_plays_as_the_env_plays():
    from test_differential import play_both

    _, params = SMALL["cromlet_small"]
    config = {**params, "cromlets": params["cromlets"].split()}
    assert sum(play_both("cromlet_v0", config, seed) for seed in range(40)) > 40


@pytest.mark.slow
def test_cromlet_small_separates_random_the_heuristics_and_a_search_player():
    """As documented: with two cromlets the points count, so claiming at once is exploitable, and less so for
    a search player. The three heuristics coincide with hands of 1: their only choice is whether to claim."""
    game = load("cromlet_small")
    figures = {spec: nash_conv(game, AgentPolicy(game, spec)) for spec in ("random", "greedy", "search:sims=8")}
    assert figures == {
        "random": pytest.approx(0.3622, abs=1e-4),
        "greedy": pytest.approx(0.1528, abs=1e-4),
        "search:sims=8": pytest.approx(0.1319, abs=1e-4),
    }


def test_kings_cribbage_small_is_the_documented_size_and_offers_every_legal_move():
    """Moves mode is the rules' game here only if the offer never cuts a move: every decision offers them all
    (`max_moves=26` is more than any position has)."""
    game = load("kings_cribbage_small")
    assert game.num_players() == 2 and game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert count(game) == {
        "histories": 55551,
        "decisions": 22176,
        "chance_nodes": 4047,
        "terminals": 29328,
        "longest": 5,
        "information_states": 4698,
    }
    stack, decisions = [game.new_initial_state()], 0
    while stack:
        state = stack.pop()
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
        elif not state.is_terminal():
            assert len(state.rules.offered) == len(state.rules.moves) <= state.rules.game.max_moves
            decisions += 1
            stack.extend(state.child(a) for a in state.legal_actions())
    assert decisions == 22176


def test_kings_cribbage_small_plays_as_the_env_plays():
    from test_differential import play_both

    _, params = SMALL["kings_cribbage_small"]
    config = {**params, "box": [int(k) for k in params["box"].split()]}
    assert sum(play_both("kings_cribbage_v0", config, seed) for seed in range(40)) > 40


def test_kings_cribbage_small_separates_the_heuristics_and_a_search_player_as_documented():
    """The documented NashConv of each player. The search player redraws hidden tiles from states that OpenSpiel
    deals (no generator of their own), so its figure is exact too."""
    game = load("kings_cribbage_small")
    documented = {"random": 0.3951, "greedy": 0.3333, "leave": 0.7, "reply": 0.7, "search:sims=8": 0.2667}
    for spec, value in documented.items():
        assert nash_conv(game, AgentPolicy(game, spec)) == pytest.approx(value, abs=1e-4), spec


@pytest.mark.slow
def test_cfr_plus_passes_5_percent_of_uniform_on_kings_cribbage_small_within_10_iterations():
    game = load("kings_cribbage_small")
    uniform = nash_conv(game, AgentPolicy(game, "random"))
    _, curve = cfr_plus(game, 10, 10)
    assert curve == [(10, pytest.approx(0.01388, abs=1e-4))] and curve[-1][1] < 0.05 * uniform

"""OpenSpiel's own checks on every game, contract configuration and small variant, its RL environment running
its learners, the game types and parameters, and the leak test of every string and tensor a seat is shown."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra is not installed (pip install tabletop-rl[openspiel])"
)

from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.algorithms import tabular_qlearner  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402
from open_spiel.python.pytorch import dqn  # noqa: E402
from support.contract import CASES, IDS  # noqa: E402

from tabletop.envs import ENV_IDS, ParameterError, registry  # noqa: E402
from tabletop.envs.openspiel import GAMES, PREFIX, SMALL  # noqa: E402
from tabletop.envs.openspiel import load as load_small  # noqa: E402
from tabletop.envs.openspiel.game import ADAPTER_ONLY, RECALL, openspiel_params  # noqa: E402

Utility = pyspiel.GameType.Utility


def load(env_id: str, config: dict) -> pyspiel.Game:
    return pyspiel.load_game(PREFIX + env_id, openspiel_params(env_id, config))


@pytest.mark.parametrize(("env_id", "config"), CASES, ids=IDS)
def test_random_sim_test_with_serialization(env_id, config):
    pyspiel.random_sim_test(load(env_id, config), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", list(SMALL))
def test_random_sim_test_with_serialization_on_a_small_variant(name):
    """A small variant offers an information-state tensor, which OpenSpiel's check reads too."""
    pyspiel.random_sim_test(load_small(name, {RECALL: True}), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("name", list(SMALL))
def test_a_history_played_in_place_replays_to_the_same_states(name):
    """A small variant keeps what each history settles to; stepping one state in place must not alter what is kept."""
    game, rng = load_small(name), np.random.default_rng(2)
    for _ in range(3):
        state, seen = game.new_initial_state(), []
        while not state.is_terminal():
            legal = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            seen.append((legal, str(state), [state.information_state_string(p) for p in range(game.num_players())]))
            state.apply_action(legal[rng.integers(len(legal))])
        again = game.new_initial_state()
        for (legal, text, strings), action in zip(seen, state.history(), strict=True):
            now = [o for o, _ in again.chance_outcomes()] if again.is_chance_node() else again.legal_actions()
            assert (now, str(again)) == (legal, text)
            assert [again.information_state_string(p) for p in range(game.num_players())] == strings
            again.apply_action(action)
        assert again.returns() == state.returns()


def test_every_registered_env_is_a_game_with_its_parameters():
    assert GAMES == [PREFIX + env_id for env_id in ENV_IDS]
    for env_id in ENV_IDS:
        declared = {p.name: p.default for p in registry.definition(env_id).parameters if p.name not in ADAPTER_ONLY}
        spec = pyspiel.load_game(PREFIX + env_id).get_parameters()
        assert set(spec) == set(declared) | {RECALL} and spec[RECALL] is False
        for name, default in declared.items():
            if isinstance(default, (int, str)) and not isinstance(default, bool):
                assert spec[name] == default, name


def test_a_bad_parameter_is_the_envs_one_line_error():
    with pytest.raises(ParameterError) as raised:
        pyspiel.load_game("tabletop_cromlet_v0", {"num_players": 7})
    with pytest.raises(ParameterError) as from_env:
        registry.make("cromlet_v0", num_players=7)
    assert str(raised.value) == str(from_env.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("env_id", "config", "utility"),
    [
        ("cromlet_v0", {}, Utility.ZERO_SUM),
        ("cromlet_v0", {"num_players": 4, "teams": 2}, Utility.ZERO_SUM),
        ("cromlet_v0", {"num_players": 3}, Utility.GENERAL_SUM),
        ("chromino_v1", {"num_players": 3}, Utility.GENERAL_SUM),
        ("kings_cribbage_v0", {}, Utility.ZERO_SUM),
        ("krz_grtn_v1", {"num_players": 2}, Utility.IDENTICAL),
    ],
)
def test_game_types_are_as_the_rules_are(env_id, config, utility):
    game = load(env_id, config)
    kind = game.get_type()
    assert kind.utility == utility
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game.num_distinct_actions() == registry.definition(env_id).new_game(**config).num_actions


@pytest.mark.parametrize(("env_id", "config"), CASES, ids=IDS)
def test_random_games_stay_within_the_declared_bounds(env_id, config):
    game = load(env_id, config)
    rng = np.random.default_rng(0)
    for _ in range(3):
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert max(o for o, _ in outcomes) < game.max_chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
        assert decisions <= game.max_game_length()
        assert all(game.min_utility() <= r <= game.max_utility() for r in state.returns())


def play(env: rl_environment.Environment, agents: list, steps: int) -> rl_environment.TimeStep:
    """OpenSpiel learners take `steps` decisions in `env`, each also told every game's end; the last time step."""
    time_step = env.reset()
    for _ in range(steps):
        if time_step.last():
            for agent in agents:
                agent.step(time_step)
            time_step = env.reset()
        seat = time_step.observations["current_player"]
        time_step = env.step([agents[seat].step(time_step).action])
    return time_step


def test_an_openspiel_learner_runs_in_its_rl_environment():
    """A full game has no information-state tensor, so `rl_environment` feeds its learners the observation."""
    env = rl_environment.Environment(load("krz_grtn_v1", {"num_players": 2}))
    assert env.use_observation
    assert env.observation_spec()["info_state"][0] == env.game.observation_tensor_size()
    agents = [tabular_qlearner.QLearner(p, env.action_spec()["num_actions"]) for p in range(env.num_players)]
    play(env, agents, 300)


def test_openspiels_dqn_learns_from_information_state_tensors_on_a_small_variant():
    """`rl_environment` picks the information-state tensor where the game has one; OpenSpiel's DQN trains on it."""
    game = load_small("chromino_small", {RECALL: True})
    env = rl_environment.Environment(game, seed=0)
    assert not env.use_observation
    size = env.observation_spec()["info_state"][0]
    assert size == game.information_state_tensor_size()
    actions = env.action_spec()["num_actions"]
    agents = [
        dqn.DQN(p, size, actions, [32], replay_buffer_capacity=256, batch_size=16, min_buffer_size_to_learn=32)
        for p in range(env.num_players)
    ]
    last = play(env, agents, 300)
    assert all(len(info_state) == size for info_state in last.observations["info_state"])
    assert all(agent.loss is not None for agent in agents), "a learner never trained on the tensors"


def views_along(game: pyspiel.Game, history: list[int], seat: int) -> tuple[pyspiel.State, list]:
    """The state after `history` (as far as its actions stay legal) and `seat`'s view of every settled position."""
    state, views = game.new_initial_state(), []
    for action in history:
        if action not in state.legal_actions():
            break
        state.apply_action(action)
        if not state.is_chance_node():
            views.append(state.rules.view(seat))
    return state, views


def same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and bool((a == b).all())
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(("env_id", "config"), CASES, ids=IDS)
def test_a_seat_is_shown_nothing_it_may_not_know(env_id, config):
    """Change one chance outcome of a random game and replay the rest: for each seat whose views stayed the same,
    every string and tensor it is shown stays the same; where a view changed, its information state changes."""
    if config.get("observation_mode") == "omniscient":
        pytest.skip("an omniscient observation shows everything by design")
    game, rng = load(env_id, config), np.random.default_rng(1)
    if game.num_players() == 1:
        pytest.skip("a lone player sees every card it draws")
    hidden_checked = 0
    for _ in range(12):
        state, history = game.new_initial_state(), []
        stop = int(rng.integers(10, 80))
        while not state.is_terminal() and len(history) < stop:
            if state.is_chance_node():
                outcomes = [o for o, _ in state.chance_outcomes()]
                action = outcomes[rng.integers(len(outcomes))]
            else:
                legal = state.legal_actions()
                action = legal[rng.integers(len(legal))]
            history.append(action)
            state.apply_action(action)
        chance_at = [i for i, step in enumerate(state.full_history()) if step.player == pyspiel.PlayerId.CHANCE]
        at = chance_at[-1 - int(rng.integers(min(3, len(chance_at))))]  # late: the rest of the game stays legal
        before = game.new_initial_state()
        for action in history[:at]:
            before.apply_action(action)
        others = [o for o, _ in before.chance_outcomes() if o != history[at]]
        if not others:
            continue
        history = history[: at + 1 + int(rng.integers(4))]
        changed = [*history[:at], others[rng.integers(len(others))], *history[at + 1 :]]
        for seat in range(game.num_players()):
            one, views_one = views_along(game, history, seat)
            two, views_two = views_along(game, changed, seat)
            if len(one.history()) != len(two.history()) or one.is_chance_node() or two.is_chance_node():
                continue
            if same(views_one, views_two):
                hidden_checked += 1
                assert one.information_state_string(seat) == two.information_state_string(seat)
                assert one.observation_string(seat) == two.observation_string(seat)
                assert one.observation_tensor(seat) == two.observation_tensor(seat)
            else:
                assert one.information_state_string(seat) != two.information_state_string(seat)
    assert hidden_checked, "no seat was left unaware of a changed outcome: the test checked nothing hidden"


def canonical(value) -> str:
    """A view as text that two views share exactly when `same` holds (types, shapes and every value)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k!r}:{canonical(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(canonical, value)) + "]"
    if isinstance(value, np.ndarray):
        return f"<{value.dtype.str}{value.shape}{value.tobytes().hex()}>"
    return f"{type(value).__name__}={value!r}"


@pytest.mark.parametrize(
    "name", [name if name == "chromino_small" else pytest.param(name, marks=pytest.mark.slow) for name in SMALL]
)
def test_a_seat_is_shown_nothing_it_may_not_know_anywhere_in_a_small_variant(name):
    """Walk the whole tree. What a seat knows is its view after every settled step and its own actions. At every
    decision, for every seat, that record, the information-state string and the information-state tensor determine
    one another (a bijection: nothing hidden shows, nothing known is forgotten), and the observation tensor is a
    function of the record."""
    game = load_small(name, {RECALL: True})
    seats = game.num_players()
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    seen = make_observation(game)
    by_record: dict[tuple, set] = {}
    by_string: dict[str, set] = {}
    by_tensor: dict[bytes, set] = {}
    observations: dict[tuple, set] = {}
    stack = [(game.new_initial_state(), ((),) * seats)]
    while stack:
        state, records = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            moves, mover = [a for a, _ in state.chance_outcomes()], None
        else:
            moves, mover = state.legal_actions(), state.current_player()
            for seat in range(seats):
                key, string = (seat, records[seat]), state.information_state_string(seat)
                recall.set_from(state, seat)
                seen.set_from(state, seat)
                tensor = recall.tensor.tobytes()
                by_record.setdefault(key, set()).add((string, tensor))
                by_string.setdefault(string, set()).add(key)
                by_tensor.setdefault(tensor, set()).add(key)
                observations.setdefault(key, set()).add(seen.tensor.tobytes())
        for action in moves:
            child = state.child(action)
            known = [(*r, ("did", action)) if seat == mover else r for seat, r in enumerate(records)]
            if not child.is_chance_node():
                views = [
                    hashlib.sha256(canonical(child.rules.view(seat)).encode()).hexdigest() for seat in range(seats)
                ]
                known = [(*r, views[seat]) for seat, r in enumerate(known)]
            stack.append((child, tuple(known)))
    assert len(by_record) == len(by_string) == len(by_tensor) > seats
    assert all(len(v) == 1 for v in by_record.values()), "a seat's string or tensor shows something hidden"
    assert all(len(v) == 1 for v in by_string.values()), "two records a seat tells apart share a string"
    assert all(len(v) == 1 for v in by_tensor.values()), "two records a seat tells apart share a tensor"
    assert all(len(v) == 1 for v in observations.values()), "a seat's observation shows something hidden"

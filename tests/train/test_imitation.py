"""The imitation warm start (train/selfplay/imitation.py) and prioritised opponent sampling (opponents.py)."""

import numpy as np
import pytest
import torch
from gymnasium import spaces

from tabletop.agents import make_agent
from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import NetworkConfig
from tabletop.train.selfplay.imitation import collect, evaluate_clone, fit, search_shares
from tabletop.train.selfplay.opponents import OpponentPool, pfsp_factor
from tabletop.train.selfplay.policy import build_policy, network_policy

torch.set_num_threads(1)  # small batches: on a busy machine more threads only wait for each other
SPEC = EnvSpec("cromlet_v0")


@pytest.fixture(scope="module")
def decisions():
    return collect(SPEC, "patient", ["patient", "blocker"], games=8, gamma=0.99, seed=5)


def test_decisions_are_the_teachers_own_as_its_seat_sees_them(decisions):
    assert len(decisions) > 8 * 40  # patient plays every seat against itself, one seat against blocker
    assert set(np.unique(decisions.game)) == set(range(8))
    assert ((decisions.target > 0) <= decisions.masks).all()
    np.testing.assert_allclose(decisions.target.astype(np.float64).sum(axis=1), 1.0, atol=2e-3)
    # replaying game 0 (patient against itself: every decision recorded) gives the same observations,
    # masks and tie sets, row by row
    env = SPEC.make_raw()
    teacher = make_agent(SPEC, "patient", seed=5)
    env.reset(seed=5)
    state, row = env.game_state, 0
    while not state.is_terminal():
        seat, mask = state.current_player, state.legal_action_mask()
        np.testing.assert_array_equal(decisions.observations[row], env.observer.encode(state, seat).astype(np.float16))
        np.testing.assert_array_equal(decisions.masks[row], mask.astype(bool))
        tied = teacher.best_actions(mask, state.view(seat))
        assert set(np.flatnonzero(decisions.target[row])) == set(tied)
        assert (decisions.target[row][tied] == np.float16(1 / len(tied))).all()
        state.apply(int(tied[teacher.rng.integers(tied.size)]))
        row += 1
    assert decisions.game[row - 1] == 0 and decisions.game[row] == 1


def test_with_an_actor_the_actor_plays_and_the_teacher_labels():
    """DAgger: the actor's moves are played in the teacher's seat, and each recorded target is what the teacher
    would have played there."""
    taught = collect(SPEC, "patient", ["blocker"], games=1, gamma=0.99, seed=5, actor="random")
    env = SPEC.make_raw()
    env.reset(seed=5)
    teacher, rival = make_agent(SPEC, "patient", seed=5), make_agent(SPEC, "blocker", seed=6)
    actor = make_agent(SPEC, "random", seed=7)
    state, row, off_label = env.game_state, 0, 0
    while not state.is_terminal():
        seat, mask = state.current_player, state.legal_action_mask()
        if seat != 0:  # game 0: the teacher's seat is 0
            state.apply(act_for(rival, env, state, seat))
            continue
        np.testing.assert_array_equal(taught.observations[row], env.observer.encode(state, seat).astype(np.float16))
        tied = teacher.best_actions(mask, state.view(seat))
        assert set(np.flatnonzero(taught.target[row])) == set(tied)
        teacher.rng.integers(tied.size)  # collect draws the teacher's tie-break as it would play it
        action = act_for(actor, env, state, seat)
        off_label += action not in tied
        state.apply(action)
        row += 1
    assert row == len(taught) and off_label > row // 2  # random play leaves the teacher's moves most of the time


SEARCH_TEACHER = "search:sims=4,depth=6,candidates=3"
SMALL_KC = EnvSpec("kings_cribbage_v0", {"board_size": 7, "action_mode": "moves"})


def test_a_search_player_teaches_through_its_resamples():
    """A teacher that searches is asked through act_for (one resample, never the state): with `search_share` 0
    each recorded target is its move there alone."""
    taught = collect(SMALL_KC, SEARCH_TEACHER, ["greedy"], games=1, gamma=0.99, seed=2)
    assert len(taught) > 5 and ((taught.target > 0).sum(axis=1) == 1).all()
    assert (taught.target.max(axis=1) == 1).all() and ((taught.target > 0) <= taught.masks).all()


def test_a_search_teachers_target_holds_its_rollout_shares():
    """Expert iteration: with `search_share` w the target is (1 - w) on the move played plus w times the shares
    of the rollouts its first moves got; the same games and moves as with w = 0 (the target is only recorded)."""
    plain = collect(SMALL_KC, SEARCH_TEACHER, ["greedy"], games=1, gamma=0.99, seed=2)
    soft = collect(SMALL_KC, SEARCH_TEACHER, ["greedy"], games=1, gamma=0.99, seed=2, search_share=0.5)
    np.testing.assert_array_equal(soft.observations, plain.observations)
    played = plain.target.argmax(axis=1)
    assert (soft.target.argmax(axis=1) == played).all() and ((soft.target > 0) <= soft.masks).all()
    np.testing.assert_allclose(soft.target.astype(np.float64).sum(axis=1), 1.0, atol=2e-3)
    searched = (soft.target > 0).sum(axis=1) > 1  # decisions where it compared several first moves
    assert searched.sum() >= 3
    rows = np.flatnonzero(searched)
    assert (soft.target[rows, played[rows]] >= 0.5).all()  # its own move keeps the weight 1 - w, plus its share


def test_a_guided_search_teaches_its_improved_policy():
    """The guided search weighs its moves by its improved policy (its prior's logits plus completed Q-values):
    with `search_share` 1 the target is that policy over the legal moves, on the same games as its moves alone."""
    teacher = "search:policy=pretrained,sims=8"
    plain = collect(SPEC, teacher, ["greedy"], games=1, gamma=0.99, seed=2)
    soft = collect(SPEC, teacher, ["greedy"], games=1, gamma=0.99, seed=2, search_share=1.0)
    np.testing.assert_array_equal(soft.observations, plain.observations)
    choice = soft.masks.sum(axis=1) > 1
    assert choice.sum() >= 5 and ((soft.target > 0) <= soft.masks).all()
    np.testing.assert_allclose(soft.target[choice].astype(np.float64).sum(axis=1), 1.0, atol=5e-3)
    assert ((soft.target[choice] > 0).sum(axis=1) > 1).mean() > 0.5  # a distribution, not the move alone
    agent = make_agent(SPEC, teacher, seed=3)
    env = SPEC.make_raw()
    env.reset(seed=4)
    state = env.game_state
    seat, mask = state.current_player, state.legal_action_mask()
    act_for(agent, env, state, seat)
    weights = search_shares(agent)
    assert set(weights) == set(np.flatnonzero(agent.improved)) <= set(np.flatnonzero(mask))
    assert abs(sum(weights.values()) - 1) < 1e-9


def test_search_shares_are_the_rollouts_of_each_first_move():
    """`SearchAgent.shares` after a decision: each candidate's first action with its share of the rollouts."""
    agent = make_agent(SMALL_KC, "search:sims=16,candidates=4", seed=3)
    env = SMALL_KC.make_raw()
    env.reset(seed=4)
    state, searched = env.game_state, 0
    while not state.is_terminal():
        seat, mask = state.current_player, state.legal_action_mask()
        action = agent.act(None, mask, state.view(seat), sample=state.resample(seat, np.random.default_rng(0)))
        if agent.shares:
            searched += 1
            assert action in agent.shares and 1 < len(agent.shares) <= 4 and all(mask[a] for a in agent.shares)
            assert abs(sum(agent.shares.values()) - 1) < 1e-9
        state.apply(action)
    assert searched >= 3


def test_returns_are_the_discounted_outcome_of_the_seat(decisions):
    last = np.flatnonzero(decisions.game == 1)
    values = decisions.returns[last]
    assert abs(values[-1]) in (0.0, 1.0)
    np.testing.assert_allclose(values[:-1], values[-1] * 0.99 ** np.arange(len(values) - 1, 0, -1), rtol=1e-6)


def test_a_short_fit_learns_the_teachers_moves(decisions):
    """A few hundred decisions and a few epochs take a small MLP from chance to most of the teacher's moves."""
    torch.manual_seed(0)
    env = SPEC.make_raw()
    agent = env.possible_agents[0]
    policy_class, kwargs = network_policy(NetworkConfig(hidden=[64]), SPEC)
    policy = build_policy(env.observation_space(agent)["observation"], env.action_space(agent), kwargs, policy_class)
    _, held_out = decisions.split(0.25)
    before, _ = evaluate_clone(policy, held_out)
    result = fit(policy, decisions, epochs=6, learning_rate=3e-3, holdout=0.25, seed=0)
    assert result.decisions == len(decisions) - len(held_out)
    assert before < 0.3 and result.in_tie_accuracy > 0.6, (before, result)


def test_split_holds_whole_games_out(decisions):
    train, test = decisions.split(0.25)
    assert len(train) + len(test) == len(decisions)
    assert set(np.unique(test.game)) == {6, 7} and not set(train.game) & set(test.game)
    # views, not copies: a Chromino warm start's observations alone take gigabytes
    assert np.shares_memory(train.observations, decisions.observations)
    assert np.shares_memory(test.observations, decisions.observations)


def _pool(sampling: str) -> OpponentPool:
    env = SPEC.make_raw()
    agent = env.possible_agents[0]
    pool = OpponentPool(
        SPEC,
        {"self": 0.5, "patient": 0.25, "random": 0.25},
        max_snapshots=3,
        policy_kwargs={"net_arch": {"pi": [8], "vf": [8]}},
        observation_space=spaces.Box(-np.inf, np.inf, env.observation_space(agent)["observation"].shape, np.float32),
        action_space=env.action_space(agent),
        seed=0,
        sampling=sampling,
    )
    weights = build_policy(pool._spaces[0], pool._spaces[1], pool._policy_kwargs).state_dict()
    for name in ("a", "b"):
        pool.add_snapshot(name, weights)
    return pool


def test_pfsp_weighs_each_opponent_by_how_often_it_still_beats_the_learner():
    pool = _pool("pfsp")
    assert pool.probabilities() == pytest.approx({"patient": 0.25, "random": 0.25, "self:a": 0.25, "self:b": 0.25})
    for _ in range(30):
        pool.record(["random"], 1.0)  # always beaten
        pool.record(["self:a"], -1.0)  # always wins
        pool.record(["patient"], 0.0)  # draws
    p = pool.probabilities()
    expected = {
        "patient": 0.25 * 0.25,
        "random": 0.25 * pfsp_factor([1.0] * 30),
        "self:a": 0.25 * pfsp_factor([0.0] * 30),
        "self:b": 0.25 * 0.25,
    }
    norm = sum(expected.values())
    assert p == pytest.approx({k: v / norm for k, v in expected.items()})
    assert p["self:a"] > p["patient"] > p["random"] and p["patient"] == pytest.approx(p["self:b"])
    counts = {}
    rng = np.random.default_rng(1)
    for _ in range(2000):
        name, _ = pool.sample(rng)
        counts[name] = counts.get(name, 0) + 1
    assert counts["self:a"] > 2000 * 0.6 and counts.get("random", 0) < 2000 * 0.05


def test_pfsp_factor_is_hard_weighting_with_a_prior():
    assert pfsp_factor([]) == 0.25
    assert pfsp_factor([1.0] * 98) == pytest.approx((1 / 100) ** 2)
    assert pfsp_factor([0.0] * 98) == pytest.approx((99 / 100) ** 2)


def test_uniform_sampling_ignores_results():
    pool = _pool("uniform")
    for _ in range(30):
        pool.record(["random"], 1.0)
    assert pool.probabilities() == pytest.approx({"patient": 0.25, "random": 0.25, "self:a": 0.25, "self:b": 0.25})

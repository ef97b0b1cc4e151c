"""The network-guided search player (`search:policy=...`, agents/search/guided.py): its spec, its honesty (two
states that agree on the seat's view get the same move under the same seed), determinism, legal play with every
kind of leaf, and the Gumbel root's arithmetic (completed Q-values, the improved policy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from support.search import hidden, positions

from tabletop.agents import make_agent
from tabletop.agents.base import act_for
from tabletop.agents.networks.actor_critic import ActorCritic, network_spec
from tabletop.agents.networks.saved import saved_policy, write_policy
from tabletop.agents.search import GuidedOptions, parse_search
from tabletop.agents.search.guided import completed_q
from tabletop.agents.search.player import outcome
from tabletop.envs import EnvSpec
from tabletop.envs.krz_grtn.phases import CLUE, GUESS
from tabletop.train.evaluation.tournament import play_game, run_tournament

CROMLET = EnvSpec("cromlet_v0", {"num_players": 2})
SMALL = "search:policy=pretrained,sims=8,candidates=4,depth=12"


def policy_file(env: EnvSpec, folder, seed: int = 0) -> str:
    """A small untrained mlp policy with a critic, written as a policy file: a network with a value head."""
    torch.manual_seed(seed)
    net = ActorCritic(network_spec(env, "mlp", hidden=[16]))
    path = folder / "policy.pt"
    write_policy(path, saved_policy(net.spec, net.state_dict(), env, "test"))
    return str(path)


def test_spec_parses_policy_and_keys():
    options = parse_search("search:policy=ppo:runs/x/final,sims=16,leaf=value,gumbel=1")
    assert isinstance(options, GuidedOptions)
    assert (options.policy, options.sims, options.leaf, options.gumbel) == ("ppo:runs/x/final", 16, "value", 1.0)
    assert parse_search("search:policy=pretrained").candidates == 8


@pytest.mark.parametrize(
    ("spec", "fault"),
    [
        ("search:policy=pretrained,guard=1", "bad search option 'guard=1'"),
        ("search:policy=pretrained,leaf=net", "leaf must be one of rollout, value, policy"),
        ("search:policy=pretrained,sims=0", "sims must be at least 1"),
        ("search:policy=pretrained,candidates=1", "candidates must be at least 2"),
        ("search:policy=pretrained,belief=-1", "depth, belief and read not negative"),
        ("search:policy=pretrained,read=-1", "depth, belief and read not negative"),
        ("search:policy=pretrained,read=1", "read=1 adds a partner's reading to a margin, so it needs value=margin"),
        ("search:policy=pretrained,value=margin,read=1", "needs a cooperative game (krz_grtn_v1) and leaf=policy"),
        ("search:policy=pretrained,leaf=value", "leaf=value needs a network with a value head"),
        ("search:policy=onnx:x", "no exported policy at 'x'"),
        ("search:policy=greedy", "policy must be pretrained, onnx:DIR or ppo:PATH, got 'greedy'"),
        ("search:policy=pretrained,rollout=reply", "unknown rollout policy 'reply'"),
    ],
)
def test_spec_errors_are_one_line(spec, fault):
    with pytest.raises(ValueError) as error:
        make_agent(CROMLET, spec)
    assert fault in str(error.value) and "\n" not in str(error.value)


def test_a_shipped_policy_of_another_action_layout_is_refused():
    with pytest.raises(ValueError, match="through an adapter"):
        make_agent(EnvSpec("kings_cribbage_v0"), "search:policy=pretrained")


def test_the_move_depends_only_on_what_the_seat_knows(tmp_path):
    """The true state and a resample for the mover (which differs in what the mover cannot see) get the same move
    and the same improved policy from players built with the same seed, for every kind of leaf."""
    path = policy_file(CROMLET, tmp_path)
    table, differed = CROMLET.make_raw(), 0
    specs = [SMALL, f"search:policy=ppo:{path},sims=8,candidates=4", f"search:policy=ppo:{path},sims=4,leaf=policy"]
    for i, state in enumerate(positions("cromlet_v0", {}, seed=11, every=9)[:6]):
        seat = state.current_player
        other = state.resample(seat, np.random.default_rng(100 + i))
        differed += hidden(other) != hidden(state)
        for spec in specs:
            first, second = make_agent(CROMLET, spec, seed=5), make_agent(CROMLET, spec, seed=5)
            assert act_for(first, table, state, seat) == act_for(second, table, other, seat)
            assert np.array_equal(first.improved, second.improved)
    assert differed


KRZ_2P = EnvSpec("krz_grtn_v1", {"num_players": 2})


def krz_positions(games: int, phase: int) -> list:
    """Positions of `phase` with a choice along games of the shipped team at 2 players (clones, before the move)."""
    table, team, out = KRZ_2P.make_raw(), make_agent(KRZ_2P, "pretrained", seed=0), []
    for seed in range(games):
        table.reset(seed=seed)
        state = table.game_state
        while not state.is_terminal():
            seat = state.current_player
            if state.phase == phase and state.legal_action_mask().sum() > 1:
                out.append(state.clone())
            state.apply(act_for(team, table, state, seat))
    return out


def krz_guesses(games: int) -> list:
    """X's guesses along games of the shipped team at 2 players (clones, before the guess)."""
    return krz_positions(games, GUESS)


def test_the_belief_reads_the_givers_clues():
    """At X's guess the worlds are weighed by the shipped givers' chance of the clues there: the weight on the true
    target is far above the uniform draw's. Elsewhere there is no belief."""
    search = make_agent(KRZ_2P, "search:policy=pretrained,sims=4", seed=0)
    rng, on_target, uniform = np.random.default_rng(0), [], []
    for state in krz_guesses(3):
        worlds, weights = search.belief(state.resample(state.x, rng), state.x)
        assert np.isclose(weights.sum(), 1.0) and len(worlds) == search.options.belief * len(state.candidates)
        on_target.append(sum(w for world, w in zip(worlds, weights) if world.target == state.target))
        uniform.append(1 / len(state.candidates))
        giver = state.givers()[0]
        assert search.belief(state.resample(giver, rng), giver) is None
    assert len(on_target) >= 10 and np.mean(on_target) > 2 * np.mean(uniform)
    assert make_agent(KRZ_2P, "search:policy=pretrained,belief=0").belief(state, state.x) is None


def test_x_guess_depends_only_on_what_x_knows():
    """The belief draws from X's resample, never the state: the true state and another world X cannot tell from
    it get the same guess and improved policy."""
    table = KRZ_2P.make_raw()
    spec = "search:policy=pretrained,sims=16,depth=1,value=margin"
    for i, state in enumerate(krz_guesses(1)[:4]):
        other = state.resample(state.x, np.random.default_rng(100 + i))
        first, second = make_agent(KRZ_2P, spec, seed=5), make_agent(KRZ_2P, spec, seed=5)
        assert act_for(first, table, state, state.x) == act_for(second, table, other, state.x)
        assert np.array_equal(first.improved, second.improved)


def test_a_reading_is_the_beliefs_chance_on_the_true_target():
    """`read`: at X's guess a reading is the belief's weight on the true target (`truth` names it among the
    alternatives), far above the uniform draw's over the shipped team's clues; before the guess it is 0."""
    search = make_agent(KRZ_2P, "search:policy=pretrained,value=margin,read=4", seed=0)
    guesses = krz_guesses(3)
    for state in guesses:
        assert state.alternatives(state.x)[state.truth(state.x)].target == state.target
    readings = search.reading(guesses)
    assert np.all((readings >= 0) & (readings <= 1))
    assert np.mean(readings) > 2 * np.mean([1 / len(state.candidates) for state in guesses])
    clues = krz_positions(1, CLUE)[:3]
    assert not search.reading(clues).any()
    assert all(state.informs(state.current_player) for state in clues)
    assert not any(state.informs(state.x) for state in guesses)
    for state in clues + guesses:
        assert all(state.informed(seat) == bool(state.evidence(seat)) for seat in (state.x, *state.givers()))


def test_a_givers_evaluations_read_on_to_xs_guess():
    """With `read`, each of a giver's candidates is played on by the network to X's guess (or the game's end) and
    counts the levels passed plus X's reading there; X's own guess is not read on."""
    search = make_agent(KRZ_2P, "search:policy=pretrained,sims=4,depth=1,value=margin,read=2", seed=0)
    table = KRZ_2P.make_raw()
    state = krz_positions(1, CLUE)[0]
    act_for(search, table, state, state.current_player)
    assert search.reads
    after = []
    for move in np.flatnonzero(state.legal_action_mask()):
        after.append(state.clone())
        after[-1].apply(int(move))
    values = search.policy_leaves(after, state.current_player)
    for world, value in zip(after, values):
        assert world.is_terminal() or (world.phase == GUESS and world.current_player == world.x)
        assert world.level_index <= value <= world.level_index + 1
    guess = krz_guesses(1)[0]
    act_for(search, table, guess, guess.x)
    assert not search.reads


def test_a_givers_clue_depends_only_on_what_the_giver_knows():
    """A reading is drawn from a world the giver drew, never the state: the true state and a world the giver
    cannot tell from it get the same clue move and improved policy."""
    table = KRZ_2P.make_raw()
    spec = "search:policy=pretrained,sims=8,depth=1,value=margin,read=1"
    for i, state in enumerate(krz_positions(1, CLUE)[:3]):
        seat = state.current_player
        other = state.resample(seat, np.random.default_rng(100 + i))
        first, second = make_agent(KRZ_2P, spec, seed=5), make_agent(KRZ_2P, spec, seed=5)
        assert act_for(first, table, state, seat) == act_for(second, table, other, seat)
        assert np.array_equal(first.improved, second.improved)


@pytest.mark.parametrize(
    ("env", "spec"),
    [
        (CROMLET, SMALL),
        (CROMLET, "search:policy=pretrained,sims=8,candidates=4,gumbel=1,value=margin,depth=12"),
        (EnvSpec("kings_cribbage_v0", {"action_mode": "moves"}), SMALL),
        (EnvSpec("krz_grtn_v1", {"num_players": 2, "features": ["roles"]}), "search:policy=pretrained,sims=4"),
        (EnvSpec("krz_grtn_v1", {"num_players": 3}), "search:policy=pretrained,sims=4,value=margin,read=1"),
    ],
    ids=["cromlet", "cromlet-gumbel-margin", "kings-cribbage-moves", "krz-grtn-sparta", "krz-grtn-read"],
)
def test_plays_whole_games_legally(env, spec):
    """The table raises on an illegal action; the game must end."""
    table = env.make_raw(illegal_action="raise")
    agent = make_agent(env, spec, seed=1)
    returns, _, steps = play_game(table, [agent] * table.game.num_players, seed=3)
    assert steps > 0 and len(returns) == table.game.num_players


def test_value_leaves_play_legally(tmp_path):
    path = policy_file(CROMLET, tmp_path)
    for spec in (f"search:policy=ppo:{path},sims=8", f"search:policy=ppo:{path},sims=8,depth=4,leaf=value"):
        agent = make_agent(CROMLET, spec, seed=2)
        assert agent.leaf == "value"
        returns, _, steps = play_game(CROMLET.make_raw(illegal_action="raise"), [agent, agent], seed=4)
        assert steps > 0 and len(returns) == 2


def test_same_seed_same_games():
    runs = [run_tournament(CROMLET, [SMALL + ",gumbel=1", "greedy"], 2, seed=4).per_game for _ in range(2)]
    assert runs[0] == runs[1]


def test_an_export_folder_guides_as_the_shipped_policy_it_holds():
    """`policy=onnx:DIR` reads any export; over the shipped folder it is the `pretrained` search, move for move."""
    folder = Path(__file__).resolve().parents[2] / "agents" / "pretrained" / "cromlet_2p"
    exported = SMALL.replace("policy=pretrained", f"policy=onnx:{folder}")
    table = CROMLET.make_raw()
    for state in positions("cromlet_v0", {}, seed=5, every=7)[:4]:
        seat = state.current_player
        moves = [
            (act_for(agent, table, state, seat), agent.improved.tolist())
            for agent in (
                make_agent(CROMLET, SMALL, seed=2),
                make_agent(CROMLET, exported, seed=2),
            )
        ]
        assert moves[0] == moves[1]


def test_improved_policy_is_a_distribution_over_the_legal_moves():
    state = positions("cromlet_v0", {}, seed=3, every=5)[2]
    table, seat = CROMLET.make_raw(), state.current_player
    agent = make_agent(CROMLET, SMALL, seed=0)
    action = act_for(agent, table, state, seat)
    legal = state.legal_action_mask().astype(bool)
    assert legal[action] and agent.improved.sum() == pytest.approx(1.0)
    assert (agent.improved[~legal] == 0).all() and (agent.improved[legal] > 0).all()


def test_completed_q_fills_unvisited_moves_with_the_mixed_value():
    options = GuidedOptions(policy="pretrained")
    logits = np.array([0.0, 0.0, 0.0, -1e8])
    legal = np.array([True, True, True, False])
    q, visits = np.array([1.0, -1.0, 0.0, 0.0]), np.array([2.0, 2.0, 0.0, 0.0])
    sigma = completed_q(logits, q, visits, legal, root=None, options=options)
    # the mixed value is the prior-weighted mean of the visited q (0 here): half-way after rescaling to [0, 1]
    scale = (options.visit + 2) * options.scale
    assert sigma == pytest.approx([scale, 0.0, scale / 2, 0.0])
    # with a root value of 1, the mix is (1 + 4 * 0) / 5 = 0.2, so the unvisited move rescales to 0.6
    sigma = completed_q(logits, q, visits, legal, root=1.0, options=options)
    assert sigma[2] == pytest.approx(scale * 0.6)


def test_the_search_overrules_a_prior_that_the_rollouts_refute(monkeypatch):
    """With a flat prior and no noise, the move whose evaluations are best is played and the improved policy
    ranks it first."""
    state = positions("cromlet_v0", {}, seed=3, every=5)[2]
    table, seat = CROMLET.make_raw(), state.current_player
    agent = make_agent(CROMLET, "search:policy=pretrained,sims=32,candidates=4", seed=0)
    monkeypatch.setattr(agent, "net", lambda obs, masks: (np.where(masks > 0, 0.0, -1e8), None))
    legal = np.flatnonzero(state.legal_action_mask())
    best = int(legal[min(3, len(legal) - 1)])  # the last of the four candidates a flat prior draws (in order)
    assert len(legal) > 1

    def evaluate(sample, seat, moves, worlds):
        return np.tile([float(m == best) for m in moves], (worlds, 1))

    monkeypatch.setattr(agent, "evaluate", evaluate)
    assert act_for(agent, table, state, seat) == best
    assert int(np.argmax(agent.improved)) == best


def test_a_cooperative_margin_is_the_team_score():
    """KRZ GRTN has no other side: `value=margin` counts the levels passed, and a cut rollout under `win` leads no one."""
    state = next(s for s in krz_guesses(1) if s.level_index > 0)
    assert outcome(state, state.x, "margin") == state.level_index
    assert outcome(state, state.x, "win") == 0.0

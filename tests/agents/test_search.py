"""The search player (agents/search/): its spec, its honesty (it reads its seat's view and one resample, so two
states that agree on the seat's view get the same move under the same seed), determinism, legal play in every
competitive game and action mode, and how sequential halving spends the budget."""

from __future__ import annotations

import numpy as np
import pytest
from support.search import hidden as _hidden
from support.search import positions as _positions

from tabletop import envs
from tabletop.agents import make_agent
from tabletop.agents.base import act_for
from tabletop.agents.search import SearchOptions, parse_search
from tabletop.agents.search.player import outcome
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import play_game, run_tournament

TABLES = [
    ("cromlet_v0", {}),
    ("cromlet_v0", {"num_players": 4, "teams": 2}),
    ("chromino_v1", {}),
    ("chromino_v1", {"num_players": 3}),
    ("kings_cribbage_v0", {"board_size": 7}),
    ("kings_cribbage_v0", {"action_mode": "moves", "board_size": 7}),
]
SMALL = "search:sims=6,depth=12,candidates=4"  # cheap enough to play whole games in a test


def test_spec_parses_keys_and_defaults():
    assert parse_search("search") == SearchOptions(sims=100)
    options = parse_search("search:sims=200,rollout=patient,candidates=8,depth=30,value=win")
    assert (options.sims, options.rollout, options.candidates, options.depth) == (200, "patient", 8, 30)
    assert options.value == "win" and parse_search("search").value == "margin"
    assert parse_search("search:guard=0").guard == 0 and parse_search("search").guard == 1
    assert parse_search("search:seconds=0.5").seconds == 0.5


@pytest.mark.parametrize(
    ("spec", "fault"),
    [
        ("search:sim=4", "bad search option 'sim=4'"),
        ("search:sims", "bad search option 'sims'"),
        ("search:sims=many", "sims='many'"),
        ("search:sims=4,sims=8", "given twice"),
        ("search:candidates=1", "candidates must be at least 2"),
        ("search:seconds=-1", "must not be negative"),
        ("search:value=points", "value must be one of win, margin"),
        ("search:guard=-1", "guard must be a number of standard errors of at least 0"),
        ("search:plies=half", "plies must be weights >= 0 separated by '/'"),
        ("search:plies=0.5/-1", "plies must be weights >= 0 separated by '/'"),
        ("search:plies=0.5/", "plies must be weights >= 0 separated by '/'"),
    ],
)
def test_spec_errors_are_one_line_and_list_the_keys(spec, fault):
    with pytest.raises(ValueError) as error:
        make_agent("cromlet_v0", spec)
    message = str(error.value)
    assert fault in message and "\n" not in message
    if "bad" in fault or "twice" in fault or "many" in fault:
        assert (
            "allowed keys: sims (int), seconds (float), rollout (str), guide (str), candidates (int), depth (int), value (str), guard (float), plies (str)"
            in message
        )


def test_unknown_rollout_and_cooperative_game_are_refused():
    with pytest.raises(ValueError, match="unknown rollout policy 'reply' for cromlet_v0; allowed: random, greedy"):
        make_agent("cromlet_v0", "search:rollout=reply")
    with pytest.raises(ValueError, match="no search player for krz_grtn_v1: a cooperative game"):
        make_agent("krz_grtn_v1", "search")


def test_the_view_alone_is_refused_with_the_way_to_call_it():
    state = envs.make_raw("cromlet_v0").game.new_initial_state(np.random.default_rng(0))
    agent = make_agent("cromlet_v0", SMALL, seed=0)
    with pytest.raises(ValueError, match=r"needs sample=state.resample\(seat, rng\)"):
        agent.act(None, state.legal_action_mask(), state.view(state.current_player))


@pytest.mark.parametrize(("env_id", "config"), TABLES, ids=[f"{e}-{c}" for e, c in TABLES])
def test_plays_whole_games_legally(env_id, config):
    """Every seat searched; `apply` refuses any illegal action, and the game must end."""
    env = EnvSpec(env_id, config)
    table = env.make_raw()
    agent = make_agent(env, SMALL, seed=1)
    returns, _, steps = play_game(table, [agent] * table.game.num_players, seed=3)
    assert steps > 0 and len(returns) == table.game.num_players


@pytest.mark.parametrize(("env_id", "config"), TABLES, ids=[f"{e}-{c}" for e, c in TABLES])
def test_the_move_depends_only_on_what_the_seat_knows(env_id, config):
    """Two states that agree on the mover's view (the true one and a resample for that seat, which differs in
    what the seat cannot see) get the same move from players built with the same seed."""
    env = EnvSpec(env_id, config)
    table, differed, searched = env.make_raw(), 0, 0
    for i, state in enumerate(_positions(env_id, config, seed=11, every=7)):
        seat = state.current_player
        other = state.resample(seat, np.random.default_rng(100 + i))
        differed += _hidden(other) != _hidden(state)
        searched += int(state.legal_action_mask().sum()) > 1
        first, second = make_agent(env, SMALL, seed=5), make_agent(env, SMALL, seed=5)
        assert act_for(first, table, state, seat) == act_for(second, table, other, seat)
    assert differed and searched, "no position tested hidden facts that could change a move"


def test_act_for_hands_a_resample_never_the_state():
    """The sample differs from the true state in what the seat cannot see, and is the same for two states that
    agree on the seat's view: whatever a searching agent does with it, it learns nothing more."""
    state = _positions("cromlet_v0", {}, seed=2, every=9)[0]
    seat = state.current_player
    other = state.resample(seat, np.random.default_rng(1))
    seen = []

    class Recorder:
        name, needs_observation, needs_sample = "recorder", False, True

        def act(self, observation, mask, view, sample=None):
            seen.append(_hidden(sample))
            return int(np.flatnonzero(mask)[0])

    table = envs.make_raw("cromlet_v0")
    act_for(Recorder(), table, state, seat)
    act_for(Recorder(), table, other, seat)
    assert _hidden(other) != _hidden(state)
    assert seen[0] != _hidden(state) and seen[0] == seen[1]


@pytest.mark.parametrize("spec", [SMALL, "search:guide=leave,plies=0.5/0.5,sims=32"])
def test_same_seed_same_games(spec):
    env = EnvSpec("kings_cribbage_v0", {"board_size": 7})
    runs = [run_tournament(env, [spec, "greedy"], 2, seed=4).per_game for _ in range(2)]
    assert runs[0] == runs[1]


def test_sequential_halving_spends_the_budget_and_keeps_the_best():
    """With 8 candidates and 48 rollouts: 3 rounds of 16, every candidate tried, no more than the budget."""
    env = EnvSpec("cromlet_v0")
    state = _positions("cromlet_v0", {}, seed=6, every=5)[0]
    agent = make_agent(env, "search:sims=48,depth=10", seed=0)
    legal = [(int(a),) for a in np.flatnonzero(state.legal_action_mask())]
    turns = (legal * 8)[:8]  # 8 candidates (repeats where fewer are legal)
    best, count = agent.search(
        state.resample(state.current_player, np.random.default_rng(0)), state.current_player, turns
    )
    assert best in turns and count.min() >= 1 and 24 <= count.sum() <= 48
    assert count.max() == count[turns.index(best)]  # the winner survived every round


def test_a_partner_is_never_a_rival_in_team_play():
    """In a team game every seat holds its team's score: the margin is its team's score less the other team's,
    the same for both partners, and a cut rollout under `win` says who leads."""
    state = next(
        s for s in _positions("cromlet_v0", {"num_players": 4, "teams": 2}, seed=0, every=1) if len(set(s.scores())) > 1
    )
    scores = state.scores()
    lead = scores[0] - scores[1]
    assert lead != 0 and scores[0] == scores[2]
    for seat, sign in ((0, 1), (2, 1), (1, -1), (3, -1)):
        assert outcome(state, seat, "margin") == sign * lead
        assert outcome(state, seat, "win") == np.sign(sign * lead)


@pytest.mark.parametrize("mode", ["tiles", "moves"])
def test_kings_cribbage_plans_last_one_move(mode):
    """A whole move chosen at a turn's first sub-step is played out over that turn only: at the start of each
    later turn (nothing pending) there is no plan left to follow, in either action mode."""
    env = EnvSpec("kings_cribbage_v0", {"board_size": 7, "action_mode": mode})
    table = env.make_raw()
    agent = make_agent(env, SMALL, seed=2)
    table.reset(seed=8)
    state, starts = table.game_state, 0
    while not state.is_terminal():
        seat = state.current_player
        if seat == 0:
            view = state.view(seat)
            if not view["pending"] and not view["marked_count"]:
                starts += 1
                assert agent.turns.follow(view, state.legal_action_mask()) is None
            state.apply(act_for(agent, table, state, seat))
        else:
            state.apply(int(np.flatnonzero(state.legal_action_mask())[0]))
    assert starts > 3


def test_guard_keeps_the_heuristics_choice_to_the_last_round():
    """With guard=1 the first candidate (the rollout heuristic's own choice) is rolled out in every round."""
    env = EnvSpec("cromlet_v0")
    for i, state in enumerate(_positions("cromlet_v0", {}, seed=9, every=4)[:6]):
        seat = state.current_player
        legal = [(int(a),) for a in np.flatnonzero(state.legal_action_mask())]
        if len(legal) < 4:
            continue
        agent = make_agent(env, "search:sims=24,depth=8,guard=1", seed=i)
        _, count = agent.search(state.resample(seat, np.random.default_rng(0)), seat, legal)
        assert count[0] == count.max()


@pytest.mark.parametrize(
    "env_id, config, heuristic",
    [
        ("cromlet_v0", {}, "blocker"),
        ("chromino_v1", {}, "keep_options"),
        ("kings_cribbage_v0", {"action_mode": "moves", "board_size": 7}, "leave"),
    ],
)
def test_candidates_are_the_heuristics_own_choice_then_its_ranking(env_id, config, heuristic):
    """The candidates are the rollout heuristic's pick, then its other legal moves best first, at most `limit`."""
    env = EnvSpec(env_id, config)
    agent = make_agent(env, f"search:sims=8,rollout={heuristic},candidates=5", seed=0)
    tried = 0
    for state in _positions(env_id, config, seed=3, every=3):
        seat, mask = state.current_player, state.legal_action_mask()
        view = state.view(seat)
        pick = agent.guide.act(None, mask, view)
        turns = agent.turns.candidates(state, view, mask, pick, 5, np.random.default_rng(0))
        ranked = agent.guide.ranked(mask, view)
        assert all(mask[a] for a in ranked) and len(set(ranked)) == len(ranked)
        assert turns == [(pick,), *((a,) for a in ranked if a != pick)][:5]
        assert len(turns) == min(5, int(mask.sum()))
        tried += len(turns) > 2
    assert tried > 5


def test_a_guide_leads_while_another_heuristic_plays_the_rollouts():
    env = EnvSpec("kings_cribbage_v0", {"board_size": 7})
    agent = make_agent(env, "search:sims=8,guide=reply", seed=0)
    assert (agent.guide.name, agent.policy.name) == ("reply", "greedy")
    with pytest.raises(ValueError, match="unknown guide policy 'blocker' for kings_cribbage_v0; allowed: random"):
        make_agent(env, "search:guide=blocker")
    result = run_tournament(env, ["search:sims=4,depth=8,guide=leave", "greedy"], 1, seed=3)
    assert len(result.per_game) == 1


def test_cromlet_ranking_follows_the_heuristics_scores():
    env = EnvSpec("cromlet_v0")
    agent = make_agent(env, "search:sims=8,rollout=patient", seed=0)
    for state in _positions("cromlet_v0", {}, seed=5, every=4):
        mask, view = state.legal_action_mask(), state.view(state.current_player)
        legal, scores = agent.guide.scored(mask, view)
        by_action = dict(zip(legal.tolist(), scores.tolist(), strict=True))
        ranked = [by_action[a] for a in agent.guide.ranked(mask, view)]
        assert ranked == sorted(ranked, reverse=True) and len(ranked) == int(mask.sum())


def test_guard_leaves_the_heuristics_choice_only_for_a_sure_lead():
    """Paired leads on the last round's worlds: a rival that wins a world or two more is not enough at guard=2;
    one that wins nearly every world the heuristic's choice loses is taken; the largest sure lead wins."""
    agent = make_agent(EnvSpec("cromlet_v0"), "search:sims=8,guard=2", seed=0)
    base = np.array([1, -1, 1, -1, 1, -1, 1, -1, 1, -1], dtype=float)
    lucky = base.copy()
    lucky[[1, 3]] = 1  # 2 of 10 worlds better: a lead of 0.4 with a standard error of 0.27
    strong = np.where(base < 0, 1.0, base)
    strong[1] = -1  # 4 of 5 losses turned into wins: a lead of 0.8 with a standard error of 0.33
    last = np.column_stack([base, lucky, strong, np.full(10, np.nan)])
    assert agent.guarded(last[:, :2], alive=[0, 1]) == 0
    assert agent.guarded(last, alive=[0, 1, 2]) == 2
    assert make_agent(EnvSpec("cromlet_v0"), "search:guard=1", seed=0).guarded(last[:, :2], alive=[0, 1]) == 1
    assert agent.guarded(last[:1], alive=[0, 1, 2]) == 0  # one world: no error to measure, nothing sure


def _turn_start(seed: int, config: dict):
    """A Kings Cribbage position at the start of a turn with a move, some turns into a seeded greedy game."""
    env = EnvSpec("kings_cribbage_v0", config)
    table = env.make_raw()
    table.reset(seed=seed)
    state, greedy = table.game_state, make_agent(env, "greedy", seed=0)
    for _ in range(24):
        state.apply(act_for(greedy, table, state, state.current_player))
    while state.pending or not len(state.moves):
        state.apply(act_for(greedy, table, state, state.current_player))
    return table, state


def test_turn_points_count_the_next_turns_best_points_for_and_against():
    """`greedy.turn_points`: one turn is the mover's best points (for the mover, against the other seat); two
    turns add the next player's points at their weight, read from the scores, and leave the mover to play."""
    from tabletop.agents.kings_cribbage import GreedyAgent

    _, state = _turn_start(seed=21, config={"board_size": 9})
    mover, best = state.current_player, int(state.moves.points.max())
    assert GreedyAgent.turn_points(state.clone(), 0, [1.0], mover) == best
    assert GreedyAgent.turn_points(state.clone(), 0, [2.0], 1 - mover) == -2 * best
    world = state.clone()
    value = GreedyAgent.turn_points(world, 0, [1.0, 0.5], mover)
    reply = world.scores()[1 - mover] - state.scores()[1 - mover]
    assert value == best - 0.5 * reply and world.current_player == mover
    assert GreedyAgent.turn_points(state.clone(), 0, [], mover) == 0


def _look_ahead(env: EnvSpec, spec: str, sample, view: dict, mask: np.ndarray):
    """A fresh player's candidates, their values by the guide, and its look-ahead's choice and counts."""
    agent = make_agent(env, spec, seed=3)
    turns = agent.turns.candidates(sample, view, mask, 0, 16, agent.rng)
    return turns, agent.turns.values(view, turns), *agent.look_ahead(sample, sample.current_player, turns)


@pytest.mark.slow
def test_plies_weigh_the_guides_value_against_the_look_ahead():
    """With every ply weighted 0 the look-ahead adds nothing and the guide's best-valued move (the first
    candidate) wins, marked alone in the counts; weighted, the look-ahead changes some choices, the same under
    the same seed."""
    env = EnvSpec("kings_cribbage_v0", {"board_size": 9})
    changed = 0
    for seed in range(22, 28):
        _, state = _turn_start(seed=seed, config={"board_size": 9})
        seat = state.current_player
        view, mask = state.view(seat), state.legal_action_mask()
        sample = state.resample(seat, np.random.default_rng(seed))
        turns, values, best, count = _look_ahead(env, "search:guide=leave,plies=0/0,sims=64", sample, view, mask)
        assert values == sorted(values, reverse=True) and best == turns[0]
        assert count.tolist() == [1] + [0] * (len(turns) - 1)
        weighted = _look_ahead(env, "search:guide=leave,plies=1/1,sims=64", sample, view, mask)[2]
        assert weighted == _look_ahead(env, "search:guide=leave,plies=1/1,sims=64", sample, view, mask)[2]
        changed += weighted != turns[0]
    assert changed, "the look-ahead changed no choice in six positions"


def test_plies_need_whole_moves_with_points():
    with pytest.raises(ValueError, match="plies needs a rollout heuristic that plays whole turns"):
        make_agent("cromlet_v0", "search:plies=0.5")


@pytest.mark.slow
def test_plies_play_whole_games_in_moves_mode():
    """Moves mode: the candidates are offered slots valued by the guide (exchanges at 0), the look-ahead plays
    the offered moves; seeded games repeat."""
    env = EnvSpec("kings_cribbage_v0", {"board_size": 7, "action_mode": "moves"})
    spec = "search:guide=leave,plies=0.5/0.5,sims=32"
    runs = [run_tournament(env, [spec, "reply"], 2, seed=6).per_game for _ in range(2)]
    assert runs[0] == runs[1]


def test_plies_spend_a_time_budget():
    """`seconds` instead of `sims`: worlds until the time is spent, at least one; whole games stay legal."""
    env = EnvSpec("kings_cribbage_v0", {"board_size": 7})
    table = env.make_raw()
    agent = make_agent(env, "search:guide=leave,plies=0.5/0.5,seconds=0.01", seed=0)
    returns, _, steps = play_game(table, [agent, make_agent(env, "greedy", seed=1)], seed=2)
    assert steps > 0 and len(returns) == 2

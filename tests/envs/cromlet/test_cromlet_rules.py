"""Cromlet rules: the rulebook's worked examples and every ruling, as scenarios built from JSON states."""

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tabletop import envs
from tabletop.envs.core import IllegalActionError, InvalidStateError
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.rules import (
    NUM_ACTIONS,
    PLAY,
    PLAY_CLAIM,
    TRADE_ONE,
    TRADE_TWO,
    WILD_CLAIM,
    WILD_PLAY,
    CromletGame,
)

SCENARIOS = json.loads((Path(__file__).resolve().parents[2] / "scenarios" / "cromlet.json").read_text())
ALL_CARDS = list(B.CIRCLE_NAMES) + ["wild"] * B.NUM_WILDS


def complete(sketch: dict) -> dict:
    """The full saved state a scenario sketches (the recipe is in tests/scenarios/cromlet.json)."""
    game = CromletGame(**sketch["config"])
    covered, wilds, claims = sketch.get("covered", {}), sketch.get("wild_covered", []), sketch.get("claims", {})
    discards = [[] for _ in range(game.num_players)]
    for name, seat in covered.items():
        discards[seat].append("wild" if name in wilds else name)
    placed = Counter(card for pile in (*sketch["hands"], sketch["deck"], *discards) for card in pile)
    full = {B.LETTERS[k] for k in range(B.NUM_CROMLETS) if all(B.CIRCLE_NAMES[c] in covered for c in B.circles_of(k))}
    team_scores, team_claims = [0.0] * game.num_teams, [0] * game.num_teams
    for claim in claims.values():
        team = int(game.team_of[claim["by"]])
        team_claims[team] += 1
        team_scores[team] += float(B.CIRCLE_VALUE[c(claim["circle"])])
    return {
        "game": "cromlet",
        "config": game.config(),
        "dealer": sketch["dealer"],
        "current_player": sketch["current_player"],
        "terminal": False,
        "covered": covered,
        "wild_covered": wilds,
        "claims": claims,
        "closed": sorted(full | set(claims)),
        "hands": sketch["hands"],
        "deck": sketch["deck"] + list((Counter(ALL_CARDS) - placed).elements()),
        "discards": discards,
        "team_scores": team_scores,
        "team_claims": team_claims,
    }


def load(name: str, **changes):
    """The scenario's position, with sketch keys replaced by `changes`."""
    sketch = {**SCENARIOS[name], **changes}
    return CromletGame(**sketch["config"]).state_from_json(complete(sketch))


def last_moves(config: dict, seed: int, games: int):
    """The last move of each of `games` seeded random games: (the position before it, the move, the end)."""
    game = CromletGame(**config)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            before, action = state.clone(), int(rng.choice(np.flatnonzero(state.legal_action_mask())))
            state.apply(action)
        yield before, action, state


def positions(config: dict, seed: int, games: int):
    """Every position along `games` seeded random games."""
    game = CromletGame(**config)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            yield state
            state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


def c(name: str) -> int:
    return B.card_type(name)


def legal_names(state) -> set[str]:
    return {state.action_to_string(a) for a in np.flatnonzero(state.legal_action_mask())}


# --- the board --------------------------------------------------------------------------------------
def test_board_matches_the_rulings():
    assert B.NUM_CROMLETS == 24 and B.NUM_CIRCLES == 132 and B.NUM_CARDS == 138
    assert [len(v) for v in B.VALUES_BY_CROMLET].count(3) == 4
    assert sorted(len(v) for v in B.VALUES_BY_CROMLET) == sorted([3, 4, 5, 6, 7, 8] * 4)
    assert B.VALUES_BY_CROMLET[B.cromlet_index("F")] == (1, 2, 3, 4, 5, 6)
    assert B.VALUES_BY_CROMLET[B.cromlet_index("Q")][:4] == (2, 4, 6, 8)
    for values in B.VALUES_BY_CROMLET:
        assert list(values) == sorted(set(values)), "circle values strictly increase"


def test_deal_seven_each_and_play_starts_left_of_dealer():
    for n in range(2, 7):
        game = CromletGame(num_players=n)
        state = game.new_initial_state(np.random.default_rng(n))
        assert state.hand_sizes.tolist() == [7] * n
        assert len(state.deck) == 138 - 7 * n
        assert state.current_player == (state.dealer + 1) % n


def test_dealer_is_drawn_from_the_seeded_generator():
    dealers = {CromletGame(num_players=4).new_initial_state(np.random.default_rng(s)).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}


# --- claiming: the rulebook's examples ------------------------------------------------------------------
def test_q8_cannot_claim_while_q4_is_open():
    state = load("q8_blocked_by_open_q4")
    assert "play Q8" in legal_names(state)
    assert "play Q8 and claim Q" not in legal_names(state)


def test_q8_claims_q_once_q2_q4_q6_are_covered():
    state = load("q8_claimable")
    assert {"play Q8", "play Q8 and claim Q"} <= legal_names(state)
    state.apply(PLAY_CLAIM + c("Q8"))
    assert state.scores().tolist() == [8, 0]
    assert state.claimed_by[B.cromlet_index("Q")] == 0
    assert state.closed[B.cromlet_index("Q")]


def test_f5_claim_scores_5():
    state = load("f5_claimable")
    state.apply(PLAY_CLAIM + c("F5"))
    assert state.team_scores[0] == 5
    # F6 is now dead: its cromlet is claimed
    assert not state.open_circles()[c("F6")]


def test_f5_may_also_keep_the_cromlet_open():
    state = load("f5_claimable")
    state.apply(PLAY + c("F5"))
    assert not state.closed[B.cromlet_index("F")] and state.team_scores[0] == 0


def test_f5_cannot_claim_while_f2_is_open():
    state = load("f5_blocked_by_open_f2")
    assert "play F5" in legal_names(state)
    assert "play F5 and claim F" not in legal_names(state)


def test_f6_is_forced_and_its_claim_is_forced():
    state = load("f6_forced_and_forced_claim")
    legal = legal_names(state)
    assert "play F6 and claim F" in legal
    assert "play F6" not in legal, "the last open circle forces the claim"
    assert not any(name.startswith(("play A9", "play B10", "trade")) for name in legal), "F6 is forced"
    state.apply(PLAY_CLAIM + c("F6"))
    assert state.team_scores[0] == 6


def test_f1_on_the_last_circle_must_claim_for_1_point():
    state = load("f1_forced_last_circle")
    assert legal_names(state) == {"play F1 and claim F"}
    state.apply(PLAY_CLAIM + c("F1"))
    assert state.team_scores[0] == 1


def test_wilds_may_be_played_anywhere_even_when_a_card_is_forced():
    hands = SCENARIOS["f6_forced_and_forced_claim"]["hands"]
    state = load("f6_forced_and_forced_claim", hands=[["F6", "A9", "B10", "C12", "D15", "E7", "wild"], hands[1]])
    legal = legal_names(state)
    assert "play wild on X24" in legal and "play wild on A2 and claim A" in legal
    assert "play wild on F6 and claim F" in legal and "play wild on F6" not in legal
    assert "play wild on A9 and claim A" not in legal, "A2 and A5 are still open"
    assert "play A9" not in legal


def test_wild_claim_scores_the_circle_it_covers():
    hands = SCENARIOS["q8_claimable"]["hands"]
    state = load("q8_claimable", hands=[["Q8", "A9", "B10", "C12", "D15", "E7", "wild"], hands[1]])
    state.apply(WILD_CLAIM + c("Q8"))
    assert state.team_scores[0] == 8 and state.wild[c("Q8")]
    assert state.hands[0, c("Q8")] == 1, "the Q8 card stays in hand, now dead"
    assert c("Q8") in state.dead_cards(0)


def test_without_forced_card_any_open_circle_card_is_playable():
    state = load("q8_blocked_by_open_q4")
    legal = legal_names(state)
    for card in ("Q8", "A9", "B10", "C12", "D15", "E7", "G14"):
        assert f"play {card}" in legal


# --- limits -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,limit", [(2, 12), (3, 8), (4, 6), (5, 5), (6, 4)])
def test_claim_limits_by_player_count(n, limit):
    assert CromletGame(num_players=n).claim_limit == limit


@pytest.mark.parametrize("teams,n,limit", [(2, 4, 12), (2, 6, 12), (3, 6, 8)])
def test_team_limits_and_alternating_seats(teams, n, limit):
    game = CromletGame(num_players=n, teams=teams)
    assert game.claim_limit == limit
    assert game.team_of.tolist() == [i % teams for i in range(n)]


def test_at_the_limit_no_claim_and_the_last_circle_closes_without_points():
    state = load("last_circle_at_limit")
    legal = legal_names(state)
    assert legal == {"play F6"}, "F6 is forced; at the limit it cannot claim"
    state.apply(PLAY + c("F6"))
    f = B.cromlet_index("F")
    assert state.closed[f] and state.claimed_by[f] == -1
    assert state.scores().tolist() == [2, 0]


def test_at_the_limit_no_claim_actions_at_all():
    state = load("last_circle_at_limit")
    mask = state.legal_action_mask()
    assert not mask[PLAY_CLAIM:WILD_PLAY].any() and not mask[WILD_CLAIM:TRADE_ONE].any()


def test_team_members_share_claims_and_score():
    state = load("team_claim")
    state.apply(PLAY_CLAIM + c("F5"))
    assert state.scores().tolist() == [5, 0, 5, 0]
    assert state.team_claims.tolist() == [1, 0]


def test_five_players_24_cromlets_leave_the_last_player_four():
    game = CromletGame(num_players=5)
    assert game.claim_limit == 5 and game.claim_limit * 4 + 4 == B.NUM_CROMLETS


# --- dead cards and trade-in ------------------------------------------------------------------------------
def test_dead_cards_claimed_cromlet_and_wild_covered_circle():
    state = load("dead_cards_trade")
    assert sorted(B.card_name(x) for x in state.dead_cards(0)) == ["A5", "A9", "T4"]
    legal = legal_names(state)
    assert {"trade in one dead card", "trade in two dead cards"} <= legal
    assert "play A5" not in legal and "play T4" not in legal


def test_trade_two_replaces_dead_cards_from_the_deck_and_discards_them_face_up():
    state = load("dead_cards_trade")
    deck = len(state.deck)
    state.apply(TRADE_TWO)
    hand = {B.card_name(x) for x in np.flatnonzero(state.hands[0][:132])}
    assert "A5" not in hand and "A9" not in hand and {"X24", "W19"} <= hand
    assert [B.card_name(x) for x in state.discards[0]] == ["T1", "A5", "A9"]
    assert state.hand_sizes[0] == 7 and len(state.deck) == deck - 2
    assert state.current_player == 1, "trading uses the whole turn"


def test_trade_one():
    state = load("dead_cards_trade")
    deck = len(state.deck)
    state.apply(TRADE_ONE)
    assert state.hand_sizes[0] == 7 and len(state.deck) == deck - 1
    assert len(state.dead_cards(0)) == 2


def test_no_trade_while_holding_a_forced_card():
    hands = SCENARIOS["dead_cards_trade"]["hands"]
    state = load("dead_cards_trade", hands=[["A5", "A9", "T4", "C4", "D15", "E7", "wild"], hands[1]])
    assert "trade in one dead card" not in legal_names(state)


def test_no_trade_with_an_empty_deck_and_trade_two_needs_two_cards():
    """Late positions of seeded games where the mover holds two dead cards and no forced card."""
    seen = {1: 0, 0: 0}
    for state in positions({"num_players": 2}, seed=0, games=12):
        p = state.current_player
        forced = ((state.hands[p, : B.NUM_CIRCLES] > 0) & state.is_lowest).any()
        if len(state.deck) in seen and len(state.dead_cards(p)) >= 2 and not forced:
            legal = legal_names(state)
            assert ("trade in one dead card" in legal) == (len(state.deck) == 1)
            assert "trade in two dead cards" not in legal
            seen[len(state.deck)] += 1
    assert min(seen.values()) > 0, seen


def test_hand_is_topped_up_to_seven_after_a_play():
    state = load("q8_blocked_by_open_q4")
    state.apply(PLAY + c("A9"))
    assert state.hand_sizes[0] == 7 and state.hands[0, c("X24")] == 1


# --- the end ---------------------------------------------------------------------------------------------
def test_game_ends_when_the_player_to_move_holds_only_dead_cards():
    """The first seeded game that ends with a cromlet still open: the next player holds only dead cards."""
    before, _, end = next(m for m in last_moves({"num_players": 2}, seed=0, games=20) if not m[2].closed.all())
    assert not before.is_terminal()
    assert end.is_terminal() and end.current_player == -1
    stuck = (before.current_player + 1) % 2
    assert end.hand_sizes[stuck] > 0 and end.hands[stuck, B.WILD] == 0
    assert len(end.dead_cards(stuck)) == end.hand_sizes[stuck] and not end.deck, "only dead cards, nothing to trade for"
    assert end.returns().tolist() == [(1.0 if s == end.scores().max() else -1.0) for s in end.scores()]


def test_the_player_to_move_is_out_of_cards_only_once_every_cromlet_is_closed():
    """With the deck empty the mover's hand is the largest (hands shrink one a turn), and an open circle's card
    is in some hand; so "no cards left" never ends a game on its own, and a position that says so is refused."""
    game = CromletGame(num_players=2)
    for before, _, end in last_moves({"num_players": 2}, seed=1, games=20):
        assert end.closed.all() or end.hand_sizes[(before.current_player + 1) % 2] > 0
    data = complete(SCENARIOS["q8_claimable"])
    data["deck"], data["hands"] = data["deck"] + data["hands"][0], [[], data["hands"][1]]
    with pytest.raises(InvalidStateError, match="hands"):
        game.state_from_json(data)


def test_equal_scores_tie():
    end = next(
        e
        for _, _, e in last_moves({"num_players": 2, "claim_limit": 1}, seed=0, games=20)
        if e.scores()[0] == e.scores()[1]
    )
    assert end.is_terminal() and end.returns().tolist() == [0.0, 0.0]


def test_game_ends_once_every_cromlet_is_closed():
    """Although the next player could still trade dead cards for deck cards, nothing is left to score."""
    before, _, end = next(
        m
        for m in last_moves({"num_players": 2}, seed=0, games=20)
        if m[2].closed.all() and len(m[2].dead_cards((m[0].current_player + 1) % 2)) and m[2].deck
    )
    assert not before.closed.all() and not before.is_terminal()
    assert end.is_terminal(), "nothing is left to score; trading on would change nothing"


# --- actions, errors ----------------------------------------------------------------------------------------
def test_action_names():
    state = load("q8_claimable")
    assert state.action_to_string(PLAY_CLAIM + c("Q8")) == "play Q8 and claim Q"
    assert state.action_to_string(WILD_PLAY + c("X24")) == "play wild on X24"
    assert state.action_to_string(TRADE_ONE) == "trade in one dead card"
    assert NUM_ACTIONS == 530


def test_illegal_action_raises_with_agent_and_action_named():
    env = envs.make("cromlet_v0", illegal_action="raise")
    env.reset(seed=3)
    illegal = int(np.flatnonzero(env.unwrapped.game_state.legal_action_mask() == 0)[0])
    with pytest.raises(IllegalActionError, match=r"player_\d: action \d+ \(.*\) is illegal"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(NUM_ACTIONS)
    with pytest.raises(IllegalActionError, match="not an integer"):
        env.step("Q8")


def test_by_default_an_illegal_action_ends_the_game_with_minus_one_for_the_offender_and_a_warning():
    env = envs.make("cromlet_v0")
    env.reset(seed=3)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.unwrapped.game_state.legal_action_mask() == 0)[0])
    with pytest.warns(envs.IllegalActionWarning, match=rf"{agent}: action {illegal} \(.*\) is illegal"):
        env.step(illegal)
    assert env._cumulative_rewards[agent] == -1 and all(env.terminations.values())


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": 2, "teams": 2}, "teams=2 needs num_players"),
        ({"num_players": 4, "teams": 3}, "teams=3 needs num_players"),
        ({"num_players": 4, "teams": 4}, "teams"),
        ({"reward": "points"}, "reward"),
        ({"observation_mode": "god"}, "observation_mode"),
        ({"render_mode": "braille"}, "render_mode"),
        ({"claim_limit": 0}, "claim_limit"),
        ({"hand_size": 100}, "hand_size"),
    ],
)
def test_bad_constructor_arguments_name_the_problem(kwargs, match):
    with pytest.raises(ValueError, match=match):
        envs.make("cromlet_v0", **kwargs)


def test_bad_json_states_are_rejected():
    """One of each kind; tests/envs/cromlet/test_cromlet_states.py tampers with every field."""
    game = CromletGame(num_players=2)
    data = complete(SCENARIOS["q8_claimable"])
    with pytest.raises(InvalidStateError, match=r"hands\[0\]\[0\]: unknown Cromlet card"):
        game.state_from_json({**data, "hands": [["Z9", *data["hands"][0][1:]], data["hands"][1]]})
    with pytest.raises(InvalidStateError, match=r"covered.Q2: 5 is out of range \[0, 1\]"):
        game.state_from_json({**data, "covered": {**data["covered"], "Q2": 5}})
    with pytest.raises(InvalidStateError, match="hands: must list 2 piles"):
        game.state_from_json({**data, "hands": data["hands"][:1]})
    with pytest.raises(InvalidStateError, match="game: missing"):
        game.state_from_json({"hands": [[], []]})


def test_registry_lists_and_rejects():
    assert "cromlet_v0" in envs.ENV_IDS
    with pytest.raises(ValueError, match="unknown env_id"):
        envs.make("cromlet_v9")


# --- rewards ---------------------------------------------------------------------------------------------
def test_score_reward_pays_claims_as_they_happen_and_teams_share():
    env = envs.make_raw("cromlet_v0", num_players=4, teams=2, reward="score")
    env.reset(seed=0)
    env.load_json(complete(SCENARIOS["team_claim"]))
    env.step(PLAY_CLAIM + c("F5"))
    assert env.rewards == {"player_0": 5.0, "player_1": 0.0, "player_2": 5.0, "player_3": 0.0}


def test_win_loss_reward_only_at_the_end():
    before, action, end = next(
        m for m in last_moves({"num_players": 2}, seed=0, games=20) if len(set(m[2].scores())) > 1
    )
    env = envs.make_raw("cromlet_v0")
    env.reset(seed=0)
    env.load_json(before.to_json())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    env.step(action)
    winner = int(np.argmax(end.scores()))
    assert env.rewards == {f"player_{p}": (1.0 if p == winner else -1.0) for p in range(2)}
    assert all(env.terminations.values())

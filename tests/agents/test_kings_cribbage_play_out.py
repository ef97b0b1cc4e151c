"""Kings Cribbage heuristics' `play_out` (a search player's rollout, a whole move laid in one call) must play the
same actions as one `act` an action through the views (`act_out`): the same final state, seat to move, end and
mask, from positions of random games (moves being built and exchanges being marked among them) and of greedy
games, in both action modes, to the end and cut short by `depth`, also in the middle of a turn."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.agents.kings_cribbage import HEURISTICS
from tabletop.agents.search.player import act_out
from tabletop.envs import EnvSpec
from tabletop.envs.kings_cribbage.rules import KingsCribbageState
from tabletop.envs.testing import random_game

CONFIGS = (  # small boards keep whole rollouts cheap; 5x5 with one stall round ends in exchanges
    {"board_size": 9},
    {"num_players": 3, "board_size": 9},
    {"num_players": 4},
    {"variant": "solitaire", "board_size": 7},
    {"board_size": 5, "stall_rounds": 1},
    {"action_mode": "moves", "board_size": 9},
    {"action_mode": "moves", "num_players": 4, "max_moves": 8, "board_size": 9},
)
POSITIONS = {"greedy": 40, "leave": 16, "reply": 6}  # per configuration: reply looks ahead, each rollout costs more
DEPTHS = (0, 1, 2, 0, 6, 13)  # to the end, and cut short: in tiles mode after a placement or a mark too


def _positions(config: dict, count: int):
    """`count` positions: by turns a state of a seeded random game (a move being built or an exchange being
    marked, often) and the state after a random number of greedy actions from the start (none: the empty board)."""
    spec = EnvSpec("kings_cribbage_v0", config)
    rng = np.random.default_rng(17)
    length = 40 if config.get("action_mode") == "moves" else 120  # about a game's actions (a turn is one or 2-6)
    for k in range(count):
        if k % 2:
            stop = int(rng.integers(length))
            for i, state in enumerate(random_game(spec, int(rng.integers(2**31)))):
                if i == stop or state.is_terminal():  # one object, played on after each yield: keep a copy
                    yield state.clone()
                    break
        else:
            state = spec.new_game().new_initial_state(rng)
            steps = int(rng.integers(length))
            if steps:
                act_out(HEURISTICS["greedy"], state, seed=k, depth=steps)
            yield state


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HEURISTICS))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()) or "default")
def test_play_out_plays_the_actions_of_act(name, config, monkeypatch):
    policy, laid = HEURISTICS[name], []
    lay = KingsCribbageState.lay
    monkeypatch.setattr(KingsCribbageState, "lay", lambda state, move: laid.append(move) or lay(state, move))
    for i, state in enumerate(_positions(config, POSITIONS[name])):
        depth = DEPTHS[i % len(DEPTHS)]
        fast, acted = state.clone(), state.clone()
        policy.play_out(fast, seed=i, depth=depth)
        act_out(policy, acted, seed=i, depth=depth)
        assert fast.to_json() == acted.to_json(), (i, depth)
        assert fast.current_player == acted.current_player
        assert fast.is_terminal() == acted.is_terminal()
        assert not fast.players_order  # as it was: the rollout's own setting ends with it
        np.testing.assert_array_equal(fast.legal_action_mask(), acted.legal_action_mask())
        if not fast.is_terminal():  # the state plays on from where the rollout left it
            action = int(np.flatnonzero(fast.legal_action_mask())[-1])
            fast.apply(action)
            acted.apply(action)
            assert fast.to_json() == acted.to_json()
    assert config.get("action_mode") == "moves" or laid  # tiles mode: whole moves were laid, not only acted


def test_lay_plays_a_whole_move_only_at_the_start_of_a_turn():
    state = EnvSpec("kings_cribbage_v0", {"board_size": 9}).new_game().new_initial_state(np.random.default_rng(3))
    acted = state.clone()
    for action in acted.moves.actions[0, : acted.moves.lengths[0]]:
        acted.apply(int(action))
    with pytest.raises(ValueError, match=r"lay\(0\) plays one of this turn's .* before any action of the turn"):
        acted.lay(0)  # a placement made: the turn is under way
    with pytest.raises(ValueError, match=rf"lay\({len(state.moves)}\) plays one of this turn's {len(state.moves)}"):
        state.lay(len(state.moves))
    acted.apply(acted.game.commit_action)
    state.lay(0)
    assert state.to_json() == acted.to_json()

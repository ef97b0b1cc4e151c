"""The shipped moves-mode Kings Cribbage policy at a table in the default `action_mode="tiles"`
(agents/kings_cribbage_tiles.py): it plays every game to the end legally, its moves are the moves-mode
policy's on the same positions (games played in both modes in lockstep stay identical), and it reads nothing
hidden (the same decisions when the other racks, the bag or a laid 6/9's printed number differ)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="the export extra is not installed: pip install -e '.[export]'")

from support.kings_cribbage import perturbed

from tabletop.agents import make_agent
from tabletop.agents.kings_cribbage_tiles import MovesPolicyAtTiles, position_from_view, tiles_actions
from tabletop.agents.registry import pretrained_folder
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.tournament import play_game

TILES, MOVES = EnvSpec("kings_cribbage_v0"), EnvSpec("kings_cribbage_v0", {"action_mode": "moves"})


@pytest.fixture(scope="module")
def tiles_policy() -> MovesPolicyAtTiles:
    return make_agent(TILES, "pretrained")


@pytest.fixture(scope="module")
def moves_policy():
    return make_agent(MOVES, "pretrained")


def _without_config(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "config"}


def test_pretrained_resolves_in_the_default_tiles_mode(tiles_policy):
    assert isinstance(tiles_policy, MovesPolicyAtTiles) and tiles_policy.name == "pretrained"
    assert not tiles_policy.needs_observation  # it reads the view, never a tiles-mode vector
    assert pretrained_folder(TILES) == pretrained_folder(MOVES)
    meta = json.loads((pretrained_folder(TILES) / "metadata.json").read_text())
    assert make_agent(TILES, f"onnx:{pretrained_folder(TILES)}").twin.resolved()["max_moves"] == meta["env_kwargs"].get(
        "max_moves", 64
    )
    assert not isinstance(make_agent(MOVES, "pretrained"), MovesPolicyAtTiles)  # moves mode: the policy itself
    for spec in (EnvSpec("kings_cribbage_v0", {"board_size": 11}), EnvSpec("kings_cribbage_v0", {"num_players": 3})):
        with pytest.raises(ValueError, match="no pretrained policy"):
            make_agent(spec, "pretrained")
        with pytest.raises(ValueError, match="was trained for"):
            make_agent(spec, f"onnx:{pretrained_folder(TILES)}")


@pytest.mark.parametrize("seed", range(4))
def test_it_plays_tiles_mode_games_to_the_end_legally(tiles_policy, seed):
    env = TILES.make_raw()
    for opponent in ("random", "greedy"):
        seats = [tiles_policy, make_agent(TILES, opponent, seed=seed)][:: 1 - 2 * (seed % 2)]
        returns, _, steps = play_game(env, seats, seed=seed)  # a masked action raises
        assert env.game_state.is_terminal() and steps > 0 and sorted(returns.tolist()) in ([-1.0, 1.0], [0.0, 0.0])


def lockstep_game(tiles_policy, moves_policy, opponent, seed: int, policy_seat: int) -> tuple[list, int]:
    """One game dealt by `seed` in both modes at once: the policy at `policy_seat` (moves-mode `moves_policy` in
    the moves-mode game, `tiles_policy` in the tiles-mode one), `opponent` (a moves-mode player) at the other seat,
    its choice spelt in tiles-mode actions for the tiles-mode game. Checks that every policy decision is the same
    in both modes, that the neutral position the adapter rebuilds encodes to the true position's vector, and that
    the two games stay the same position; returns the final scores and how many decisions were compared."""
    tiles_env, moves_env = TILES.make_raw(), MOVES.make_raw()
    tiles_env.reset(seed=seed)
    moves_env.reset(seed=seed)
    tiles, moves = tiles_env.game_state, moves_env.game_state
    decisions = 0
    while not moves.is_terminal():
        assert _without_config(tiles.to_json()) == _without_config(moves.to_json())
        seat, mask = moves.current_player, moves.legal_action_mask()
        moves_view = moves.view(seat)
        if seat == policy_seat:
            obs = moves_env.observer.encode(moves, seat)
            action = moves_policy.act(obs, mask, moves_view)
            if moves_view["can_move"] or moves_view["bag_sizes"][seat]:
                rebuilt = tiles_policy.moves_state(tiles.view(seat))
                assert np.array_equal(tiles_policy._observer.encode(rebuilt, seat), obs)
            expected = tiles_actions(moves_view, int(action))
            played = []
            while len(played) < len(expected):
                played.append(tiles_policy.act(None, tiles.legal_action_mask(), tiles.view(seat)))
                tiles.apply(played[-1])
            assert played == expected
            decisions += 1
        else:
            action = opponent.act(None, mask, moves_view)
            for step in tiles_actions(moves_view, int(action)):
                tiles.apply(step)  # a masked action raises: the spelling is legal
        moves.apply(int(action))
    assert tiles.is_terminal() and tiles.scores().tolist() == moves.scores().tolist()
    return moves.scores().tolist(), decisions


@pytest.mark.parametrize("seed", range(3))
def test_its_moves_are_the_moves_mode_policys_in_lockstep_games(tiles_policy, moves_policy, seed):
    opponent = make_agent(MOVES, ("greedy", "leave", "random")[seed], seed=seed)
    _, decisions = lockstep_game(tiles_policy, moves_policy, opponent, 10_000_000 + seed, policy_seat=seed % 2)
    assert decisions > 5


def _policy_turn_starts(seed: int, count: int):
    """Tiles-mode states at the start of turns (nothing placed or chosen yet), from a greedy-vs-random game."""
    env = EnvSpec("kings_cribbage_v0").make_raw()
    env.reset(seed=seed)
    state, found = env.game_state, []
    players = [make_agent(TILES, "greedy", seed=seed), make_agent(TILES, "random", seed=seed)]
    while not state.is_terminal() and len(found) < count:
        if not state.pending and not state.marked:
            found.append(state.clone())
        seat = state.current_player
        state.apply(players[seat].act(None, state.legal_action_mask(), state.view(seat)))
    return found


def _with_printed_turned(state, rng):
    """The same position with one laid 6 or 9 printed as the other number, swapped with a hidden tile (another
    rack or the bag) of that number and colour; None where no such swap exists."""
    data = state.to_json()
    printed, values = np.array(data["printed"]), np.array(data["values"])
    cells = [tuple(c) for c in np.argwhere((values == 6) | (values == 9))]
    for r, c in (cells[i] for i in rng.permutation(len(cells))):
        colour, rank = data["colours"][r][c], int(printed[r, c])
        other = colour * 13 + (15 - rank) - 1  # the kind printed with the other number
        mine = colour * 13 + rank - 1
        for holder in [rack for s, rack in enumerate(data["racks"]) if s != state.current_player] + data["bags"]:
            if other in holder:
                holder[holder.index(other)] = mine  # a rack may be written in any order
                data["printed"][r][c] = 15 - rank
                return state.game.state_from_json(data)
    return None


def test_it_reads_nothing_hidden(tiles_policy):
    """Positions that differ only in what the mover cannot know (the other racks, the bag and its order, the
    printed number of a laid 6 or 9) give the same view, the same rebuilt position and the same move; the true
    moves-mode position of each encodes to the same vector the adapter reads."""
    rng, compared, turned = np.random.default_rng(3), 0, 0
    moves_game = MOVES.new_game()
    for seed in range(3):
        for state in _policy_turn_starts(seed, 12):
            seat = state.current_player
            variants = [perturbed(state, seat, rng) for _ in range(2)] + [_with_printed_turned(state, rng)]
            turned += variants[-1] is not None
            variants = [v for v in variants if v is not None and v.to_json() != state.to_json()]
            assert variants
            plans, vectors = [], []
            for position in [state, *variants]:
                view = position.view(seat)
                plans.append(tiles_policy.choose(view))
                vectors.append(
                    tiles_policy._observer.encode(
                        moves_game.state_from_json({**position.to_json(), "config": moves_game.config()}), seat
                    )
                )  # the true hidden parts
                assert position_from_view(view, moves_game) == position_from_view(state.view(seat), moves_game)
            assert all(plan == plans[0] for plan in plans)
            assert all(np.array_equal(vector, vectors[0]) for vector in vectors)
            assert np.array_equal(
                tiles_policy._observer.encode(tiles_policy.moves_state(state.view(seat)), seat), vectors[0]
            )
            compared += 1
    assert compared >= 30 and turned >= 1


def test_a_move_begun_elsewhere_is_finished_legally(tiles_policy):
    """A turn whose first placement was not the policy's (a loaded position, a human's hint): the policy completes
    the best move it is offered that begins so, and the placements stay legal."""
    env = TILES.make_raw()
    env.reset(seed=5)
    state = env.game_state
    legal = np.flatnonzero(state.legal_action_mask())
    state.apply(int(legal[-1]))
    seat = state.current_player
    while state.current_player == seat and not state.is_terminal():
        state.apply(tiles_policy.act(None, state.legal_action_mask(), state.view(seat)))
    assert state.current_player != seat or state.is_terminal()

"""Kings Cribbage with `action_mode="moves"`: the offered moves and the exchanges against independent oracles,
the move features against a walk over the board, the guarantee the offer gives the heuristics, saved states,
hidden information and the heuristics at play. (PettingZoo's api/seed tests, the recorded traces, JSON round
trips, clones, brute-force masks and renders are the contract test's, for three moves-mode configurations.)
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from support.kings_cribbage import brute_moves, perturbed

from tabletop.agents import make_agent
from tabletop.agents.kings_cribbage import ReplyAgent
from tabletop.envs import EnvSpec
from tabletop.envs.core import InvalidStateError, ParameterError
from tabletop.envs.kings_cribbage.actions import EXCHANGE_CHOICES
from tabletop.envs.kings_cribbage.move_features import COLUMNS, FEATURES, LINES, NUM_FEATURES, board_runs
from tabletop.envs.kings_cribbage.movegen import MOVE_MOST, generate_moves
from tabletop.envs.kings_cribbage.observe import KingsCribbageObserver
from tabletop.envs.kings_cribbage.render import KingsCribbageRenderer
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.kings_cribbage.tiles import FACE_COLOUR, FACE_KIND, FACE_VALUE, NUM_KINDS, kind_of
from tabletop.train.evaluation.tournament import run_tournament


def _moves_game(**config) -> KingsCribbageGame:
    return KingsCribbageGame(action_mode="moves", **config)


def _states(game: KingsCribbageGame, seed: int, max_turns: int = 10_000):
    """Every state of a seeded random game, the last (terminal) one included."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    for _ in range(max_turns):
        yield state
        if state.is_terminal():
            return
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))


# --- the offer: the documented rule, from the exhaustive move search ------------------------------------------
def _expected_offer(brute: dict, rack: list[int], size: int, limit: int) -> list[tuple[tuple[int, ...], int]]:
    """The rule of docs/kings_cribbage.md, written out plainly: (place actions, points) per slot."""
    cells, centre = size * size, size - 1

    def rank(item):
        move, points = item
        actions = tuple(face * cells + cell for cell, face in move)
        distance = sum(abs(2 * (cell // size) - centre) + abs(2 * (cell % size) - centre) for cell, _ in move)
        return -points, distance, actions + (-1,) * (5 - len(actions))

    ranked = sorted(brute.items(), key=rank)
    leaves, leaders, others = set(), [], []
    for item in ranked:
        used = tuple(sorted(int(FACE_KIND[face]) for _, face in item[0]))
        (others if used in leaves else leaders).append(item)
        leaves.add(used)
    chosen = leaders[:limit] + others[: max(0, limit - len(leaders))]
    return [(tuple(face * cells + cell for cell, face in move), points) for move, points in sorted(chosen, key=rank)]


def _expected_exchanges(rack: list[int], bag: int) -> set[int]:
    """Every choice of tiles to give back (a multiset of the rack's kinds, at most as many as the bag holds) as
    the bits of the first rack positions holding them."""
    choices = set()
    for size in range(min(len(rack), bag) + 1):
        for kinds in set(combinations(rack, size)):
            bits = 0
            for kind, count in Counter(kinds).items():
                first = rack.index(kind)
                bits |= ((1 << count) - 1) << first
            choices.add(bits)
    return choices


@pytest.mark.parametrize(
    "config, limit, seeds, least_exchanges",
    [
        ({"board_size": 5}, 4, range(6), 5),
        ({"board_size": 7, "num_players": 3}, 8, range(2), 0),
        ({"board_size": 7, "variant": "solitaire"}, 40, range(2), 0),
    ],
    ids=str,
)
def test_offer_and_mask_match_the_rule_on_the_exhaustive_move_set(config, limit, seeds, least_exchanges):
    game = _moves_game(max_moves=limit, **config)
    checked = exchanges = 0
    for seed in seeds:
        for state in _states(game, seed):
            if state.is_terminal():
                break
            rack = state.racks[state.current]
            brute = brute_moves(state.values, state.colours, rack, game.board_size)
            offered = [
                (tuple(a[:n]), p)
                for a, n, p in zip(state.offered.actions.tolist(), state.offered.lengths, state.offered.points)
            ]
            assert offered == _expected_offer(brute, rack, game.board_size, limit)
            mask = state.legal_action_mask()
            assert mask[:limit].tolist() == [1] * len(offered) + [0] * (limit - len(offered))
            legal_exchanges = set(np.flatnonzero(mask[limit:]).tolist())
            assert legal_exchanges == (
                set() if brute else _expected_exchanges(rack, len(state.bags[game.bag_of[state.current]]))
            )
            checked += 1
            exchanges += not brute
    assert checked > 40 and exchanges >= least_exchanges


def test_an_exchange_gives_back_exactly_the_chosen_tiles():
    game = _moves_game(board_size=5)
    seen = 0
    for seed in range(4):
        for state in _states(game, seed):
            if state.is_terminal() or len(state.offered):
                continue
            rack, bag = list(state.racks[state.current]), list(state.bags[game.bag_of[state.current]])
            for choice in np.flatnonzero(state.legal_action_mask()[game.exchange_base :]):
                after = state.clone()
                after.apply(game.exchange_base + int(choice))
                given = [kind for i, kind in enumerate(rack) if choice >> i & 1]
                kept = Counter(rack) - Counter(given)
                new_rack = after.racks[state.current]
                assert not kept - Counter(new_rack) and len(new_rack) == len(rack)
                assert Counter(new_rack) + Counter(after.bags[game.bag_of[state.current]]) == Counter(rack) + Counter(
                    bag
                )
                assert after.passes == state.passes + 1 or after.is_terminal()
                seen += 1
    assert seen > 20


# --- the guarantee the offer gives players that value a move by its points and its leave ----------------------
@pytest.mark.parametrize("name", ["greedy", "leave"])
def test_the_heuristics_best_value_is_always_offered(name):
    """With max_moves >= 31 the best move of every leave is offered, so a player valuing moves by points plus a
    worth of the leave loses nothing to the cut: its best value among the offered moves is its best overall."""
    spec = EnvSpec("kings_cribbage_v0", {"action_mode": "moves", "max_moves": 31})
    agent = make_agent(spec, name, seed=1)
    env = spec.make_raw()
    checked = 0
    for seed in range(2):
        env.reset(seed=seed)
        for seat in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            view = env.view(seat)
            if view["can_move"]:
                every = generate_moves(view["values"], view["colours"], view["rack"])
                offered = env.game_state.offered
                best = agent.value(every.points, every.actions, every.lengths, view).max()
                assert agent.value(offered.points, offered.actions, offered.lengths, view).max() == best
                checked += 1
            env.step(agent.act(obs["observation"], obs["action_mask"], view))
    assert checked > 40


# --- features --------------------------------------------------------------------------------------------
def _walked_lines(board: set, placed: list[tuple[int, int]]) -> set[tuple]:
    """The lines of 2+ tiles through the placed cells, read cell by cell from the board after the move."""
    lines = set()
    for cell in placed:
        for dr, dc in ((0, 1), (1, 0)):
            r, c = cell
            while (r - dr, c - dc) in board:
                r, c = r - dr, c - dc
            line = []
            while (r, c) in board:
                line.append((r, c))
                r, c = r + dr, c + dc
            if len(line) >= 2:
                lines.add(tuple(line))
    return lines


def _expected_row(state, actions: list[int], points: int) -> np.ndarray:
    """One move's features, from the board with the move laid on it."""
    size, cells = state.game.board_size, state.game.cells
    board = {(int(r), int(c)) for r, c in zip(*np.nonzero(state.values))}
    laid = [divmod(a, cells) for a in actions]
    placed = [divmod(cell, size) for _, cell in laid]
    board |= set(placed)
    lines = _walked_lines(board, placed)

    def inside(r, c):
        return 0 <= r < size and 0 <= c < size

    open_ends = 0
    for line in lines:
        if len(line) < 5:
            (r0, c0), (r1, c1) = line[0], line[-1]
            dr, dc = (0, 1) if r0 == r1 else (1, 0)
            open_ends += inside(r0 - dr, c0 - dc) + inside(r1 + dr, c1 + dc)
    hooks = {(r + dr, c + dc) for r, c in placed for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))}
    hooks = {cell for cell in hooks if inside(*cell) and cell not in board}
    row = np.zeros(NUM_FEATURES)
    row[COLUMNS["points"]] = points / MOVE_MOST
    row[COLUMNS["tiles"]] = len(actions) / 5
    used = Counter(int(FACE_KIND[face]) for face, _ in laid)
    for kind in range(NUM_KINDS):
        row[COLUMNS["used"].start + kind] = used[kind] / 4
        row[COLUMNS["kept"].start + kind] = (state.racks[state.current].count(kind) - used[kind]) / 4
    for j, ((face, _), (r, c)) in enumerate(zip(laid, placed)):
        row[COLUMNS["placed"].start + 4 * j : COLUMNS["placed"].start + 4 * j + 4] = (
            r / (size - 1),
            c / (size - 1),
            FACE_VALUE[face] / 13,
            FACE_COLOUR[face],
        )
    row[COLUMNS["hands"]] = len(lines) / LINES
    row[COLUMNS["longest"]] = max(len(line) for line in lines) / 5
    row[COLUMNS["closed"]] = sum(len(line) == 5 for line in lines) / LINES
    row[COLUMNS["open_ends"]] = open_ends / (2 * LINES)
    row[COLUMNS["hooks"]] = len(hooks) / (2 * LINES)
    return row


@pytest.mark.parametrize("config", [{}, {"board_size": 6, "num_players": 3}], ids=str)
def test_move_features_match_a_walk_over_the_board(config):
    game = _moves_game(**config)
    observer = KingsCribbageObserver(game, omniscient=False)
    rows = 0
    for seed in range(2):
        for state in _states(game, seed):
            if state.is_terminal():
                break
            block = observer.layout.block(observer.encode(state, state.current), "moves")
            offered = state.offered
            for i in range(len(offered)):
                expected = _expected_row(
                    state, offered.actions[i, : offered.lengths[i]].tolist(), int(offered.points[i])
                )
                np.testing.assert_allclose(block[i], expected, atol=1e-6, err_msg=f"seed {seed} slot {i}")
                rows += 1
            assert not block[len(offered) :].any()
    assert rows > 500


def test_the_docs_list_every_feature_column():
    page = (Path(__file__).resolve().parents[3] / "docs" / "kings_cribbage.md").read_text()
    rows = re.findall(r"^\| (\d+)(?:–(\d+))? \| `(\w+)` \| (.*) \|$", page, flags=re.M)
    assert [(name, int(first), int(last or first)) for first, last, name, _ in rows] == [
        (name, COLUMNS[name].start, COLUMNS[name].stop - 1) for name, _, _ in FEATURES
    ]
    assert f"points / {MOVE_MOST}" in rows[0][3]


def test_board_runs_count_the_tiles_beside_each_cell():
    values = np.zeros((6, 6), dtype=np.int8)
    values[2, 1:4] = 5
    values[0:2, 4] = 7
    runs = board_runs(values)
    assert runs[0, 2, 4] == 3 and runs[1, 2, 0] == 3 and runs[0, 2, 2] == 1  # left of (2, 4), right of (2, 0)
    assert runs[2, 2, 4] == 2 and runs[3, 1, 1] == 1 and runs[2, 3, 2] == 1  # above (2, 4), below (1, 1)
    assert runs[:, 5, 5].sum() == 0


def test_exchange_rows_name_the_tiles_each_exchange_returns():
    game = _moves_game(board_size=5)
    observer = KingsCribbageObserver(game, omniscient=False)
    seen = 0
    for state in _states(game, 1):
        if state.is_terminal() or len(state.offered):
            continue
        block = observer.layout.block(observer.encode(state, state.current), "exchanges")
        rack = state.racks[state.current]
        for choice in range(EXCHANGE_CHOICES):
            legal = state.legal_action_mask()[game.exchange_base + choice]
            expected = (
                np.bincount([k for i, k in enumerate(rack) if choice >> i & 1], minlength=NUM_KINDS) / 4 if legal else 0
            )
            np.testing.assert_array_equal(block[choice], expected)
        seen += 1
    assert seen >= 3


# --- hidden information, words, saved states -------------------------------------------------------------
@pytest.mark.parametrize("config", [{"num_players": 3}, {"variant": "solitaire", "board_size": 7}], ids=str)
def test_private_observation_and_view_ignore_hidden_facts(config):
    game = _moves_game(**config)
    observer = KingsCribbageObserver(game, omniscient=False)
    rng = np.random.default_rng(3)
    checked = 0
    for state in _states(game, 2):
        if state.is_terminal():
            break
        for seat in range(game.num_players):
            other = perturbed(state, seat, rng)
            if other is None or other.is_terminal():
                continue
            np.testing.assert_array_equal(observer.encode(state, seat), observer.encode(other, seat))
            a, b = state.view(seat), other.view(seat)
            assert a.keys() == b.keys() and ("offered" in a) == (seat == state.current)
            for key in a:
                if isinstance(a[key], np.ndarray):
                    np.testing.assert_array_equal(a[key], b[key], err_msg=key)
                else:
                    assert a[key] == b[key], key
            checked += 1
    assert checked > 50


def test_the_view_lists_the_offered_moves_for_the_mover_only():
    game = _moves_game(max_moves=5)
    state = game.new_initial_state(np.random.default_rng(4))
    view = state.view(state.current)
    assert view["offered"] == [row[:n] for row, n in zip(state.offered.actions.tolist(), state.offered.lengths)]
    assert view["offered_points"] == state.offered.points.tolist() and len(view["offered"]) == 5
    assert "offered" not in state.view(1 - state.current) and view["action_mode"] == "moves"


def test_others_hear_how_many_tiles_an_exchange_returns_not_which():
    game = _moves_game(board_size=5, num_players=3)
    renderer = KingsCribbageRenderer(game)
    heard = 0
    for state in _states(game, 0):
        if state.is_terminal() or len(state.offered):
            continue
        for choice in np.flatnonzero(state.legal_action_mask()[game.exchange_base :]):
            action = game.exchange_base + int(choice)
            own, other = (
                renderer.describe(state, action, state.current),
                renderer.describe(state, action, (state.current + 1) % 3),
            )
            count = int(choice).bit_count()
            assert other == (
                "pass without exchanging" if not count else f"pass and exchange {count} tile{'s' * (count > 1)}"
            )
            assert own == state.action_to_string(action) and (count == 0 or any(c in own for c in ("light", "dark")))
            heard += 1
    assert heard > 10


def test_move_words_name_every_tile_and_the_points():
    game = _moves_game(max_moves=3)
    state = game.new_initial_state(np.random.default_rng(0))
    words = state.action_to_string(0)
    assert words.startswith("play ") and words.endswith(f": {int(state.offered.points[0])} points")
    assert words.count(" at ") == state.offered.lengths[0]
    assert state.action_to_string(game.exchange_base) == "pass without exchanging"


def test_saved_states_in_moves_mode_hold_no_move_in_progress():
    game = _moves_game()
    data = game.new_initial_state(np.random.default_rng(0)).to_json()
    tiles = KingsCribbageGame().new_initial_state(np.random.default_rng(0))
    tiles.apply(int(np.flatnonzero(tiles.legal_action_mask())[0]))
    for name, value in (("pending", tiles.pending), ("marked", [data["racks"][data["current"]][0]])):
        with pytest.raises(InvalidStateError) as error:
            game.state_from_json({**data, name: value})
        assert error.value.field == name
    assert game.state_from_json(data).to_json() == data
    with pytest.raises(InvalidStateError, match="config"):
        KingsCribbageGame().state_from_json(data)
    assert data["config"] == {**tiles.to_json()["config"], "action_mode": "moves", "max_moves": 64}
    assert list(tiles.to_json()["config"]) == [
        "num_players",
        "board_size",
        "variant",
        "stall_rounds",
    ]  # as before modes


def test_max_moves_belongs_to_the_moves_mode():
    with pytest.raises(ParameterError, match="max_moves=16.*action_mode='moves'"):
        KingsCribbageGame(max_moves=16)
    assert KingsCribbageGame(max_moves=64).num_actions == KingsCribbageGame().num_actions
    assert KingsCribbageGame(action_mode="moves", max_moves=16).num_actions == 16 + EXCHANGE_CHOICES


# --- the heuristics play at move level ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["greedy", "leave", "reply"])
def test_heuristics_play_move_level_games_and_beat_random(name):
    spec = EnvSpec("kings_cribbage_v0", {"action_mode": "moves"})
    result = run_tournament(spec, [name, "random"], 4, seed=3)
    assert result.records[name].wins >= 3


def test_heuristics_play_move_level_with_three_players_solitaire_and_small_boards():
    run_tournament(
        EnvSpec("kings_cribbage_v0", {"action_mode": "moves", "num_players": 3}),
        ["greedy", "reply", "random"],
        2,
        seed=1,
    )
    run_tournament(
        EnvSpec("kings_cribbage_v0", {"action_mode": "moves", "variant": "solitaire"}), ["reply", "greedy"], 2, seed=1
    )
    run_tournament(
        EnvSpec("kings_cribbage_v0", {"action_mode": "moves", "board_size": 5, "max_moves": 2}),
        ["leave", "greedy"],
        4,
        seed=1,
    )


SIX_FOR_NINE = np.arange(NUM_KINDS)
SIX_FOR_NINE[[kind_of(colour, 9) for colour in (0, 1)]] = [kind_of(colour, 6) for colour in (0, 1)]


def test_reply_weighs_the_opponents_actual_best_answer_once_the_bag_is_empty():
    """With the bag empty the tiles `reply` cannot see are exactly the opponent's rack, so every rack it samples
    is that rack, and its choice can be checked on the real game: each of its shortlisted moves played on a clone,
    answered by the opponent's best move with the actual rack (none when the move ended the game). A 6 and a 9
    play alike (either may show the other number) and a laid one may show either, so they compare as one kind."""
    game = _moves_game()
    agent = ReplyAgent(seed=0)
    checked = 0
    for seed in range(3):
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            seat, mask = state.current_player, state.legal_action_mask()
            view = state.view(seat)
            if not any(state.bags) and view["can_move"] and len(state.offered) > 1:
                opponent = sorted(SIX_FOR_NINE[state.racks[1 - seat]])
                assert all(sorted(SIX_FOR_NINE[rack]) == opponent for rack in agent._replying_racks(view))
                offered = state.offered
                value = agent.value(offered.points, offered.actions, offered.lengths, view)
                worth = {}
                for slot in np.argsort(-value, kind="stable")[: ReplyAgent.TOP]:
                    after = state.clone()
                    after.apply(int(slot))
                    answer = 0 if after.is_terminal() else after.moves_for(1 - seat).points.max(initial=0)
                    worth[int(slot)] = value[slot] - ReplyAgent.WEIGHT * answer
                action = agent.act(None, mask, view)
                assert worth[action] == max(worth.values())
                checked += 1
            else:
                action = agent.act(None, mask, view)
            state.apply(action)
    assert checked >= 5

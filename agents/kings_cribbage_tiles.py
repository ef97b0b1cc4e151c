"""A Kings Cribbage policy trained with `action_mode="moves"` playing at a table with the default `action_mode="tiles"`.

`MovesPolicyAtTiles` wraps the moves-mode player (the shipped `pretrained` policy, an `onnx:DIR` export). At the
first sub-step of its turn it rebuilds the seat's view as the moves-mode position: `position_from_view` writes a
saved state from what the view holds (the board, the own rack, scores, rack and bag sizes, passes, whose turn),
with every part the seat cannot know filled neutrally (the other racks and the bags: the unseen tiles in kind
order; which number is printed on a laid 6 or 9; the generator), and the moves-mode game's own loader checks and
rebuilds it. The moves-mode private observer reads from that state only what the view holds (the offered moves
and every column of their rows follow from the board and the mover's rack: docs/kings_cribbage.md, Observation),
so the filled parts change nothing the policy sees; tests/agents/test_kings_cribbage_pretrained_tiles.py holds it to that.
The policy's choice is then spelt in tiles-mode actions (`tiles_actions`: the placements in cell order and commit,
or the chosen kinds and pass) and played one per call, each checked against the tiles-mode mask.

The agent reads only `view` (`needs_observation` is False: no tiles-mode vector is encoded for it) and the mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop.agents.base import Agent, policy_key
from tabletop.envs import EnvSpec
from tabletop.envs.kings_cribbage.actions import moves_layout, tiles_layout
from tabletop.envs.kings_cribbage.movegen import generate_moves
from tabletop.envs.kings_cribbage.tiles import NUM_KINDS, TILES_PER_KIND, kind_colour, kind_of

GAME = "kings_cribbage"
NEUTRAL_RNG = np.random.Generator(np.random.PCG64(0)).bit_generator.state  # the rebuilt position never draws


def is_tiles_table(env: EnvSpec) -> bool:
    """Whether `env` is Kings Cribbage in tiles mode (where a moves-mode policy needs this adapter)."""
    return env.current_id.startswith(GAME) and env.resolved()["action_mode"] == "tiles"


def moves_twin(env: EnvSpec, max_moves: int | None = None) -> EnvSpec:
    """The same game with `action_mode="moves"` (and `max_moves`, default the game's): the configuration a
    moves-mode policy for the tiles-mode table `env` was trained on."""
    extra = {} if max_moves is None else {"max_moves": max_moves}
    return env.with_kwargs(action_mode="moves", **extra)


# --- the moves-mode position a seat may know ------------------------------------------------------------------
def _printed(values: np.ndarray, colours: np.ndarray, rack: Sequence[int]) -> np.ndarray:
    """A printed rank per board tile consistent with the view: a laid 6 or 9 may show the other number, and
    which is hidden, so each tile is read as printed with the number it shows, turned only where the own rack
    and the four tiles of a kind leave no other way."""
    printed = values.copy()
    held = np.bincount(np.asarray(rack, dtype=np.int64), minlength=NUM_KINDS)
    flat_values, flat_colours, flat_printed = values.reshape(-1), colours.reshape(-1), printed.reshape(-1)
    for colour in (0, 1):
        cells = np.flatnonzero(((flat_values == 6) | (flat_values == 9)) & (flat_colours == colour))
        cells = cells[np.argsort(flat_values[cells] != 6, kind="stable")]  # those showing 6 first
        shown_six = int((flat_values[cells] == 6).sum())
        least = max(0, len(cells) - (TILES_PER_KIND - int(held[kind_of(colour, 9)])))
        most = min(len(cells), TILES_PER_KIND - int(held[kind_of(colour, 6)]))
        if least > most:
            raise ValueError("the view shows more 6s and 9s of one colour than the game has")
        sixes = min(max(shown_six, least), most)
        flat_printed[cells[:sixes]], flat_printed[cells[sixes:]] = 6, 9
    return printed


def position_from_view(view: dict[str, Any], game: Any) -> dict[str, Any]:
    """The saved state (as `State.to_json` writes it) of `game`, a moves-mode game of the view's configuration,
    at the start of the viewing seat's turn: the view's facts, every hidden part filled neutrally (see the module
    docstring). A tile of the move being built counts as still on the rack (the view keeps it there)."""
    me, n = view["player"], view["num_players"]
    values, colours, rack = view["values"], view["colours"], list(view["rack"])
    printed = _printed(values, colours, rack)
    on_board = kind_of(colours.astype(np.int64), printed.astype(np.int64))[values > 0]
    unseen = TILES_PER_KIND - np.bincount(np.concatenate([on_board, rack]).astype(np.int64), minlength=NUM_KINDS)
    if (unseen < 0).any():
        raise ValueError("the view holds more tiles of a kind than the game has")
    pool = np.repeat(np.arange(NUM_KINDS), unseen)
    bag_of = game.bag_of
    pools = {b: pool[kind_colour(pool) == b].tolist() if len(set(bag_of)) > 1 else pool.tolist() for b in set(bag_of)}
    racks: list[list[int]] = [[] for _ in range(n)]
    for seat in range(n):
        if seat == me:
            racks[seat] = rack
        else:
            source = pools[bag_of[seat]]
            racks[seat], pools[bag_of[seat]] = source[: view["rack_sizes"][seat]], source[view["rack_sizes"][seat] :]
    bags = [pools[b] for b in sorted(pools)]
    for seat in range(n):
        if len(bags[bag_of[seat]]) != view["bag_sizes"][seat]:
            raise ValueError(f"the view's bag sizes {view['bag_sizes']} do not match the tiles it leaves unseen")
    return {
        "game": GAME,
        "config": game.config(),
        "values": values.tolist(),
        "colours": colours.tolist(),
        "printed": printed.tolist(),
        "racks": racks,
        "bags": bags,
        "scores": [int(s) for s in view["scores"]],
        "deductions": [0] * n,
        "current": me,
        "passes": int(view["passes"]),
        "terminal": False,
        "pending": [],
        "marked": [],
        "rng": NEUTRAL_RNG,
    }


# --- a moves-mode action in tiles-mode actions ------------------------------------------------------------------
def tiles_actions(moves_view: dict[str, Any], action: int) -> list[int]:
    """The tiles-mode action sequence of moves-mode `action` in the position `moves_view` (the mover's moves-mode
    view): an offered move's placements in increasing cell order then commit, or an exchange's chosen kinds in
    non-decreasing order then pass. One sequence per move or exchange, as the tiles mode spells it."""
    tiles, cells = tiles_layout(moves_view["board_size"]), moves_view["board_size"] ** 2
    block, index = moves_layout(moves_view["max_moves"]).decode(action)
    if block == "play":
        return sorted((int(a) for a in moves_view["offered"][index]), key=lambda a: a % cells) + [tiles.start("commit")]
    marked = [tiles.encode("mark", kind) for i, kind in enumerate(moves_view["rack"]) if index >> i & 1]
    return marked + [tiles.start("exchange")]


def _done_actions(view: dict[str, Any]) -> list[int]:
    """The tiles-mode actions of this turn so far (the placements made, the kinds chosen)."""
    mark = tiles_layout(view["board_size"]).start("mark")
    return [int(a) for a in view["pending"]] + [mark + int(k) for k in view["marked"]]


# --- the agent ------------------------------------------------------------------------------------------------------
class MovesPolicyAtTiles:
    """Plays a moves-mode Kings Cribbage player at a tiles-mode table (see the module docstring)."""

    needs_observation = False  # it reads the view; the moves-mode vector is encoded from it here

    def __init__(self, policy: Agent, table: EnvSpec, trained: EnvSpec):
        self.name = getattr(policy, "name", "moves policy")
        if not plays_at(trained, table):
            raise ValueError(
                f"{self.name} was trained for {trained}: it plays only at the same game in "
                f"action_mode='moves' or, through this adapter, 'tiles'; the table is {table}"
            )
        if trained.resolved()["observation_mode"] != "private":
            raise ValueError(
                f"{self.name} reads omniscient observations; at a tiles-mode table it is given only its own seat's view"
            )
        twin = moves_twin(table, trained.resolved()["max_moves"])
        self.policy, self.table, self.twin = policy, table, twin
        self._env = twin.make_raw()  # its game loads the positions, its observer encodes them
        self._observer = self._env.observer_for(getattr(policy, "observation_options", None), omniscient=False)
        self._plan: tuple[tuple, list[int]] | None = None

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        if view.get("action_mode") != "tiles" or view["player"] != view["current_player"]:
            raise ValueError(f"{self.name}: plays the seat to move at a tiles-mode table")
        done = _done_actions(view)
        plan = self._current_plan(view, done)
        action = plan[len(done)]
        if not action_mask[action]:  # an honest view and a legal choice never get here
            raise ValueError(
                f"{self.name}: its move's next tiles-mode action {action} is masked (plan {plan}, "
                f"done {done}): the view and the mask disagree"
            )
        return int(action)

    def moves_state(self, view: dict[str, Any]) -> Any:
        """The moves-mode state of the viewing seat's turn, hidden parts filled neutrally."""
        return self._env.game.state_from_json(position_from_view(view, self._env.game))

    def choose(self, view: dict[str, Any], done: Sequence[int] = ()) -> list[int]:
        """The tiles-mode actions of the policy's move or exchange this turn; with `done` (actions already played
        this turn, not by this plan), its best choice among those that begin with them."""
        layout = tiles_layout(view["board_size"])
        if not view["can_move"] and view["bag_sizes"][view["player"]] == 0:
            return [layout.start("exchange")]  # the only action: pass (in moves mode too); no position to rebuild
        state = self.moves_state(view)
        seat = view["player"]
        moves_view = state.view(seat)
        mask = state.legal_action_mask()
        if done:
            mask = mask.copy()
            for action in np.flatnonzero(mask):
                mask[action] = tiles_actions(moves_view, int(action))[: len(done)] == list(done)
            if not mask.any():  # the move begun is none the policy is offered: finish it with the most points
                return self._best_completion(view, done, layout.start("commit"))
        obs = self._observer.encode(state, seat)
        return tiles_actions(moves_view, int(self.policy.act(obs, mask, moves_view)))

    def _current_plan(self, view: dict[str, Any], done: list[int]) -> list[int]:
        key = (
            view["values"].tobytes(),
            view["colours"].tobytes(),
            tuple(view["rack"]),
            view["player"],
            tuple(view["scores"]),
            view["passes"],
        )
        if (
            self._plan is not None
            and self._plan[0] == key
            and self._plan[1][: len(done)] == done
            and len(done) < len(self._plan[1])
        ):
            return self._plan[1]
        plan = self.choose(view, done)
        self._plan = (key, plan)
        return plan

    @staticmethod
    def _best_completion(view: dict[str, Any], done: Sequence[int], commit: int) -> list[int]:
        moves = generate_moves(view["values"], view["colours"], view["rack"])
        ok = (moves.actions[:, : len(done)] == list(done)).all(1) & (moves.lengths >= len(done))
        best = int(np.flatnonzero(ok)[np.argmax(moves.points[ok])])
        return [int(a) for a in moves.actions[best, : moves.lengths[best]]] + [commit]


def plays_at(trained: EnvSpec, table: EnvSpec) -> bool:
    """Whether a policy trained for `trained` plays at `table` through `MovesPolicyAtTiles`: `table` is in tiles
    mode and `trained` is the same game in moves mode (rendering, illegal-action handling, reward and observer
    options aside, as for every shipped policy)."""
    if not (
        is_tiles_table(table)
        and trained.current_id == table.current_id
        and trained.resolved()["action_mode"] == "moves"
    ):
        return False
    return policy_key(trained) == policy_key(moves_twin(table, trained.resolved()["max_moves"]))


def at_table(policy: Agent, table: EnvSpec, trained: EnvSpec) -> Agent:
    """`policy`, trained for `trained`, ready for `table`: itself, or for a moves-mode policy at a tiles-mode table
    wrapped in `MovesPolicyAtTiles` (a ValueError when that table is another configuration)."""
    if (
        is_tiles_table(table)
        and trained.current_id == table.current_id
        and trained.resolved()["action_mode"] == "moves"
    ):
        return MovesPolicyAtTiles(policy, table, trained)
    return policy

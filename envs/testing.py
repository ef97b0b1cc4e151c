"""Checks any registered game can run on itself, as `pettingzoo.test` lets every PettingZoo env do.

`check_game(spec)` runs the contract every shipped game keeps, on one configuration: PettingZoo's api and seed
tests, JSON round trips of every visited state, clone independence, masks against `clone().apply(a)` for every
action, terminal states, non-actions refused, renders for every seat, illegal actions in both modes, the action
layout and the parameter messages. `soak(spec, games)` plays many random games checking every invariant on every
step, for bugs that show once in thousands. tests/envs/test_contract.py and `tabletop soak` call these; a failure is an
`AssertionError` (`SoakFailure` for the soak) that names the configuration, and the seed and step where it helps.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from tabletop.envs.core import IllegalActionError, IllegalActionWarning, InvalidStateError, ParameterError, State
from tabletop.envs.registry import EnvSpec

NON_ACTIONS = (-1, 5.0, True, "3")  # with num_actions: what `apply` and `step` must refuse besides masked actions


class ContractFailure(AssertionError):
    """A game breaks the contract; the message names the configuration and what broke."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ContractFailure(message)


def _raises(error: type[BaseException], call: Callable[[], object], match: str = "") -> bool:
    """Whether `call()` raises `error` with `match` in its message."""
    try:
        call()
    except error as err:
        return match in str(err)
    return False


# --- games to check on ---------------------------------------------------------------------------------------------
def random_game(spec: EnvSpec, seed: int, max_steps: int = 10_000) -> Iterator[State]:
    """Every state of one random game (the rules alone), each yielded before its move is applied."""
    rng = np.random.default_rng(seed)
    state = spec.new_game().new_initial_state(rng)
    for _ in range(max_steps):
        yield state
        if state.is_terminal():
            return
        state.apply(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    raise ContractFailure(f"{spec}: no end after {max_steps} random steps")


def trace_digest(spec: EnvSpec, seed: int) -> str:
    """A seeded random game through the AEC API: agents, observations, masks, rewards, actions, final state().
    Recorded once, it proves the same seed gives the same game bit for bit in every later version."""
    env = spec.make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        digest.update(agent.encode())
        digest.update(obs["observation"].tobytes())
        digest.update(obs["action_mask"].tobytes())
        digest.update(repr((float(reward), action)).encode())
        env.step(action)
    digest.update(env.state().tobytes())
    return digest.hexdigest()[:16]


# --- the contract, one check at a time -----------------------------------------------------------------------------
def check_pettingzoo(spec: EnvSpec) -> None:
    """PettingZoo's own api and seed tests."""
    from pettingzoo.test import api_test, seed_test

    api_test(spec.make(), num_cycles=100)
    seed_test(spec.make, num_cycles=60)


def check_json_round_trip(spec: EnvSpec, seed: int = 3) -> None:
    """Every state of a random game survives `to_json` -> JSON text -> `state_from_json` with its mask, scores and
    every seat's observation (private and omniscient)."""
    env = spec.make_raw()
    game = env.game
    for state in random_game(spec, seed):
        data = state.to_json()
        back = game.state_from_json(json.loads(json.dumps(data)))
        where = f"{spec}, seed {seed}, {data}"
        _require(back.to_json() == data, f"{where}: the round trip changed the JSON")
        _require(back.current_player == state.current_player, f"{where}: the round trip changed the mover")
        _require(back.is_terminal() == state.is_terminal(), f"{where}: the round trip changed the end")
        _require(np.array_equal(back.legal_action_mask(), state.legal_action_mask()), f"{where}: the mask changed")
        _require(np.array_equal(back.scores(), state.scores()), f"{where}: the scores changed")
        for seat in range(game.num_players):
            same = np.array_equal(env.observer.encode(back, seat), env.observer.encode(state, seat))
            _require(same, f"{where}: seat {seat}'s observation changed")
        same = np.array_equal(env.omniscient_observer.encode(back, 0), env.omniscient_observer.encode(state, 0))
        _require(same, f"{where}: the omniscient observation changed")


def check_clone_independence(spec: EnvSpec, seed: int = 5) -> None:
    """A move applied to a clone leaves the original as it was."""
    rng = np.random.default_rng(seed)
    for state in random_game(spec, seed):
        if state.is_terminal():
            return
        before, mask = state.to_json(), state.legal_action_mask().copy()
        copy = state.clone()
        _require(copy.to_json() == before, f"{spec}: a clone differs from its original")
        copy.apply(int(rng.choice(np.flatnonzero(mask))))
        _require(state.to_json() == before, f"{spec}: a move on a clone changed the original")
        _require(np.array_equal(state.legal_action_mask(), mask), f"{spec}: a move on a clone changed the mask")


def check_masks(spec: EnvSpec, seed: int = 9, positions: int = 5) -> None:
    """Brute force on states spread along a game: `clone().apply(a)` raises exactly when the mask is 0."""
    states = [s.clone() for s in random_game(spec, seed)]
    chosen = [states[i] for i in np.linspace(0, len(states) - 2, num=min(positions, len(states) - 1)).astype(int)]
    for state in chosen:
        mask = state.legal_action_mask()
        _require(mask.dtype == np.int8 and bool(mask.any()), f"{spec}: a mask must be int8 with a legal action")
        for action in range(len(mask)):
            accepted = not _raises(IllegalActionError, lambda a=action, s=state: s.clone().apply(a))
            _require(
                accepted == bool(mask[action]),
                f"{spec}: action {action} ({state.action_to_string(action)}) is "
                f"{'accepted' if accepted else 'refused'} but the mask says {int(mask[action])}",
            )


def check_legal_actions(spec: EnvSpec, seed: int = 5) -> None:
    """`legal_actions()` is the mask's nonzero indices, ascending int64 (read-only: it is a cached array), at every
    state of a random game, asked for before the mask (on a clone) or after it."""
    for state in random_game(spec, seed):
        _require(
            callable(getattr(state, "legal_actions", None)),
            f"{spec}: its State has no legal_actions() (the State protocol's; subclassing BaseState gives it)",
        )
        first = state.clone().legal_actions()
        expected = np.flatnonzero(state.legal_action_mask())
        for legal in (first, state.legal_actions()):
            _require(
                legal.dtype == np.int64 and np.array_equal(legal, expected) and not legal.flags.writeable,
                f"{spec}: legal_actions() gave {legal[:8].tolist()}... ({legal.dtype}, read-only: "
                f"{not legal.flags.writeable}) where the mask allows "
                f"{expected[:8].tolist()}... ({len(expected)} actions)",
            )


def check_terminal(spec: EnvSpec, seed: int = 4) -> None:
    """A finished game has no mover and refuses every action."""
    *_, last = random_game(spec, seed)
    _require(last.is_terminal() and last.current_player == -1, f"{spec}: a finished game still names a mover")
    _require(_raises(IllegalActionError, lambda: last.apply(0)), f"{spec}: a finished game accepted action 0")


def check_non_actions(spec: EnvSpec, seed: int = 6) -> None:
    """`apply` and `action_to_string` take ints in [0, num_actions) only; bools, floats and strings are refused."""
    state = next(random_game(spec, seed))
    before, n = state.to_json(), len(state.legal_action_mask())
    for bad in (*NON_ACTIONS, n):
        _require(_raises(IllegalActionError, lambda b=bad: state.apply(b)), f"{spec}: apply({bad!r}) was accepted")
        refused = _raises(ValueError, lambda b=bad: state.action_to_string(b), match=str(n))
        _require(refused, f"{spec}: action_to_string({bad!r}) must raise a ValueError naming {n}")
    _require(state.to_json() == before, f"{spec}: a refused non-action changed the position")


def check_renders(spec: EnvSpec, seed: int = 1) -> None:
    """Text and pictures through `render()`, and the renderer's text for every seat (and the spectator) on every
    state of a game; no render_mode draws nothing."""
    text_env = spec.make(render_mode="ansi")
    text_env.reset(seed=seed)
    text = text_env.render()
    _require(isinstance(text, str) and bool(text), f"{spec}: render_mode='ansi' must give text")
    picture_env = spec.make(render_mode="rgb_array")
    picture_env.reset(seed=seed)
    picture = picture_env.render()
    _require(
        picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3,
        f"{spec}: render_mode='rgb_array' must give an RGB uint8 picture",
    )
    raw = spec.make_raw()
    for state in random_game(spec, seed):
        for seat in (None, *range(raw.game.num_players)):
            _require(isinstance(raw.renderer.ansi(state, seat), str), f"{spec}: ansi(state, {seat}) is not text")
    silent = spec.make()
    silent.reset(seed=seed)
    _require(silent.render() is None, f"{spec}: with no render_mode, render() must draw nothing")


def check_illegal_actions(spec: EnvSpec, seed: int = 2) -> None:
    """`illegal_action="raise"`: every illegal input raises naming the agent and changes nothing;
    `"penalize"` (the default): the game ends with -1 for the offender (its team; every seat of a `shared_reward`
    game) and a warning naming the action."""
    env = spec.make(illegal_action="raise")
    env.reset(seed=seed)
    agent = env.agent_selection
    obs = env.observe(agent)
    before = env.unwrapped.game_state.to_json()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    for bad in (illegal, *NON_ACTIONS, len(obs["action_mask"]), 1.5):
        refused = _raises(IllegalActionError, lambda b=bad: env.step(b), match=agent)
        _require(refused, f"{spec}: step({bad!r}) must raise IllegalActionError naming {agent}")
    _require(env.unwrapped.game_state.to_json() == before, f"{spec}: a refused action changed the position")
    _require(env.agent_selection == agent, f"{spec}: a refused action moved the turn on")

    env = EnvSpec(spec.env_id, {**spec.kwargs, "illegal_action": "penalize"}).make()
    env.reset(seed=seed)
    agent = env.agent_selection
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.step(illegal)
    named = [w for w in caught if issubclass(w.category, IllegalActionWarning) and agent in str(w.message)]
    _require(len(named) == 1, f"{spec}: a penalised illegal action must warn once, naming {agent}")
    _require(all(env.terminations.values()), f"{spec}: a penalised illegal action must end the game")
    game = env.unwrapped.game
    shared = getattr(game, "shared_reward", False)
    team_of = getattr(game, "team_of", np.arange(len(env.possible_agents)))
    offender = team_of[env.possible_agents.index(agent)]
    expected = {a: -1.0 if shared or team_of[i] == offender else 0.0 for i, a in enumerate(env.possible_agents)}
    _require(env.rewards == expected, f"{spec}: penalised rewards {env.rewards}, expected {expected}")
    _require("illegal_action" in env.infos[agent], f"{spec}: the offender's info must say illegal_action")


def check_action_layout(spec: EnvSpec) -> None:
    """`game.actions` covers exactly `num_actions`, and decoding then encoding gives every action back."""
    game = spec.new_game()
    layout = game.actions
    _require(layout.num_actions == game.num_actions, f"{spec}: the action layout has {layout.num_actions} actions")
    for action in range(game.num_actions):
        _require(layout.encode(*layout.decode(action)) == action, f"{spec}: action {action} does not round-trip")


def check_parameters(env_id: str) -> None:
    """Bad arguments fail when the env is made, naming the argument and what is allowed."""
    from tabletop.envs.registry import definition, make

    declared = definition(env_id).parameters
    try:
        make(env_id, bogus=1)
        raise ContractFailure(f"{env_id}: an unknown argument was accepted")
    except ParameterError as err:
        missing = [name for name in declared.names if name not in str(err)]
        _require(not missing, f"{env_id}: the unknown-argument message must name {missing}")
    for param in declared:
        for bad in ("no-such-value", -12345, 1.5):
            if param.choices is not None and bad in param.choices:
                continue
            try:
                make(env_id, **{param.name: bad})
            except ParameterError as err:
                text = str(err)
                _require(
                    f"{param.name}=" in text and "allowed" in text and param.describe_allowed() in text,
                    f"{env_id}: {param.name}={bad!r} must be refused naming the argument and what is allowed: {text}",
                )
            else:
                raise ContractFailure(f"{env_id}: {param.name}={bad!r} was accepted")
    _require(
        _raises(ParameterError, lambda: EnvSpec(env_id, [1, 2]), match="mapping"),
        f"{env_id}: arguments that are not a mapping must be refused",
    )


CHECKS: tuple[Callable[[EnvSpec], None], ...] = (
    check_pettingzoo,
    check_json_round_trip,
    check_clone_independence,
    check_masks,
    check_legal_actions,
    check_terminal,
    check_non_actions,
    check_renders,
    check_illegal_actions,
    check_action_layout,
)


def check_game(spec: EnvSpec) -> None:
    """Every check of the contract on one configuration (`check_parameters` once per game)."""
    for check in CHECKS:
        check(spec)


# --- the soak ------------------------------------------------------------------------------------------------------
@dataclass
class SoakReport:
    spec: EnvSpec
    games: int = 0
    steps: int = 0
    states_validated: int = 0
    illegal_probes: int = 0
    longest_game: int = 0

    def line(self) -> str:
        return (
            f"{self.spec}: {self.games} games, {self.steps} steps, {self.states_validated} states validated, "
            f"{self.illegal_probes} illegal moves refused, longest game {self.longest_game} steps"
        )


class SoakFailure(AssertionError):
    """A broken invariant, with the seed and step that reproduce it."""


def soak(spec: EnvSpec, games: int, seed: int = 0, max_steps: int = 100_000) -> SoakReport:
    """Play `games` random games (game g seeded `seed + g`), checking on every step: the mask is 0/1 and offers a
    move unless the game is over; the chosen legal move is accepted; a random masked move is refused and changes
    nothing; the position survives a JSON round trip through the validating loader; every seat's observation lies
    in its space. At the end the returns are wins, draws and losses (a one-player game's return is its score)."""
    env = spec.make_raw()
    game, observers = env.game, (env.observer, env.omniscient_observer)
    spaces = (env.observation_space(env.possible_agents[0])["observation"], env.state_space)
    report = SoakReport(spec)
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        state = game.new_initial_state(rng)
        for step in range(max_steps + 1):
            where = f"{spec}, game seed {seed + g}, step {step}"
            _check_position(game, state, observers, spaces, where)
            report.states_validated += 1
            if state.is_terminal():
                break
            mask = state.legal_action_mask()
            illegal = np.flatnonzero(mask == 0)
            if illegal.size:
                report.illegal_probes += _probe_illegal(state, int(illegal[rng.integers(illegal.size)]), where)
            state.apply(int(rng.choice(np.flatnonzero(mask))))
            report.steps += 1
        else:
            raise SoakFailure(f"{where}: no end after {max_steps} steps")
        returns = state.returns()
        if not np.isfinite(returns).all() or (game.num_players > 1 and not np.isin(returns, (-1.0, 0.0, 1.0)).all()):
            raise SoakFailure(f"{where}: returns {returns} are not wins, draws and losses")
        report.games += 1
        report.longest_game = max(report.longest_game, step)
    return report


def _check_position(game, state, observers, spaces, where: str) -> None:
    mask = state.legal_action_mask()
    if mask.shape != (game.num_actions,) or not np.isin(mask, (0, 1)).all():
        raise SoakFailure(f"{where}: the mask is not a 0/1 vector of length {game.num_actions}")
    if not state.is_terminal() and not mask.any():
        raise SoakFailure(f"{where}: the game is not over but the mover has no legal action")
    data = state.to_json()
    try:
        back = game.state_from_json(json.loads(json.dumps(data)))
    except InvalidStateError as err:
        raise SoakFailure(f"{where}: a position reached by legal moves fails validation: {err}") from None
    if back.to_json() != data or not np.array_equal(back.legal_action_mask(), mask):
        raise SoakFailure(f"{where}: the JSON round trip changed the position")
    if not np.isfinite(state.scores()).all():
        raise SoakFailure(f"{where}: a score is not finite")
    for observer, space in zip(observers, spaces, strict=True):
        for seat in range(game.num_players):
            if not space.contains(observer.encode(state, seat)):
                raise SoakFailure(f"{where}: seat {seat}'s observation leaves its space")


def _probe_illegal(state, action: int, where: str) -> int:
    """A masked move must be refused and leave the position as it was."""
    copy = state.clone()
    before = copy.to_json()
    try:
        copy.apply(action)
    except IllegalActionError:
        if copy.to_json() != before:
            raise SoakFailure(f"{where}: a refused move {action} changed the position") from None
        return 1
    raise SoakFailure(f"{where}: masked move {action} ({state.action_to_string(action)}) was accepted")

"""Soak: many random games with every check on every step, for bugs that only show once in thousands.

On each step of each game: the mask is 0/1 and offers a move unless the game is over; the chosen legal
move is accepted; a random masked move is refused with `IllegalActionError` and changes nothing; the
position survives a JSON round trip through the validating loader (which checks conservation of every
card, tile and picture, ranges and phase consistency); every seat's observation lies in its space. At
the end the returns are wins, draws and losses (a one-player game's return is its own score).
`tabletop soak` runs it; the test suite runs a short one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from tabletop.envs import EnvSpec, IllegalActionError, InvalidStateError


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
    """Play `games` random games (game g seeded `seed + g`), checking everything on every step."""
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
    for observer, space in zip(observers, spaces):
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

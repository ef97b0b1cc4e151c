"""One PettingZoo AEC environment over any `Game`, so every game has identical semantics.

Observations are `{"observation": float32 vector, "action_mask": int8 vector}`. The mask is the
legal-action mask for the agent to move and all zeros for everyone else. `agent_selection` follows
`State.current_player`, so it may stay on one agent for a multi-step turn.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from tabletop.envs.core.errors import IllegalActionError, IllegalActionWarning
from tabletop.envs.core.params import Param, Parameters
from tabletop.envs.core.protocol import Game, Observer, Renderer, State

RENDER_MODES = ("human", "ansi", "rgb_array")

ADAPTER_PARAMETERS = Parameters(
    Param(
        "reward",
        "win_loss",
        "`win_loss`: +1/-1/0 at the end; `score`: the change of each seat's score after "
        "every step (cooperative games: one shared team reward)",
        choices=("win_loss", "score"),
    ),
    Param(
        "observation_mode",
        "private",
        "`private`: what the seat may know; `omniscient`: every hidden fact too",
        choices=("private", "omniscient"),
    ),
    Param(
        "render_mode",
        None,
        "what `render()` does: `human` prints the text table, `ansi` returns it, `rgb_array` returns the picture",
        choices=(None, *RENDER_MODES),
    ),
    Param(
        "illegal_action",
        "penalize",
        "`penalize` (PettingZoo's convention): warn and end the game with -1 for the offender (its whole team "
        "in a team game, every seat in a cooperative one), 0 for the others; `raise`: `IllegalActionError`",
        choices=("penalize", "raise"),
    ),
)


class TabletopEnv(AECEnv):
    """AEC adapter composing a game's rules, its observer and its renderer.

    `observation_mode="omniscient"` puts every hidden fact into each observation. An illegal action ends the
    game with -1 for the offender and a warning, as PettingZoo's classic games do (for its team too: teammates
    share a penalty as they share a score; `offending_team`); `illegal_action="raise"` raises instead. Observation
    and state spaces are the Boxes of the layouts' declared value ranges.
    """

    metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        game: Game,
        observer: type[Observer],
        renderer: type[Renderer],
        observer_options: Mapping[str, Any] | None = None,
        **adapter_kwargs: Any,
    ):
        super().__init__()
        options = ADAPTER_PARAMETERS.resolve(adapter_kwargs, game.name)
        self.game = game
        self.reward_mode = options["reward"]
        self.observation_mode = options["observation_mode"]
        self.render_mode = options["render_mode"]
        self.illegal_action = options["illegal_action"]
        self.metadata = {**self.metadata, "name": game.name}
        self.observer_options = dict(observer_options or {})
        self._observer_class = observer
        self._observers: dict[tuple, Observer] = {}
        self.observer: Observer = self.observer_for(self.observer_options)
        self.omniscient_observer: Observer = self.observer_for(self.observer_options, omniscient=True)
        self.renderer: Renderer = renderer(game)

        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(*self.observer.layout.bounds(), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(*self.omniscient_observer.layout.bounds(), dtype=np.float32)
        self._rng = np.random.default_rng()
        self.game_state: State | None = None

    # --- PettingZoo API -------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._load(self.game.new_initial_state(self._rng))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        state = self.game_state
        if seat == state.current_player:
            mask = state.legal_action_mask().astype(np.int8, copy=True)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": self.observer.encode(state, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        return self.omniscient_observer.encode(self.game_state, 0)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        state = self.game_state
        before = np.array(state.scores()) if self.reward_mode == "score" else None
        try:
            state.apply(action)  # the State checks the action once: refused before anything changes
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise IllegalActionError(self._illegal_message(agent, action)) from None
            self._penalize(agent, action)
            return
        if before is not None:
            self._set_rewards(state.scores() - before)
        elif self._rewards_paid:
            self._set_rewards(np.zeros(self.game.num_players))
        if state.is_terminal():
            if self.reward_mode == "win_loss":
                self._set_rewards(state.returns())
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % self.num_agents]
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self._rewards_paid:  # a step that pays nothing adds nothing: most steps of a win/loss game
            self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "human":  # PettingZoo's convention: show it, return nothing
            print(self.renderer.ansi(self.game_state))
            return None
        if self.render_mode == "ansi":
            return self.renderer.ansi(self.game_state)
        return self.renderer.rgb(self.game_state)

    def close(self) -> None:
        pass

    # --- beyond PettingZoo: what agents, tests and tools need --------------------------------------
    def view(self, agent: str | None) -> dict[str, Any]:
        """The structured view heuristics read: exactly what `agent` may know."""
        return self.game_state.view(None if agent is None else self._seat[agent])

    def observer_for(self, options: Mapping[str, Any] | None, omniscient: bool | None = None) -> Observer:
        """This game's observer with other options, every one given (a policy trained with other feature groups
        reads its own encoding of the same position); `None` means the env's own. Built once per options and mode."""
        options = self.observer_options if options is None else dict(options)
        if omniscient is None:
            omniscient = self.observation_mode == "omniscient"
        key = (omniscient, tuple(sorted(options.items())))
        if key not in self._observers:
            self._observers[key] = self._observer_class(self.game, omniscient, **options)
        return self._observers[key]

    def action_to_string(self, action: int) -> str:
        """The action in the rulebook's words; a ValueError names the allowed range for a non-action."""
        return self.game_state.action_to_string(action)

    def set_state(self, state: State) -> None:
        """Continue from `state` (a scenario from JSON, a searched position)."""
        self._load(state)

    def load_json(self, data: dict[str, Any]) -> None:
        self._load(self.game.state_from_json(data, self._rng))

    # --- internals -------------------------------------------------------------------------------
    def _load(self, state: State) -> None:
        self.game_state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewards_paid = False  # whether `rewards` may hold a non-zero value
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, state.is_terminal())
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        seat = state.current_player if state.current_player >= 0 else 0
        self.agent_selection = self.possible_agents[seat]

    def _illegal_message(self, agent: str, action: Any) -> str:
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            return f"{agent}: action {action!r} is not an integer in [0, {self.game.num_actions})"
        if not 0 <= action < self.game.num_actions:
            return f"{agent}: action {action} is out of range [0, {self.game.num_actions})"
        return (
            f"{agent}: action {action} ({self.game_state.action_to_string(int(action))}) is illegal "
            f"here; legal actions are those with action_mask == 1"
        )

    def _penalize(self, agent: str, action: Any) -> None:
        message = self._illegal_message(agent, action)
        warnings.warn(f"{message}; the game ends, -1 to {agent}'s side", IllegalActionWarning, stacklevel=3)
        self._set_rewards(np.where(offending_team(self.game, self._seat[agent]), -1.0, 0.0))
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {"illegal_action": message}
        self._accumulate_rewards()

    def _set_rewards(self, values: np.ndarray) -> None:
        self.rewards = {a: float(values[self._seat[a]]) for a in self.agents}
        self._rewards_paid = bool(np.any(values))


def offending_team(game, seat: int) -> np.ndarray:
    """Per seat, whether it shares `seat`'s penalty: its team (a game's `team_of`), every seat in a
    cooperative game (`shared_reward`), else the seat alone."""
    seats = np.arange(game.num_players)
    if getattr(game, "shared_reward", False):
        return np.ones(game.num_players, dtype=bool)
    team_of = getattr(game, "team_of", None)
    return team_of == team_of[seat] if team_of is not None else seats == seat


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's order check (the same errors before `reset`, the same iterator) with the reads of every
    step (`last`, `agent_selection`, the reward and done dictionaries) going straight to the env instead of
    through two `__getattr__` hops each: they were a fifth of a random AEC step."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def _forwarded(name: str) -> property:
    def read(self: OrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(read, doc=f"the env's `{name}` (an AttributeError before reset, as PettingZoo's check)")


for _name in ("agent_selection", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
    setattr(OrderEnforcing, _name, _forwarded(_name))

"""Any tabletop game as an RLlib `MultiAgentEnv`: turn-based, masks in the observation, opponents seated.

Observations are `{"observations": float32 vector, "action_mask": float32 0/1}`, the keys of RLlib's
action-masking module pattern. Only the agent to move gets an observation; its reward is everything that
happened to its seat since it last moved (the AEC convention), so a loss caused by an opponent's move
reaches it. At the end every policy seat that moved gets its last observation and reward.

Each `reset` seats a new table (`table.seat_table`): the learner in a seat that rotates every game (or in
every seat, `learner_seats: all`), the other seats by the opponent weights. Fixed players (heuristics,
`random`) move inside `step`; snapshots are RLlib modules and move through RLlib like the learner.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from tabletop.agents import make_agent
from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec
from tabletop.train.rllib.table import (
    LEARNER,
    Seating,
    module_of,
    possible_agents,
    seat_table,
)
from tabletop.train.selfplay.config import SELF


class TabletopMultiAgentEnv(MultiAgentEnv):
    """`config`: env_id, env_kwargs, learner_seats (`one` | `all`), weights (opponent name -> weight, with
    `heuristics` already expanded), snapshots (slots), seed. RLlib passes it as an `EnvContext`, whose
    worker and vector indices make every copy's games differ."""

    def __init__(self, config: dict):
        super().__init__()
        spec = EnvSpec(config["env_id"], config.get("env_kwargs") or {})
        self.aec = spec.make_raw(illegal_action="raise")  # masks must reach the policy: a slip is a bug, not a loss
        self.num_players = len(self.aec.possible_agents)
        self.cooperative = config.get("learner_seats", "one") == "all"
        self.weights = dict(config.get("weights") or {})
        self.snapshots = int(config.get("snapshots", 0))
        if not self.cooperative and self.weights.get(SELF, 0) > 0 and self.snapshots < 1:
            raise ValueError("opponent weight `self` needs at least one snapshot slot")
        index = getattr(config, "worker_index", 0) * 1000 + getattr(config, "vector_index", 0)
        seed = int(config.get("seed", 0)) * 1_000_003 + index
        self._rng = np.random.default_rng(seed)
        self.fixed = {
            name: make_agent(spec, name, seed=seed + i) for i, name in enumerate(self.weights) if name != SELF
        }

        inner = self.aec.observation_space(self.aec.possible_agents[0])["observation"]
        n = self.aec.game.num_actions
        space = spaces.Dict(
            {
                "observations": spaces.Box(inner.low, inner.high, inner.shape, np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )
        self.possible_agents = possible_agents(self.num_players, 0 if self.cooperative else self.snapshots)
        self.agents = []
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._games = 0
        self.seating = Seating({}, {})
        self._pending: dict[str, float] = {}  # agent id -> reward since its last observation
        self._moved: set[str] = set()

    # --- MultiAgentEnv API -----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:  # a game the fixed players finish before any policy seat moves teaches nothing
            self.aec.reset(seed=int(self._rng.integers(2**31)))
            learner_seat = None if self.cooperative else self._games % self.num_players
            self._games += 1
            self.seating = seat_table(self.num_players, learner_seat, self.weights, self.snapshots, self._rng)
            self.agents = list(self.seating.agents.values())
            self._pending = dict.fromkeys(self.agents, 0.0)
            self._moved = set()
            self._play_fixed()
            if not self._over():
                return self._to_move_observation(), {}

    def step(self, action_dict: dict):
        agent = self.seating.agents[self.aec.game_state.current_player]
        self._moved.add(agent)
        self._apply(int(action_dict[agent]))  # an illegal action raises: the mask must have reached the module
        self._play_fixed()
        if not self._over():
            obs = self._to_move_observation()
            rewards = {a: self._pending.pop(a) for a in obs}
            self._pending.update(dict.fromkeys(obs, 0.0))
            return obs, rewards, {"__all__": False}, {"__all__": False}, {}
        finished = [a for a in self.agents if a in self._moved]
        obs = {a: self._observe(a) for a in finished}
        rewards = {a: self._pending[a] for a in finished}
        infos = {a: self._result(a) for a in finished if module_of(a) == LEARNER}
        done = {**dict.fromkeys(finished, True), "__all__": True}
        return obs, rewards, done, {**dict.fromkeys(finished, False), "__all__": False}, infos

    # --- internals -------------------------------------------------------------------------------
    def _over(self) -> bool:
        return self.aec.game_state.is_terminal()

    def _apply(self, action: int) -> None:
        self.aec.step(action)
        for seat, agent in self.seating.agents.items():
            self._pending[agent] += self.aec.rewards[self.aec.possible_agents[seat]]

    def _play_fixed(self) -> None:
        """Fixed players move until a policy seat is to move or the game ends."""
        state = self.aec.game_state
        while not state.is_terminal() and state.current_player in self.seating.fixed:
            seat = state.current_player
            self._apply(act_for(self.fixed[self.seating.fixed[seat]], self.aec, state, seat))

    def _to_move_observation(self) -> dict:
        agent = self.seating.agents[self.aec.game_state.current_player]
        return {agent: self._observe(agent)}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = int(agent.rpartition("@")[2])
        seen = self.aec.observe(self.aec.possible_agents[seat])
        return {"observations": seen["observation"], "action_mask": seen["action_mask"].astype(np.float32)}

    def _result(self, agent: str) -> dict:
        """What training statistics need about a finished game, from the learner's seat."""
        seat = int(agent.rpartition("@")[2])
        return {"outcome": float(np.sign(self.aec.game_state.returns()[seat])), "opponents": self.seating.opponents}

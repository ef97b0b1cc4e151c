"""A single-agent gymnasium view of any tabletop AEC env, for MaskablePPO.

`learner_seats="one"` (competitive): the learner takes one seat, rotating every episode, and the other
seats are drawn from an `OpponentPool`; opponents act inside `step` until the learner is to move again
(a seat may act several times in a row on sub-step turns). The reward is the env's reward for the
learner's seat, summed over everything that happened since its last move.

`learner_seats="all"` (cooperative): one shared policy plays whichever seat is to move; the reward is
that seat's (the team's shared) reward.

`margin_shaping=w` adds potential-based shaping (Ng et al. 1999) on the score margin,
`w * (gamma * phi(s') - phi(s))` with `phi` = the learner's score minus the best other score (its own
score when cooperative) and `phi = 0` at the end: a dense signal that leaves the optimal policy alone.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tabletop.agents.base import observation_for
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import check_learner_seats
from tabletop.train.selfplay.opponents import OpponentPool


class SeatEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(
        self,
        env: EnvSpec,
        pool: OpponentPool | None,
        learner_seats: str = "one",
        seed: int = 0,
        margin_shaping: float = 0.0,
        gamma: float = 1.0,
    ):
        check_learner_seats(learner_seats)
        if learner_seats == "one" and pool is None:
            raise ValueError("learner_seats='one' needs an opponent pool for the other seats")
        self.aec = env.make_raw()
        self.agents = self.aec.possible_agents
        box = self.aec.observation_space(self.agents[0])["observation"]
        self.observation_space = spaces.Box(-np.inf, np.inf, box.shape, np.float32)
        self.action_space = self.aec.action_space(self.agents[0])
        self.pool = pool
        self.learner_seats = learner_seats
        self._rng = np.random.default_rng(seed)
        self._episode = 0
        self._seat = 0
        self._opponents: dict[int, tuple[str, object]] = {}
        self.margin_shaping = margin_shaping
        self.gamma = gamma
        self._potential = 0.0

    # --- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:  # a game the opponents finish before the learner moves is of no use to it
            self.aec.reset(seed=int(self._rng.integers(2**31)))
            self._seat = self._episode % len(self.agents)
            self._episode += 1
            if self.learner_seats == "one":
                self._opponents = {s: self.pool.sample(self._rng) for s in range(len(self.agents)) if s != self._seat}
            _, done = self._play_opponents()
            if not done:
                self._potential = self._margin()
                return self._observation(), {"learner_seat": self._seat}

    def step(self, action):
        agent = self.aec.agent_selection
        self.aec.step(int(action))  # an illegal action raises: masks must have reached the policy
        reward = self.aec.rewards[agent]
        done = self._over()
        if not done:
            more, done = self._play_opponents()
            reward += more
        if self.margin_shaping:
            potential = 0.0 if done else self._margin()
            reward += self.margin_shaping * (self.gamma * potential - self._potential)
            self._potential = potential
        info = self._final_info() if done else {}
        if done and self.pool is not None:  # what prioritised opponent sampling learns from
            self.pool.record(info["opponents"], info["outcome"])
        obs = self._observation() if not done else np.zeros(self.observation_space.shape, np.float32)
        return obs, float(reward), done, False, info

    def action_masks(self) -> np.ndarray:
        """The legal-action mask of the seat the learner plays now (what MaskablePPO asks for)."""
        return self.aec.game_state.legal_action_mask().astype(bool)

    # --- internals -------------------------------------------------------------------------------
    def _over(self) -> bool:
        return self.aec.game_state.is_terminal()

    def _learner_to_move(self) -> bool:
        return self.learner_seats == "all" or self.aec.game_state.current_player == self._seat

    def _play_opponents(self) -> tuple[float, bool]:
        """Let opponents move until the learner is to move or the game ends; the learner's reward meanwhile."""
        reward = 0.0
        learner = self.agents[self._seat]
        while not self._over() and not self._learner_to_move():
            seat = self.aec.game_state.current_player
            agent = self.agents[seat]
            _, opponent = self._opponents[seat]
            state = self.aec.game_state
            observation, mask = observation_for(opponent, self.aec, state, seat), state.legal_action_mask()
            self.aec.step(opponent.act(observation, mask, self.aec.view(agent)))
            reward += self.aec.rewards[learner]
        return reward, self._over()

    def _margin(self) -> float:
        scores = np.asarray(self.aec.game_state.scores(), dtype=float)
        if self.learner_seats == "all" or len(scores) == 1:
            return float(scores[self._seat])
        return float(scores[self._seat] - np.delete(scores, self._seat).max())

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.agents[self.aec.game_state.current_player])["observation"]

    def _final_info(self) -> dict:
        """What the training log needs about a finished game: the learner's result and who it faced."""
        returns = self.aec.game_state.returns()
        info = {"learner_seat": self._seat, "outcome": float(np.sign(returns[self._seat]))}
        if self.learner_seats == "one":
            info["opponents"] = sorted({name for name, _ in self._opponents.values()})
        return info

    # --- pool maintenance, called through VecEnv.env_method ---------------------------------------
    def add_snapshot(self, name: str, weights) -> None:
        if self.pool is not None:
            self.pool.add_snapshot(name, weights)

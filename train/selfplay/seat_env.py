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

The bookkeeping of one game (the deal, the learner's seat and opponents, the margin and its shaping, the
finished game's record) is `SeatGame`'s, written once for this env and the batched one (batched.py), which
differ only in how they drive the moves.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tabletop.agents.base import act_for
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import check_learner_seats
from tabletop.train.selfplay.opponents import OpponentPool


class SeatGame:
    """One training game seen from the learner's seat(s): what SeatEnv and BatchedSelfPlayEnv both keep.

    Each game owns its generator: a deal draws the table's seed, then one opponent per other seat from the
    pool, and the learner's seat rotates with the episode count, so games seeded alike deal alike on
    either path. Table seeds are drawn below `table_seeds` (the benchmark's vector env lowers it to keep
    training deals off its evaluation seeds)."""

    table_seeds = 2**31

    def __init__(
        self,
        env: EnvSpec,
        pool: OpponentPool | None,
        cooperative: bool,
        seed: int,
        margin_shaping: float = 0.0,
        gamma: float = 1.0,
    ):
        self.aec = env.make_raw(illegal_action="raise")  # masks must reach the policy: a slip is a bug, not a loss
        self.agents = self.aec.possible_agents
        self.pool = pool
        self.cooperative = cooperative
        self.rng = np.random.default_rng(seed)
        self.margin_shaping = margin_shaping
        self.gamma = gamma
        self.episode = 0
        self.seat = 0
        self.opponents: dict[int, tuple[str, Any]] = {}
        self.potential = 0.0
        self.table_seed = 0
        self.moves: list[int] = []  # every move since the deal: with `table_seed`, the game in progress

    @property
    def state(self):
        return self.aec.game_state

    def deal(self) -> None:
        """A new game: the table's seed, the learner's seat and its opponents, drawn in that order."""
        self.table_seed = int(self.rng.integers(self.table_seeds))
        self.aec.reset(seed=self.table_seed)
        self.moves = []
        self.seat = self.episode % len(self.agents)
        self.episode += 1
        if not self.cooperative:
            self.opponents = {s: self.pool.sample(self.rng) for s in range(len(self.agents)) if s != self.seat}

    def play(self, action: int) -> None:
        """One move of whoever is to move (an illegal action raises: masks must have reached the policy)."""
        self.aec.step(action)
        self.moves.append(action)

    def learner_to_move(self) -> bool:
        return self.cooperative or self.state.current_player == self.seat

    def margin(self) -> float:
        """phi: the learner's score minus the best other score (its own score when cooperative)."""
        scores = np.asarray(self.state.scores(), dtype=float)
        if self.cooperative or len(scores) == 1:
            return float(scores[self.seat])
        return float(scores[self.seat] - np.delete(scores, self.seat).max())

    def start_shaping(self) -> None:
        """The learner's first decision of a deal: phi from here on."""
        self.potential = self.margin() if self.margin_shaping else 0.0

    def shaping(self, done: bool) -> float:
        """The shaping reward since the learner's last decision, `w * (gamma * phi(s') - phi(s))`, phi = 0 at the end."""
        if not self.margin_shaping:
            return 0.0
        potential = 0.0 if done else self.margin()
        reward = self.margin_shaping * (self.gamma * potential - self.potential)
        self.potential = potential
        return reward

    def finish(self) -> dict[str, Any]:
        """The finished game's record for the training log (the learner's seat and result, whom it faced),
        also given to the pool, which prioritised opponent sampling learns from."""
        returns = self.state.returns()
        info = {"learner_seat": self.seat, "outcome": float(np.sign(returns[self.seat]))}
        if not self.cooperative:
            info["opponents"] = sorted({name for name, _ in self.opponents.values()})
        if self.pool is not None:
            self.pool.record(info["opponents"], info["outcome"])
        return info

    # --- exact resume (train/selfplay/resume.py) ------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """This game as plain data: its generator, the deal and the moves since, the learner's seat and its
        opponents by name, the shaping's last potential, and its pool's record and players' generators."""
        state = {
            "rng": self.rng.bit_generator.state,
            "episode": self.episode,
            "seat": self.seat,
            "table_seed": self.table_seed,
            "moves": list(self.moves),
            "potential": self.potential,
            "opponents": {seat: name for seat, (name, _) in self.opponents.items()},
        }
        if self.pool is not None:
            state["pool"] = self.pool.state_dict({name: agent for name, agent in self.opponents.values()})
        return state

    def load_state_dict(self, state: dict[str, Any], retired: dict[str, Any]) -> None:
        """Continue the game `state_dict` saved: the deal dealt again and its moves replayed, the same opponents
        seated (`retired`: the frozen policies of snapshots that have left the pool but still sit here)."""
        self.rng.bit_generator.state = state["rng"]
        self.episode, self.seat, self.potential = state["episode"], state["seat"], state["potential"]
        self.table_seed = state["table_seed"]
        self.aec.reset(seed=self.table_seed)
        self.moves = []
        for action in state["moves"]:
            self.play(action)
        if self.pool is not None:
            seated = self.pool.load_state_dict(state["pool"], set(state["opponents"].values()), retired)
            self.opponents = {int(seat): (name, seated[name]) for seat, name in state["opponents"].items()}


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
        self.game = SeatGame(env, pool, learner_seats == "all", seed, margin_shaping, gamma)
        self.aec = self.game.aec
        self.agents = self.game.agents
        box = self.aec.observation_space(self.agents[0])["observation"]
        self.observation_space = spaces.Box(-np.inf, np.inf, box.shape, np.float32)
        self.action_space = self.aec.action_space(self.agents[0])
        self.pool = pool
        self.learner_seats = learner_seats

    # --- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.game.rng = np.random.default_rng(seed)
        while True:  # a game the opponents finish before the learner moves is of no use to it
            self.game.deal()
            _, done = self._play_opponents()
            if not done:
                self.game.start_shaping()
                return self._observation(), {"learner_seat": self.game.seat}

    def step(self, action):
        agent = self.aec.agent_selection
        self.game.play(int(action))
        reward = self.aec.rewards[agent]
        done = self._over()
        if not done:
            more, done = self._play_opponents()
            reward += more
        reward += self.game.shaping(done)
        info = self.game.finish() if done else {}
        obs = self._observation() if not done else np.zeros(self.observation_space.shape, np.float32)
        return obs, float(reward), done, False, info

    def action_masks(self) -> np.ndarray:
        """The legal-action mask of the seat the learner plays now (what MaskablePPO asks for)."""
        return self.aec.game_state.legal_action_mask().astype(bool)

    # --- internals -------------------------------------------------------------------------------
    def _over(self) -> bool:
        return self.aec.game_state.is_terminal()

    def _play_opponents(self) -> tuple[float, bool]:
        """Let opponents move until the learner is to move or the game ends; the learner's reward meanwhile."""
        reward = 0.0
        learner = self.agents[self.game.seat]
        while not self._over() and not self.game.learner_to_move():
            seat = self.aec.game_state.current_player
            _, opponent = self.game.opponents[seat]
            self.game.play(act_for(opponent, self.aec, self.aec.game_state, seat))
            reward += self.aec.rewards[learner]
        return reward, self._over()

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.agents[self.aec.game_state.current_player])["observation"]

    # --- pool maintenance and exact resume, called through VecEnv.env_method ----------------------
    def add_snapshot(self, name: str, weights) -> None:
        if self.pool is not None:
            self.pool.add_snapshot(name, weights)

    def game_state(self) -> dict[str, Any]:
        return self.game.state_dict()

    def load_game_state(self, state: dict[str, Any], retired: dict[str, dict]) -> np.ndarray:
        """Continue a saved game (`retired`: the weights of snapshots it seats that have left the pool); its
        observation for the learner."""
        frozen = {name: self.pool.freeze(weights) for name, weights in retired.items()} if self.pool else {}
        self.game.load_state_dict(state, frozen)
        return self._observation()

"""Batched self-play: N games in one process as one SB3 `VecEnv`, every opponent move of a round batched.

Game by game the semantics are `SeatEnv`'s (the learner's seat rotating every episode, rewards summed
since the learner's last move, margin shaping, the cooperative `learner_seats="all"`, every result
recorded in the game's pool for prioritised sampling); what changes is how the work is done:

- the learner's observations and masks for all games are written into preallocated arrays;
- opponents move in rounds: in each round every game whose opponent is to move gets one move, and each
  frozen snapshot computes its moves for all of its games in one torch forward pass (heuristics and
  random still act game by game, on the seat's view);
- rounds repeat until every game is back at a learner decision; a game that ends is dealt again at once
  (SB3's auto-reset: the final observation goes into `info["terminal_observation"]`).

Each game keeps its own generator and its own opponent pool, seeded as the `SeatEnv` of the same rank, so
with the same seeds and learner actions both paths play the same games (with snapshots up to the last
bits of a batched matrix product, which may break a near-tie differently). The pools share each
snapshot's network: one copy per snapshot, however many games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from tabletop.agents import PolicyAgent
from tabletop.agents.base import act_for, observation_for
from tabletop.agents.networks.sparse import bag_pays, most_active
from tabletop.agents.policy_agent import actor_logits
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.config import check_learner_seats
from tabletop.train.selfplay.opponents import OpponentPool
from tabletop.train.selfplay.policy import MlpPolicy
from tabletop.train.selfplay.seat_env import SeatGame


class _Game(SeatGame):
    """One game of the batch: SeatGame's bookkeeping, and what the learner has earned since its last move."""

    def __init__(
        self, env: EnvSpec, pool: OpponentPool | None, cooperative: bool, seed: int, shaping: float, gamma: float
    ):
        super().__init__(env, pool, cooperative, seed, shaping, gamma)
        self.observer = self.aec.observer
        self.live = False  # the learner has reached a decision in this deal
        self.reward = 0.0
        self.info: dict[str, Any] = {}

    def deal(self) -> None:
        super().deal()
        self.live = False

    def step(self, action: int) -> None:
        """Play one move and add what it pays the learner (the mover's reward when cooperative)."""
        mover = self.aec.agent_selection
        self.play(action)
        if self.live:
            self.reward += self.aec.rewards[mover if self.cooperative else self.agents[self.seat]]


class BatchedSelfPlayEnv(VecEnv):
    """Self-play games, one per pool, as one VecEnv for MaskablePPO (`vec_env.kind: batched`).

    `pools[i]` fills the other seats of game i (None for every game when `learner_seats="all"`); game i
    is seeded `seed + i`, as the i-th SeatEnv of a DummyVecEnv would be.
    """

    render_mode = None

    def __init__(
        self,
        env: EnvSpec,
        pools: Sequence[OpponentPool | None],
        learner_seats: str = "one",
        seed: int = 0,
        margin_shaping: float = 0.0,
        gamma: float = 1.0,
        skip_forced: bool = False,
    ):
        check_learner_seats(learner_seats)
        if not pools:
            raise ValueError("a batched env needs at least one game: give one opponent pool (or None) per game")
        cooperative = learner_seats == "all"
        if not cooperative and any(pool is None for pool in pools):
            raise ValueError("learner_seats='one' needs an opponent pool for every game's other seats")
        n = len(pools)
        self.games = [_Game(env, pool, cooperative, seed + i, margin_shaping, gamma) for i, pool in enumerate(pools)]
        self.learner_seats = learner_seats
        self.skip_forced = skip_forced  # `sb3.skip_forced`: snapshots' forward passes leave out forced moves too
        aec = self.games[0].aec
        size = aec.observer.layout.size
        actions = aec.action_space(aec.possible_agents[0])
        super().__init__(n, spaces.Box(-np.inf, np.inf, (size,), np.float32), actions)
        self._obs = np.zeros((n, size), dtype=np.float32)  # the learner's view of every game
        self._masks = np.zeros((n, actions.n), dtype=bool)
        self._opponent_obs = np.zeros((n, size), dtype=np.float32)  # one batched forward's inputs
        self._opponent_masks = np.zeros((n, actions.n), dtype=bool)
        self._terminal_obs = np.zeros(size, dtype=np.float32)  # SeatEnv's final observation: zeros
        self._actions = np.zeros(n, dtype=np.int64)
        self._retired: dict[str, Any] = {}  # frozen snapshots out of the pools that resumed games still seat

    # --- the VecEnv API ------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        for i, game in enumerate(self.games):
            if self._seeds[i] is not None:
                game.rng = np.random.default_rng(self._seeds[i])
            game.deal()
        self._reset_seeds()
        self._reset_options()
        self._play_opponents(self.games)
        for i, game in enumerate(self.games):
            self.reset_infos[i] = {"learner_seat": game.seat}
        return self._write_observations()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions[:] = actions

    def step_wait(self):
        for game, action in zip(self.games, self._actions):
            game.reward, game.info = 0.0, {}
            game.step(int(action))
        self._play_opponents(self.games)
        rewards = np.array([game.reward for game in self.games], dtype=np.float32)
        dones = np.array(["outcome" in game.info for game in self.games])
        infos = [game.info for game in self.games]
        return self._write_observations(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Every game's legal-action mask for the seat the learner plays now, one row per game."""
        return self._masks.copy()

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """What SB3 and the trainer call per game: `action_masks`, `game_state` and `load_game_state` (as
        SeatEnv's), and `add_snapshot` (for all games at once)."""
        games = self._get_indices(indices)
        if method_name == "action_masks":
            return [self._masks[i].copy() for i in games]
        if method_name == "game_state":
            return [self.games[i].state_dict() for i in games]
        if method_name == "load_game_state":
            return [self._load_game(i, *method_args, **method_kwargs) for i in games]
        if method_name == "add_snapshot":
            if len(games) != self.num_envs:
                raise ValueError("a snapshot joins every game's pool at once (the games share its network)")
            self.add_snapshot(*method_args, **method_kwargs)
            return [None] * len(games)
        raise AttributeError(
            f"{type(self).__name__} has no per-game method {method_name!r}; it has action_masks, add_snapshot"
        )

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(
            f"{type(self).__name__} sets attributes for all games at once; set {attr_name} on it directly"
        )

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def close(self) -> None:
        pass

    # --- the pool ------------------------------------------------------------------------------------
    def add_snapshot(self, name: str, weights: dict[str, torch.Tensor]) -> None:
        """Freeze `weights` once; every game's pool gets its own seeded sampler over that one network."""
        pools = [game.pool for game in self.games if game.pool is not None]
        if pools:
            policy = pools[0].freeze(weights)
            for pool in pools:
                pool.add_frozen(name, policy)

    def _load_game(self, i: int, state: dict[str, Any], retired: dict[str, dict]) -> np.ndarray:
        """Continue a saved game in slot `i`; its observation for the learner. A retired snapshot is frozen once
        for every game that seats it, as the pool's snapshots are (one batched forward pass each)."""
        game = self.games[i]
        for name, weights in retired.items():  # only a game with a pool seats snapshots
            if name not in self._retired and game.pool is not None:
                self._retired[name] = game.pool.freeze(weights)
        game.load_state_dict(state, {name: self._retired[name] for name in retired})
        game.live = True  # saved between steps, where every game waits for a learner decision
        self._write_observation(i, game)
        return self._obs[i].copy()

    # --- internals -------------------------------------------------------------------------------------
    def _play_opponents(self, games: list[_Game]) -> None:
        """Rounds of opponent moves until every game is at a learner decision (re-dealing finished games)."""
        pending = [game for game in games if self._settle(game)]
        while pending:
            for game, action in self._opponent_moves(pending):
                game.step(action)
            pending = [game for game in pending if self._settle(game)]

    def _settle(self, game: _Game) -> bool:
        """Close a finished game and deal again, mark a learner decision; True while an opponent is to move."""
        while game.state.is_terminal():
            if game.live:  # the learner's game is over: its last reward and the episode's record
                game.reward += game.shaping(done=True)
                game.info = {**game.finish(), "terminal_observation": self._terminal_obs.copy()}
            game.deal()  # a deal its opponents finish before the learner moves is of no use: deal again
        if not game.learner_to_move():
            return True
        if game.live:
            game.reward += game.shaping(done=False)
        else:
            game.start_shaping()
        game.live = True
        return False

    def _opponent_moves(self, pending: list[_Game]) -> list[tuple[_Game, int]]:
        """One move for each game: one forward pass per frozen network, the other players game by game."""
        moves = []
        batches: dict[int, tuple[Any, list[tuple[_Game, PolicyAgent]]]] = {}
        for game in pending:
            seat = game.state.current_player
            _, opponent = game.opponents[seat]
            if isinstance(opponent, PolicyAgent):
                batches.setdefault(id(opponent.policy), (opponent.policy, []))[1].append((game, opponent))
                continue
            moves.append((game, act_for(opponent, game.aec, game.state, seat)))
        for policy, members in batches.values():
            k = len(members)
            obs, masks = self._opponent_obs[:k], self._opponent_masks[:k]
            for row, (game, opponent) in enumerate(members):
                observation_for(opponent, game.aec, game.state, game.state.current_player, out=obs[row])
                masks[row] = game.state.legal_action_mask()
            rngs = [opponent.rng for _, opponent in members]
            legal_head = isinstance(policy, MlpPolicy) or getattr(policy, "legal_head", False)  # or a benchmark MLP's
            if legal_head and not policy.dense_rows and bag_pays(most_active(obs), obs.shape[1]):
                chosen = _legal_choice(policy, obs, masks, rngs)
            else:
                if legal_head:
                    policy.store_dense()
                chosen = _masked_choice(self._snapshot_logits(policy, obs, masks), masks, rngs)  # a draw every row
            moves += [(game, int(a)) for (game, _), a in zip(members, chosen)]
        return moves

    def _snapshot_logits(self, policy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A frozen network's logits for a batch of its games; with `skip_forced`, the rows with one legal action
        are not computed and left 0 (the mask leaves that action whatever its logit)."""
        with torch.inference_mode():
            if not self.skip_forced:
                return actor_logits(policy, torch.from_numpy(obs)).numpy()
            logits = np.zeros(masks.shape, dtype=np.float32)
            rows = np.flatnonzero(masks.sum(axis=1) > 1)
            if len(rows):
                logits[rows] = actor_logits(policy, torch.from_numpy(obs[rows])).numpy()
            return logits

    def _write_observations(self) -> np.ndarray:
        """The learner's observation and mask of every game, into the preallocated arrays; a copy out
        (SB3 stores the previous step's observations after the next step)."""
        for i, game in enumerate(self.games):
            self._write_observation(i, game)
        return self._obs.copy()

    def _write_observation(self, i: int, game: _Game) -> None:
        state = game.state
        game.observer.encode(state, state.current_player, out=self._obs[i])
        self._masks[i] = state.legal_action_mask()


def _legal_choice(
    policy: MlpPolicy, obs: np.ndarray, masks: np.ndarray, rngs: list[np.random.Generator | None]
) -> np.ndarray:
    """`_masked_choice` of an MLP snapshot with its head on the legal actions only (sparse rows in, forced moves
    not computed): per row the best legal action, or a Gumbel-max sample over the legal actions alone."""
    chosen = masks.argmax(axis=1)  # a forced move: its one action
    rows = np.flatnonzero(masks.sum(axis=1) > 1)
    if not len(rows):
        return chosen
    with torch.inference_mode():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(torch.from_numpy(obs[rows])))
        row, action = torch.from_numpy(masks[rows]).nonzero(as_tuple=True)
        head = policy.action_net
        scores = ((latent[row] * head.weight[action]).sum(dim=1) + head.bias[action]).double().numpy()
    counts = np.bincount(row.numpy(), minlength=len(rows))  # every row has two legal actions or more
    drawing = [rngs[r] for r in rows]
    noise = [rng.gumbel(size=c) for rng, c in zip(drawing, counts) if rng is not None]
    if noise:
        scores[np.repeat([rng is not None for rng in drawing], counts)] += np.concatenate(noise)
    starts = np.cumsum(counts) - counts
    best = np.repeat(np.maximum.reduceat(scores, starts), counts)
    first = np.minimum.reduceat(np.where(scores == best, np.arange(len(scores)), len(scores)), starts)  # a tie: first
    chosen[rows] = action.numpy()[first]
    return chosen


def _masked_choice(logits: np.ndarray, masks: np.ndarray, rngs: list[np.random.Generator | None]) -> np.ndarray:
    """`choose_action` for a batch: per row the best legal action, or (with a generator) an exact sample
    from the masked softmax by Gumbel-max, drawn from that row's generator."""
    scores = np.where(masks, logits.astype(np.float64), -np.inf)
    for row, rng in zip(scores, rngs):
        if rng is not None:
            row += rng.gumbel(size=row.shape)
    return scores.argmax(axis=1)

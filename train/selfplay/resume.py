"""Exact resume: what a checkpoint keeps besides the weights, so that a resumed run trains as an uninterrupted one.

The next rollout depends on more than the learner: the games in progress, every generator that deals, seats
opponents, picks their moves and samples the learner's actions, the snapshot pool, and SB3's record of which
games have just begun. At the start of every rollout the trainer notes all of it as plain data (`Boundary`):

- each game: its generator, the table's seed and the moves since the deal (replayed on resume), the learner's
  seat and its opponents by name, the shaping's potential, its pool's pfsp record and every player's generator;
- torch's, numpy's and Python's global generators (the learner's actions, the update's minibatches);
- SB3's episode starts; the snapshot pool, and each snapshot that has left it but still sits at a game;
- which MLP policies have gone over to dense rows for good (their path, their rounding and draws follow it).

A checkpoint is written at such a boundary (`resume.pt` beside the weights, checkpoints.py), and a rollout cut
short by Ctrl-C is collected again from it by the same generators. With the in-turn learner a resumed run ends
with the same weights as an uninterrupted one, bit for bit. With `sb3.overlap` the rollout after a checkpoint
was collected by the policy before its last update, which no checkpoint keeps: the games resume where they
stood, and the weights drift apart from the uninterrupted run's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch

from tabletop.train.selfplay.opponents import dense_rows

STATE_FILE = "resume.pt"
SEAT_KEYS = ("rng", "episode", "seat", "table_seed", "moves", "potential", "opponents")  # SeatGame.state_dict


@dataclass(frozen=True)
class Boundary:
    """Where a run stands between two rollouts, weights aside."""

    step: int
    games: list[dict[str, Any]]  # SeatGame.state_dict of every game, in the vector env's order
    generators: dict[str, Any]
    episode_starts: list[bool]
    dense: bool  # the learner has gone over to dense rows (opponents.dense_rows)
    snapshots: list[tuple[str, dict]]  # the pool
    retired: dict[str, dict]  # snapshots out of the pool that a game in progress still seats: their weights

    @classmethod
    def capture(cls, model, vec_env, snapshots: list[tuple[str, dict]], retired: dict[str, dict]) -> Boundary:
        games = vec_env.env_method("game_state")
        seated = {name for game in games for name in game["opponents"].values()}
        return cls(
            step=model.num_timesteps,
            games=games,
            generators=generators(),
            episode_starts=[bool(s) for s in model._last_episode_starts],
            dense=dense_rows(model.policy),
            snapshots=list(snapshots),
            retired={name: weights for name, weights in retired.items() if name in seated},
        )

    def to_file(self) -> dict[str, Any]:
        """What `resume.pt` holds (the pool goes to `pool.pt`)."""
        return {
            "step": self.step,
            "games": self.games,
            "generators": self.generators,
            "episode_starts": self.episode_starts,
            "dense": self.dense,
            "retired": self.retired,
        }


def generators() -> dict[str, Any]:
    """torch's, numpy's and Python's global generators, as plain data."""
    kind, keys, pos, has_gauss, gauss = cast(tuple, np.random.get_state())
    return {
        "torch": torch.get_rng_state(),
        "numpy": {"kind": kind, "keys": keys.tolist(), "pos": int(pos), "has_gauss": int(has_gauss), "gauss": gauss},
        "python": random.getstate(),
    }


def set_generators(saved: dict[str, Any]) -> None:
    torch.set_rng_state(saved["torch"])
    n = saved["numpy"]
    np.random.set_state((n["kind"], np.array(n["keys"], dtype=np.uint32), n["pos"], n["has_gauss"], n["gauss"]))
    random.setstate(saved["python"])


def mismatch(saved: dict[str, Any], vec_env) -> str | None:
    """Why the saved games cannot continue in `vec_env` (None: they can)."""
    if len(saved["games"]) != vec_env.num_envs:
        return f"it holds {len(saved['games'])} games and this config plays {vec_env.num_envs}"
    return None


def restore(model, vec_env, saved: dict[str, Any]) -> None:
    """Continue every saved game in `vec_env` and give `model` the observations, episode starts and generators
    of the boundary (the pool's snapshots are restored first, by the trainer)."""
    vec_env.reset()  # the monitors' counters start; every game is then replaced by its saved one
    observations = []
    for i, game in enumerate(saved["games"]):
        retired = {name: saved["retired"][name] for name in game["opponents"].values() if name in saved["retired"]}
        observations.append(vec_env.env_method("load_game_state", game, retired, indices=[i])[0])
    model._last_obs = np.stack(observations).astype(np.float32)
    model._last_episode_starts = np.array(saved["episode_starts"], dtype=bool)
    if saved["dense"]:
        model.policy.store_dense()
    set_generators(saved["generators"])


def check_state(saved: Any, step: int, check_weights) -> None:
    """A ValueError naming what makes `resume.pt` unusable: not the step's, a game or generator missing, a
    retired snapshot's weights not the network's (`check_weights(weights, where)`)."""
    if not isinstance(saved, dict) or saved.get("step") != step:
        raise ValueError(f"{STATE_FILE} is not the games of step {step}")
    games, starts, found = saved.get("games"), saved.get("episode_starts"), saved.get("generators")
    if not isinstance(games, list) or not all(isinstance(g, dict) and all(k in g for k in SEAT_KEYS) for g in games):
        raise ValueError(f"{STATE_FILE} does not hold a list of games in progress")
    if not isinstance(saved.get("dense"), bool) or not all(
        isinstance(g.get("pool", {}).get("dense", []), list) for g in games
    ):
        raise ValueError(f"{STATE_FILE} does not say which policies read dense rows")
    if not isinstance(starts, list) or len(starts) != len(games):
        raise ValueError(f"{STATE_FILE} does not hold one episode start per game")
    if not isinstance(found, dict) or not all(k in found for k in ("torch", "numpy", "python")):
        raise ValueError(f"{STATE_FILE} lacks the global generators")
    retired = saved.get("retired")
    if not isinstance(retired, dict):
        raise ValueError(f"{STATE_FILE} does not hold the retired snapshots")
    for name, weights in retired.items():
        check_weights(weights, f"{STATE_FILE}: snapshot {name}")

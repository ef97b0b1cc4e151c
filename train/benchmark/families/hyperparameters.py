"""Every family's hyperparameters with their defaults, in one torch-free module: a suite or config is checked
against them before any family's module (and torch, SB3 or Ray with it) loads, so a mistyped key is refused at
once. Each family module reads its defaults from here; `families.family_defaults` answers for any family."""

from __future__ import annotations

from typing import Any

PPO_SB3: dict[str, Any] = {  # the PPO hyperparameters both PPO families read (SB3's names)
    "learning_rate": 3e-4,
    "batch_size": 512,
    "n_epochs": 4,
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
}

PPO: dict[str, Any] = {
    **PPO_SB3,
    "target_kl": None,
    # rollouts: games stepped together (batched, opponents' moves batched) x steps per game
    "num_envs": 16,
    "n_steps": 256,
    # network: (agents/networks; structured kinds where the game offers them)
    "network": "mlp",
    "hidden": [256, 256],
    "activation": "tanh",
    "width": 32,
    "blocks": 1,
    # opponents: snapshots of the learner
    "snapshot_every": 20_000,
    "max_snapshots": 10,
    "sampling": "uniform",
}

POLICY_GRADIENT: dict[str, Any] = {  # the masked PPO-style update mmd and psro share
    "num_envs": 16,  # games played at once through the vector interface
    "n_steps": 128,  # decisions per game per rollout
    "n_epochs": 4,
    "num_minibatches": 4,
    "learning_rate": 2.5e-4,  # Adam
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "kl_coef": 0.0,  # the reverse KL to the rollout's policy (mmd's proximal term)
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
    "network": "mlp",  # a network kind the game offers; its actor head gives the logits, its critic the value
    "hidden": [256, 256],
    "activation": "tanh",
    "width": 32,
    "blocks": 1,
    "snapshot_every": 20_000,  # learner steps between "self" snapshots (tasks whose opponents include self)
    "max_snapshots": 10,
}

MMD: dict[str, Any] = {**POLICY_GRADIENT, "ent_coef": 0.05, "kl_coef": 0.05}

PSRO: dict[str, Any] = {
    **{
        k: v for k, v in POLICY_GRADIENT.items() if k not in ("snapshot_every", "max_snapshots")
    },  # opponents: the population
    "br_steps": 20_000,  # learner steps of each best response
    "meta_deals": 20,  # paired deals between the new member and each member
    "meta_solver": "nash",
    "solver_iterations": 2_000,
    "mixture_slots": 20,  # the opponents' mixture in shares of 1/20 (largest remainders)
}

DQN: dict[str, Any] = {
    "num_envs": 16,  # games played at once through the vector interface
    "network": "mlp",  # a network kind the game offers (mlp, circles, board, moves, roles); the Q-head is its actor head
    "hidden": [256, 256],  # MLP widths (the mlp kind's layers, a structured kind's critic)
    "activation": "relu",
    "width": 32,  # a structured kind's channels
    "blocks": 1,  # a structured kind's blocks
    "learning_rate": 1e-4,  # Adam
    "gamma": 0.99,  # discount per learner decision
    "buffer_size": 20_000,  # learner decisions kept in the replay
    "batch_size": 128,
    "learning_starts": 1_000,  # learner steps before the first update
    "train_every": 8,  # learner steps per gradient step
    "target_update": 2_000,  # learner steps between copies of the Q-network into the target
    "max_grad_norm": 10.0,
    "epsilon_start": 1.0,
    "epsilon_end": 0.05,
    "exploration_fraction": 0.3,  # share of the task's budget over which epsilon falls linearly
    "snapshot_every": 10_000,  # learner steps between "self" snapshots (tasks whose opponents include self)
    "max_snapshots": 5,
}

NFSP: dict[str, Any] = {
    **{k: v for k, v in DQN.items() if k not in ("snapshot_every", "max_snapshots")},  # opponents: one refreshed copy
    "anticipatory": 0.1,  # eta: the chance a deal's learner seat plays the best response
    "epsilon_start": 0.06,  # OpenSpiel's NFSP exploration of the best response
    "epsilon_end": 0.001,
    "exploration_fraction": 1.0,
    "sl_learning_rate": 1e-4,  # Adam, the average policy's supervised step
    "reservoir_size": 20_000,  # best-response decisions kept by reservoir sampling
    "refresh_every": 2_000,  # learner steps between refreshes of the opponents' average-policy copy
}

RLLIB: dict[str, Any] = {
    **PPO_SB3,  # SB3's names, mapped to RLlib's by train/rllib/trainer.py
    # network: the masked MLP (RLlib trains network kind mlp only)
    "hidden": [256, 256],
    "activation": "tanh",
    # opponents: snapshots of the learner in frozen slots
    "snapshot_every": 20_000,
    "max_snapshots": 10,
    # rllib: samplers and iteration size; a local Ray's size
    "num_env_runners": 0,
    "num_envs_per_env_runner": 8,
    "train_batch_size": 4096,
    "num_cpus": 1,
    "object_store_mb": 100,
}

ALPHAZERO: dict[str, Any] = {
    "network": "mlp",  # a network kind the game offers (mlp, circles, board, moves, roles)
    "hidden": [256, 256],
    "activation": "relu",
    "width": 32,
    "blocks": 1,
    "search": "sims=16,candidates=8,gumbel=1",  # the guided search's keys (search:policy=...,KEY=VALUE), policy aside
    "games": 16,  # games per iteration
    "replay": 2,  # iterations of games the network fits
    "epochs": 4,  # passes over the replay per iteration
    "batch_size": 128,
    "learning_rate": 3e-4,  # Adam
    "value_coef": 1.0,
    "warm_weights": "",  # a policy file or run folder (as ppo:PATH reads) whose weights the network starts from
    "warm_teacher": "",  # an agent spec to clone first (e.g. pretrained); empty: no clone
    "warm_games": 200,
    "warm_epochs": 4,
}

DEFAULTS: dict[str, dict[str, Any]] = {
    "ppo": PPO,
    "rllib_ppo": RLLIB,
    "rllib_appo": RLLIB,
    "dqn": DQN,
    "nfsp": NFSP,
    "mmd": MMD,
    "psro": PSRO,
    "alphazero": ALPHAZERO,
}
"""Each family's name -> its hyperparameters and their defaults (the same names as `FAMILIES`, a test holds it)."""

"""Gumbel AlphaZero over determinized worlds (the `alphazero` family): the network guides the search, the search's
improved policy and the games' outcomes train the network, and the next games use the new network.

An iteration plays `games` seeded games: the guided search (agents/search/guided.py, Gumbel noise on) over the
current network in the learner's seat, and a player drawn from the pool in the others (`self`: the same search,
every seat learning; a cooperative game: the search in every seat, its partners' rollouts following the network,
SPARTA's way). At each of its decisions the search gives softmax(logits + sigma(completed q)), the policy target;
the seat's final result is the value target. The network then fits the last `replay` iterations' decisions
(cross-entropy to the targets plus `value_coef` times the value's squared error; Adam, its state kept across
iterations). One learner step is one learner decision. Start: `warm_weights` (a policy file or run folder of the
same network; `scripts/dagger.py adopt` turns a shipped export into one) gives the first weights, the policy
itself rather than a clone of it; `warm_teacher` (`pretrained`, a heuristic, any agent spec) is then cloned on
`warm_games` of its own games (its moves, the games' results; train/selfplay/imitation).

Everything the next iteration needs (weights, optimiser, replay, counters, the progress rows) is saved after
every iteration, so a resumed run plays the same games and reaches the same weights as one never stopped.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tabletop.agents import make_agent
from tabletop.agents.base import RandomAgent, act_for
from tabletop.agents.networks import MASKED_LOGIT
from tabletop.agents.networks.actor_critic import ActorCritic, network_spec
from tabletop.agents.networks.runs import load_saved
from tabletop.agents.policy_agent import PolicyAgent
from tabletop.agents.registry import game_of, heuristics
from tabletop.agents.search import parse_search
from tabletop.agents.search.guided import GuidedSearch
from tabletop.agents.search.networks import TorchNet
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.callbacks import SteadyBar
from tabletop.train.selfplay.config import HEURISTICS, SELF
from tabletop.train.selfplay.imitation import collect

NETWORK_KEYS = ("network", "hidden", "activation", "width", "blocks")
GAME_SEEDS = 3_000_000  # training games' env seeds: GAME_SEEDS + (run seed * 100,003 + game number) mod 1,000,000
WARM_SEEDS = 4_000_000  # the warm start's games, likewise
PROGRESS_FILE = "progress.csv"


@dataclass
class Decisions:
    """The learner's decisions of some games: what the network reads, the search's target, the seat's result."""

    observations: np.ndarray  # [N, obs] float16 (the observations' numbers are small fractions and counts)
    masks: np.ndarray  # [N, actions] bool
    targets: np.ndarray  # [N, actions] float32, rows summing to 1
    outcomes: np.ndarray  # [N] float32

    @classmethod
    def join(cls, parts: list[Decisions]) -> Decisions:
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def to_tensors(self) -> dict[str, torch.Tensor]:
        """Plain tensors, for a save that `torch.load(weights_only=True)` reads back."""
        return {f.name: torch.from_numpy(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_tensors(cls, saved: dict[str, torch.Tensor]) -> Decisions:
        return cls(**{name: tensor.numpy() for name, tensor in saved.items()})


def learner_network(env: EnvSpec, params: dict[str, Any]) -> ActorCritic:
    """The untrained network the family's `NETWORK_KEYS` describe for the game `env`."""
    return ActorCritic(network_spec(env, params["network"], **{k: params[k] for k in NETWORK_KEYS[1:]}))


def losses(net: ActorCritic, data: Decisions, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """(cross-entropy of the masked policy against the targets, the value's squared error), batch means."""
    obs = torch.from_numpy(data.observations[rows].astype(np.float32))
    masks = torch.from_numpy(data.masks[rows])
    extractor = net.mlp_extractor
    logits = net.action_net(extractor.forward_actor(obs))
    log_probs = torch.log_softmax(torch.where(masks, logits, torch.full_like(logits, MASKED_LOGIT)), dim=1)
    cross_entropy = -(torch.from_numpy(data.targets[rows]) * log_probs).sum(1).mean()
    values = net.value_net(extractor.forward_critic(obs))[:, 0]
    return cross_entropy, torch.mean((values - torch.from_numpy(data.outcomes[rows])) ** 2)


def measure(net: ActorCritic, data: Decisions, batch: int = 1024) -> tuple[float, float]:
    """The two losses over all of `data`, without gradients."""
    count = len(data.outcomes)
    if not count:
        return float("nan"), float("nan")
    totals = np.zeros(2)
    with torch.no_grad():
        for rows in np.array_split(np.arange(count), max(1, count // batch)):
            totals += len(rows) * np.array([float(x) for x in losses(net, data, rows)])
    return float(totals[0] / count), float(totals[1] / count)


def fit(net: ActorCritic, optimizer, data: Decisions, params: dict[str, Any], epochs: int, rng) -> None:
    """`epochs` passes of minibatch Adam steps over `data`, in an order drawn from `rng`."""
    net.train()
    for _ in range(epochs):
        order = rng.permutation(len(data.outcomes))
        for start in range(0, len(order), params["batch_size"]):
            cross_entropy, value_error = losses(net, data, np.sort(order[start : start + params["batch_size"]]))
            optimizer.zero_grad()
            (cross_entropy + params["value_coef"] * value_error).backward()
            optimizer.step()
    net.eval()


class AlphaZeroLearner:
    """One run on the game `env`: `learner_seats` "one" (a rotating seat against the pool `opponents`, agent specs
    or `self` / `heuristics` with weights) or "all" (every seat, a cooperative game). `train_until` plays whole
    iterations, so it may pass the asked step count by an iteration's decisions."""

    family = "alphazero"

    def __init__(
        self, env: EnvSpec, learner_seats: str, opponents: dict[str, float], params: dict[str, Any], seed: int
    ):
        torch.set_num_threads(1)
        torch.manual_seed(seed)
        self.env, self.learner_seats, self.params, self.seed = env, learner_seats, params, seed
        self.pool = self._pool(opponents)
        self.table = env.make_raw(illegal_action="raise")
        self.net = learner_network(env, params)
        if params["warm_weights"]:
            self.net.load_weights(self._warm_weights(params["warm_weights"]), params["warm_weights"])
        self.net.eval()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=params["learning_rate"])
        observer_options = env.definition.observer_options(env.kwargs)
        self.observer = self.table.observer_for(observer_options)
        self.guide = TorchNet(self.net, observer_options, f"{self.family}:learner")
        self.options = parse_search(f"search:policy={self.guide.name},{params['search']}".rstrip(","))
        self.policies = {"random": RandomAgent, **heuristics(env.env_id)}
        self.steps, self.iteration, self.replay, self.rows = 0, 0, [], []
        self.warmed = not params["warm_teacher"]

    def _warm_weights(self, path: str) -> dict[str, torch.Tensor]:
        """The weights of the policy at `path`, a policy for this game (`load_weights` checks every shape)."""
        saved = load_saved(path, self.env)
        if saved.env.env_id != self.env.env_id:
            raise ValueError(f"warm_weights {path} is a policy for {saved.env}; this run trains {self.env}")
        return saved.weights

    def _pool(self, opponents: dict[str, float]) -> tuple[list[str], np.ndarray]:
        """The pool's players and their chances; `heuristics` is every heuristic of the game, sharing its weight."""
        names, weights = [], []
        for name, weight in (opponents or {SELF: 1.0}).items():
            expanded = list(heuristics(self.env.env_id)) if name == HEURISTICS else [name]
            names += expanded
            weights += [weight / len(expanded)] * len(expanded)
        weights = np.asarray(weights, dtype=float)
        return names, weights / weights.sum()

    # --- playing ----------------------------------------------------------------------------------------
    def searcher(self, seed: int) -> GuidedSearch:
        return GuidedSearch(self.env, game_of(self.env.env_id), self.policies, self.options, self.guide, seed=seed)

    def game_seed(self, base: int, number: int) -> int:
        return base + (self.seed * 100_003 + number) % 1_000_000

    def play(self, seed: int, seats: list[Any]) -> Decisions:
        """One game on deal `seed`; the decisions of the seats that hold a `GuidedSearch` are recorded."""
        self.table.reset(seed=seed)
        state = self.table.game_state
        seen, observations, masks, targets = [], [], [], []
        while not state.is_terminal():
            seat = state.current_player
            action = act_for(seats[seat], self.table, state, seat)
            if isinstance(seats[seat], GuidedSearch):
                seen.append(seat)
                observations.append(self.observer.encode(state, seat).astype(np.float16))
                masks.append(state.legal_action_mask().astype(bool))
                targets.append(seats[seat].improved.astype(np.float32))
            state.apply(action)
        result = np.asarray(state.returns(), dtype=np.float32)
        width, actions = self.observer.layout.size, self.table.game.num_actions
        return Decisions(
            np.stack(observations) if seen else np.zeros((0, width), np.float16),
            np.stack(masks) if seen else np.zeros((0, actions), bool),
            np.stack(targets) if seen else np.zeros((0, actions), np.float32),
            result[seen],
        )

    def play_iteration(self, bar=None) -> Decisions:
        """This iteration's games: the learner's seat rotates, the pool's player is drawn per game."""
        games, players = self.params["games"], self.table.game.num_players
        rng = np.random.default_rng([self.seed, self.iteration])
        names, chances = self.pool
        parts = []
        for g in range(games):
            number = self.iteration * games + g
            seed = self.game_seed(GAME_SEEDS, number)
            rival = names[rng.choice(len(names), p=chances)]
            everyone = self.learner_seats == "all" or rival == SELF
            seats = [
                self.searcher(seed * players + s)
                if everyone or s == g % players
                else make_agent(self.env, rival, seed=seed * players + s)
                for s in range(players)
            ]
            parts.append(self.play(seed, seats))
            if bar is not None:
                bar.update(len(parts[-1].outcomes))
        return Decisions.join(parts)

    # --- learning ---------------------------------------------------------------------------------------
    def warm_start(self) -> None:
        """Clone `warm_teacher` on its own games (iteration 0's progress row)."""
        p, began = self.params, time.process_time()
        taught = collect(
            self.env, p["warm_teacher"], [p["warm_teacher"]], p["warm_games"], 1.0, self.game_seed(WARM_SEEDS, 0)
        )
        targets = taught.target.astype(np.float32)
        data = Decisions(
            taught.observations,  # float16, as the search's decisions
            taught.masks,
            targets / targets.sum(1, keepdims=True),
            taught.returns,
        )
        before = measure(self.net, data)
        fit(self.net, self.optimizer, data, p, p["warm_epochs"], np.random.default_rng([self.seed, 0, 2]))
        self.warmed = True
        self.record(0, len(data.outcomes), before, measure(self.net, data), time.process_time() - began)

    def train_until(self, steps: int) -> None:
        if not self.warmed:
            self.warm_start()
        bar = SteadyBar(
            total=steps,
            initial=min(self.steps, steps),
            desc=f"{self.family} {self.env.env_id}",
            unit="decision",
            disable=None,
            leave=False,
        )
        try:
            while self.steps < steps:
                began = time.process_time()
                fresh = self.play_iteration(bar)
                before = measure(self.net, fresh)  # the search's targets on games the network has not fitted
                self.replay = [*self.replay, fresh][-self.params["replay"] :]
                rng = np.random.default_rng([self.seed, self.iteration, 1])
                fit(self.net, self.optimizer, Decisions.join(self.replay), self.params, self.params["epochs"], rng)
                self.iteration += 1
                self.steps += len(fresh.outcomes)
                self.record(
                    self.iteration, len(fresh.outcomes), before, measure(self.net, fresh), time.process_time() - began
                )
                bar.set_postfix(policy_loss=f"{before[0]:.3f}", value_loss=f"{before[1]:.3f}")
        finally:
            bar.close()

    def record(self, iteration: int, decisions: int, before, after, seconds: float) -> None:
        """A progress row: the losses on the iteration's decisions before and after the fit, its CPU seconds."""
        self.rows.append(
            {
                "iteration": iteration,
                "steps": self.steps,
                "decisions": decisions,
                "policy_loss_before": before[0],
                "value_loss_before": before[1],
                "policy_loss_after": after[0],
                "value_loss_after": after[1],
                "cpu_seconds": seconds,
            }
        )

    def agent(self, name: str | None = None) -> PolicyAgent:
        """The network alone: its most likely legal move."""
        return PolicyAgent(self.net, name=name or f"{self.family}:{self.env.env_id}")

    # --- the save -----------------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "params": self.params,
            "steps": self.steps,
            "iteration": self.iteration,
            "warmed": self.warmed,
            "weights": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "replay": [part.to_tensors() for part in self.replay],
            "rows": self.rows,
        }

    def load(self, state: dict[str, Any]) -> None:
        self.steps, self.iteration, self.warmed = int(state["steps"]), int(state["iteration"]), bool(state["warmed"])
        self.net.load_state_dict(state["weights"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.replay = [Decisions.from_tensors(part) for part in state["replay"]]
        self.rows = list(state["rows"])

    def write_progress(self, folder: Path) -> None:
        """`progress.csv`: one row an iteration (iteration 0: the warm start)."""
        if not self.rows:
            return
        with (Path(folder) / PROGRESS_FILE).open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(self.rows[0]))
            writer.writeheader()
            writer.writerows(self.rows)

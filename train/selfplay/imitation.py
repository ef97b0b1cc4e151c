"""Imitation warm start: clone a heuristic or a search player before PPO takes over.

The teacher plays seeded games against the configured opponents. At each of its decisions we keep what
a learner in that seat would get (its observation and legal mask, nothing more) and the teacher's target, a
distribution over the legal moves. A teacher that breaks ties at random (`best_actions`) gives its whole set
of equally best moves, and the clone learns a uniform target over them, so random tie-breaks are not label
noise; accuracy is then "in-tie": the clone's most likely move is one the target rates highest. A search
player (expert iteration) also says how it weighs its moves: the plain search how it shared its rollouts among
its first moves (`shares`), the guided search its improved policy (`improved`). With `search_share` w the target
is (1 - w) on the move it played plus w times those weights, so the clone also learns which moves the search
thought worth comparing, not only its choice. The value head learns the
discounted outcome of the game from each decision, which PPO's critic would otherwise have to learn
from scratch while its first updates wash the cloned policy out.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from tabletop.agents import PolicyAgent, make_agent
from tabletop.agents.base import act_for
from tabletop.agents.networks import MASKED_LOGIT
from tabletop.agents.networks.actor_critic import CRITIC_PREFIXES as CRITIC
from tabletop.agents.policy_agent import actor_logits
from tabletop.envs import EnvSpec
from tabletop.train.evaluation.evaluate import Matchup, evaluate, format_table

WARM_SEED_OFFSET = 20_000_003  # the teacher's games: seeds apart from evaluation's (1,000,003 onwards)
REPORT_FILE = "warm_start.json"


@dataclass
class Decisions:
    """A teacher's decisions; observations are float16 (every Cromlet number is a small fraction)."""

    observations: np.ndarray  # [N, obs_size] float16
    masks: np.ndarray  # [N, actions] bool
    target: np.ndarray  # [N, actions] float16, rows summing to 1: uniform over the teacher's equally best moves
    # (its own move alone if it gives none), or a search teacher's move and its weights (`search_shares`)
    returns: np.ndarray  # [N] float32: gamma ** (the seat's decisions left) * its final return
    game: np.ndarray  # [N] int: which game each decision comes from

    def __len__(self) -> int:
        return len(self.returns)

    def split(self, holdout: float) -> tuple[Decisions, Decisions]:
        """The first games for training, the last `holdout` fraction of games held out (no game in both:
        its outcome would leak into the value error). Decisions are stored game by game, so both parts
        are views, not copies: a Chromino warm start holds gigabytes of observations."""
        last = int(self.game.max()) + 1 if len(self) else 0
        held = min(last - 1, max(1, int(round(last * holdout)))) if holdout > 0 else 0
        cut = int(np.searchsorted(self.game, last - held))
        return self._rows(slice(0, cut)), self._rows(slice(cut, len(self)))

    def _rows(self, rows: slice) -> Decisions:
        return Decisions(
            self.observations[rows], self.masks[rows], self.target[rows], self.returns[rows], self.game[rows]
        )


def collect(
    env: EnvSpec,
    teacher: str,
    opponents: list[str],
    games: int,
    gamma: float,
    seed: int,
    search_share: float = 0.0,
    actor: str | None = None,
) -> Decisions:
    """Play `games` seeded games, the teacher in a rotating seat and `opponents` (in turn) in the others;
    record every decision of every seat the teacher holds (all of them when it also is the opponent), with a
    search teacher's weights (`search_shares`) weighted `search_share` in its target. With an `actor` (DAgger), the actor
    plays the teacher's seats and the teacher only labels them: the targets fall on the positions the actor
    reaches, where a clone of the teacher's own games has seen none."""
    table = env.make_raw()
    state_seats = table.game.num_players
    teach = make_agent(env, teacher, seed=seed)
    acting = make_agent(env, actor, seed=seed + len(opponents) + 1) if actor else None
    rivals = {name: make_agent(env, name, seed=seed + 1 + i) for i, name in enumerate(dict.fromkeys(opponents))}
    chunks: list[tuple[np.ndarray, ...]] = []  # per game: (observations, masks, targets)
    returns, game_of = [], []
    for g in range(games):
        table.reset(seed=seed + g)
        state, observer = table.game_state, table.observer
        seat_of_teacher = g % state_seats
        rival = rivals[opponents[g % len(opponents)]]
        taught = {s for s in range(state_seats) if s == seat_of_teacher or opponents[g % len(opponents)] == teacher}
        rows: dict[int, list[int]] = {s: [] for s in taught}
        observations, masks, targets = [], [], []
        while not state.is_terminal():
            seat = state.current_player
            if seat in taught:
                mask = state.legal_action_mask()
                tied = teach.best_actions(mask, state.view(seat)) if hasattr(teach, "best_actions") else None
                label = (
                    int(tied[teach.rng.integers(tied.size)]) if tied is not None else act_for(teach, table, state, seat)
                )
                rows[seat].append(len(returns) + len(observations))
                game_of.append(g)
                observations.append(observer.encode(state, seat).astype(np.float16))
                masks.append(mask.astype(bool))
                targets.append(_target(mask.size, tied, label, search_shares(teach), search_share))
                action = label if acting is None else act_for(acting, table, state, seat)
            else:
                action = act_for(rival, table, state, seat)
            state.apply(action)
        if observations:
            chunks.append((np.stack(observations), np.stack(masks), np.stack(targets)))
        final = state.returns()
        returns.extend([0.0] * len(observations))
        for seat, index in rows.items():
            left = np.arange(len(index))[::-1]
            returns_seat = final[seat] * gamma**left
            for i, r in zip(index, returns_seat):
                returns[i] = float(r)
    return Decisions(*_concatenate(chunks), np.asarray(returns, dtype=np.float32), np.asarray(game_of))


def search_shares(teacher) -> dict[int, float] | None:
    """A search teacher's own weights over the last decision's moves: the guided search's improved policy (the
    softmax of its prior's logits plus the completed Q-values, what search in the loop learns), or the plain
    search's rollout shares; None for a teacher that does not search."""
    improved = getattr(teacher, "improved", None)
    if improved is not None:
        return {int(a): float(improved[a]) for a in np.flatnonzero(improved)}
    return getattr(teacher, "shares", None)


def _target(
    actions: int, tied: np.ndarray | None, action: int, shares: dict[int, float] | None, weight: float
) -> np.ndarray:
    """One decision's target: uniform over `tied` when the teacher gives its ties, else `action`, with weight
    `weight` moved to a search teacher's `shares` (`search_shares`) when it searched."""
    target = np.zeros(actions, dtype=np.float32)
    if tied is not None:
        target[tied] = 1.0 / len(tied)
        return target.astype(np.float16)
    target[action] = 1.0
    if shares and weight:
        target *= 1.0 - weight
        for first, share in shares.items():
            target[first] += weight * share
    return target.astype(np.float16)


def _concatenate(chunks: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """Each column of the games' chunks joined into one array, letting go of every chunk once copied: the
    chunks and the result are never both held whole (a Chromino warm start holds gigabytes)."""
    total = sum(len(chunk[0]) for chunk in chunks)
    columns = [np.empty((total, *column.shape[1:]), dtype=column.dtype) for column in chunks[0]]
    start = 0
    for i in range(len(chunks)):
        chunk, chunks[i] = chunks[i], None
        for column, part in zip(columns, chunk):
            column[start : start + len(part)] = part
        start += len(chunk[0])
    return tuple(columns)


def masked_log_probs(policy, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return _masked_log_softmax(actor_logits(policy, observations), masks)


def _masked_log_softmax(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(torch.where(masks, logits, torch.full_like(logits, MASKED_LOGIT)), dim=1)


@dataclass
class FitResult:
    epochs: int
    decisions: int
    train_loss: float
    in_tie_accuracy: float  # held out: the clone's most likely move is one the teacher's target rates highest
    value_mse: float  # held out, the critic of its best epoch
    value_mse_of_zero: float  # held out, a critic that always says 0 (the outcome's own spread)
    value_epoch: int  # the epoch whose critic was kept
    seconds: float

    def to_dict(self) -> dict:
        return dict(vars(self))


def fit(
    policy,
    data: Decisions,
    epochs: int,
    batch_size: int = 512,
    learning_rate: float = 1e-3,
    value_coef: float = 1.0,
    holdout: float = 0.05,
    seed: int = 0,
    log=None,
) -> FitResult:
    """Cross-entropy of the masked policy against the teacher's targets, plus the value head's squared
    error on the returns; Adam. The games held out (`holdout`) measure accuracy and value error after
    every epoch, and the critic of the epoch with the least error is kept: outcomes are mostly luck,
    and a critic memorises the games it saw long before the policy stops improving."""
    started = time.process_time()
    rng = np.random.default_rng(seed)
    train, test = data.split(holdout)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    loss_sum, best_mse, best_epoch, best_critic = 0.0, float("inf"), 0, None
    for epoch in range(epochs):
        order = rng.permutation(len(train))
        loss_sum, batches = 0.0, 0
        for start in range(0, len(order), batch_size):
            index = np.sort(order[start : start + batch_size])
            obs, masks, target, returns = _tensors(train, index)
            target = target / target.sum(dim=1, keepdim=True)  # float16 rounding
            cross_entropy, values = _clone_losses(policy, obs, masks, target)
            value_error = torch.nn.functional.mse_loss(values.squeeze(1), returns)
            loss = cross_entropy + value_coef * value_error
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum, batches = loss_sum + cross_entropy.item(), batches + 1
        accuracy, mse = evaluate_clone(policy, test)
        if mse < best_mse or not len(test):
            best_mse, best_epoch = mse, epoch + 1
            best_critic = {k: v.clone() for k, v in policy.state_dict().items() if k.startswith(CRITIC)}
        if log is not None:
            log(
                f"epoch {epoch + 1}/{epochs}: cross-entropy {loss_sum / batches:.4f}, held-out in-tie accuracy {accuracy:.4f}, value mse {mse:.4f}"
            )
    policy.set_training_mode(False)
    if best_critic is not None:
        policy.load_state_dict(best_critic, strict=False)
    accuracy, mse = evaluate_clone(policy, test)
    zero = float(np.mean(test.returns.astype(np.float64) ** 2)) if len(test) else 0.0
    return FitResult(
        epochs, len(train), loss_sum / max(1, batches), accuracy, mse, zero, best_epoch, time.process_time() - started
    )


def _clone_losses(policy, obs: torch.Tensor, masks: torch.Tensor, target: torch.Tensor):
    """(the cross-entropy against the teacher's targets, averaged over the batch; the critic's values). With the
    learner's `skip_forced` the actor runs only on the decisions with a choice, as in PPO's update: a forced move's
    cross-entropy is 0 whatever the weights, so the loss is the same up to float rounding."""
    if not getattr(policy, "skip_forced", False):
        return -(target * masked_log_probs(policy, obs, masks)).sum(dim=1).mean(), policy.predict_values(obs)
    _, choices, latent_pi, latent_vf = policy.choice_latents(obs, masks)
    log_probs = _masked_log_softmax(policy.action_net(latent_pi), masks[choices])
    return -(target[choices] * log_probs).sum() / len(obs), policy.value_net(latent_vf)


def evaluate_clone(policy, data: Decisions, batch_size: int = 2048) -> tuple[float, float]:
    """(in-tie accuracy, value mse) of `policy` on `data`."""
    hits, squared = 0, 0.0
    with torch.no_grad():
        for start in range(0, len(data), batch_size):
            index = np.arange(start, min(len(data), start + batch_size))
            obs, masks, target, returns = _tensors(data, index)
            choice = masked_log_probs(policy, obs, masks).argmax(dim=1)
            hits += int((target[torch.arange(len(index)), choice] == target.max(dim=1).values).sum())
            squared += float(((policy.predict_values(obs).squeeze(1) - returns) ** 2).sum())
    return hits / max(1, len(data)), squared / max(1, len(data))


def _tensors(data: Decisions, index: np.ndarray):
    return (
        torch.from_numpy(data.observations[index].astype(np.float32)),
        torch.from_numpy(data.masks[index]),
        torch.from_numpy(data.target[index].astype(np.float32)),
        torch.from_numpy(data.returns[index]),
    )


def warm_start(policy, config, run_dir: Path, eval_seed: int, progress: bool = True) -> tuple[list[Matchup], float]:
    """The config's `warm_start`, into `policy` in place: collect, fit, evaluate the clone against every
    baseline; writes `warm_start.json` into the run folder and returns the clone's evaluation and the
    CPU seconds that evaluation took."""
    ws = config.sb3.warm_start
    log = print if progress else None
    began = time.process_time()
    data = collect(
        config.env,
        ws.teacher,
        ws.opponents or [ws.teacher],
        ws.games,
        config.ppo.gamma,
        seed=config.seed + WARM_SEED_OFFSET,
        search_share=ws.search_share,
    )
    collected = time.process_time() - began
    if log:
        log(f"warm start: {len(data)} decisions of {ws.teacher} in {ws.games} games ({collected:.0f} CPU s)")
    result = fit(policy, data, ws.epochs, ws.batch_size, ws.learning_rate, ws.value_coef, seed=config.seed, log=log)
    rows, fitted = [], time.process_time()
    if ws.eval_games:
        agent = PolicyAgent(policy, name="warm start")
        rows = evaluate(agent, config.env, ws.eval_games, seed=eval_seed, learner_seats=config.learner_seats)
        if log:
            log("the clone, before PPO:\n" + format_table(rows, config.learner_seats))
    report = {
        "teacher": ws.teacher,
        "search_share": ws.search_share,  # read only for a search teacher
        "games": ws.games,
        "decisions": len(data),
        "collect_cpu_seconds": collected,
        "fit": result.to_dict(),
        "cpu_seconds": fitted - began,  # collecting and fitting
        "eval_cpu_seconds": time.process_time() - fitted,
        "results": [m.to_dict() for m in rows],
    }
    (Path(run_dir) / REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n")
    return rows, report["eval_cpu_seconds"]

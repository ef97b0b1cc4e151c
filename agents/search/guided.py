"""The network-guided search player (`search:policy=...`): Gumbel AlphaZero's root search over determinized worlds.

At each decision the network's logits over the legal moves (the seat's own observation) are the prior. Gumbel
top-k draws `candidates` moves from it without replacement (Danihelka et al. 2022, "Policy improvement by planning
with Gumbel"; mctx's `gumbel_muzero_policy`), and sequential halving spends `sims` evaluations on them: each round
draws fresh worlds with `State.resample(seat, rng)` (consistent with what the seat knows, never the true state),
evaluates every surviving candidate on every world (common worlds, as the plain search), and keeps the half with
the highest g(a) + logit(a) + sigma(q(a)). An evaluation plays the candidate, then ends by `leaf`: a heuristic
rollout, the network's value (after `depth` heuristic actions), or the network's own moves in every seat (SPARTA
for KRZ GRTN: partners follow the learned team's policy). Network passes are batched across worlds and
candidates. With `read`, a move that a partner's later decision reads (a KRZ GRTN giver's clue) is judged by how
well that partner's belief, drawn from what it knows, finds the truth after the network plays on. The move is the
best survivor; the improved policy (`improved`, the trainer's target) is
softmax(logits + sigma(completed q)), the unvisited moves' q completed by the mixed value (mctx's
`qtransform_completed_by_mix_value`). This is a search at the root information set only, like the plain search.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tabletop.agents.search.player import DEFAULT_ROLLOUT, outcome, play_out
from tabletop.agents.search.spec import GuidedOptions
from tabletop.envs.core.aec import offending_team


def completed_q(
    logits: np.ndarray, q: np.ndarray, visits: np.ndarray, legal: np.ndarray, root: float | None, options
) -> np.ndarray:
    """sigma(completed q) over the legal moves (0 elsewhere): the visited moves' mean values, the others the mixed
    value (the root's value and the prior-weighted mean of the visited q; without a root value, that mean alone),
    rescaled to [0, 1] over the legal moves and scaled by (c_visit + max visits) * c_scale."""
    prior = np.exp(logits[legal] - logits[legal].max())
    prior /= prior.sum()
    seen = visits[legal] > 0
    if seen.any():
        weighted = float((prior[seen] * q[legal][seen]).sum() / prior[seen].sum())
        total = float(visits.sum())
        mixed = weighted if root is None else (root + total * weighted) / (total + 1)
    else:
        mixed = 0.0 if root is None else root
    values = np.where(seen, q[legal], mixed)
    spread = values.max() - values.min()
    values = (values - values.min()) / max(spread, 1e-8)
    out = np.zeros(len(logits))
    out[legal] = (options.visit + visits.max()) * options.scale * values
    return out


def softmax_over(scores: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """softmax(scores) over the legal moves, 0 elsewhere."""
    out = np.zeros(len(scores))
    z = np.exp(scores[legal] - scores[legal].max())
    out[legal] = z / z.sum()
    return out


def unread(state: Any) -> bool:
    """Whether play goes on before a decision that the partners' moves inform (in KRZ GRTN, X's guess)."""
    return not state.is_terminal() and not state.informed(state.current_player)


class GuidedSearch:
    """Reads its seat's observation (for the prior), the mask and `sample`, one full state drawn from what the seat
    knows (agents.base.act_for); every world comes from `sample.resample(seat, rng)`."""

    needs_observation = True
    needs_sample = True

    def __init__(self, env: Any, game: str, policies: dict[str, type], options: GuidedOptions, net, seed=None, name=""):
        """`env`: the table's EnvSpec; `net`: agents/search/networks.py's `TorchNet` or `OnnxNet`; `policies`: the
        heuristics `options.rollout` may name (default: the plain search's rollout heuristic for the game)."""
        self.table = env.make_raw()
        self.game_rules = self.table.game
        cooperative = getattr(self.game_rules, "shared_reward", False)
        leaf = options.leaf or ("policy" if cooperative else "value" if net.has_value else "rollout")
        rollout = options.rollout or DEFAULT_ROLLOUT.get(game, "")
        if leaf == "value" and not net.has_value:
            raise ValueError(f"search: leaf=value needs a network with a value head; {net.name} has none")
        if (leaf == "rollout" or leaf == "value" and options.depth) and rollout not in policies:
            raise ValueError(
                f"search: unknown rollout policy {rollout!r} for {env.env_id}; allowed: {', '.join(policies)}"
            )
        sides = len({tuple(offending_team(self.game_rules, s)) for s in range(self.game_rules.num_players)})
        if leaf != "rollout" and sides > 2:
            raise ValueError(
                f"search: leaf={leaf} reads the network's value for the seat to move, which needs two sides or one "
                f"team; {env} has {sides}: use leaf=rollout"
            )
        if options.read and not (cooperative and leaf == "policy"):
            raise ValueError(
                f"search: read={options.read} reads a partner's belief after the network's own play-out, so it needs "
                f"a cooperative game (krz_grtn_v1) and leaf=policy"
            )
        self.options, self.net, self.leaf = options, net, leaf
        self.heuristic = policies.get(rollout)
        self.observation_options = net.observation_options
        self.observer = self.table.observer_for(net.observation_options)
        self.name = name or f"search:policy={net.name}"
        self.rng = np.random.default_rng(seed)
        self.improved: np.ndarray | None = None  # the last decision's improved policy over every action
        self.root_value: float | None = None  # the network's value of the last decision's position, if it has one
        self.weighed: tuple[list[Any], np.ndarray] | None = None  # this decision's belief: worlds and weights
        self.reads = False  # whether this decision's evaluations play on to a partner's reading (`read`)

    def act(self, observation: Any, action_mask: np.ndarray, view: Any = None, sample: Any = None) -> int:
        if sample is None or observation is None:
            raise ValueError(
                "the guided search player needs its observation and sample=state.resample(seat, rng) from the game "
                "loop (tabletop.agents.base.act_for)"
            )
        legal = np.asarray(action_mask, dtype=bool)
        logits, values = self.net(np.asarray(observation)[None], legal[None])
        logits, self.root_value = logits[0], None if values is None else float(values[0])
        actions = np.flatnonzero(legal)
        if len(actions) == 1:
            self.improved = legal.astype(float)
            return int(actions[0])
        seat = sample.current_player
        self.weighed = self.belief(sample, seat)
        self.reads = bool(self.options.read) and sample.informs(seat)
        gumbel = self.options.gumbel * self.rng.gumbel(size=len(logits))
        base = np.where(legal, gumbel + logits, -np.inf)
        m = min(self.options.candidates, len(actions))
        alive = [int(a) for a in np.argsort(-base, kind="stable")[:m]]
        total, visits = np.zeros(len(logits)), np.zeros(len(logits))
        rounds = math.ceil(math.log2(m))
        for r in range(rounds):
            worlds = max(1, self.options.sims // (rounds * len(alive)))
            results = self.evaluate(sample, seat, alive, worlds)  # [worlds, len(alive)]
            total[alive] += results.sum(0)
            visits[alive] += worlds
            q = np.divide(total, visits, out=np.zeros_like(total), where=visits > 0)
            sigma = completed_q(logits, q, visits, legal, self.root_value, self.options)
            score = base + sigma
            keep = max(1, math.ceil(len(alive) / 2)) if r < rounds - 1 else 1
            alive = sorted(alive, key=lambda a: (-score[a], a))[:keep]
        self.improved = softmax_over(logits + sigma, legal)
        self.weighed = None
        return alive[0]

    def belief(self, sample: Any, seat: int) -> tuple[list[Any], np.ndarray] | None:
        """SPARTA's belief where the game replays the partners' moves that inform this decision (`evidence`):
        `options.belief` worlds drawn from what `seat` knows, each as its `alternatives` (KRZ GRTN: every laid-out
        picture as the target), weighed by the network's chance of those moves there. None without such moves."""
        if not self.options.belief or not hasattr(sample, "informed") or not sample.informed(seat):
            return None
        worlds = self.draws(sample, seat, self.options.belief)
        log_chance = self.log_chances([world.evidence(seat) for world in worlds])
        weights = np.exp(log_chance - log_chance.max())
        return worlds, weights / weights.sum()

    def draws(self, state: Any, seat: int, count: int) -> list[Any]:
        """`count` worlds drawn from what `seat` knows in `state`, each as its `alternatives`."""
        return [alternative for _ in range(count) for alternative in state.resample(seat, self.rng).alternatives(seat)]

    def log_chances(self, evidence: list[list[tuple[Any, int, int]]]) -> np.ndarray:
        """Per world, the log of the network's chance of its replayed moves, all worlds in one batched pass."""
        moves = [move for world in evidence for move in world]
        observations = np.stack([self.observer.encode(position, mover) for position, mover, _ in moves])
        masks = np.stack([position.legal_action_mask() for position, _, _ in moves])
        logits, _ = self.net(observations, masks)
        top = logits.max(1)
        chosen = logits[np.arange(len(moves)), [move for _, _, move in moves]]
        per_move = chosen - top - np.log(np.exp(logits - top[:, None]).sum(1))
        return np.add.reduceat(per_move, np.cumsum([0] + [len(world) for world in evidence[:-1]]))

    def reading(self, states: list[Any]) -> np.ndarray:
        """Per state, the chance that the belief of the seat to move (`options.read` draws) puts on the truth
        where the partners' moves inform its decision, else 0."""
        out = np.zeros(len(states))
        groups: list[tuple[int, int, int, np.ndarray]] = []  # (state, first world, worlds, which are true)
        evidence: list[list[tuple[Any, int, int]]] = []
        for i, state in enumerate(states):
            reader = state.current_player
            if state.is_terminal() or not state.informed(reader):
                continue
            worlds = self.draws(state, reader, self.options.read)
            size = len(worlds) // self.options.read
            groups.append((i, len(evidence), len(worlds), np.arange(len(worlds)) % size == state.truth(reader)))
            evidence.extend(world.evidence(reader) for world in worlds)
        if groups:
            log_chance = self.log_chances(evidence)
            for i, start, count, true in groups:
                chance = np.exp(log_chance[start : start + count] - log_chance[start : start + count].max())
                out[i] = chance[true].sum() / chance.sum()
        return out

    def draw_world(self, sample: Any, seat: int) -> Any:
        """A world to evaluate on: drawn by weight from the belief where there is one, else from the rules alone."""
        if self.weighed is None:
            return sample.resample(seat, self.rng)
        worlds, weights = self.weighed
        return worlds[self.rng.choice(len(worlds), p=weights)]

    def evaluate(self, sample: Any, seat: int, moves: list[int], worlds: int) -> np.ndarray:
        """Each of `moves` on each of `worlds` fresh worlds, as `seat`'s result: a row per world."""
        states, seeds = [], []
        for _ in range(worlds):
            world, seed = self.draw_world(sample, seat), int(self.rng.integers(2**31))
            for move in moves:
                after = world.clone()
                after.apply(move)
                states.append(after)
                seeds.append(seed)
        if self.leaf == "policy":
            results = self.policy_leaves(states, seat)
        else:
            results = np.empty(len(states))
            pending = []
            for i, (state, seed) in enumerate(zip(states, seeds)):
                if self.heuristic is not None and (self.leaf == "rollout" or self.options.depth):
                    play_out(self.heuristic, state, seed, self.options.depth)
                if self.leaf == "value" and not state.is_terminal():
                    pending.append(i)
                else:
                    results[i] = outcome(state, seat, self.options.value)
            results[pending] = self.values([states[i] for i in pending], seat)
        return results.reshape(worlds, len(moves))

    def values(self, states: list[Any], seat: int) -> np.ndarray:
        """The network's value of each state for `seat`: its value for the seat to move, negated for a rival."""
        if not states:
            return np.zeros(0)
        movers = [s.current_player for s in states]
        observations = np.stack([self.observer.encode(s, p) for s, p in zip(states, movers)])
        masks = np.stack([s.legal_action_mask() for s in states])
        _, values = self.net(observations, masks)
        partners = offending_team(self.game_rules, seat)
        return np.where(partners[movers], values, -values)

    def policy_leaves(self, states: list[Any], seat: int) -> np.ndarray:
        """Every state played on by the network's most likely move in every seat, all states in one batch a step,
        to the end (or `depth` actions, then the network's value where it has one, else who leads). Where this
        decision reads on (`read`), to the next decision the partners' moves inform (X's guess), counting the
        margin and the chance that decision's belief puts on the truth."""
        if self.reads:
            live = [i for i, state in enumerate(states) if unread(state)]
            while live:
                self.play_network(states, live)
                live = [i for i in live if unread(states[i])]
            return np.array([outcome(s, seat, "margin") for s in states]) + self.reading(states)
        steps = 0
        live = [i for i, s in enumerate(states) if not s.is_terminal()]
        while live and (not self.options.depth or steps < self.options.depth):
            self.play_network(states, live)
            live = [i for i in live if not states[i].is_terminal()]
            steps += 1
        results = np.array([outcome(s, seat, self.options.value) for s in states])
        if live and self.net.has_value:
            results[live] = self.values([states[i] for i in live], seat)
        return results

    def play_network(self, states: list[Any], live: list[int]) -> None:
        """One move in each of the `live` states, the network's most likely, in one batched pass."""
        observations = np.stack([self.observer.encode(states[i], states[i].current_player) for i in live])
        masks = np.stack([states[i].legal_action_mask() for i in live])
        logits, _ = self.net(observations, masks)
        for i, action in zip(live, logits.argmax(1)):
            states[i].apply(int(action))

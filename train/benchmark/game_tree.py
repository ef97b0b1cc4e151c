"""A small game's whole tree, walked once, so that each NashConv of a policy network is one network pass over every
information state and sums over stored arrays, not another walk through the engine.

`GameTree(game)` records every history in preorder: who moves (a player, chance or nobody at a terminal), the
children, chance probabilities, terminal returns and, for each decision, its information state: the acting
seat's observation tensor (a function of what it knows) and legal actions, kept once per information state.
`nash_conv(probabilities)` is OpenSpiel's `exploitability.nash_conv` over those arrays: the sum over players of
a best response's value against the policy minus the policy's own value. The best response is computed as
OpenSpiel's `BestResponsePolicy` computes it: at each of the responder's information states the action of
highest value weighted by the others' and chance's reach, recursively, since an information state's histories
may sit at different depths.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

CHANCE = -1
TERMINAL = -2


class GameTree:
    """Every history of `game` in preorder, with one row per information state."""

    def __init__(self, game):
        self.num_players = game.num_players()
        self.mover: list[int] = []  # a player, CHANCE or TERMINAL
        self.children: list[list[int]] = []
        self.chance: list[list[float]] = []  # chance nodes: each child's probability
        self.infoset: list[int] = []  # decision nodes: the row of the acting seat's information state
        self.returns: dict[int, np.ndarray] = {}
        self.legal: list[list[int]] = []  # per information state
        self.owner: list[int] = []  # per information state: whose it is
        observations: list[np.ndarray] = []
        rows: dict[tuple[int, str], int] = {}
        stack = [game.new_initial_state()]
        parents: list[int] = [-1]
        while stack:
            state, parent = stack.pop(), parents.pop()
            node = len(self.mover)
            if parent >= 0:
                self.children[parent].append(node)
            self.children.append([])
            self.chance.append([])
            self.infoset.append(-1)
            if state.is_terminal():
                self.mover.append(TERMINAL)
                self.returns[node] = np.asarray(state.returns(), dtype=np.float64)
                continue
            if state.is_chance_node():
                self.mover.append(CHANCE)
                outcomes = state.chance_outcomes()
                self.chance[node] = [p for _, p in outcomes]
                actions = [a for a, _ in outcomes]
            else:
                player = state.current_player()
                self.mover.append(player)
                key = (player, state.information_state_string(player))
                row = rows.get(key)
                if row is None:
                    row = rows[key] = len(self.legal)
                    self.legal.append(state.legal_actions(player))
                    self.owner.append(player)
                    observations.append(np.asarray(state.observation_tensor(player), dtype=np.float32))
                self.infoset[node] = row
                actions = self.legal[row]
            for action in reversed(actions):  # popped in order: children in the order of `actions`
                stack.append(state.child(action))
                parents.append(node)
        self.observations = np.stack(observations)

    def probabilities(self, logits_of: Callable[[np.ndarray], np.ndarray], chunk: int = 1024) -> list[np.ndarray]:
        """Each information state's masked softmax over its legal actions, from `logits_of(observations)`."""
        rows: list[np.ndarray] = []
        for start in range(0, len(self.legal), chunk):
            logits = np.asarray(logits_of(self.observations[start : start + chunk]), dtype=np.float64)
            for offset, row in enumerate(logits):
                legal = row[self.legal[start + offset]]
                weights = np.exp(legal - legal.max())
                rows.append(weights / weights.sum())
        return rows

    def nash_conv(self, policy: list[np.ndarray]) -> float:
        """NashConv of the policy giving `policy[row]` (aligned with `legal[row]`) at each information state."""
        on_policy = self._policy_values(policy)
        return float(sum(self._best_response_value(p, policy) - on_policy[p] for p in range(self.num_players)))

    def _step_probabilities(self, node: int, policy: list[np.ndarray]) -> list[float] | np.ndarray:
        return self.chance[node] if self.mover[node] == CHANCE else policy[self.infoset[node]]

    def _policy_values(self, policy: list[np.ndarray]) -> np.ndarray:
        """Every player's expected return at the root when all play `policy`."""
        values: list[np.ndarray] = [np.zeros(0)] * len(self.mover)
        for node in range(len(self.mover) - 1, -1, -1):  # children come after their parent in preorder
            if self.mover[node] == TERMINAL:
                values[node] = self.returns[node]
            else:
                step = self._step_probabilities(node, policy)
                values[node] = sum(p * values[c] for p, c in zip(step, self.children[node]))
        return values[0]

    def _best_response_value(self, player: int, policy: list[np.ndarray]) -> float:
        """The value at the root of `player`'s best response to everyone else playing `policy`."""
        reach = np.zeros(len(self.mover))  # the others' and chance's reach probability
        reach[0] = 1.0
        members: dict[int, list[int]] = {}
        for node in range(len(self.mover)):
            mover = self.mover[node]
            if mover == TERMINAL:
                continue
            if mover == player:
                members.setdefault(self.infoset[node], []).append(node)
                for child in self.children[node]:
                    reach[child] = reach[node]
            else:
                for p, child in zip(self._step_probabilities(node, policy), self.children[node]):
                    reach[child] = reach[node] * p
        values: dict[int, float] = {}
        chosen: dict[int, int] = {}

        def value(node: int) -> float:
            found = values.get(node)
            if found is not None:
                return found
            mover = self.mover[node]
            if mover == TERMINAL:
                result = float(self.returns[node][player])
            elif mover == player:
                row = self.infoset[node]
                if row not in chosen:
                    totals = [
                        sum(reach[h] * value(self.children[h][k]) for h in members[row])
                        for k in range(len(self.legal[row]))
                    ]
                    chosen[row] = int(np.argmax(totals))
                result = value(self.children[node][chosen[row]])
            else:
                step = self._step_probabilities(node, policy)
                result = sum(p * value(c) for p, c in zip(step, self.children[node]) if p > 0.0)
            values[node] = result
            return result

        return value(0)  # the recursion is as deep as the game is long (under 100 frames on the small variants)

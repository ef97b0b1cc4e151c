"""Any of our players as an OpenSpiel policy, so OpenSpiel's `exploitability`, `best_response` and
`policy_aggregator` evaluate it.

At a decision of one of our OpenSpiel games (`tabletop.envs.openspiel`) the agent reads what it reads at a
PettingZoo table: the seat's observation, mask and view of the settled rules state (a search player also its
sample drawn from what the seat knows). A policy must be a function of the information state, and exact tools
visit states in any order: so a heuristic or a search player (which may remember the game it follows) answers
each information state as a fresh agent, its generator seeded from the information state string, and each
answer is kept for that string. A policy network (`ppo:`, `onnx:`, `pretrained`) remembers nothing and is reused.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from open_spiel.python import policy as openspiel_policy

from tabletop.agents.base import act_for
from tabletop.agents.registry import make_agent
from tabletop.envs import EnvSpec
from tabletop.envs.openspiel import PREFIX
from tabletop.envs.openspiel.game import env_kwargs


def env_spec(game: Any) -> EnvSpec:
    """The env (id and arguments) of one of our OpenSpiel games."""
    env_id = game.get_type().short_name.removeprefix(PREFIX)
    return EnvSpec(env_id, env_kwargs(env_id, game.get_parameters()))


class AgentPolicy(openspiel_policy.Policy):
    """The agent spec `spec` (random, a heuristic, `search:...`, `ppo:RUN`, `onnx:DIR`, `pretrained` where it fits
    the game) playing every seat of `game` as a policy over information states."""

    def __init__(self, game: Any, spec: str, seed: int = 0):
        super().__init__(game, list(range(game.num_players())))
        self.spec = env_spec(game)
        self.agent_spec = spec
        self.network = spec == "pretrained" or spec.startswith(("ppo:", "onnx:"))
        self.agent = make_agent(self.spec, spec, seed=seed)
        self.env = self.spec.make_raw()
        self.seed = seed
        self.uniform = spec == "random"
        self._answers: dict[str, dict[int, float]] = {}

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        legal = state.legal_actions()
        if self.uniform:
            return {a: 1 / len(legal) for a in legal}
        seat = state.current_player()
        key = state.information_state_string(seat)
        if key not in self._answers:
            digest = hashlib.sha256(f"{self.seed} {key}".encode()).digest()
            seed = int.from_bytes(digest[:8], "little") % 2**31
            agent = self.agent if self.network else make_agent(self.spec, self.agent_spec, seed=seed)
            if hasattr(agent, "rng"):
                agent.rng = np.random.default_rng(seed)
            self._answers[key] = {int(act_for(agent, self.env, state.rules, seat)): 1.0}
        return self._answers[key]

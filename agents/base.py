"""The agent protocol: what every player (random, heuristic, trained, ONNX, human) offers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from tabletop.envs import EnvSpec


@runtime_checkable
class Agent(Protocol):
    """Chooses one legal action.

    `observation` and `action_mask` are what a learner gets from the env; `view` is the structured
    picture of the same knowledge (`State.view(seat)`). Heuristics read `view`; policies read the
    vectors. Neither ever sees more than the seat may know.
    """

    name: str
    """How results and logs name this player (its spec, e.g. `greedy` or `onnx:exports/cromlet`)."""

    needs_observation: bool
    """Whether `act` reads the observation vector. Encoding costs time, so game loops (tournaments, the
    seat env, `tabletop play`) encode only for agents that say True and pass None to the others."""

    # Optional: `needs_sample`, True for a player that searches: its `act` then also takes `sample=`, a full
    # state drawn from what the seat knows (`act_for` passes `state.resample(seat, ...)`, never the state).
    # Optional: `observation_options`, the observer arguments (e.g. `{"features": ("lookahead",)}`) of the
    # vector `act` reads, when they may differ from the table's; absent or None, the table's own.

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        """A legal action for the seat to move: one where `action_mask` is 1."""


def observation_for(agent: Agent, env: Any, state: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray | None:
    """The vector `agent` reads for `seat` in `state` of the raw env `env` (None if it reads none), encoded
    with the observer options it was trained with: a policy that reads the look-ahead features plays at
    a table built without them."""
    if not agent.needs_observation:
        return None
    return env.observer_for(getattr(agent, "observation_options", None)).encode(state, seat, out=out)


def act_for(agent: Agent, env: Any, state: Any, seat: int) -> int:
    """`agent`'s action for `seat` in `state`, from what it reads: the observation (`observation_for`), the mask,
    the view, and for an agent that searches (`needs_sample`) one state drawn from what `seat` knows,
    `state.resample(seat, ...)` with a fixed generator (so it depends on that knowledge only), never `state`."""
    obs, mask, view = observation_for(agent, env, state, seat), state.legal_action_mask(), state.view(seat)
    return agent.act(obs, mask, view, **sample_for(agent, state, seat))


def sample_for(agent: Agent, state: Any, seat: int) -> dict[str, Any]:
    """The keyword arguments of `agent.act` beyond what every agent reads: for an agent that searches
    (`needs_sample`), `sample=` one state drawn from what `seat` knows with a fixed generator; otherwise none.
    For loops that call `act` themselves, e.g. on another thread."""
    if getattr(agent, "needs_sample", False):
        return {"sample": state.resample(seat, np.random.default_rng(0))}
    return {}


UNSEEN_BY_POLICY = ("render_mode", "illegal_action", "reward")  # arguments that change nothing a policy reads


def policy_key(spec: EnvSpec) -> dict:
    """The arguments that change what a policy plays: all but rendering, illegal-action handling, reward and
    observation feature groups (a policy encodes its own)."""
    unseen = (*UNSEEN_BY_POLICY, *spec.definition.observer_options({}))
    return {k: v for k, v in spec.resolved().items() if k not in unseen}


class RandomAgent:
    """Uniform over legal actions, from its own seeded generator."""

    name = "random"
    needs_observation = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, view: dict[str, Any]) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action to choose from (all-zero action mask)")
        return int(legal[self.rng.integers(legal.size)])

"""The `search:KEY=VALUE,...` agent spec: what each key means, its default and its check."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

PREFIX = "search"


@dataclass(frozen=True)
class SearchOptions:
    """A search player's settings. `sims` (rollouts per decision) or `seconds` (CPU seconds per decision)
    sets the budget; `sims` wins when both are given. `rollout` names the heuristic that plays every seat in
    the rollouts (empty: the game's default, `DEFAULT_ROLLOUT`); `guide` the heuristic whose choice comes first
    and whose ranking orders the other candidates (empty: the rollout heuristic), so a strong but slow heuristic
    can lead while a cheap one plays the rollouts. `candidates` caps the moves compared at one
    decision; `depth` cuts a rollout after that many actions (0: play to the end). `value` is what a rollout
    counts: `win` the seat's result (+1 / 0 / -1; at a cut, who leads), `margin` its score less the best
    score outside its team (less noise per rollout, and it aims at the margin rather than the win). `guard=Z` (Z > 0)
    keeps the guide's own choice to the last round and leaves it only for a rival whose paired lead
    on that round's worlds exceeds Z standard errors (0: off, the best mean wins). The defaults, `margin` and
    `guard=1`, are what beat the strongest heuristics in docs/results.md ("Search players").
    `plies=W1/W2/...` replaces the rollouts to the end by a short look-ahead (Kings Cribbage, either action
    mode): on every world each candidate is followed by the rollout heuristic's moves for as many turns as
    there are weights, and its value is the guide's value of the move plus the weighted points of those turns
    (the seat's own for it, the others' against it), averaged over the worlds; `value`, `depth` and `guard`
    then do not apply."""

    sims: int = 0
    seconds: float = 0.0
    rollout: str = ""
    guide: str = ""
    candidates: int = 16
    depth: int = 0
    value: str = "margin"
    guard: float = 1.0
    plies: str = ""

    def __post_init__(self):
        if self.sims < 0 or self.seconds < 0 or self.depth < 0:
            raise ValueError(f"search: sims, seconds and depth must not be negative, got {self}")
        if self.candidates < 2:
            raise ValueError(f"search: candidates must be at least 2, got {self.candidates}")
        if not self.guard >= 0:  # NaN fails too
            raise ValueError(
                f"search: guard must be a number of standard errors of at least 0 (0: off), got {self.guard}"
            )
        if self.value not in VALUES:
            raise ValueError(f"search: value must be one of {', '.join(VALUES)}, got {self.value!r}")
        if not self.sims and not self.seconds:
            object.__setattr__(self, "sims", DEFAULT_SIMS)
        parse_plies(self.plies)  # fail now, naming the fault

    @property
    def ply_weights(self) -> tuple[float, ...]:
        """`plies` as numbers (empty: rollouts to the end)."""
        return parse_plies(self.plies)


def parse_plies(plies: str) -> tuple[float, ...]:
    """`0.5/0.5` -> (0.5, 0.5); empty -> (); anything else a one-line ValueError."""
    if not plies:
        return ()
    try:
        weights = tuple(float(w) for w in plies.split("/"))
    except ValueError:
        weights = ()
    if not weights or not all(0 <= w < math.inf for w in weights):
        raise ValueError(
            f"search: plies must be weights >= 0 separated by '/', one a turn after the move, as plies=0.5/0.5; "
            f"got {plies!r}"
        )
    return weights


@dataclass(frozen=True)
class GuidedOptions:
    """A network-guided search player's settings (agents/search/guided.py), chosen by `policy=` in the spec.
    `policy` names the network (`pretrained`, `onnx:DIR`: an export folder, or `ppo:PATH`: a policy file or run
    folder); `sims` is the number of evaluations per decision (one candidate on one world each), spread by
    sequential halving over `candidates` moves drawn by Gumbel top-k from the network's prior. `leaf` says how an
    evaluation ends: `rollout` the `rollout` heuristic in every seat to the end (or `depth` actions); `value` the
    network's value after `depth` actions of that heuristic (a policy file with a critic); `policy` the network's
    own moves in every seat to the end (or `depth` actions, then its value), batched across worlds (KRZ GRTN's
    partners). Empty: `policy` for a cooperative game, `value` for a network with a critic, else `rollout`. `value`
    is what a rollout's end counts, as the plain search's. `gumbel` scales the Gumbel noise (0: the prior's top
    moves, deterministic play; 1: Gumbel AlphaZero's sampled policy, what training uses); `scale` and `visit` are
    the completed-Q transform's c_scale and c_visit (mctx's defaults 0.1 and 50). `belief` is how many worlds a
    belief draws where the game replays the partners' moves that inform the decision (KRZ GRTN's clues at X's
    guess): each is weighed by the network's chance of those moves there, and the evaluations' worlds are drawn
    by weight (SPARTA's belief); 0 draws every world from the rules alone. `read=N` (with `leaf=policy` and
    `value=margin`) judges a move that a partner's later decision reads (a KRZ GRTN giver's clue): its evaluation
    plays the network on to that decision and adds to the margin the chance that the partner's belief, over N
    worlds drawn from what the partner knows, puts on the truth; 0 (the default) cuts by `depth` alone."""

    policy: str = ""
    sims: int = 32
    candidates: int = 8
    leaf: str = ""
    rollout: str = ""
    depth: int = 0
    value: str = "win"
    gumbel: float = 0.0
    scale: float = 0.1
    visit: float = 50.0
    belief: int = 32
    read: int = 0

    def __post_init__(self):
        if not self.policy:
            raise ValueError("search: policy= names the guiding network: pretrained, onnx:DIR or ppo:PATH")
        if self.sims < 1 or self.depth < 0 or self.belief < 0 or self.read < 0:
            raise ValueError(
                f"search: sims must be at least 1, depth, belief and read not negative, got {self.sims}, "
                f"{self.depth}, {self.belief}, {self.read}"
            )
        if self.read and self.value != "margin":
            raise ValueError(f"search: read={self.read} adds a partner's reading to a margin, so it needs value=margin")
        if self.candidates < 2:
            raise ValueError(f"search: candidates must be at least 2, got {self.candidates}")
        if self.leaf not in ("", *LEAVES):
            raise ValueError(f"search: leaf must be one of {', '.join(LEAVES)}, got {self.leaf!r}")
        if self.value not in VALUES:
            raise ValueError(f"search: value must be one of {', '.join(VALUES)}, got {self.value!r}")
        if not (self.gumbel >= 0 and self.scale > 0 and self.visit >= 0):  # NaN fails too
            raise ValueError(f"search: gumbel and visit must be at least 0 and scale above 0, got {self}")


DEFAULT_SIMS = 100
VALUES = ("win", "margin")
LEAVES = ("rollout", "value", "policy")
# each key's annotation, a string ("int", "float", "str") under `from __future__ import annotations`
KEYS = {f.name: str(f.type) for f in fields(SearchOptions)}
GUIDED_KEYS = {f.name: str(f.type) for f in fields(GuidedOptions)}
_CASTS = {
    "int": (int, "an int"),
    "float": (float, "a number"),
    "str": (str, "a string"),
}  # (cast, its name in an error)


def parse_search(spec: str) -> SearchOptions | GuidedOptions:
    """`search` or `search:sims=200,rollout=patient` -> SearchOptions; with `policy=` (`search:policy=pretrained`)
    GuidedOptions; anything else a one-line ValueError naming the fault and the allowed keys."""
    head, _, body = spec.partition(":")
    if head != PREFIX:
        raise ValueError(f"not a search spec: {spec!r} (expected search or search:KEY=VALUE,...)")
    guided = any(item.startswith("policy=") for item in body.split(","))
    keys = GUIDED_KEYS if guided else KEYS
    allowed = f"allowed keys: {', '.join(f'{k} ({t})' for k, t in keys.items())}"
    values = {}
    for item in filter(None, body.split(",")):
        key, eq, raw = item.partition("=")
        if key not in keys or not eq:
            raise ValueError(f"bad search option {item!r} in {spec!r}; {allowed}, as search:sims=200,rollout=NAME")
        if key in values:
            raise ValueError(f"search option {key!r} given twice in {spec!r}; {allowed}")
        cast, kind = _CASTS[keys[key]]
        try:
            values[key] = cast(raw)
        except ValueError:
            raise ValueError(f"search option {key}={raw!r} in {spec!r} is not {kind}; {allowed}") from None
    return GuidedOptions(**values) if guided else SearchOptions(**values)

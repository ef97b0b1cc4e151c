"""`network_spec`: a network kind on a game as plain data, checked without torch (configs are read before it loads)."""

from __future__ import annotations

from typing import Any

from tabletop.agents.networks import ACTIVATION_NAMES, CRITIC_INPUTS, DEFAULTS, KINDS
from tabletop.envs import EnvSpec


def network_spec(env: EnvSpec, kind: str = "mlp", **sizes: Any) -> dict[str, Any]:
    """Everything that builds a network of `kind` for the game `env`, as plain data (saved with the weights):
    the sizes (`hidden`, `activation`, `width`, `blocks`; DEFAULTS for those not given), the observation and
    action counts, and for a structured kind where the game's observation keeps what it reads (the structure
    its observer declares). A ValueError says which kinds the game offers, or what its arguments lack."""
    unknown = sorted(set(sizes) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown network size {unknown[0]!r}; allowed: {', '.join(DEFAULTS)}")
    if kind not in KINDS:
        raise ValueError(f"unknown network.kind {kind!r}; allowed: {', '.join(KINDS)}")
    table = env.make_raw()
    structures = env.definition.network_structures
    if kind != "mlp" and kind not in structures:
        raise ValueError(
            f"network.kind {kind!r} does not read {env.env_id}'s observation; {env.env_id} offers: "
            + ", ".join(["mlp", *structures])
        )
    spec = {**DEFAULTS, **sizes, "kind": kind}
    spec["hidden"] = list(spec["hidden"])
    if spec["activation"] not in ACTIVATION_NAMES:
        raise ValueError(f"unknown network.activation {spec['activation']!r}; allowed: {', '.join(ACTIVATION_NAMES)}")
    if spec["critic"] not in CRITIC_INPUTS or spec["critic"] == "pooled" and kind != "circles":
        offered = ", ".join(f"{name} ({kinds})" for name, kinds in CRITIC_INPUTS.items())
        raise ValueError(f"network.critic {spec['critic']!r} does not fit network.kind {kind!r}; allowed: {offered}")
    spec["structure"] = structures[kind](table) if kind != "mlp" else None
    spec["observation_size"] = int(table.observation_space(table.possible_agents[0])["observation"].shape[0])
    spec["num_actions"] = int(table.game.num_actions)
    return spec

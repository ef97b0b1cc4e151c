"""Every policy network kind as plain torch modules, and the plain policy file a trained policy is saved in.

The one home of policies: `tabletop.train` only wraps these modules for its learners (SB3:
train/selfplay/policy.py; RLlib: train/rllib/modules.py), and every player of a trained policy (`ppo:`),
the ONNX export and the self-play opponents build them from a policy file with torch alone. Importing
this package imports torch, so `tabletop.agents` imports it only when a policy is loaded.

Kinds (`network.kind`): `mlp` (separate policy and value MLPs over the flat observation, any game);
`circles` (Cromlet), `board` (Chromino, Kings Cribbage tiles mode), `moves` (Kings Cribbage moves mode) and
`roles` (KRZ GRTN) read a structured observation whose layout the game's observer describes
(`GameDefinition.network_structures`), so a game offers a kind by declaring its structure, not by an entry here.
"""

from tabletop.agents.networks.actor_critic import ActorCritic, network_spec
from tabletop.agents.networks.common import ACTIVATIONS, KINDS, MASKED_LOGIT, masked
from tabletop.agents.networks.saved import POLICY_FILE, SavedPolicy, read_policy, write_policy

__all__ = [
    "ACTIVATIONS",
    "KINDS",
    "MASKED_LOGIT",
    "POLICY_FILE",
    "ActorCritic",
    "SavedPolicy",
    "masked",
    "network_spec",
    "read_policy",
    "write_policy",
]

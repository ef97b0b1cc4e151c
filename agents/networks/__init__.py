"""Every policy network kind as plain torch modules, and the plain policy file a trained policy is saved in.

The one home of policies: `tabletop.train` only wraps these modules for its learners (SB3:
train/selfplay/policy.py; RLlib: train/rllib/modules.py), and every player of a trained policy (`ppo:`),
the ONNX export and the self-play opponents build them from a policy file with torch alone. Importing
this package loads nothing but these constants (the export and the CLI read them without torch); its modules
import torch, and `tabletop.agents` imports them only when a policy is loaded:

    common.py        activations, the masked logit, the MLP builder
    mlp.py, circles.py, board.py, moves.py, roles.py   the network of each kind
    spec.py          `network_spec`: a kind on a game, as plain data (configs check it without torch)
    actor_critic.py  `ActorCritic`: any kind, ready to act
    saved.py         the plain policy file: `SavedPolicy`, `read_policy`, `write_policy`
    runs.py          run folders of either backend, and those saved before policy files: `load_saved`

Kinds (`network.kind`): `mlp` (separate policy and value MLPs over the flat observation, any game);
`circles` (Cromlet), `board` (Chromino, Kings Cribbage tiles mode), `moves` (Kings Cribbage moves mode) and
`roles` (KRZ GRTN) read a structured observation whose layout the game's observer describes
(`GameDefinition.network_structures`), so a game offers a kind by declaring its structure, not by an entry here.
"""

KINDS = ("mlp", "circles", "board", "moves", "roles")
MASKED_LOGIT = -1e8  # as sb3-contrib's MaskableCategorical: finite, so a softmax over a masked row never gives NaN
POLICY_FILE = "policy.pt"  # the plain policy file's name in a run's final/ and checkpoint folders (saved.py)
DEFAULTS = {
    "hidden": [256, 256],
    "activation": "tanh",
    "width": 32,
    "blocks": 1,
    "critic": "full",
}  # `network:` defaults
CRITIC_INPUTS = {"full": "every kind", "pooled": "circles"}  # what the critic reads, and the kinds that offer it
ACTIVATION_NAMES = ("tanh", "relu")  # common.ACTIVATIONS' keys, for the config's check without torch

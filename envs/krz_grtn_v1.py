"""KRZ GRTN as a PettingZoo AEC environment (docs/krz_grtn.md has rules, layouts and rewards)."""

from tabletop.envs.core import GameDefinition, entry_points
from tabletop.envs.krz_grtn import actions
from tabletop.envs.krz_grtn.observe import KrzGrtnObserver
from tabletop.envs.krz_grtn.render import KrzGrtnRenderer
from tabletop.envs.krz_grtn.rules import KrzGrtnGame

DEFINITION = GameDefinition(
    "krz_grtn_v1",
    KrzGrtnGame,
    KrzGrtnObserver,
    KrzGrtnRenderer,
    'KRZ GRTN for 2-6 players, cooperative: one shared team reward (+1 per level passed with reward="score").',
    public_constants=actions.public_constants,
    view_names=actions.picture_names,
)
raw_env, env = entry_points(DEFINITION)

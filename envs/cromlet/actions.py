"""The fixed action layout (N = 530), shared by the rules, their compiled kernels, the heuristics and the web.

[0, 132)     play the card of circle c on c, keep the cromlet open
[132, 264)   play the card of circle c on c and claim its cromlet
[264, 396)   play a wild on circle c, keep the cromlet open
[396, 528)   play a wild on circle c and claim its cromlet
528          trade in one dead card
529          trade in two dead cards
"""

from __future__ import annotations

from tabletop.envs.core.actions import ActionLayout
from tabletop.envs.cromlet import board

LAYOUT = ActionLayout.of(
    ("play", board.NUM_CIRCLES, "play the card of circle c on c, keep the cromlet open"),
    ("play_claim", board.NUM_CIRCLES, "play the card of circle c on c and claim its cromlet"),
    ("wild", board.NUM_CIRCLES, "play a wild on circle c, keep the cromlet open"),
    ("wild_claim", board.NUM_CIRCLES, "play a wild on circle c and claim its cromlet"),
    ("trade", 2, "trade in k + 1 dead cards"),
)
# module constants: the compiled kernels read globals, not objects
PLAY, PLAY_CLAIM, WILD_PLAY, WILD_CLAIM, TRADE_ONE = (b.start for b in LAYOUT.blocks)
TRADE_TWO = TRADE_ONE + 1
NUM_ACTIONS = LAYOUT.num_actions


def decode_action(action: int) -> tuple[str, int]:
    """('play' | 'play_claim' | 'wild' | 'wild_claim', circle) or ('trade', count)."""
    kind, index = LAYOUT.decode(action)
    return (kind, index + 1) if kind == "trade" else (kind, index)


def public_constants(game) -> dict:
    """What a drawing of this configuration reads besides a seat's view: the printed board and the claim rules."""
    return {
        "letters": list(board.LETTERS),
        "values": [list(v) for v in board.VALUES_BY_CROMLET],
        "circles": board.NUM_CIRCLES,
        "wild": board.WILD,
        "claim_limit": int(game.claim_limit),
        "teams": game.teams,
    }

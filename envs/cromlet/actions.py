"""The fixed action layout (N = 530), shared by the rules and their compiled kernels.

[0, 132)     play the card of circle c on c, keep the cromlet open
[132, 264)   play the card of circle c on c and claim its cromlet
[264, 396)   play a wild on circle c, keep the cromlet open
[396, 528)   play a wild on circle c and claim its cromlet
528          trade in one dead card
529          trade in two dead cards
"""

from __future__ import annotations

from tabletop.envs.cromlet.board import NUM_CIRCLES

PLAY, PLAY_CLAIM, WILD_PLAY, WILD_CLAIM = (i * NUM_CIRCLES for i in range(4))
TRADE_ONE = 4 * NUM_CIRCLES
TRADE_TWO = TRADE_ONE + 1
NUM_ACTIONS = TRADE_TWO + 1
KINDS = ("play", "play_claim", "wild", "wild_claim")  # the four per-circle blocks, in layout order


def decode_action(action: int) -> tuple[str, int]:
    """('play' | 'play_claim' | 'wild' | 'wild_claim', circle) or ('trade', count)."""
    if action >= TRADE_ONE:
        return "trade", action - TRADE_ONE + 1
    return KINDS[action // NUM_CIRCLES], action % NUM_CIRCLES

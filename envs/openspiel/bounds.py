"""What OpenSpiel's `GameInfo` needs of each game beyond its parameters: how long a game can last, how many
outcomes a chance node can have, and the range and sum of the returns.

`max_game_length` counts player decisions (OpenSpiel leaves chance nodes out) and is a bound the rules prove,
written next to each function: no game can last longer, though few come near it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.envs.chromino import tiles as chromino_tiles
from tabletop.envs.chromino.rules import ChrominoGame
from tabletop.envs.cromlet import board as cromlet_board
from tabletop.envs.cromlet.rules import CromletGame
from tabletop.envs.kings_cribbage import tiles as kc_tiles
from tabletop.envs.kings_cribbage.rules import KingsCribbageGame
from tabletop.envs.krz_grtn.pictures import NUM_CARDS as KRZ_CARDS
from tabletop.envs.krz_grtn.rules import KrzGrtnGame
from tabletop.envs.krz_grtn.tiles import NUM_LETTERS


@dataclass(frozen=True)
class Bounds:
    max_game_length: int
    max_chance_outcomes: int
    min_utility: float
    max_utility: float
    utility: str
    """"zero_sum", "general_sum" or "identical"."""


def cromlet(game: CromletGame) -> Bounds:
    """Every action moves at least one card from a hand onto a discard pile, and no card comes back."""
    utility = "zero_sum" if game.num_teams == 2 else "general_sum"  # two teams are always equal in size
    return Bounds(len(game.cards), cromlet_board.WILD + 1, -1.0, 1.0, utility)


def chromino(game: ChrominoGame) -> Bounds:
    """A turn that places or draws takes at most 4 actions (a compulsory draw, a draw, choose, place); each tile
    besides the start (79, or the box's) is placed once and drawn at most once; at most n - 1 idle turns (one pass each) come between two
    such turns, and n end the game."""
    n, tiles = game.num_players, chromino_tiles.NUM_TILES - 1 if game.box is None else len(game.box)
    busy = tiles + tiles - n * game.hand_size
    length = 4 * busy + (n - 1) * busy + n
    if game.variant == "solo":  # the score is minus the tiles left in hand
        return Bounds(length, chromino_tiles.NUM_TILES, -float(tiles), 0.0, "general_sum")
    return Bounds(length, chromino_tiles.NUM_TILES, -1.0, 1.0, "zero_sum" if n == 2 else "general_sum")


def kings_cribbage(game: KingsCribbageGame) -> Bounds:
    """Each move lays at least one tile (at most the game's tiles, one per cell); between two moves fewer than
    stall_rounds * n passes come in a row, and that many end the game; a turn is one action in moves mode, at most
    a rack of tiles (or of exchange choices) and a commit in tiles mode."""
    n = game.num_players
    stall = game.stall_rounds * n
    moves = min(sum(map(len, game.bag_tiles())), game.board_size**2)
    per_turn = 1 if game.moves_mode else game.rack_size + 1
    length = (moves * stall + stall) * per_turn
    outcomes = max(kc_tiles.NUM_KINDS, n)
    return Bounds(length, outcomes, -1.0, 1.0, "zero_sum" if n == 2 else "general_sum")


def krz_grtn(game: KrzGrtnGame) -> Bounds:
    """Attempts: one per level passed, one per life lost, one more. Each attempt has at most one vote round that
    a "no" ends, every giver's clue (at most tile_limit letters, the blanks and the finish) and a guess; each
    life bought is a full round of votes; a returned letter was drawn in the round before it."""
    givers = game.num_players - 1
    attempts = len(game.levels) + game.lives + 1
    clue = game.tile_limit + game.blanks_per_player + 1
    drawn = game.lives * givers * game.life_letters + givers * sum(map(game.draws_at, range(len(game.levels))))
    length = attempts * (givers + givers * clue + 1) + game.lives * givers + drawn
    outcomes = max(KRZ_CARDS, NUM_LETTERS, game.max_candidates)
    return Bounds(length, outcomes, -1.0, 1.0, "identical")


BOUNDS = {CromletGame: cromlet, ChrominoGame: chromino, KingsCribbageGame: kings_cribbage, KrzGrtnGame: krz_grtn}
"""The games OpenSpiel can load, by rules class."""

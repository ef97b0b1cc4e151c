"""What the givers' moves tell X: this attempt's clues replayed in a drawn world, for a belief over worlds.

`resample` draws the letters X cannot see and the target uniformly, as the rules alone allow. But each giver laid
its clue knowing the target and its own letters, so a world where the team's policy would have laid the clues on
the table is likelier than one where it would not. A search weighs each drawn world by the policy's chance of
those moves there (SPARTA's belief, Lerer et al. 2020, "Improving Policies via Search in Cooperative Partially
Observable Games"). These two functions give it what to weigh:

- `clue_evidence(world, seat)`: in `world`, each giver's position before every tile it laid and before its
  finish, with the move it made there;
- `target_alternatives(world, seat)`: `world` once per laid-out picture as the target, so that each draw of the
  letters counts for every picture (as the `reader` heuristic counts them).

Both are empty or `[world]` except for X at its guess, where the clues are the whole of the evidence; a giver's
evidence (its partners' votes and returns) is not weighed. `giving_clue(world, seat)` says when a move is
evidence in the making (a giver laying its clue), so that a giver's search can judge a clue by X's reading.
"""

from __future__ import annotations

from typing import Any

from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn.phases import CLUE, GUESS
from tabletop.envs.krz_grtn.tiles import BLANK


def guessing(world, seat: int) -> bool:
    """Whether `seat` is X choosing its guess in `world`: the one decision the clues inform."""
    return world.phase == GUESS and seat == world.x


def giving_clue(world, seat: int) -> bool:
    """Whether `seat` is a giver laying its clue in `world`: a move X's guess will read."""
    return world.phase == CLUE and seat != world.x


def target_alternatives(world, seat: int) -> list:
    """`world` with each laid-out picture as the target in turn while `seat` guesses (else `[world]`)."""
    if not guessing(world, seat):
        return [world]
    alternatives = []
    for position, concept in enumerate(world.candidates):
        other = world.clone()
        other.target, other.target_position = concept, position
        alternatives.append(other)
    return alternatives


def clue_evidence(world, seat: int) -> list[tuple[Any, int, int]]:
    """(position, giver, action) for every move of this attempt's clues in `world`, in the order they were made,
    while `seat` guesses (else none). A position is the clue phase as that giver saw it: its letters and blanks
    those of `world` with the rest of its clue back behind the screen, the clues of the givers before it finished,
    those after it not begun, the target `world`'s."""
    if not guessing(world, seat):
        return []
    givers = world.givers()
    table = world.clone()
    for giver in givers:
        _take_back(table, giver)
    table.phase, table.candidates, table.target_position = CLUE, [world.target], -1
    evidence = []
    for done, giver in enumerate(givers):
        table.clues_done, table.current, table._mask = done, giver, None
        for tile in world.clues[giver]:
            evidence.append((table.clone(), giver, act.add_tile(tile)))
            table.apply(act.add_tile(tile))
        evidence.append((table.clone(), giver, act.FINISH_CLUE))
    return evidence


def _take_back(state, giver: int) -> None:
    """`giver`'s clue back behind its screen, as before its first tile."""
    for tile in state.clues[giver]:
        if tile == BLANK:
            state.blanks[giver] += 1
        else:
            state.supply[giver, tile] += 1
            state.held[giver] += 1
    state.clues[giver], state.clue_letters[giver] = [], 0
    state._mask = None

"""Pictures of the table: the 24 cromlets, crowns, claims, scores, hand sizes and deck.

The text render of a seat adds that seat's hand, so a human can play from it; without a seat it adds
every hand. The picture shows the public table only.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.core.canvas import BLACK, GREY, PLAYER_COLORS, WHITE, Canvas
from tabletop.envs.cromlet import board as B
from tabletop.envs.cromlet.rules import CromletGame, CromletState, decode_action


def _circle_text(state, c: int) -> str:
    v = B.CIRCLE_VALUE[c]
    if state.cover[c] >= 0:
        mark = "W" if state.wild[c] else "P"
        text = f"{v}:{mark}{state.cover[c]}"
        k = B.CIRCLE_CROMLET[c]
        return f"[{text}]*" if state.claim_circle[k] == c else f"[{text}]"
    return f"({v})" if not state.closed[B.CIRCLE_CROMLET[c]] else f" {v}x"


def _hand_text(counts) -> str:
    """A hand's card-type counts as card names, circles first and wilds last."""
    return " ".join(B.card_name(int(c)) for c in np.repeat(np.arange(len(counts)), counts)) or "-"


class CromletRenderer:
    """Text for a seat (or everyone) and the spectator's picture."""

    def __init__(self, game: CromletGame):
        self.game = game

    def ansi(self, state: CromletState, seat: int | None = None) -> str:
        return ansi(state, seat)

    def rgb(self, state: CromletState) -> np.ndarray:
        return rgb(state)

    def describe(self, state: CromletState, action: int, seat: int | None = None) -> str:
        """Every Cromlet move is public: a card is played face up, and traded-in dead cards go face up on
        the discard pile, so a trade-in also names them (the replacements drawn stay hidden)."""
        words = state.action_to_string(action)
        if decode_action(action)[0] != "trade":
            return words
        mover, after = state.current_player, state.clone()
        after.apply(action)
        traded = after.discards[mover][len(state.discards[mover]) :]
        return f"{words}: {' '.join(B.card_name(c) for c in traded)} face up on the discard pile"


def ansi(state: CromletState, seat: int | None = None) -> str:
    """One line per cromlet: (v) open, [v:P1] crown of player 1, [v:W1] wild of player 1,
    * the claiming crown, vx closed; then the players, with `seat`'s hand (every hand if None)."""
    g = state.game
    lines = []
    for k, letter in enumerate(B.LETTERS):
        cells = " ".join(f"{_circle_text(state, c):>8}" for c in B.circles_of(k))
        status = ""
        if state.claimed_by[k] >= 0:
            status = f"  claimed by P{state.claimed_by[k]} for {B.CIRCLE_VALUE[state.claim_circle[k]]}"
        elif state.closed[k]:
            status = "  closed, no points"
        lines.append(f"{letter}  {cells}{status}")
    lines.append("")
    for p in range(g.num_players):
        team = g.team_of[p]
        lines.append(
            f"P{p}{' (team ' + str(team) + ')' if g.teams else ''}: score {state.team_scores[team]:.0f}, "
            f"claims {state.team_claims[team]}/{g.claim_limit}, {state.hand_sizes[p]} cards in hand, "
            f"discards: {' '.join(B.card_name(c) for c in state.discards[p]) or '-'}"
        )
        if seat is None or seat == p:
            lines.append(f"    hand: {_hand_text(state.hands[p])}")
    turn = "game over" if state.is_terminal() else f"P{state.current_player} to play"
    lines.append(f"deck: {len(state.deck)} cards; {turn}")
    return "\n".join(lines)


CELL, PAD = 30, 6


def rgb(state: CromletState) -> np.ndarray:
    """Cromlets in rows of four (sizes 3 to 8); crowns in player colours, a black ring marks a claim,
    a white centre a wild, grey circles are closed."""
    g = state.game
    width = 4 * (8 * CELL + 3 * PAD) + PAD
    height = 6 * (CELL + 2 * PAD) + 30 + 18 * g.num_players
    canvas = Canvas(height, width, background=(240, 236, 224))
    by_size = sorted(range(B.NUM_CROMLETS), key=lambda k: (len(B.VALUES_BY_CROMLET[k]), k))
    for slot, k in enumerate(by_size):
        row, col = divmod(slot, 4)
        top = PAD + row * (CELL + 2 * PAD)
        left = PAD + col * (8 * CELL + 3 * PAD)
        canvas.text(top + 10, left, B.LETTERS[k], BLACK, scale=2)
        for i, c in enumerate(B.circles_of(k)):
            cy, cx = top + CELL // 2, left + 14 + i * CELL + CELL // 2
            _draw_circle(canvas, state, c, k, cy, cx)
    top = 6 * (CELL + 2 * PAD) + 6
    for p in range(g.num_players):
        team = g.team_of[p]
        canvas.rect(top + 18 * p, PAD, 12, 12, PLAYER_COLORS[p])
        canvas.text(
            top + 18 * p + 1,
            PAD + 18,
            f"P{p} SCORE {state.team_scores[team]:.0f}  CLAIMS {state.team_claims[team]}/{g.claim_limit}  "
            f"HAND {state.hand_sizes[p]}",
            BLACK,
            scale=2,
        )
    canvas.text(top + 18 * g.num_players, PAD, f"DECK {len(state.deck)}", BLACK, scale=2)
    return canvas.pixels


def _draw_circle(canvas: Canvas, state, c: int, k: int, cy: int, cx: int) -> None:
    radius = CELL // 2 - 2
    if state.claim_circle[k] == c:
        canvas.disc(cy, cx, radius + 2, BLACK)
    if state.cover[c] >= 0:
        canvas.disc(cy, cx, radius, PLAYER_COLORS[state.cover[c]])
        if state.wild[c]:
            canvas.disc(cy, cx, radius // 3, WHITE)
        return
    canvas.disc(cy, cx, radius, GREY if state.closed[k] else WHITE)
    label = str(B.CIRCLE_VALUE[c])
    canvas.text(cy - 5, cx - Canvas.text_width(label) // 2, label, BLACK, scale=2)

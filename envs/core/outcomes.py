"""Turning final scores into win/draw/loss returns, the same way for every competitive game."""

from __future__ import annotations

import numpy as np


def win_loss_returns(final_scores: np.ndarray) -> np.ndarray:
    """+1 for every seat on the top score, -1 for the others; 0 for all when every seat ties."""
    final_scores = np.asarray(final_scores, dtype=np.float64)
    top = final_scores == final_scores.max()
    if top.all():
        return np.zeros_like(final_scores)
    return np.where(top, 1.0, -1.0)


def winners_returns(is_winner: np.ndarray) -> np.ndarray:
    """Same rule from an explicit winner set (shared wins count as wins)."""
    is_winner = np.asarray(is_winner, dtype=bool)
    if is_winner.all() or not is_winner.any():
        return np.zeros(len(is_winner))
    return np.where(is_winner, 1.0, -1.0)

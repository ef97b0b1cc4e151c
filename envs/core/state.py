"""`BaseState`: what every game's State does the same way around its own rules.

A State checks an action in one place before the game sees it: an int (numpy's too; a bool, a float or a
string is not an action) in `[0, game.num_actions)`, legal under the mask and played before the end. The
game writes hooks: `_compute_mask` (the mask of this position, cached until the position changes),
`_apply_action` (play a checked, legal int), `_describe` (an in-range int in words) and `_refusal` (the
words of each refusal). Every refusal of `apply` is an `IllegalActionError` raised before anything
changes; `action_to_string` refuses what is not an action with a `ValueError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.core.errors import IllegalActionError

NOT_AN_INT = "not an int"
"""`_refusal`'s `why` for an action of the wrong type (a bool, a float, a string...): `action` as given."""
OUT_OF_RANGE = "out of range"
"""`_refusal`'s `why` for an int outside `[0, num_actions)`: `action` as given."""
ILLEGAL = "illegal"
"""`_refusal`'s `why` for an action the mask forbids now, or any once the game is over: `action` an int."""
UNNAMED = "unnamed"
"""`_refusal`'s `why` when `action_to_string` is given no action (wrong type or out of range): as given."""


def is_action_index(action: Any, num_actions: int) -> bool:
    """An int, numpy's included, in `[0, num_actions)`; a bool is not an action."""
    return is_int_action(action) and 0 <= action < num_actions


def mask_indices(mask: np.ndarray) -> np.ndarray:
    """The nonzero indices of a 0/1 action mask, ascending int64. A one-byte mask (ours, PettingZoo's int8) is read
    as a bool view of the same bytes, since numpy's `nonzero` has no fast path for int8 (7-21 us on 2,347-5,098
    entries against ~4), and `nonzero` is called directly: `np.flatnonzero`'s ravel and dispatch double its cost."""
    return (mask.view(np.bool_) if mask.dtype.itemsize == 1 else mask).nonzero()[0]


def is_int_action(action: Any) -> bool:
    """An int, numpy's included; a bool (numpy's is no np.integer), a float or a string is not."""
    return isinstance(action, (int, np.integer)) and not isinstance(action, bool)


class BaseState:
    """The checks and the mask cache of a State; a game's State subclasses it and writes the hooks.

    The mask lives in `self._mask` (None: not computed yet); `apply` clears it before `_apply_action` (which may
    set the new position's mask where it comes cheaply with the action), and a hook that changes the position
    outside `apply` (or a `clone`) sets it to None too.
    """

    game: Any
    _mask: np.ndarray | None = None
    _legal: np.ndarray | None = None  # the legal actions of `_legal_of`, the mask they were read from
    _legal_of: np.ndarray | None = None

    # --- the hooks -----------------------------------------------------------------------------------
    def _compute_mask(self) -> np.ndarray:
        """int8 array of length `game.num_actions`: 1 where the action is legal now."""
        raise NotImplementedError

    def _apply_action(self, action: int) -> None:
        """Play `action`, an int that the mask allows, for the current player."""
        raise NotImplementedError

    def _describe(self, action: int) -> str:
        """`action`, an int in `[0, num_actions)`, in the rulebook's words."""
        raise NotImplementedError

    def _refusal(self, action: Any, why: str) -> str:
        """The message refusing `action` (`why`: NOT_AN_INT, OUT_OF_RANGE, ILLEGAL or UNNAMED)."""
        return f"action {action!r} is {why}: actions are ints in [0, {self.game.num_actions})"

    # --- the State protocol --------------------------------------------------------------------------
    def legal_action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask

    def legal_actions(self) -> np.ndarray:
        mask = self.legal_action_mask()
        if self._legal_of is not mask:  # computed for an earlier mask (which is kept alive, so no new one reuses it)
            legal = self._compute_legal(mask)
            legal.setflags(write=False)  # handed out without a copy
            self._legal, self._legal_of = legal, mask
        return self._legal

    def _compute_legal(self, mask: np.ndarray) -> np.ndarray:
        """The legal actions of this position, whose mask is `mask`, ascending int64: asked for only by
        `legal_actions`, so a mask that nobody reads as a list costs nothing more. The mask's nonzero indices; a
        game with a cheaper source than a scan of its whole mask overrides it."""
        return mask_indices(mask)

    def apply(self, action: int) -> None:
        if not is_int_action(action):
            raise IllegalActionError(self._refusal(action, NOT_AN_INT))
        if not 0 <= action < self.game.num_actions:
            raise IllegalActionError(self._refusal(action, OUT_OF_RANGE))
        action = int(action)
        if self.is_terminal() or not self.legal_action_mask()[action]:
            raise IllegalActionError(self._refusal(action, ILLEGAL))
        self._mask = None
        self._apply_action(action)

    def action_to_string(self, action: int) -> str:
        if not is_action_index(action, self.game.num_actions):
            raise ValueError(self._refusal(action, UNNAMED))
        return self._describe(int(action))

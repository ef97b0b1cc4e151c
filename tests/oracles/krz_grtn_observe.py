"""KRZ GRTN's lean observation as it was written before the encoder wrote its seat rows by flat index and
counted the bag from the seats' tallies (`envs/krz_grtn/observe.py`): the oracle the differential test holds
the encoder to, bit for bit.
"""

from __future__ import annotations

import numpy as np

from tabletop.envs.krz_grtn.observe import ROLE_GLOBALS, SEAT_FEATURES, KrzGrtnObserver, _clue
from tabletop.envs.krz_grtn.pictures import FEATURE_SIZE, FEATURES
from tabletop.envs.krz_grtn.rules import GUESS, OVER, KrzGrtnState
from tabletop.envs.krz_grtn.tiles import TOTAL_LETTERS

BAG_GLOBAL = ROLE_GLOBALS.index("letters in the middle / 56")


class OracleObserver(KrzGrtnObserver):
    """The observer with its former `encode` and `_seats` (the feature groups and hidden parts are shared)."""

    def encode(self, state: KrzGrtnState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        game, s, at = self.game, self.s, self.at
        n = game.num_players
        if out is None:
            out = self.layout.zeros()
        else:
            out.fill(0.0)
        is_x = seat == state.x
        out[at["role"] + (0 if is_x else 1)] = 1.0
        if state.phase != OVER:
            out[at["phase"] + state.phase] = 1.0
        index = min(state.level_index, len(game.levels) - 1)
        out[at["level"] + game.levels[index] - 1] = 1.0
        out[at["levels_passed"] + state.level_index] = 1.0
        out[s["level_card"]] = self.level_card[index]
        out[at["lives"] + state.lives] = 1.0
        self._oracle_seats(state, seat, out[s["seats"]].reshape(n, SEAT_FEATURES))
        out[at["bag"]] = state.bag.sum() / TOTAL_LETTERS
        out[s["own_letters"]] = state.supply[seat]
        if game.blanks_per_player:
            out[at["own_blanks"]] = state.blanks[seat] / game.blanks_per_player
        _clue(state.clues[seat], out, at["own_clue"])
        revealed = state.phase == GUESS
        if state.target >= 0 and not is_x:
            out[s["target"]] = FEATURES[state.target]
            if revealed:
                out[at["target_position"] + state.target_position] = 1.0
        if revealed:
            k = len(state.candidates)
            out[s["candidates"]][: k * FEATURE_SIZE] = FEATURES[state.candidates].ravel()
            out[at["candidate_present"] : at["candidate_present"] + k] = 1.0
            width = (s["clues"].stop - at["clues"]) // (n - 1)
            for slot, giver in enumerate(state.givers()):
                _clue(state.clues[giver], out, at["clues"] + slot * width)
        if state.last_attempt is not None:
            out[at["last_attempt"] + (0 if state.last_attempt["passed"] else 1)] = 1.0
        if self.roles:
            self._role_facts(state, seat, is_x, out)
            out[s["role_globals"].start + BAG_GLOBAL] = state.bag.sum() / TOTAL_LETTERS  # as it was counted
        if self.omniscient:
            self._hidden(state, seat, out)
        return out

    def _oracle_seats(self, state: KrzGrtnState, seat: int, block: np.ndarray) -> None:
        n = self.game.num_players
        held, clued, limit = state.held, state.clue_letters, self.game.tile_limit
        block[:, 2] = [(held[p] + clued[p]) / limit for p in self.order[seat]]
        block[(state.x - seat) % n, 0] = 1.0
        if state.current_player >= 0:
            block[(state.current_player - seat) % n, 1] = 1.0
        givers = state.givers()
        for giver in givers[: state.clues_done]:
            block[(giver - seat) % n, 3] = 1.0
        for giver in givers[: state.votes]:
            block[(giver - seat) % n, 4] = 1.0

"""KRZ GRTN rules: the game configuration and its state, one sub-step per action.

A level attempt runs: target revealed to the givers -> "Life!" vote (while lives remain) -> each giver
in turn, clockwise from X's left, lays a clue tile by tile -> decoys revealed and shuffled -> X points
at one picture -> pass (givers draw B) or fail (lose a life) -> used letters back, X moves clockwise.
Draws are followed, giver by giver, by returning tiles of the giver's choice down to the tile limit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.envs.core import BaseState, Param, ParameterError, Parameters, is_int
from tabletop.envs.core.chance import Chance, SeededChance, as_chance
from tabletop.envs.core.params import int_range, int_words, per_player_count
from tabletop.envs.core.state import NOT_AN_INT, UNNAMED
from tabletop.envs.core.validate import check_playable
from tabletop.envs.krz_grtn import actions as act
from tabletop.envs.krz_grtn import saved
from tabletop.envs.krz_grtn.beliefs import clue_evidence, giving_clue, guessing, target_alternatives
from tabletop.envs.krz_grtn.phases import (
    CLUE,
    END_FAILED,
    END_SHORT,
    END_WON,
    GUESS,
    MIN_CLUE_LETTERS,
    NUM_LEVELS,
    OVER,
    PHASES,
    RETURN,
    VOTE,
)
from tabletop.envs.krz_grtn.pictures import CONCEPTS, NUM_CARDS
from tabletop.envs.krz_grtn.resample import resample
from tabletop.envs.krz_grtn.tiles import BLANK, LETTER_COUNTS, NUM_LETTERS, TOTAL_LETTERS

MAX_LIVES = 5
MAX_TILE_LIMIT = 16
MAX_CANDIDATES = 12
"""At most 11 attempts (6 passes, 5 lives) x 12 pictures = 132 of the 167 cards: the deck never runs out."""
MAX_DRAWS = 8


def _valid_levels(levels: Any) -> bool:
    """The "Too easy?" rule: skip lower levels, replay higher ones, always six levels in ascending order."""
    return (
        isinstance(levels, tuple)
        and len(levels) == NUM_LEVELS
        and all(is_int(v) and 1 <= v <= NUM_LEVELS for v in levels)
        and list(levels) == sorted(levels)
        and set(levels) == set(range(min(levels), NUM_LEVELS + 1))
    )


def _six_ints_in(low: int, high: int):
    """A check for one value per level card, each an int in [low, high]."""
    return lambda values: (
        isinstance(values, tuple) and len(values) == NUM_LEVELS and all(is_int(v) and low <= v <= high for v in values)
    )


PARAMETERS = Parameters(
    Param("num_players", 4, "X plus 1..5 clue givers", choices=(2, 3, 4, 5, 6)),
    Param("blanks_per_player", 2, "blanks each player keeps for the whole game", choices=(0, 1, 2)),
    Param(
        "levels",
        (1, 2, 3, 4, 5, 6),
        'the level deck; e.g. (3, 4, 5, 5, 6, 6) skips levels 1-2 ("Too easy?")',
        check=_valid_levels,
        convert=tuple,
        allowed="six level numbers in ascending order that include every level from the lowest played up to 6, "
        "e.g. (1, 2, 3, 4, 5, 6) or (3, 4, 5, 5, 6, 6)",
    ),
    Param("lives", MAX_LIVES, "life cards", choices=tuple(range(MAX_LIVES + 1))),
    Param(
        "start_letters",
        5,
        "letters each player draws at the start",
        **int_range(MIN_CLUE_LETTERS, MAX_TILE_LIMIT, f"an int from {MIN_CLUE_LETTERS} to tile_limit"),
    ),
    Param(
        "tile_limit",
        8,
        "most letters behind a screen",
        **int_range(
            MIN_CLUE_LETTERS,
            MAX_TILE_LIMIT,
            per_player_count(MIN_CLUE_LETTERS, {n: min(MAX_TILE_LIMIT, TOTAL_LETTERS // n) for n in range(2, 7)})
            + ", and at least start_letters",
        ),
    ),
    Param("life_letters", 2, 'letters each giver draws for a unanimous "Life!"', choices=(1, 2, 3, 4)),
    Param(
        "level_candidates",
        (3, 4, 5, 6, 7, 8),
        "A (pictures on the table) on level cards 1..6",
        check=_six_ints_in(2, MAX_CANDIDATES),
        convert=tuple,
        allowed=f"six ints, each from 2 to {MAX_CANDIDATES}",
    ),
    Param(
        "level_draws",
        (3, 3, 2, 2, 1, 0),
        "B (letters each giver draws on passing) on level cards 1..6",
        check=_six_ints_in(0, MAX_DRAWS),
        convert=tuple,
        allowed=f"six ints, each from 0 to {MAX_DRAWS}",
    ),
)


class KrzGrtnGame:
    """KRZ GRTN under one configuration. Every number a table could change is a parameter."""

    name = "krz_grtn_v1"
    parameters = PARAMETERS
    shared_reward = True  # one team: every seat's reward is the team's, an illegal action's penalty too

    def __init__(self, **params: Any):
        self.params = PARAMETERS.resolve(params, self.name)
        num_players, start_letters, tile_limit = (
            self.params["num_players"],
            self.params["start_letters"],
            self.params["tile_limit"],
        )
        if start_letters > tile_limit:
            raise ParameterError(
                f"{self.name}: start_letters={start_letters} is more than tile_limit={tile_limit}; "
                f"allowed: {int_words(MIN_CLUE_LETTERS, tile_limit)} (start_letters at most tile_limit)"
            )
        if num_players * tile_limit > TOTAL_LETTERS:
            raise ParameterError(
                f"{self.name}: tile_limit={tile_limit} is not allowed for {num_players} players (the screens "
                f"could hold more than the {TOTAL_LETTERS} letter tiles); allowed: "
                f"{int_words(start_letters, TOTAL_LETTERS // num_players)}"
            )
        self.num_players = num_players
        self.blanks_per_player = self.params["blanks_per_player"]
        self.levels = self.params["levels"]
        self.lives = self.params["lives"]
        self.start_letters = start_letters
        self.tile_limit = tile_limit
        self.life_letters = self.params["life_letters"]
        self.level_candidates = self.params["level_candidates"]
        self.level_draws = self.params["level_draws"]
        self.max_candidates = max(self.level_candidates[v - 1] for v in self.levels)
        self.max_clue_length = tile_limit + self.blanks_per_player
        self.actions = act.layout(self.max_candidates)
        self.num_actions = self.actions.num_actions
        self.giver_orders = tuple(
            tuple((x + k) % num_players for k in range(1, num_players)) for x in range(num_players)
        )

    def config(self) -> dict[str, Any]:
        """Every parameter, as saved states record it (tuples as JSON lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.params.items()}

    def candidates_at(self, level_index: int) -> int:
        """A on the level card at position `level_index` of the level deck."""
        return self.level_candidates[self.levels[level_index] - 1]

    def draws_at(self, level_index: int) -> int:
        """B on the level card at position `level_index` of the level deck."""
        return self.level_draws[self.levels[level_index] - 1]

    def new_initial_state(self, rng: np.random.Generator | Chance) -> KrzGrtnState:
        return KrzGrtnState.deal(self, as_chance(rng))

    def state_from_json(self, data: dict[str, Any], rng: np.random.Generator | None = None) -> KrzGrtnState:
        return KrzGrtnState.from_json(self, data, rng)


class KrzGrtnState(BaseState):
    """One position. Letters are counts per kind; the bag is a multiset, so drawing from it is a
    fresh shuffle every time ("shuffle all the tiles there thoroughly")."""

    def __init__(self, game: KrzGrtnGame, chance: Chance):
        n = game.num_players
        self.game = game
        self.chance = chance  # the source of every draw, cut, side and layout (`envs/core/chance.py`)
        self.deck: list[int] = []  # picture cards, last = top
        self.discard: list[int] = []  # picture cards back in the box after an attempt
        self.bag = LETTER_COUNTS.copy()  # letters face down in the middle
        self.supply = np.zeros((n, NUM_LETTERS), dtype=np.int64)  # letters behind each screen
        self.held = [0] * n  # letters behind each screen, kept in step with `supply` (fast to read)
        self.blanks = [game.blanks_per_player] * n  # blanks behind each screen
        self.clues: list[list[int]] = [[] for _ in range(n)]
        self.clue_letters = [0] * n  # letter tiles (not blanks) in each clue
        self.x = 0
        self.level_index = 0  # also the number of levels passed
        self.lives = game.lives
        self.phase = VOTE
        self.current = 0
        self.target = -1  # concept id, -1 between attempts
        self.candidates: list[int] = []  # concept ids; [target] until the decoys are revealed
        self.target_position = -1  # index of the target among the shuffled candidates
        self.votes = 0  # "Life!" hands raised in this vote round
        self.clues_done = 0  # givers who finished their clue this attempt
        self.draw_queue: list[int] = []  # seats still to draw in the current drawing round
        self.draw_amount = 0
        self.after_draws = ""  # "vote" or "level": what follows the drawing round
        self.outcome = 0  # +1 won, -1 lost, 0 playing
        self.end_reason = ""
        self.last_attempt: dict[str, Any] | None = None
        self._mask: np.ndarray | None = None

    # --- setup -----------------------------------------------------------------------------------
    @classmethod
    def deal(cls, game: KrzGrtnGame, chance: Chance) -> KrzGrtnState:
        state = cls(game, chance)
        state.deck = [int(c) for c in chance.shuffled(NUM_CARDS)]
        for seat in range(game.num_players):
            state._draw(seat, game.start_letters)
        state._start_attempt()
        return state

    # --- protocol --------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return -1 if self.phase == OVER else self.current

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def givers(self) -> tuple[int, ...]:
        """The clue givers of this attempt, clockwise from X's left."""
        return self.game.giver_orders[self.x]

    def letters(self, seat: int) -> int:
        """Letter tiles behind `seat`'s screen (not counting a clue being laid)."""
        return self.held[seat]

    def _compute_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        seat = self.current
        if self.phase == VOTE:
            mask[act.VOTE_YES] = 1
            mask[act.VOTE_NO] = not self._someone_short()
        elif self.phase == CLUE:
            mask[act.ADD_TILE : act.ADD_TILE + NUM_LETTERS] = self.supply[seat] > 0
            mask[act.add_tile(BLANK)] = self.blanks[seat] > 0
            mask[act.FINISH_CLUE] = self.clue_letters[seat] >= MIN_CLUE_LETTERS
        elif self.phase == RETURN:
            mask[act.RETURN_LETTER : act.GUESS] = self.supply[seat] > 0
        elif self.phase == GUESS:
            mask[act.GUESS : act.GUESS + len(self.candidates)] = 1
        return mask

    def _refusal(self, action: Any, why: str) -> str:
        if why == UNNAMED:
            return f"{action!r} is not an action; actions are ints in [0, {self.game.num_actions})"
        if why == NOT_AN_INT:
            return (
                f"player_{self.current_player}: {action!r} is not an action; "
                f"actions are ints in [0, {self.game.num_actions})"
            )
        return f"player_{self.current_player}: action {action} is illegal here"  # out of range, or illegal

    def _apply_action(self, action: int) -> None:
        if self.phase == VOTE:
            self._vote(action == act.VOTE_YES)
        elif self.phase == CLUE:
            self._clue_step(action)
        elif self.phase == RETURN:
            self._return(action - act.RETURN_LETTER)
        else:
            self._guess(action - act.GUESS)

    def scores(self) -> np.ndarray:
        """Levels passed, shared by the whole team."""
        return np.full(self.game.num_players, float(self.level_index))

    def returns(self) -> np.ndarray:
        return np.full(self.game.num_players, float(self.outcome))

    def _describe(self, action: int) -> str:
        names = [CONCEPTS[c].name for c in self.candidates] if self.phase == GUESS else None
        return act.describe(action, names)

    # --- the flow of a level attempt ----------------------------------------------------------------
    def _start_attempt(self) -> None:
        if self.lives == 0 and self._someone_short():
            self._end(-1, END_SHORT)
            return
        self._cut_deck()
        self.target = self._reveal()
        self.candidates = [self.target]
        self.target_position = -1
        if self.lives > 0:
            self._begin_vote()
        else:
            self._begin_clues()

    def _someone_short(self) -> bool:
        return any(self.letters(g) < MIN_CLUE_LETTERS for g in self.givers())

    def _begin_vote(self) -> None:
        self.phase, self.votes, self.current = VOTE, 0, self.givers()[0]

    def _vote(self, life: bool) -> None:
        givers = self.givers()
        if not life:
            self.votes = 0
            self._begin_clues()
            return
        self.votes += 1
        if self.votes < len(givers):
            self.current = givers[self.votes]
            return
        self.votes = 0
        self.lives -= 1
        self._start_draws(givers, self.game.life_letters, "vote")

    def _begin_clues(self) -> None:
        self.phase, self.clues_done, self.current = CLUE, 0, self.givers()[0]

    def _clue_step(self, action: int) -> None:
        seat = self.current
        if action == act.FINISH_CLUE:
            self.clues_done += 1
            givers = self.givers()
            if self.clues_done < len(givers):
                self.current = givers[self.clues_done]
            else:
                self._lay_out_candidates()
            return
        tile = action - act.ADD_TILE
        if tile == BLANK:
            self.blanks[seat] -= 1
        else:
            self.supply[seat, tile] -= 1
            self.held[seat] -= 1
            self.clue_letters[seat] += 1
        self.clues[seat].append(tile)

    def _lay_out_candidates(self) -> None:
        """Reveal decoys up to A, shuffle, and hand the table to X."""
        wanted = self.game.candidates_at(self.level_index)
        while len(self.candidates) < wanted:
            self.candidates.append(self._reveal())
        order = self.chance.permutation(wanted)
        self.candidates = [self.candidates[i] for i in order]
        self.target_position = self.candidates.index(self.target)
        self.phase, self.current = GUESS, self.x

    def _guess(self, position: int) -> None:
        passed = position == self.target_position
        givers = self.givers()
        level = self.game.levels[self.level_index]
        self.last_attempt = {
            "level": level,
            "x": self.x,
            "target": self.target,
            "guess": self.candidates[position],
            "passed": passed,
            "clues": {g: list(self.clues[g]) for g in givers},
        }
        self._clear_table(givers)
        self.x = (self.x + 1) % self.game.num_players
        if passed:
            self.level_index += 1
            if self.level_index == len(self.game.levels):
                self._end(1, END_WON)
                return
            self._start_draws(givers, self.game.draws_at(self.level_index - 1), "level")
        elif self.lives == 0:
            self._end(-1, END_FAILED)
        else:
            self.lives -= 1
            self._start_attempt()

    def _clear_table(self, givers: tuple[int, ...]) -> None:
        """Used letters go back into the middle, blanks back behind their screens, pictures to the box."""
        for g in givers:
            for tile in self.clues[g]:
                if tile == BLANK:
                    self.blanks[g] += 1
                else:
                    self.bag[tile] += 1
            self.clues[g] = []
            self.clue_letters[g] = 0
        self.discard.extend(c // 2 for c in self.candidates)
        self.candidates, self.target, self.target_position = [], -1, -1
        self.clues_done = 0

    # --- drawing and the tile limit -------------------------------------------------------------
    def _start_draws(self, seats: tuple[int, ...], amount: int, then: str) -> None:
        self.draw_queue, self.draw_amount, self.after_draws = list(seats), amount, then
        self._continue_draws()

    def _continue_draws(self) -> None:
        """Seats draw in turn; a seat over the limit returns tiles (RETURN phase) before the next draws."""
        while self.draw_queue:
            seat = self.draw_queue.pop(0)
            self._draw(seat, self.draw_amount)
            if self.letters(seat) > self.game.tile_limit:
                self.phase, self.current = RETURN, seat
                return
        then, self.after_draws, self.draw_amount = self.after_draws, "", 0
        if then == "level":
            self._start_attempt()
        elif self.lives > 0:
            self._begin_vote()
        elif self._someone_short():
            self._end(-1, END_SHORT)
        else:
            self._begin_clues()

    def _return(self, letter: int) -> None:
        self.supply[self.current, letter] -= 1
        self.held[self.current] -= 1
        self.bag[letter] += 1
        if self.letters(self.current) <= self.game.tile_limit:
            self._continue_draws()

    def _draw(self, seat: int, amount: int) -> None:
        amount = min(amount, int(self.bag.sum()))
        if amount:
            drawn = self.chance.hypergeometric(self.bag, amount)
            self.bag -= drawn
            self.supply[seat] += drawn
            self.held[seat] += amount

    # --- pictures ----------------------------------------------------------------------------------
    def _cut_deck(self) -> None:
        """X looks away; the others cut cards from the top to the bottom of the deck."""
        if len(self.deck) > 1:
            self.chance.cut(self.deck)

    def _reveal(self) -> int:
        """Turn up the top card; the side shown is chosen by the generator."""
        card = self.chance.draw(self.deck)
        return 2 * card + self.chance.integers(2)

    def _end(self, outcome: int, reason: str) -> None:
        self.phase, self.outcome, self.end_reason = OVER, outcome, reason
        self.draw_queue, self.after_draws, self.draw_amount = [], "", 0

    # --- views ---------------------------------------------------------------------------------
    def owned_letters(self, seat: int) -> int:
        """Letters `seat` owns: behind the screen plus in an unrevealed clue (what others can count)."""
        return self.letters(seat) + self.clue_letters[seat]

    def view(self, player: int | None) -> dict[str, Any]:
        """What `player` knows: own tiles and clue, the target if a giver, clues and pictures once laid out."""
        game = self.game
        giver_sees_target = self.target >= 0 and (player is None or player != self.x)
        revealed = self.phase == GUESS
        view = {
            "seat": player,
            "role": None if player is None else ("X" if player == self.x else "giver"),
            "num_players": game.num_players,
            "phase": PHASES[self.phase],
            "current_player": self.current_player,
            "x": self.x,
            "givers": list(self.givers()),
            "level": game.levels[min(self.level_index, len(game.levels) - 1)],
            "levels_passed": self.level_index,
            "candidates_needed": game.candidates_at(min(self.level_index, len(game.levels) - 1)),
            "lives": self.lives,
            "votes": self.votes,
            "clues_done": self.clues_done,
            "owned_letters": [self.owned_letters(s) for s in range(game.num_players)],
            "bag_size": int(self.bag.sum()),
            "tile_limit": game.tile_limit,
            "target": self.target if giver_sees_target else None,
            "target_position": self.target_position if giver_sees_target and revealed else None,
            "candidates": list(self.candidates) if revealed else [],
            "clues": {g: list(self.clues[g]) for g in self.givers()} if revealed else {},
            "last_attempt": self.last_attempt,
            "outcome": self.outcome,
        }
        if player is not None:
            view["letters"] = self.supply[player].copy()
            view["blanks"] = self.blanks[player]
            view["clue"] = list(self.clues[player])
        else:
            view["supplies"] = self.supply.copy()
            view["all_blanks"] = list(self.blanks)
            view["all_clues"] = [list(c) for c in self.clues]
            view["bag"] = self.bag.copy()
            view["deck"] = list(self.deck)
            view["target"] = self.target if self.target >= 0 else None
            view["target_position"] = self.target_position if revealed else None
        return view

    # --- copies and JSON ---------------------------------------------------------------------------
    def resample(self, seat: int, rng: np.random.Generator) -> KrzGrtnState:
        """A full state consistent with what `seat` knows, the hidden parts drawn at random (see `resample`)."""
        return resample(self, seat, rng)

    def evidence(self, seat: int) -> list[tuple[KrzGrtnState, int, int]]:
        """The partners' moves that inform `seat`'s decision, replayed in this state: (position, mover, move) for each
        clue tile and finish while `seat` is X guessing, else none (`beliefs.clue_evidence`)."""
        return clue_evidence(self, seat)

    def alternatives(self, seat: int) -> list[KrzGrtnState]:
        """This state once per laid-out picture as the target while `seat` is X guessing, else itself alone
        (`beliefs.target_alternatives`)."""
        return target_alternatives(self, seat)

    def informed(self, seat: int) -> bool:
        """Whether the partners' moves inform `seat`'s decision now (`evidence` is not empty): X's guess
        (`beliefs.guessing`)."""
        return guessing(self, seat)

    def informs(self, seat: int) -> bool:
        """Whether `seat`'s move now is one a partner's later decision reads: a giver's clue, which X's guess reads
        (`beliefs.giving_clue`)."""
        return giving_clue(self, seat)

    def truth(self, seat: int) -> int:
        """Which of `alternatives(seat)` this state is: the target's place among the laid-out pictures while `seat`
        is X guessing (the alternatives follow that order), else 0."""
        return self.target_position if guessing(self, seat) else 0

    def clone(self) -> KrzGrtnState:
        other = KrzGrtnState.__new__(KrzGrtnState)
        other.__dict__.update(self.__dict__)
        other.chance = self.chance.clone()
        other.deck, other.discard = list(self.deck), list(self.discard)
        other.bag, other.supply = self.bag.copy(), self.supply.copy()
        other.blanks, other.clue_letters, other.held = list(self.blanks), list(self.clue_letters), list(self.held)
        other.clues = [list(c) for c in self.clues]
        other.candidates, other.draw_queue = list(self.candidates), list(self.draw_queue)
        other._mask = None
        return other

    def to_json(self) -> dict[str, Any]:
        return saved.write(self)

    @classmethod
    def from_json(cls, game: KrzGrtnGame, data: dict[str, Any], rng: np.random.Generator | None) -> KrzGrtnState:
        """Rebuild a saved state, or raise `InvalidStateError` for a position the rules cannot reach (the checks:
        saved.py). With `"rng": null` later draws come from `rng` (else a fresh generator)."""
        position = saved.read(game, data)
        state = cls(game, SeededChance(saved.generator(position.rng, rng)))
        for name in (
            "phase",
            "current",
            "x",
            "level_index",
            "lives",
            "deck",
            "discard",
            "bag",
            "supply",
            "blanks",
            "clues",
            "target",
            "candidates",
            "target_position",
            "votes",
            "clues_done",
            "draw_queue",
            "draw_amount",
            "after_draws",
            "outcome",
            "end_reason",
            "last_attempt",
        ):
            setattr(state, name, getattr(position, name))
        state.held = [int(row.sum()) for row in state.supply]
        state.clue_letters = [sum(t != BLANK for t in c) for c in state.clues]
        check_playable(state)
        return state

    def check_conservation(self) -> None:
        """The 56 letters, every seat's blanks and the picture cards are all accounted for (for tests of play)."""
        saved.check_conservation(self.game, self)
        if self.held != [int(row.sum()) for row in self.supply]:
            raise ValueError(f"letter counts {self.held} out of step with the supplies")

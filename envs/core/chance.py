"""Where the rules get their luck: every shuffle, deal and draw goes through one chance source.

The rules call the same methods whichever face plays them. `SeededChance` wraps the env's seeded
`np.random.Generator` and makes exactly the calls the rules always made, so seeded games stay bit for bit
the same. `ExplicitChance` is the OpenSpiel face: a shuffled deck keeps its cards unordered, and each card
is chosen when the rules take it, as one chance node over the cards still in the deck (OpenSpiel's card
games deal card by card the same way). It plays back the outcomes it is given and raises `ChanceNeeded`,
carrying the next node's outcomes and probabilities, once they run out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np


class ChanceNeeded(Exception):
    """The rules want an outcome that `ExplicitChance` was not given: `outcomes` lists (value, probability)."""

    def __init__(self, outcomes: list[tuple[int, float]]):
        super().__init__(f"a chance node with {len(outcomes)} outcomes")
        self.outcomes = outcomes


class SeededChance:
    """Chance from a seeded generator, making the very calls the rules made before there were two faces.

    With `record` (a list), every outcome is also appended as the explicit face would ask for it, so the
    same game can be replayed node by node through `ExplicitChance` (the differential tests do).
    """

    def __init__(self, rng: np.random.Generator, record: list[int] | None = None):
        self.rng = rng
        self.record = record

    def _note(self, values: Any) -> None:
        if self.record is not None:
            self.record.extend(int(v) for v in values)

    def integers(self, low: int, high: int | None = None) -> int:
        """A uniform int in [low, high) (in [0, low) without `high`), as `Generator.integers`."""
        value = int(self.rng.integers(low, high))
        self._note([value])
        return value

    def spawn(self) -> SeededChance:
        """A chance source of its own, seeded from this one (one draw of 63 bits)."""
        own = np.random.Generator(np.random.PCG64(int(self.rng.integers(2**63))))
        return SeededChance(own, self.record)

    def shuffled(self, items: int | Sequence[int]) -> np.ndarray:
        """A deck in the order it will be drawn: `Generator.permutation` of `items` (an int n: range(n))."""
        return self.rng.permutation(items)

    def shuffle(self, deck: list[int]) -> None:
        """Shuffle `deck` in place (cards put back into a bag)."""
        self.rng.shuffle(deck)

    def permutation(self, n: int) -> np.ndarray:
        """An order of range(n) fixed now (the positions of cards laid out face down)."""
        order = self.rng.permutation(n)
        self._note(order[:-1])
        return order

    def draw(self, deck: list[int]) -> int:
        """Take the top card, the list's last item."""
        card = deck.pop()
        self._note([card])
        return card

    def reveal(self, deck: np.ndarray, start: int, count: int) -> np.ndarray:
        """The deck with `deck[start:start + count]` fixed, for compiled code that reads them itself."""
        self._note(deck[start : start + count])
        return deck

    def cut(self, deck: list[int]) -> None:
        """Cut `deck` (two or more cards) at a uniform place: the last k cards go to the front."""
        k = int(self.rng.integers(1, len(deck)))
        deck[:] = deck[-k:] + deck[:-k]

    def hypergeometric(self, counts: np.ndarray, amount: int) -> np.ndarray:
        """How many of each kind `amount` draws without replacement take from a bag of `counts`."""
        drawn = self.rng.multivariate_hypergeometric(counts, amount)
        self._note(np.repeat(np.arange(len(drawn)), drawn))
        return drawn

    def clone(self) -> SeededChance:
        """An independent copy: its generator continues where this one is."""
        bit_generator = type(self.rng.bit_generator)()
        bit_generator.state = self.rng.bit_generator.state
        return SeededChance(np.random.Generator(bit_generator), self.record)


class ExplicitChance:
    """Chance as explicit nodes: plays back `outcomes` in order, then raises `ChanceNeeded` for the next one.

    A deck's order means nothing here: `draw` and `reveal` choose each card among those left when the rules
    take it, with probability proportional to its copies. A cut or a reshuffle of unseen cards changes no
    probability, so neither is a node.
    """

    def __init__(self, outcomes: Sequence[int] = ()):
        self.outcomes = list(outcomes)
        self.used = 0

    def _choose(self, values: Sequence[int], weights: Sequence[int] | None = None) -> int:
        if self.used < len(self.outcomes):
            self.used += 1
            return self.outcomes[self.used - 1]
        total = sum(weights) if weights is not None else len(values)
        probs = [w / total for w in weights] if weights is not None else [1 / total] * len(values)
        raise ChanceNeeded([(int(v), p) for v, p in zip(values, probs)])

    def _choose_card(self, cards: Sequence[int]) -> int:
        copies = sorted(Counter(int(c) for c in cards).items())
        return self._choose([v for v, _ in copies], [n for _, n in copies])

    def integers(self, low: int, high: int | None = None) -> int:
        low, high = (0, low) if high is None else (low, high)
        return self._choose(range(low, high))

    def spawn(self) -> ExplicitChance:
        return self

    def shuffled(self, items: int | Sequence[int]) -> np.ndarray:
        return np.arange(items) if isinstance(items, (int, np.integer)) else np.array(items)

    def shuffle(self, deck: list[int]) -> None:
        pass

    def permutation(self, n: int) -> np.ndarray:
        left = list(range(n))
        order = [left.pop(left.index(self._choose(left))) for _ in range(n - 1)]
        return np.array(order + left)

    def draw(self, deck: list[int]) -> int:
        card = self._choose_card(deck)
        del deck[len(deck) - 1 - deck[::-1].index(card)]
        return card

    def reveal(self, deck: np.ndarray, start: int, count: int) -> np.ndarray:
        deck = deck.copy()  # a clone may share the array
        for at in range(start, start + count):
            card = self._choose_card(deck[at:])
            where = at + int(np.flatnonzero(deck[at:] == card)[0])
            deck[at], deck[where] = deck[where], deck[at]
        return deck

    def cut(self, deck: list[int]) -> None:
        pass

    def hypergeometric(self, counts: np.ndarray, amount: int) -> np.ndarray:
        left, drawn = counts.copy(), np.zeros_like(counts)
        for _ in range(amount):
            kinds = np.flatnonzero(left)
            kind = self._choose(kinds.tolist(), left[kinds].tolist())
            left[kind] -= 1
            drawn[kind] += 1
        return drawn

    def clone(self) -> ExplicitChance:
        other = ExplicitChance(self.outcomes)
        other.used = self.used
        return other


Chance = SeededChance | ExplicitChance


IN_ORDER = SeededChance(None)  # type: ignore[arg-type]
"""Decks taken in the order they hold, nothing else drawn: a state rebuilt from JSON, whose saved bag is its order."""


def as_chance(source: np.random.Generator | Chance) -> Chance:
    """A chance source: a generator becomes a `SeededChance` (what `Game.new_initial_state` is handed)."""
    return SeededChance(source) if isinstance(source, np.random.Generator) else source

"""Named blocks of a Discrete(N) action space: one object per game configuration says what each index means.

A game's actions are consecutive blocks, each with a shape: a block `place` of shape (30, C) starting at s holds
action s + f * C + c for (f, c). The layout encodes and decodes indices, writes the docs table and hands a
frontend the first index of every block (`constants`), so the rules, the heuristics, the docs and the web page
read one description instead of each repeating the arithmetic. `Layout` in `encoding.py` is its observation twin.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from math import prod


@dataclass(frozen=True)
class ActionBlock:
    """One named run of actions: its first index, its shape (`()` for a single action) and its meaning."""

    name: str
    start: int
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def stop(self) -> int:
        return self.start + self.size


@dataclass(frozen=True)
class ActionLayout:
    """The action space of one configuration: blocks in index order, `num_actions` in all."""

    blocks: tuple[ActionBlock, ...]
    num_actions: int = field(init=False)
    _by_name: dict[str, ActionBlock] = field(init=False, repr=False, compare=False)
    _starts: list[int] = field(init=False, repr=False, compare=False)
    _decoded: tuple[tuple, ...] | None = field(init=False, repr=False, compare=False)  # every action's, once asked

    def __post_init__(self) -> None:
        by_name, start = {}, 0
        for block in self.blocks:
            if block.name in by_name:
                raise ValueError(f"duplicate action block {block.name!r}")
            if block.start != start or block.size < 1:
                raise ValueError(f"action block {block.name!r} must start at {start} and hold at least one action")
            by_name[block.name] = block
            start = block.stop
        object.__setattr__(self, "num_actions", start)
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_starts", [b.start for b in self.blocks])
        object.__setattr__(self, "_decoded", None)

    @classmethod
    def of(cls, *blocks: tuple) -> ActionLayout:
        """Build from `(name, shape, doc)` triples in index order; a shape is `()` (one action), an int or a tuple."""
        out, start = [], 0
        for name, shape, doc in blocks:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            out.append(ActionBlock(name, start, shape, doc))
            start += prod(shape)
        return cls(tuple(out))

    def block(self, name: str) -> ActionBlock:
        try:
            return self._by_name[name]
        except KeyError:
            raise ValueError(f"no action block {name!r}; blocks: {', '.join(self._by_name)}") from None

    def start(self, name: str) -> int:
        """The first action of block `name`."""
        return self.block(name).start

    def encode(self, name: str, *index: int) -> int:
        """The action for `index` within block `name` (no index for a single-action block)."""
        block = self.block(name)
        if len(index) != len(block.shape) or not all(0 <= i < n for i, n in zip(index, block.shape, strict=True)):
            raise ValueError(f"action block {name!r} takes an index in shape {block.shape}, got {index}")
        offset = 0
        for i, n in zip(index, block.shape, strict=True):
            offset = offset * n + i
        return block.start + offset

    def decode(self, action: int) -> tuple:
        """`(name, *index)`: the block holding `action` and the action's index within it. Every step of every
        game decodes its action, so the answers are worked out once, at the first call, and looked up."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside [0, {self.num_actions})")
        decoded = self._decoded
        if decoded is None:  # built whole, then set in one assignment: a thread never sees it half built
            decoded = tuple(map(self._work_out, range(self.num_actions)))
            object.__setattr__(self, "_decoded", decoded)
        return decoded[action]

    def _work_out(self, action: int) -> tuple:
        block = self.blocks[bisect.bisect_right(self._starts, action) - 1]
        offset, index = action - block.start, []
        for n in reversed(block.shape):
            offset, i = divmod(offset, n)
            index.append(i)
        return (block.name, *reversed(index))

    def constants(self) -> dict[str, int]:
        """What a frontend needs to decode actions: the first action of every block, and `num_actions`."""
        return {**{b.name: b.start for b in self.blocks}, "num_actions": self.num_actions}

    def describe(self) -> list[dict]:
        """JSON-ready: each block's name, first action, shape and meaning (export metadata, docs)."""
        return [{"name": b.name, "start": b.start, "shape": list(b.shape), "doc": b.doc} for b in self.blocks]

    def markdown(self) -> str:
        """The docs table: which actions each block holds and what they mean."""
        rows = ["| block | actions | shape | meaning |", "|---|---|---|---|"]
        for b in self.blocks:
            span = str(b.start) if b.size == 1 else f"{b.start} .. {b.stop - 1}"
            shape = " × ".join(map(str, b.shape)) or "one action"
            rows.append(f"| `{b.name}` | {span} | {shape} | {b.doc} |")
        return "\n".join(rows)

"""Named segments of a flat observation vector.

Every game describes its observation as a `Layout`: an ordered list of named blocks. The layout
gives each block's slice (so encoders fill blocks by name), documents itself (`describe`), and
travels into export metadata so a frontend can decode an observation without reading our code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Segment:
    name: str
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


@dataclass(frozen=True)
class Layout:
    segments: tuple[Segment, ...]
    _offsets: dict[str, slice] = field(init=False, repr=False, compare=False)
    _shapes: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)
    size: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        offsets, start = {}, 0
        for seg in self.segments:
            if seg.name in offsets:
                raise ValueError(f"duplicate observation segment {seg.name!r}")
            offsets[seg.name] = slice(start, start + seg.size)
            start += seg.size
        object.__setattr__(self, "_offsets", offsets)
        object.__setattr__(self, "_shapes", {seg.name: seg.shape for seg in self.segments})
        object.__setattr__(self, "size", start)

    @classmethod
    def of(cls, *blocks: tuple[str, int | tuple[int, ...], str]) -> "Layout":
        """Build from `(name, size_or_shape, doc)` triples."""
        segs = tuple(Segment(n, (s,) if isinstance(s, int) else tuple(s), d) for n, s, d in blocks)
        return cls(segs)

    def __add__(self, other: "Layout") -> "Layout":
        return Layout(self.segments + other.segments)

    def slice(self, name: str) -> slice:
        return self._offsets[name]

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def block(self, vector: np.ndarray, name: str) -> np.ndarray:
        """A writable view of one segment, shaped as declared."""
        return vector[self._offsets[name]].reshape(self._shapes[name])

    def describe(self) -> list[dict]:
        """JSON-ready description: name, offset, shape and meaning of each segment."""
        return [
            {"name": s.name, "offset": self._offsets[s.name].start, "shape": list(s.shape), "doc": s.doc}
            for s in self.segments
        ]

    def markdown(self) -> str:
        rows = ["| segment | offset | shape | meaning |", "|---|---|---|---|"]
        rows += [f"| `{d['name']}` | {d['offset']} | {tuple(d['shape'])} | {d['doc']} |" for d in self.describe()]
        return "\n".join(rows)

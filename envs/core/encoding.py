"""Named segments of a flat observation vector.

Every game describes its observation as a `Layout`: an ordered list of named blocks. The layout
gives each block's slice (so encoders fill blocks by name), documents itself (`describe`), and
travels into export metadata so a frontend can decode an observation without reading our code.

Each segment declares the range its values lie in (`low`, `high`; most are flags or fractions, so
[0, 1] unless declared), and the env's observation space is the Box of those ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Segment:
    """One named block: its shape, its meaning, and the range [low, high] every value in it lies in."""

    name: str
    shape: tuple[int, ...]
    doc: str
    low: float = 0.0
    high: float = 1.0

    def __post_init__(self) -> None:
        if not -np.inf < self.low <= self.high < np.inf:
            raise ValueError(f"segment {self.name!r}: bounds [{self.low}, {self.high}] must be finite with low <= high")

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
    def of(cls, *blocks: tuple) -> Layout:
        """Build from `(name, size_or_shape, doc)` triples, or `(name, size_or_shape, doc, (low, high))`
        for a segment whose values can leave [0, 1]."""
        segs = []
        for name, shape, doc, *bounds in blocks:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            low, high = bounds[0] if bounds else (0.0, 1.0)
            segs.append(Segment(name, shape, doc, float(low), float(high)))
        return cls(tuple(segs))

    def __add__(self, other: Layout) -> Layout:
        return Layout(self.segments + other.segments)

    def slice(self, name: str) -> slice:
        return self._offsets[name]

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """float32 vectors of every entry's lowest and highest possible value (the observation Box).

        A bound that float32 cannot hold exactly (3.57) is rounded outward, so a value computed at the
        bound, in float32 or float64 arithmetic, still lies inside."""
        low = np.concatenate([np.full(s.size, _float32_toward(s.low, -np.inf)) for s in self.segments])
        high = np.concatenate([np.full(s.size, _float32_toward(s.high, np.inf)) for s in self.segments])
        return low, high

    def block(self, vector: np.ndarray, name: str) -> np.ndarray:
        """A writable view of one segment, shaped as declared."""
        return vector[self._offsets[name]].reshape(self._shapes[name])

    def describe(self) -> list[dict]:
        """JSON-ready description: name, offset, shape, meaning and value range of each segment."""
        return [
            {
                "name": s.name,
                "offset": self._offsets[s.name].start,
                "shape": list(s.shape),
                "doc": s.doc,
                "low": s.low,
                "high": s.high,
            }
            for s in self.segments
        ]

    def markdown(self) -> str:
        rows = ["| segment | offset | shape | meaning |", "|---|---|---|---|"]
        rows += [f"| `{d['name']}` | {d['offset']} | {tuple(d['shape'])} | {d['doc']} |" for d in self.describe()]
        return "\n".join(rows)


def _float32_toward(value: float, direction: float) -> np.float32:
    """`value` as float32, rounded toward `direction` where float32 cannot hold it exactly."""
    rounded = np.float32(value)
    if float(rounded) != value and (float(rounded) < value) == (direction > 0):
        rounded = np.nextafter(rounded, np.float32(direction))
    return rounded

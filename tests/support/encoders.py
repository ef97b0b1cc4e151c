"""Differential checks of an observer against its plain Python oracle (tests/oracles/*_observe.py)."""

from __future__ import annotations

import numpy as np


def assert_same_encoding(ours, oracle, state, seat: int, where: str) -> None:
    """`ours` encodes `state` for `seat` as `oracle` does, bit for bit: into a fresh vector, and into a reused
    one left dirty (every entry the encoder does not write must come out zero)."""
    expected = oracle.encode(state, seat)
    dirty = np.full(ours.layout.size, 7.0, dtype=np.float32)
    for got in (ours.encode(state, seat), ours.encode(state, seat, dirty)):
        assert got.dtype == expected.dtype and np.array_equal(got, expected), f"{where}, seat {seat}"

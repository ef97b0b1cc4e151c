"""Untrusted request lines, read safely: length, encoding and nesting are checked before JSON parsing.

A line-oriented server must answer every line and survive every line. Python's own reader would
accept a line of any length, die on bytes that are not UTF-8 and recurse once per `[` (100,000 of them
end the process with RecursionError), so the bytes are read and checked here first, and each problem
becomes a `LineError` that the server answers like any other bad request.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

import numpy as np

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a request may have; a saved state needs fewer than 8 levels."""
MIN_LINE_BYTES = 1 << 20
"""The smallest line limit (1 MiB); a server for a large observation allows more (`line_limit`)."""
BYTES_PER_NUMBER = 32
"""Room for one observation number or mask entry as JSON text ("0.10000000149011612, " is 21 bytes)."""
JSON_WHITESPACE = b" \t\r\n"


class LineError(ValueError):
    """A line that cannot be a request: too long, not UTF-8, nested too deeply or not JSON."""


def line_limit(numbers: int) -> int:
    """The longest line a server for `numbers` observation numbers and mask entries accepts, in bytes."""
    return max(MIN_LINE_BYTES, BYTES_PER_NUMBER * numbers)


def read_lines(stream: BinaryIO, limit: int) -> Iterator[bytes | LineError]:
    """Each line of `stream` without its newline; a `LineError` instead of a line longer than `limit`
    bytes, whose rest is read and dropped without being held in memory."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if line.endswith(b"\n"):
            yield line[:-1]
        elif len(line) <= limit:
            yield line  # the last line, without a newline
        else:
            while line and not line.endswith(b"\n"):
                line = stream.readline(limit + 1)
            yield LineError(f"line longer than {limit} bytes: this server reads at most {limit} bytes per line")


def is_blank(line: bytes) -> bool:
    """Only JSON whitespace (or nothing): skipped without an answer."""
    return not line.strip(JSON_WHITESPACE)


def parse(line: bytes | str) -> Any:
    """The JSON value on `line`, or a `LineError` naming what is wrong with it.

    NaN and Infinity literals parse (Python's `json.dumps` writes them); the request checks reject them
    where numbers must be finite."""
    if isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise LineError(f"not UTF-8 text: byte {err.start} is {line[err.start : err.start + 1]!r}") from None
    else:
        text, line = line, line.encode("utf-8", "surrogatepass")
    if _bracket_depth(line) > MAX_DEPTH and (depth := nesting_depth(line)) > MAX_DEPTH:
        raise LineError(f"nested {depth} levels deep: a request may nest arrays and objects at most {MAX_DEPTH} deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise LineError(f"not valid JSON: {err}") from None
    except ValueError as err:  # Python refuses integer literals longer than 4,300 digits
        raise LineError(f"a number on this line is too long to read ({err.args[0].split(':')[0]})") from None


def nesting_depth(line: bytes) -> int:
    """The deepest run of unclosed `[` and `{` outside strings, in linear time and without recursion.

    A quote opens or closes a string unless an odd run of backslashes precedes it."""
    data = np.frombuffer(line, dtype=np.uint8)
    index = np.arange(data.size, dtype=np.int32)
    last_other = np.maximum.accumulate(np.where(data == ord("\\"), -1, index))  # last non-backslash at or before i
    run_before = np.zeros(data.size, dtype=np.int32)
    run_before[1:] = index[:-1] - last_other[:-1]
    quote = (data == ord('"')) & (run_before % 2 == 0)
    in_string = (np.cumsum(quote, dtype=np.int32) - quote) % 2 == 1
    step = _brackets(data)
    step[in_string | quote] = 0
    return int(np.cumsum(step).max(initial=0))


def _bracket_depth(line: bytes) -> int:
    """`nesting_depth` counting brackets inside strings too: an upper bound, several times cheaper."""
    return int(np.cumsum(_brackets(np.frombuffer(line, dtype=np.uint8))).max(initial=0))


def _brackets(data: np.ndarray) -> np.ndarray:
    """+1 at each `[` or `{`, -1 at each `]` or `}`, 0 elsewhere."""
    return (data == ord("[")).astype(np.int32) + (data == ord("{")) - (data == ord("]")) - (data == ord("}"))


def encode(reply: dict[str, Any]) -> str:
    """One answer line: strict JSON (never NaN or Infinity), no newline inside."""
    return json.dumps(reply, allow_nan=False, ensure_ascii=True)

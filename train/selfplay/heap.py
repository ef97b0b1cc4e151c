"""Keep the PPO update's large blocks in the process heap (glibc's malloc; elsewhere nothing changes).

A minibatch of the structured networks makes activations of several MB each ([1,024 x 132 x 32] floats for
Cromlet's `circles`: 17 MB; Chromino's `board`: 47 MB), dozens a pass. glibc serves blocks that large with a
fresh `mmap` and returns them on `free`, so each one is paged in and zeroed again. On the main thread its
dynamic threshold soon keeps blocks up to 32 MB, but the overlapped update runs on a second thread, in a
per-thread arena whose heaps are at most 64 MB: there every activation was a new mapping (a
[1,024 x 132 x 32] `relu(a + b) * 2` in a thread: 10-11 ms; 6-7 ms with this).

So a training process uses one arena (the main heap, which grows without that bound), serves blocks below
1 GB from it and keeps up to 1 GB freed for reuse: set once, for the rest of the process, since glibc has no
way back to its dynamic defaults. The price is resident memory that stays near its peak. Memory layout never
changes a result: training is the same bit for bit.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8  # glibc's malloc.h
KEEP_BELOW = 1 << 30  # bytes: blocks below this come from the heap, and a heap this much free is kept

_done = False


def keep_large_blocks() -> bool:
    """Set glibc's malloc for a training process (once); False where the C library is not glibc."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        if not hasattr(libc, "gnu_get_libc_version"):  # musl and others: their mallopt means something else
            return False
        one_arena = libc.mallopt(M_ARENA_MAX, 1) == 1
        # some glibc versions cap the threshold at half a thread heap (32 MB): blocks below that, then
        in_heap = any(libc.mallopt(M_MMAP_THRESHOLD, value) == 1 for value in (KEEP_BELOW, 32 << 20))
        _done = one_arena and in_heap and libc.mallopt(M_TRIM_THRESHOLD, KEEP_BELOW) == 1
    except OSError:
        return False
    return _done

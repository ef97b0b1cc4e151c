"""keep_large_blocks (train/selfplay/heap.py): without it, an activation-sized block allocated on a second
thread is a fresh mapping of its own (paged in afresh each time); with it, called before the thread starts,
as learning does, the block comes from the process heap, where a freed one is reused. Each case in a fresh
process, since the setting lasts for the process."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

CHILD = """
import sys, threading
import numpy as np
from tabletop.train.selfplay.heap import keep_large_blocks

def heap_ranges():
    with open("/proc/self/maps") as maps:
        lines = [line.split() for line in maps if line.rstrip().endswith("[heap]")]
    return [tuple(int(end, 16) for end in line[0].split("-")) for line in lines]

def in_heap_from_a_thread():
    found = {}
    def work():
        block = np.ones(17 << 18, dtype=np.float32)  # 17 MB, as one of Cromlet's minibatch activations
        address = block.ctypes.data
        found["in_heap"] = any(low <= address < high for low, high in heap_ranges())
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return found["in_heap"]

if sys.argv[1] == "keep":
    assert keep_large_blocks() and keep_large_blocks()  # the second call changes nothing
print(in_heap_from_a_thread(), in_heap_from_a_thread())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc only; elsewhere nothing is set")
def test_a_thread_takes_large_blocks_from_the_heap_once_kept():
    found = {}
    for case in ("plain", "keep"):
        done = subprocess.run([sys.executable, "-c", CHILD, case], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        found[case] = done.stdout.split()
    assert found == {"plain": ["False", "False"], "keep": ["True", "True"]}

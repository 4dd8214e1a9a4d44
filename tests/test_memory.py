"""Giving freed memory back to the system (textwin._memory)."""
import ctypes.util
import os
import sys

import pytest

from textwin._memory import release_free_memory


def _resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not sys.platform.startswith("linux") or "musl" in str(
    ctypes.util.find_library("c")), reason="glibc's malloc_trim")
def test_freed_heap_blocks_leave_the_resident_set():
    # 80 MB of blocks below glibc's mmap threshold, freed under a block still in use:
    # free() keeps them in the heap (the resident set does not fall) until released
    blocks = [bytearray(4096) for _ in range(20_000)]
    in_use = bytearray(4096)  # noqa: F841 (above the freed ones: the heap cannot shrink)
    held = _resident_bytes()
    del blocks
    release_free_memory()
    assert _resident_bytes() < held - 60e6

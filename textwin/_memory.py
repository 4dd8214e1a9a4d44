"""Giving freed memory back to the system.

glibc's malloc keeps the memory of freed blocks below its mmap threshold (which rises to
32 MB as large blocks are freed) in its heaps, for later allocations: a search that builds
a fold's matrices, drops them and builds the next setting's keeps the largest it ever held
in its resident set, and the refit's matrices come on top. ``malloc_trim(0)`` returns every
free page of the heaps at once; elsewhere (another C library, another system) this does
nothing.

With threads, each keeps its own heap, and blocks one thread freed stay in its heap while
another builds the next fold: the command therefore also gives every block of a megabyte
or more its own mapping, returned to the system when freed (:func:`map_large_blocks`).
"""
import ctypes
import ctypes.util
import os
import sys

_libc = _trim = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _trim = _libc.malloc_trim
        _trim.argtypes, _trim.restype = [ctypes.c_size_t], ctypes.c_int
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        _libc = _trim = None

#: glibc's mallopt parameter: the size from which a block gets a mapping of its own
_M_MMAP_THRESHOLD = -3


def release_free_memory():
    """Return the heaps' free pages to the system, where the C library can (glibc).
    Called where a large working set has just been dropped: between a search's settings,
    when a fold's matrices go, before a refit."""
    if _trim is not None:
        _trim(0)


def map_large_blocks(threshold=1 << 20):
    """Give blocks of ``threshold`` bytes or more mappings of their own, which go back to
    the system as soon as they are freed (glibc; elsewhere, or when the user set
    ``MALLOC_MMAP_THRESHOLD_``, nothing). Returns whether it was set.

    glibc raises that threshold to the size of each large block freed (up to 32 MB on
    64 bits) and then keeps freed blocks below it in the heap of the thread that freed
    them: a search in threads that builds and drops a fold's matrices at every step
    carried them in its peak."""
    if _libc is None or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        return bool(_libc.mallopt(_M_MMAP_THRESHOLD, int(threshold)))
    except AttributeError:  # pragma: no cover - a libc without mallopt
        return False

"""Giving freed memory back to the system.

glibc's malloc keeps the memory of freed blocks below its mmap threshold (which rises to
32 MB as large blocks are freed) in its heaps, for later allocations: a search that builds
a fold's matrices, drops them and builds the next setting's keeps the largest it ever held
in its resident set, and the refit's matrices come on top. ``malloc_trim(0)`` returns every
free page of the heaps at once; elsewhere (another C library, another system) this does
nothing.
"""
import ctypes
import ctypes.util
import sys

_trim = None
if sys.platform.startswith("linux"):
    try:
        _trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        _trim.argtypes, _trim.restype = [ctypes.c_size_t], ctypes.c_int
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        _trim = None


def release_free_memory():
    """Return the heaps' free pages to the system, where the C library can (glibc).
    Called where a large working set has just been dropped: between a search's settings,
    when a fold's matrices go, before a refit."""
    if _trim is not None:
        _trim(0)

"""Data sets: Reuters-21578 (ModApte; its single-label R8 and R52), synthetic Winnow data, and where they live.

Nothing is downloaded at import; :func:`fetch_reuters21578` downloads only when
the corpus is missing and ``download_if_missing=True``.
"""
from ._base import CacheDirError, clear_data_home, get_cache_dir, get_data_home
from ._reuters import (
    REUTERS_TOP10,
    ReutersFormatError,
    fetch_reuters21578,
    fetch_reuters_single_label,
    load_reuters_vectorized,
)
from ._synthetic import make_winnow_data

__all__ = [
    "CacheDirError",
    "REUTERS_TOP10",
    "ReutersFormatError",
    "clear_data_home",
    "fetch_reuters21578",
    "fetch_reuters_single_label",
    "get_cache_dir",
    "get_data_home",
    "load_reuters_vectorized",
    "make_winnow_data",
]

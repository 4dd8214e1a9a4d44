"""Readers for a user's own labelled corpus (they live in :mod:`textwin.datasets`;
this module keeps the import path working).

The layouts are listed in :data:`textwin.datasets.LAYOUTS`: JSON Lines, CSV, TSV,
Parquet, fastText, a folder per category, svmlight. Every reader returns a
:class:`CustomCorpus`.
"""
from .datasets._corpus import SKIP_REASONS, CorpusError, CustomCorpus, corpus_from_labels
from .datasets._encoding import decode_text, looks_binary
from .datasets._folders import read_folder
from .datasets._jsonl import read_jsonl
from .datasets._layouts import load_corpus
from .datasets._svmlight import (
    MAX_FEATURE_INDEX,
    available_memory,
    read_svmlight,
    read_svmlight_file,
)

__all__ = ["CorpusError", "CustomCorpus", "load_corpus", "read_jsonl", "read_folder",
           "read_svmlight", "read_svmlight_file", "looks_binary", "decode_text",
           "corpus_from_labels", "MAX_FEATURE_INDEX", "SKIP_REASONS", "available_memory"]

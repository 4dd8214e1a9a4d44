"""Data sets: Reuters-21578 (ModApte; its single-label R8 and R52), synthetic Winnow
data, a user's own corpus in any layout of :data:`LAYOUTS`, and where they live; a
labelled corpus resolved once for a fit (:class:`TrainingSet`).

Nothing is downloaded at import; :func:`fetch_reuters21578` downloads only when
the corpus is missing and ``download_if_missing=True``. The names are imported
when first used, so that reading the table of layouts (as ``textwin --help``
does) imports neither scikit-learn nor SciPy.
"""
import importlib

_LAZY = {
    # name -> module of textwin.datasets that defines it
    "CacheDirError": "_base",
    "clear_data_home": "_base",
    "get_cache_dir": "_base",
    "get_data_home": "_base",
    "REUTERS_TOP10": "_reuters",
    "ReutersFormatError": "_sgml_parser",
    "fetch_reuters21578": "_reuters",
    "fetch_reuters_single_label": "_reuters",
    "load_reuters_vectorized": "_reuters",
    "load_reuters_corpus": "_reuters",
    "TrainingSet": "_training_set",
    "TextRows": "_training_set",
    "UnknownCategoryError": "_training_set",
    "resolve_categories": "_training_set",
    "make_winnow_data": "_synthetic",
    "LAYOUTS": "_layouts",
    "describe_layouts": "_layouts",
    "layout_of": "_layouts",
    "load_corpus": "_layouts",
    "read_inputs": "_layouts",
    "Columns": "_table",
    "CorpusError": "_corpus",
    "SKIP_REASONS": "_corpus",
    "CustomCorpus": "_corpus",
    "corpus_from_labels": "_corpus",
    "read_jsonl": "_jsonl",
    "read_folder": "_folders",
    "decode_text": "_encoding",
    "looks_binary": "_encoding",
    "read_svmlight": "_svmlight",
    "read_svmlight_file": "_svmlight",
}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_LAZY})


__all__ = sorted(_LAZY)

"""JSON Lines: one object per line, ``{"text": "...", "labels": ["a", "b"]}``.

A single ``"label"`` (as Hugging Face datasets and pandas write them) is a
list of one. An empty label list is a legal document in no category; a line
without either field is an error (or, with ``allow_unlabeled=True``, a document
in no category). An optional ``"split": "train"|"test"`` field fixes the split.
Blank lines are ignored; a line whose text is empty (white space only) or null,
as pandas writes a missing text, is skipped and named in one warning, as the
rows of CSV, fastText and Parquet are. The file is UTF-8 (a byte order mark allowed) or UTF-16 with its
byte order mark, and may be gzip'd (a name ending in ``.gz``).
"""
import gzip
import json
import zlib
from pathlib import Path

from ._corpus import CorpusError, Documents, finish, warn_skipped
from ._lines import text_lines

__all__ = ["jsonl_documents", "jsonl_inputs", "read_jsonl"]


def _lines(path):
    return text_lines(path, "JSON Lines", _LONG_LINE)


#: Why a line may not be longer than a document.
_LONG_LINE = ("JSON Lines holds one document per line (a JSON array, or JSON without line "
              "breaks, is not JSON Lines): write one object per line")


def _object(line, where, text_may_be_null=False):
    """The JSON object of one line, which has a ``"text"`` (or ``null`` there, when
    ``text_may_be_null``)."""
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{where}: not valid JSON ({exc.msg}); each line must be "
                          'one object like {"text": "...", "labels": ["a"]}') from None
    if not isinstance(rec, dict) or not (
            isinstance(rec.get("text"), str)
            or text_may_be_null and "text" in rec and rec["text"] is None):
        raise CorpusError(f'{where}: each line needs a "text" string')
    return rec


def _record(line, where, allow_unlabeled):
    """``(text, labels, id or None, split)`` of one line; its text is None when it is
    null."""
    rec = _object(line, where, text_may_be_null=True)
    if "labels" in rec and "label" in rec:
        raise CorpusError(f'{where}: both "labels" and "label"; give one of them')
    key = "labels" if "labels" in rec else "label"  # "label": Hugging Face, pandas
    labs = rec.get(key)
    if labs is None and not allow_unlabeled:
        what = f'"{key}" is null' if key in rec else 'no "labels" field'
        raise CorpusError(
            f'{where}: {what}; give each line its categories '
            '("labels": ["a", "b"], or [] for a document in none), or allow '
            "unlabelled documents explicitly (--allow-unlabeled, "
            "allow_unlabeled=True)")
    labs = [] if labs is None else [labs] if isinstance(labs, (str, int)) else labs
    if not isinstance(labs, list) or not all(
            isinstance(x, (str, int)) and not isinstance(x, bool) for x in labs):
        raise CorpusError(f'{where}: "{key}" must be a category name or a list of them '
                          f"(strings or integers), not {json.dumps(rec[key])}")
    return rec["text"], sorted({str(x) for x in labs}), rec.get("id"), rec.get("split")


def _refuse_array(path, first_line):
    """A file whose first line opens a JSON array is no JSON Lines: say how to convert it."""
    if first_line.lstrip().startswith("["):
        raise CorpusError(
            f"{path} holds a JSON array; textwin reads JSON Lines, one object per "
            f"line: convert it with `jq -c '.[]' {path} > {path.with_suffix('.jsonl')}`")


def _gzip_errors(path):
    return CorpusError(f"{path}: not a complete gzip file; compress it again "
                       "(`gzip -k FILE.jsonl`) or give it uncompressed")


def jsonl_inputs(path, *, n_features=None, skipped=None):
    """Documents to score, in parts as they are read (``(ids, texts)``, at most
    :data:`~textwin.datasets._layouts.BATCH` each): every line's ``"text"`` (its
    labels, if any, ignored), named by its ``"id"`` or ``FILE:LINE``."""
    from ._layouts import BATCH

    path = Path(path)
    ids, docs, first = [], [], True
    try:
        for lineno, line in _lines(path):
            if line.strip():
                if first:
                    _refuse_array(path, line)
                    first = False
                rec = _object(line, f"{path}:{lineno}")
                ids.append(str(rec["id"]) if "id" in rec else f"{path}:{lineno}")
                docs.append(rec["text"])
                if len(docs) == BATCH:
                    yield ids, docs
                    ids, docs = [], []
    except (EOFError, zlib.error, gzip.BadGzipFile):  # cut short, damaged
        raise _gzip_errors(path) from None
    if docs:
        yield ids, docs


def jsonl_documents(path, *, allow_unlabeled=False):
    """The :class:`Documents` of a JSON Lines file (see the module docstring)."""
    path = Path(path)
    docs, labels, ids, splits = [], [], [], []
    skipped = {"empty_text": []}
    try:
        for lineno, line in _lines(path):
            if not line.strip():
                continue
            if not docs and not skipped["empty_text"]:
                _refuse_array(path, line)
            where = f"{path}:{lineno}"
            text, labs, doc_id, split = _record(line, where, allow_unlabeled)
            if text is None or not text.strip():
                skipped["empty_text"].append(where)
                continue
            docs.append(text)
            labels.append(labs)
            ids.append(str(lineno if doc_id is None else doc_id))
            splits.append(split)
    except (EOFError, zlib.error, gzip.BadGzipFile):  # cut short, damaged
        raise _gzip_errors(path) from None
    if any(s is not None for s in splits) and any(s is None for s in splits):
        raise CorpusError(f"{path}: some lines have a \"split\" field and some do not; "
                          "give it to every line or to none")
    warn_skipped(str(path), skipped)
    return Documents(docs, labels, ids, "text", str(path), splits=splits, skipped=skipped)


def read_jsonl(path, *, test_size=0.25, random_state=0, allow_unlabeled=False):
    """Read a JSON Lines corpus (see the module docstring).

    ``allow_unlabeled=True`` reads a line without ``"labels"`` as a document in
    no category; otherwise such a line is an error naming it. A line whose text
    is empty (white space only) or null, and a blank line, are skipped.
    """
    return finish(jsonl_documents(path, allow_unlabeled=allow_unlabeled),
                  test_size=test_size, random_state=random_state)

"""What the readers of tables (CSV, TSV, Parquet) share: which column is the text and
which the labels, how a cell holds several labels, and the documents of the rows.

The text column is ``--text-column`` (``Columns.text``) or the first column whose
name, in any case, is one of :data:`TEXT_COLUMNS`; the label column likewise of
:data:`LABEL_COLUMNS` (``labels`` and ``label`` both present is an error, as in
JSON Lines). A column named ``id`` names the documents and one named ``split``
(``train`` or ``test``) fixes the split, as the fields of JSON Lines do.

A label cell holds one category, or several separated by ``Columns.separator``
(default ``,``; ``""``: never split), each with white space around it dropped, or a
JSON or Python list (``["a", "b"]``, ``['a', 'b']`` as pandas writes a list); ``[]``
is a document in no category, and an empty cell a document without labels, an
error unless unlabelled documents are allowed. A row whose text is empty (white
space only) is skipped and reported. Parquet's list columns are lists of labels.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from ._corpus import CorpusError, Documents, warn_skipped

__all__ = ["LABEL_COLUMNS", "TEXT_COLUMNS", "Columns", "TableRows", "find_columns"]

#: The names of a text column, in the order they are looked for (any case).
TEXT_COLUMNS = ("text", "sentence", "content", "document", "body", "review", "message",
                "tweet", "comment", "abstract")
#: The names of a label column, in the order they are looked for (any case).
LABEL_COLUMNS = ("labels", "label", "category", "categories", "class", "target", "topic",
                 "tags", "sentiment", "intent")


@dataclass(frozen=True)
class Columns:
    """How a table holds its documents: the names of the text and label columns
    (``None``: found by their usual names) and the separator of several labels in
    one cell (``""``: a cell is one label)."""

    text: str | None = None
    label: str | None = None
    separator: str = ","

    def given(self):
        """The options set away from their defaults, as the command line names them."""
        return [opt for opt, on in (("--text-column", self.text is not None),
                                    ("--label-column", self.label is not None),
                                    ("--label-separator", self.separator != ",")) if on]


def _named(header, wanted, usual, what, option, where):
    """The index of the column ``wanted`` (exact name), else of the first of ``usual``
    (any case); None if none is there."""
    if wanted is not None:
        if wanted in header:
            return header.index(wanted)
        raise CorpusError(f"{where}: no column {wanted!r} ({option}); the header names "
                          f"{_listed(header)}")
    lower = [str(name).strip().lower() for name in header]
    for name in usual:
        if name in lower:
            if lower.count(name) > 1:
                raise CorpusError(f"{where}: {lower.count(name)} columns named {name!r}; name "
                                  f"the {what} column with {option}")
            return lower.index(name)
    return None


def _listed(header, n=8, width=40):
    """The header's first ``n`` names, each cut at ``width`` characters: the first row of
    a file without a header (a text, an svmlight line) is no line of a message."""
    names = ", ".join(repr(str(h)) if len(str(h)) <= width else repr(str(h)[:width]) + "..."
                      for h in header[:n])
    return names + (f", ... ({len(header) - n} more)" if len(header) > n else "") if header \
        else "no column"


def _required(header, wanted, usual, what, where):
    """The index of the ``what`` column (``"text"``, ``"label"``), or an error saying
    how to name it."""
    index = _named(header, wanted, usual, what, f"--{what}-column", where)
    if index is None:
        raise CorpusError(
            f"{where}: no {what} column: the header names {_listed(header)}; name it with "
            f"--{what}-column, or call it {', '.join(usual[:4])} (or {', '.join(usual[4:])}); "
            "the first row is the header")
    return index


def find_columns(header, columns, where, *, labels=True):
    """``(text, label, id, split)``: the indices of those columns in ``header`` (the
    label's None when ``labels`` is false, the id's and split's None when absent)."""
    columns = columns or Columns()
    text = _required(header, columns.text, TEXT_COLUMNS, "text", where)
    label = None
    if labels:
        lower = [str(name).strip().lower() for name in header]
        if columns.label is None and "labels" in lower and "label" in lower:
            raise CorpusError(f"{where}: both a 'labels' and a 'label' column; name the one "
                              "to read with --label-column")
        label = _required(header, columns.label, LABEL_COLUMNS, "label", where)
        if label == text:
            raise CorpusError(f"{where}: the text and the labels are the same column "
                              f"{str(header[text])!r}: name them with --text-column and "
                              "--label-column")
    lower = [str(name).strip().lower() for name in header]
    id_ = lower.index("id") if "id" in lower and lower.index("id") not in (text, label) else None
    split = (lower.index("split") if "split" in lower and lower.index("split") not in (text, label)
             else None)
    return text, label, id_, split


def _label_name(x, where):
    if isinstance(x, bool) or not isinstance(x, (str, int, float)):
        raise CorpusError(f"{where}: a label must be a category name or a number, not {x!r}")
    if isinstance(x, float):
        if not x.is_integer():
            raise CorpusError(f"{where}: label {x!r} is not a category (a name or an integer)")
        x = int(x)
    return str(x).strip()


def labels_of(cell, separator, where):
    """The label names of one cell, or None for an empty cell (no labels given)."""
    if cell is None:
        return None
    if isinstance(cell, (list, tuple)):
        return sorted({_label_name(x, where) for x in cell})
    if not isinstance(cell, str):
        return [_label_name(cell, where)]
    text = cell.strip()
    if not text:
        return None
    if text.startswith("[") and text.endswith("]"):
        try:
            found = json.loads(text)
        except ValueError:
            try:
                found = ast.literal_eval(text)  # ['a', 'b']: a Python list, as pandas writes it
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise CorpusError(f"{where}: label cell {cell!r} opens a list that is neither "
                                  "JSON nor Python; write [\"a\", \"b\"], or the names "
                                  f"separated by {separator!r}") from None
        if not isinstance(found, list):
            raise CorpusError(f"{where}: label cell {cell!r} is not a list of names")
        return sorted({_label_name(x, where) for x in found})
    names = text.split(separator) if separator else [text]
    names = [name.strip() for name in names]
    if not all(names):
        raise CorpusError(f"{where}: an empty category name in {cell!r} (labels separated by "
                          f"{separator!r}; --label-separator '' reads a cell as one label)")
    return sorted(set(names))


class TableRows:
    """The documents of a table, gathered row by row."""

    def __init__(self, source, columns, allow_unlabeled):
        self.source = source
        self.separator = (columns or Columns()).separator
        self.allow_unlabeled = allow_unlabeled
        self.docs, self.labels, self.ids, self.splits = [], [], [], []
        self.skipped = {"empty_text": []}

    def add(self, where, number, text, label, doc_id=None, split=None):
        """One row: ``where`` names it in messages (``FILE:LINE``), ``number`` is its id
        when it has no ``id`` cell."""
        if text is None or not str(text).strip():
            self.skipped["empty_text"].append(where)
            return
        labs = labels_of(label, self.separator, where)
        if labs is None:
            if not self.allow_unlabeled:
                raise CorpusError(
                    f"{where}: no labels (an empty label cell); give each row its categories "
                    "([] for a document in none), or allow unlabelled documents explicitly "
                    "(--allow-unlabeled, allow_unlabeled=True)")
            labs = []
        if not isinstance(text, str):
            raise CorpusError(f"{where}: the text is {type(text).__name__} {text!r}, not a string")
        self.docs.append(text)
        self.labels.append(labs)
        self.ids.append(str(number if doc_id is None or doc_id == "" else doc_id))
        self.splits.append(None if split is None or split == "" else split)

    def documents(self):
        """The :class:`Documents` of the rows (the rows skipped named in one warning)."""
        splits = self.splits
        if any(s is not None for s in splits) and any(s is None for s in splits):
            raise CorpusError(f"{self.source}: some rows have a split and some do not; give "
                              "it to every row or to none")
        warn_skipped(self.source, self.skipped)
        return Documents(self.docs, self.labels, self.ids, "text", self.source,
                         splits=splits, skipped=self.skipped)

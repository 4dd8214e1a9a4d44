"""CSV and TSV: a header row, then one document per row.

Read by Python's :mod:`csv` as pandas' ``read_csv`` reads them (``sep=","`` or
``"\\t"``): a field in double quotes may hold the separator, line breaks and doubled
quotes (``""``). The first row names the columns; which is the text and which the
labels, and how one cell holds several labels, is :mod:`._table`'s. The file is
UTF-8 (a byte order mark allowed) or UTF-16 with its byte order mark, and may be
gzip'd (a name ending in ``.gz``). Blank lines are ignored. A row with more or fewer
fields than the header, a byte that is not UTF-8, a missing column or an empty label
cell is an error naming the line; a row whose text is empty is skipped and reported.
"""
import csv
import gzip
import zlib
from pathlib import Path

from ._corpus import CorpusError
from ._encoding import MAX_DOCUMENT_BYTES
from ._lines import text_lines
from ._table import TableRows, find_columns

__all__ = ["csv_documents", "csv_inputs", "tsv_documents", "tsv_inputs"]

_LONG_LINE = "a line of a table holds at most one document"


def _rows(path, delimiter):
    """``(line number of the row's first line, fields)`` of every row that is not blank."""
    what = "CSV" if delimiter == "," else "TSV"
    lines = (line for _, line in text_lines(path, what, _LONG_LINE))
    # a field may be as long as a document (the module's default stops at 128 KiB)
    if csv.field_size_limit() < MAX_DOCUMENT_BYTES:
        csv.field_size_limit(MAX_DOCUMENT_BYTES)
    reader = csv.reader(lines, delimiter=delimiter)
    start = 1
    try:
        for fields in reader:
            if fields:
                yield start, fields
            start = reader.line_num + 1
    except csv.Error as exc:
        raise CorpusError(f"{path}:{reader.line_num}: not {what} ({exc})") from None
    except (EOFError, zlib.error, gzip.BadGzipFile):  # cut short, damaged
        raise CorpusError(f"{path}: not a complete gzip file; compress it again or give it "
                          "uncompressed") from None


def _table(path, delimiter, columns, labels):
    """``(column indices, rows)``: the header's columns and the rows after it, each
    ``(FILE:LINE, line, fields)`` with as many fields as the header."""
    path = Path(path)
    rows = _rows(path, delimiter)
    first = next(rows, None)
    if first is None:
        raise CorpusError(f"{path}: no header and no rows; the first row names the columns "
                          "(text,label)")
    lineno, header = first
    if len(header) == 1 and ";" in header[0] and delimiter == ",":
        raise CorpusError(f"{path}:{lineno}: the header {header[0]!r} is separated by ';', as "
                          "spreadsheets of some locales save CSV; textwin reads commas: save it "
                          "as \"CSV UTF-8 (comma delimited)\", or as TSV")
    found = find_columns(header, columns, f"{path}:{lineno}", labels=labels)
    sep = "tab" if delimiter == "\t" else repr(delimiter)

    def body():
        for lineno, fields in rows:
            where = f"{path}:{lineno}"
            if len(fields) != len(header):
                raise CorpusError(
                    f"{where}: {len(fields)} field{'s' if len(fields) != 1 else ''}, the header "
                    f"has {len(header)}; a field holding the separator ({sep}), a quote or a "
                    "line break must be in double quotes (\"...\"), with its quotes doubled")
            yield where, lineno, fields

    return found, body()


def _documents(path, delimiter, allow_unlabeled, columns):
    (text, label, id_, split), rows = _table(path, delimiter, columns, labels=True)
    found = TableRows(str(path), columns, allow_unlabeled)
    for where, lineno, fields in rows:
        found.add(where, lineno, fields[text], fields[label],
                  None if id_ is None else fields[id_], None if split is None else fields[split])
    return found.documents()


def _inputs(path, delimiter, columns):
    from ._layouts import BATCH

    (text, _, id_, _), rows = _table(path, delimiter, columns, labels=False)
    ids, docs = [], []
    for where, _, fields in rows:
        ids.append(where if id_ is None or not fields[id_] else fields[id_])
        docs.append(fields[text])
        if len(docs) == BATCH:
            yield ids, docs
            ids, docs = [], []
    if docs:
        yield ids, docs


def csv_documents(path, *, allow_unlabeled=False, columns=None):
    """The :class:`Documents` of a CSV file (see the module docstring)."""
    return _documents(path, ",", allow_unlabeled, columns)


def tsv_documents(path, *, allow_unlabeled=False, columns=None):
    """The :class:`Documents` of a TSV file (see the module docstring)."""
    return _documents(path, "\t", allow_unlabeled, columns)


def csv_inputs(path, *, n_features=None, skipped=None, columns=None):
    """Documents to score, in parts as they are read: every row's text, named by its
    ``id`` cell or ``FILE:LINE`` (a row whose text is empty scores the bias)."""
    return _inputs(path, ",", columns)


def tsv_inputs(path, *, n_features=None, skipped=None, columns=None):
    """As :func:`csv_inputs`, for a TSV file."""
    return _inputs(path, "\t", columns)

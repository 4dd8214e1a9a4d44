"""Parquet: a table, read through pyarrow (``pip install ".[parquet]"``).

The columns are found as in CSV (:mod:`._table`); a label column may also be a list
column (several labels per row, as Hugging Face datasets write them). Rows are read
in batches, so a large file is never held whole as Python objects. A message names
a row by its number, from 1.
"""
from pathlib import Path

from ._corpus import CorpusError
from ._table import TableRows, find_columns

__all__ = ["parquet_documents", "parquet_inputs"]


def _pyarrow(path):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CorpusError(f"{path}: reading Parquet needs pyarrow, which is not installed: "
                          'pip install ".[parquet]" (or pip install pyarrow)') from None
    return pq


def _batches(path, columns, labels):
    """``(column indices in the list read, batches)``: each batch a list of rows, each
    row ``(FILE: row N, N, values of the columns read)``."""
    pq = _pyarrow(path)
    import pyarrow as pa

    try:
        table = pq.ParquetFile(path)
    except (pa.ArrowException, OSError, ValueError) as exc:  # ArrowInvalid, an I/O error
        raise CorpusError(f"{path}: not a Parquet file ({str(exc).splitlines()[0]})") from None
    header = list(table.schema_arrow.names)
    found = find_columns(header, columns, str(path), labels=labels)
    read = [i for i in found if i is not None]
    names = [header[i] for i in read]
    where_in = [None if i is None else read.index(i) for i in found]

    def rows():
        number = 0
        batches = table.iter_batches(batch_size=1024, columns=names)
        while True:
            try:
                batch = next(batches, None)
            except (pa.ArrowException, OSError, ValueError) as exc:  # a damaged row group
                raise CorpusError(f"{path}: a damaged Parquet file after row {number} "
                                  f"({str(exc).splitlines()[0]})") from None
            if batch is None:
                return
            values = [batch.column(k).to_pylist() for k in range(len(names))]
            part = []
            for row in zip(*values):
                number += 1
                part.append((f"{path}: row {number}", number, row))
            yield part

    return where_in, rows()


def parquet_documents(path, *, allow_unlabeled=False, columns=None):
    """The :class:`Documents` of a Parquet file (see the module docstring)."""
    path = Path(path)
    (text, label, id_, split), batches = _batches(path, columns, labels=True)
    found = TableRows(str(path), columns, allow_unlabeled)
    for part in batches:
        for where, number, row in part:
            found.add(where, number, row[text], row[label],
                      None if id_ is None else row[id_], None if split is None else row[split])
    return found.documents()


def parquet_inputs(path, *, n_features=None, skipped=None, columns=None):
    """Documents to score, a batch of rows at a time: every row's text (a missing one
    scores the bias), named by its ``id`` or ``FILE: row N``."""
    path = Path(path)
    (text, _, id_, _), batches = _batches(path, columns, labels=False)
    for part in batches:
        ids = [where if id_ is None or row[id_] in (None, "") else str(row[id_])
               for where, _, row in part]
        docs = ["" if row[text] is None else str(row[text]) for _, _, row in part]
        if ids:
            yield ids, docs

"""fastText's supervised format: ``__label__sport __label__news the text ...`` per line.

As fastText reads it, every word that starts with ``__label__`` is a label, wherever
it stands (they usually come first), and the rest of the line is the text. A file is
read in this layout when its name is not one of another layout's and its first line
that is not blank starts with ``__label__`` (an svmlight line starts with a number,
so no svmlight file is taken for one). UTF-8 (a byte order mark allowed) or UTF-16
with its byte order mark, gzip'd if its name ends in ``.gz``. Blank lines are
ignored; a line with labels but no text is skipped and reported; a line without a
label is an error naming it, unless unlabelled documents are allowed.
"""
import codecs
import gzip
import re
import zlib
from pathlib import Path

from ._corpus import CorpusError
from ._lines import text_lines
from ._table import TableRows

__all__ = ["PREFIX", "fasttext_documents", "fasttext_inputs", "is_fasttext", "strip_labels"]

#: The prefix of a label word, fastText's default (its option ``-label``).
PREFIX = "__label__"
_LABEL = re.compile(r"(?<!\S)" + PREFIX + r"(\S*)")
_LONG_LINE = "a fastText file holds one document per line"


def is_fasttext(path):
    """Whether the first line of ``path`` that is not blank starts with ``__label__``
    (a regular file only: reading a named pipe to look would lose what it read)."""
    path = Path(path)
    if not path.is_file():
        return False
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as fh:
            head = fh.read(4096)
    except (OSError, EOFError, zlib.error):
        return False
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        head = head.decode("utf-16", "ignore").encode("utf-8")
    return head.removeprefix(codecs.BOM_UTF8).lstrip().startswith(PREFIX.encode())


def _split(line):
    """``(labels, text)`` of one line."""
    labels = _LABEL.findall(line)
    return labels, _LABEL.sub("", line).strip() if labels else line.strip()


def strip_labels(line):
    """The text of a fastText line, without its labels."""
    return _split(line)[1]


def _lines(path):
    try:
        for lineno, line in text_lines(path, "fastText", _LONG_LINE):
            if line.strip():
                yield f"{path}:{lineno}", lineno, line
    except (EOFError, zlib.error, gzip.BadGzipFile):  # cut short, damaged
        raise CorpusError(f"{path}: not a complete gzip file; compress it again or give it "
                          "uncompressed") from None


def fasttext_documents(path, *, allow_unlabeled=False):
    """The :class:`Documents` of a fastText file (see the module docstring)."""
    path = Path(path)
    found = TableRows(str(path), None, allow_unlabeled)
    for where, lineno, line in _lines(path):
        labels, text = _split(line)
        if not labels and not allow_unlabeled:
            raise CorpusError(f"{where}: no {PREFIX} word; each line starts with its labels "
                              f"({PREFIX}sport {PREFIX}news the text), or allow unlabelled "
                              "documents explicitly (--allow-unlabeled, allow_unlabeled=True)")
        if any(not name for name in labels):
            raise CorpusError(f"{where}: a {PREFIX} word without a category name")
        found.add(where, lineno, text, labels)
    return found.documents()


def fasttext_inputs(path, *, n_features=None, skipped=None):
    """Documents to score, in parts as they are read: every line's text, its labels
    stripped, named ``FILE:LINE``."""
    from ._layouts import BATCH

    ids, docs = [], []
    for where, _, line in _lines(Path(path)):
        ids.append(where)
        docs.append(strip_labels(line))
        if len(docs) == BATCH:
            yield ids, docs
            ids, docs = [], []
    if docs:
        yield ids, docs

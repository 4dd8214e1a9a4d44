"""The corpus layouts textwin reads, in one table: how a path is recognised,
which reader reads it, and how the help names it.

:func:`load_corpus` reads any of them; the command line's help lists them from
:data:`LAYOUTS` (:func:`describe_layouts`). Adding a layout is a row here and a
reader: a function ``documents(path, *, allow_unlabeled)`` returning
:class:`~textwin.datasets._corpus.Documents`. A reader's module is imported when
a corpus is read, so this table, and ``textwin --help``, need neither NumPy nor
SciPy. ``textwin predict`` reads the documents to score by the same table
(:func:`iter_inputs`, :func:`read_inputs`): a row's ``inputs``, a function
``inputs(path, *, n_features, skipped)`` yielding the documents in parts of at most
:data:`BATCH` (``(ids, documents)``) as it reads them, so that scoring a large
file holds one part at a time, and adding the files it skips to ``skipped``.
"""
from __future__ import annotations

import importlib
import re
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BATCH", "LAYOUTS", "Layout", "describe_layouts", "iter_inputs", "layout_of",
           "load_corpus", "read_inputs"]

#: The most documents a reader of documents to score yields at once.
BATCH = 1024


@dataclass(frozen=True)
class Layout:
    """One corpus layout.

    ``suffixes``: the file name endings it is recognised by (lower case); a
    layout with ``folder=True`` is a folder; one with neither is every other
    file. ``reader`` reads a training corpus (``None``: a layout only to score),
    ``inputs`` the documents a model scores, both ``"module:function"`` in
    ``textwin.datasets``. ``kind``: ``"text"`` or ``"vectors"``. ``sniff``: a
    function telling by a file's first bytes that it is this layout (tried when
    no suffix claims the file). ``columns``: a table, whose readers take the
    text and label columns (:class:`~textwin.datasets._table.Columns`). ``many``:
    a file of many documents, read as such inside a folder to score.
    """

    name: str
    help: str
    kind: str
    reader: str | None
    inputs: str
    suffixes: tuple = ()
    folder: bool = False
    sniff: str | None = None
    columns: bool = False
    many: bool = False

    def matches(self, path):
        path = Path(path)
        if self.folder:
            return path.is_dir()
        if path.is_dir():
            return False
        if self.sniff:
            return not _claimed(path) and _function(self.sniff)(path)
        return not self.suffixes or path.name.lower().endswith(self.suffixes)

    def documents(self, path, *, allow_unlabeled=False, columns=None):
        """What the reader finds in ``path`` (before the split)."""
        options = {"columns": columns} if self.columns else {}
        return _function(self.reader)(path, allow_unlabeled=allow_unlabeled, **options)

    def inputs_of(self, path, *, skipped, n_features=None, columns=None):
        """What a model scores in ``path``: ``(ids, documents)`` parts, as read; the
        files not read go to ``skipped`` (lists by reason)."""
        options = {"columns": columns} if self.columns or self.folder else {}
        return _function(self.inputs)(path, n_features=n_features, skipped=skipped,
                                      **options)


def _function(name):
    module, function = name.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), function)


#: Every layout, in the order the help lists them; a path takes the first that
#: matches, so a catch-all comes after the others of its kind.
LAYOUTS = (
    Layout("JSON Lines", 'a JSON Lines file ({"text": ..., "labels": [...]} per line)', "text",
           "_jsonl:jsonl_documents", "_jsonl:jsonl_inputs",
           suffixes=(".jsonl", ".json", ".ndjson", ".jsonl.gz", ".json.gz", ".ndjson.gz"),
           many=True),
    Layout("CSV", "a CSV file (.csv: a header, then a row per document)", "text",
           "_csv:csv_documents", "_csv:csv_inputs", suffixes=(".csv", ".csv.gz"),
           columns=True, many=True),
    Layout("TSV", "a TSV file (.tsv, .tab: the same, tab-separated)", "text",
           "_csv:tsv_documents", "_csv:tsv_inputs", suffixes=(".tsv", ".tab", ".tsv.gz"),
           columns=True, many=True),
    Layout("Parquet", "a Parquet file (.parquet; needs pyarrow)", "text",
           "_parquet:parquet_documents", "_parquet:parquet_inputs",
           suffixes=(".parquet", ".pq"), columns=True, many=True),
    Layout("fastText", "a fastText file (lines that start with __label__NAME)", "text",
           "_fasttext:fasttext_documents", "_fasttext:fasttext_inputs",
           sniff="_fasttext:is_fasttext", many=True),
    Layout("folder", "a folder per category (one document per file), or of a train.* and "
           "a test.* file", "text",
           "_folders:folder_documents", "_folders:folder_inputs", folder=True),
    Layout("text file", "a text file (one document)", "text",
           None, "_encoding:text_file_inputs"),
    Layout("svmlight", "an svmlight file", "vectors",
           "_svmlight:svmlight_documents", "_svmlight:svmlight_inputs"),
)


def _claimed(path):
    """Whether a layout recognises ``path`` by its name."""
    name = path.name.lower()
    return any(row.suffixes and name.endswith(row.suffixes) for row in LAYOUTS)


def describe_layouts():
    """The corpus layouts as the help names them: ``"a ..., a ..., an svmlight file"``."""
    return ", ".join(layout.help for layout in LAYOUTS if layout.reader)


def layout_of(path):
    """The corpus :class:`Layout` of ``path`` (which exists)."""
    return next(layout for layout in LAYOUTS if layout.reader and layout.matches(path))


def iter_inputs(paths, kind, *, skipped, n_features=None, columns=None):
    """The documents a model of ``kind`` (``"text"`` or ``"vectors"``) scores in
    files and folders, in parts as they are read: ``(ids, documents)``, the
    documents a list of texts or a CSR matrix of ``n_features`` columns; the files
    not read go to ``skipped`` (a dict of lists by reason, filled as they are met).
    A folder is every file inside it (not category folders), a JSON Lines file
    among them its lines; ``columns`` finds the text of a table
    (:class:`~textwin.datasets._table.Columns`). Every path is checked before the
    first is read."""
    from ._corpus import CorpusError

    paths = list(map(Path, paths))
    layouts = []
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(2, "no such file or folder", str(path))
        _check_not_device(path, " (stdin is '-')")
        layout = next((row for row in LAYOUTS if row.kind == kind and row.matches(path)), None)
        if layout is None:  # a folder for a model of svmlight vectors
            raise CorpusError(f"{path} is a folder: this model scores svmlight files, give "
                              f"them one by one (e.g. {path}/*.svm)")
        if kind == "text" and layout.name == "text file" and _looks_like_svmlight(path):
            raise CorpusError(
                f"{path} is an svmlight file (lines of label index:value ...), and this "
                f"model was trained on texts: give it texts, or score the vectors with a "
                f"model trained on svmlight files")
        if not layout.folder:  # a folder's tables take them
            _check_columns(path, layout, columns, " (or folders of them)")
        layouts.append(layout)
    for path, layout in zip(paths, layouts):
        yield from layout.inputs_of(path, n_features=n_features, skipped=skipped,
                                    columns=columns)


_SVMLIGHT_LINE = re.compile(rb"^\s*[^\s:#]+(\s+(qid:\S+\s+)?\d+:\S+)+\s*(#.*)?$")


def _looks_like_svmlight(path, head_bytes=65536, lines=20):
    """True if the first lines of the file ``path`` (its comments and blank lines
    aside, at most ``lines``) are all svmlight lines: ``label index:value ...``."""
    if not path.is_file():
        return False
    with open(path, "rb") as fh:
        head = fh.read(head_bytes)
    body = [ln for ln in head.splitlines()[:-1 if len(head) == head_bytes else None]
            if ln.strip() and not ln.lstrip().startswith(b"#")][:lines]
    return bool(body) and all(_SVMLIGHT_LINE.match(ln) for ln in body)


def read_inputs(paths, kind, *, n_features=None, columns=None):
    """``(ids, documents, skipped)``: every part of :func:`iter_inputs` at once,
    the documents one list of texts or one CSR matrix."""
    skipped = {}
    ids, parts = [], []
    for part_ids, docs in iter_inputs(paths, kind, n_features=n_features, skipped=skipped,
                                      columns=columns):
        ids += part_ids
        parts.append(docs)
    if kind == "text":
        return ids, [doc for part in parts for doc in part], skipped
    import scipy.sparse as sp  # here: --help and text models need no SciPy

    return ids, sp.vstack(parts).tocsr(), skipped


#: Paths that are no files of documents, by what they are: a device such as
#: /dev/zero never ends (reading it took all the memory). A named pipe is
#: read, as a shell's <(...) gives one.
_DEVICES = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
            (stat.S_ISSOCK, "a socket"))


def _check_not_device(path, hint=""):
    """CorpusError if ``path`` (which exists) is a device or a socket."""
    from ._corpus import CorpusError

    mode = path.stat().st_mode
    what = next((name for test, name in _DEVICES if test(mode)), None)
    if what is not None:
        raise CorpusError(f"{path} is {what}, not a file or folder of documents{hint}")


def _text_layouts_hint(path, layout):
    """For a text file read by the catch-all layout: which layouts hold text."""
    named = [s for row in LAYOUTS for s in row.suffixes]
    text = [row.help for row in LAYOUTS if row.kind == "text" and row.reader]
    return (f" ({path} was read as {layout.name}, the layout of a file not named "
            f"{', '.join(named[:-1])} or {named[-1]}; text documents go in "
            f"{' or '.join(text)})")


def _check_columns(path, layout, columns, where=""):
    """The table options (``columns``) given for ``path``, which ``layout`` reads without
    them: a CorpusError, never options silently ignored."""
    from ._corpus import CorpusError

    if columns is not None and columns.given() and not layout.columns:
        tables = [row.name for row in LAYOUTS if row.columns]
        raise CorpusError(f"{path} is read as {layout.name}: {', '.join(columns.given())} "
                          f"appl{'ies' if len(columns.given()) == 1 else 'y'} to "
                          f"{', '.join(tables[:-1])} and {tables[-1]} files{where} only")


def _documents(path, layout, allow_unlabeled, columns):
    from ._corpus import CorpusError

    _check_columns(path, layout, columns)
    try:
        return layout.documents(path, allow_unlabeled=allow_unlabeled, columns=columns)
    except CorpusError as exc:
        if layout.suffixes or layout.folder or not str(exc).startswith(f"{path}:1:"):
            raise
        # the first line of a file read by the catch-all: maybe not that layout at all
        from ._encoding import binary_at_start

        if binary_at_start(path):  # a model file, an archive: its bytes make no message
            with open(path, "rb") as fh:
                zipped = " (a zip archive, as a model file is)" * (fh.read(4) == b"PK\x03\x04")
            texts = [row.name for row in LAYOUTS if row.kind == "text" and row.reader]
            raise CorpusError(f"{path} is a binary file{zipped}, not a corpus; give texts "
                              f"({', '.join(texts)}) or an svmlight file") from None
        raise CorpusError(str(exc) + _text_layouts_hint(path, layout)) from None


def _split_files(folder):
    """``(train file, test file, other names)`` of a folder that holds its split as two corpus
    files, ``train.*`` and ``test.*`` (``train.jsonl`` and ``test.jsonl``, as
    datasets are often shipped), and no category folder, with the names of its
    other files; else None."""
    from ._corpus import CorpusError

    if not folder.is_dir():
        return None
    entries = [e for e in sorted(folder.iterdir()) if not e.name.startswith(".")]
    if any(e.is_dir() for e in entries):
        return None  # category folders (or train/ and test/ folders of them)
    parts = {split: [e for e in entries if e.name.lower().startswith(f"{split}.")]
             for split in ("train", "test")}
    if not parts["train"] and not parts["test"]:
        return None
    if len(parts["train"]) != 1 or len(parts["test"]) != 1:
        def held(split):
            files = parts[split]
            return (f"no {split}.* file" if not files else files[0].name if len(files) == 1
                    else f"{len(files)} {split}.* files ({', '.join(f.name for f in files)})")

        raise CorpusError(
            f"{folder} holds {held('train')} and {held('test')}: a folder of split files "
            "holds one train.* and one test.* file (e.g. train.jsonl and test.jsonl); or "
            "give the training file as the corpus and the test file with --test-corpus")
    left = [e.name for e in entries if e not in (parts["train"][0], parts["test"][0])]
    return parts["train"][0], parts["test"][0], left


def load_corpus(path, *, test_path=None, test_size=0.25, random_state=0,
                allow_unlabeled=False, columns=None):
    """Read a user corpus, recognising its layout (:data:`LAYOUTS`).

    Parameters
    ----------
    path : str or Path
        A JSON Lines file (``.jsonl``, ``.json``, ``.ndjson``, each maybe
        gzip'd: ``.gz``), a CSV (``.csv``), TSV (``.tsv``, ``.tab``) or Parquet
        (``.parquet``) file, a fastText file (any other name, its first line
        starting with ``__label__``), a folder per category, or an svmlight file
        (any other file); the first row of :data:`LAYOUTS` that matches. A
        folder with no category folder but a ``train.*`` and a ``test.*`` file
        (``train.jsonl``, ``test.jsonl``) is those two files, the split given.
    test_path : str or Path, optional
        The test set, read apart, in any layout of the same kind (text or
        feature vectors); ``path`` is then the training set. Neither may carry a
        split of its own.
    test_size : float
        Fraction held out for testing when the corpus has no split.
    random_state : int
        Seed of that held-out split.
    allow_unlabeled : bool
        JSON Lines, tables, fastText: read a document without labels (no
        ``"labels"``, an empty label cell, no ``__label__`` word) as a document
        in no category instead of refusing it.
    columns : Columns, optional
        A table's text and label columns and the separator of several labels
        in a cell (:class:`~textwin.datasets._table.Columns`; default: found by
        their usual names, ``","``).
    """
    from ._corpus import CorpusError, finish, join_split

    path = Path(path)
    if not path.exists():
        raise CorpusError(f"corpus not found: {path}")
    if test_path is not None and not Path(test_path).exists():
        raise CorpusError(f"test corpus not found: {test_path}")
    for part in (path, test_path):
        if part is not None:
            _check_not_device(Path(part))
    split_files = _split_files(path)
    if split_files is not None:
        if test_path is not None:
            raise CorpusError(f"{path} holds its own split ({split_files[0].name} and "
                              f"{split_files[1].name}) and a separate test set is given "
                              "too: drop one")
        path, test_path, left = split_files
        if left:
            import warnings

            warnings.warn(f"{path.parent}: read {path.name} and {test_path.name} as its "
                          f"training and test sets; not read: {', '.join(left[:5])}"
                          + (f", ... ({len(left) - 5} more)" if len(left) > 5 else ""),
                          UserWarning, stacklevel=2)
    layout = layout_of(path)
    found = _documents(path, layout, allow_unlabeled, columns)
    if test_path is not None:
        test = _documents(Path(test_path), layout_of(test_path), allow_unlabeled, columns)
        for part in (found, test):
            if part.splits is not None and any(s is not None for s in part.splits):
                raise CorpusError(
                    f"{part.source} gives its own split (train/ and test/ folders, or "
                    f'"split" fields) and a separate test set is given too: drop one')
        found = join_split(found, test, test_path)
    return finish(found, test_size=test_size, random_state=random_state)

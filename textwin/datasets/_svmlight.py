"""svmlight / libsvm: ``label[,label...] index:value ...`` lines.

1-based increasing indices, label-only lines allowed, multi-label as a
comma-separated list, ``#`` comments. These corpora are numeric: there is no
text to vectorize. Every problem is a :class:`CorpusError` naming the line.
"""
import bz2
import codecs
import gzip
import math
import warnings
import zlib
from functools import partial
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._io import available_memory
from ._corpus import CorpusError, Documents, finish, join_split

__all__ = ["MAX_FEATURE_INDEX", "available_memory", "read_svmlight", "read_svmlight_file",
           "svmlight_documents", "svmlight_inputs"]

#: The largest feature index an svmlight file may use: the kernels index
#: features with a C int.
MAX_FEATURE_INDEX = 2**31 - 1


def _svmlight_line_error(path, lineno, line):
    """What is wrong with one svmlight line (``None`` if nothing)."""
    where = f"{path}:{lineno}"
    body = line.split(b"#", 1)[0].split()
    if not body:
        return None
    label, *pairs = body
    for lab in label.split(b","):
        if lab:
            try:
                finite = np.isfinite(float(lab))
            except ValueError:
                finite = None
            if not finite:
                return (f"{where}: label {lab.decode('latin-1')!r} is not a "
                        f"{'number' if finite is None else 'category (a finite number)'}; "
                        "a line starts with its labels (numbers, comma-separated), then "
                        "index:value pairs")
    last = 0
    for pair in pairs:
        text = pair.decode("latin-1")
        key, sep, value = pair.partition(b":")
        if not sep:
            return (f"{where}: {text!r} is not index:value (the labels come first, "
                    "separated by commas without spaces)")
        if key == b"qid":
            continue
        try:
            index = int(key)
        except ValueError:
            return f"{where}: feature index {key.decode('latin-1')!r} is not an integer"
        if index < 1:
            return (f"{where}: feature index {index} is below 1; svmlight indices start at "
                    "1 (add 1 to zero-based indices)")
        if index > MAX_FEATURE_INDEX:
            return (f"{where}: feature index {index} is 2^31 or more; textwin indexes "
                    f"features with 32-bit integers: renumber the features from 1 "
                    f"(at most {MAX_FEATURE_INDEX})")
        if index <= last:
            return (f"{where}: feature index {index} after {last}; the indices of a line "
                    "must increase")
        last = index
        try:
            v = float(value)
        except ValueError:
            return f"{where}: value {value.decode('latin-1')!r} of feature {index} is not a number"
        if not np.isfinite(v):
            return (f"{where}: feature {index} has the value {value.decode('latin-1')}; "
                    "every value must be a finite number")
    return None


# scikit-learn's reader decompresses a file by its name's suffix; so do the line readers
_OPENERS = {".gz": gzip.open, ".bz2": bz2.open}


def _lines(path):
    """``(line number, bytes)`` of every line, without a UTF-8 byte order mark; a
    ``.gz`` or ``.bz2`` file decompressed, so that a message names its line."""
    with _OPENERS.get(Path(path).suffix.lower(), open)(path, "rb") as fh:
        for lineno, line in enumerate(fh, 1):
            yield lineno, line.removeprefix(codecs.BOM_UTF8) if lineno == 1 else line


def _first_bad_line(path):
    for lineno, line in _lines(path):
        message = _svmlight_line_error(path, lineno, line)
        if message:
            return message
    return None


def _line_with_index(path, index):
    """The first line of ``path`` that uses feature ``index`` (or a larger one)."""
    for lineno, line in _lines(path):
        for pair in line.split(b"#", 1)[0].split()[1:]:
            key, _, _ = pair.partition(b":")
            if key != b"qid" and key.isdigit() and int(key) >= index:
                return lineno
    return None


def _load_svmlight(path):
    """(X, label tuples) of one file; every problem is a one-line error naming the line."""
    try:
        return _parse_svmlight(path)
    except (EOFError, zlib.error, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:  # not a damaged stream
            raise
        raise CorpusError(f"{path}: not a complete {path.suffix[1:]} file ({exc}); compress "
                          "it again or give it uncompressed") from None


def _parse_svmlight(path):
    from sklearn.datasets import load_svmlight_file

    try:
        if path.suffix.lower() in _OPENERS:  # scikit-learn decompresses by name
            X, y = load_svmlight_file(str(path), multilabel=True, dtype=np.float64,
                                      zero_based=False)
        else:
            with open(path, "rb") as fh:
                if fh.peek(3)[:3] == codecs.BOM_UTF8:  # Windows editors write one
                    fh.read(3)
                X, y = load_svmlight_file(fh, multilabel=True, dtype=np.float64,
                                          zero_based=False)
    except (ValueError, OverflowError) as exc:
        # The fast reader does not say where: read again, line by line, to find out.
        message = _first_bad_line(path)
        raise CorpusError(message or f"{path}: not a valid svmlight file ({exc}); lines look "
                          "like `label[,label] index:value ...` with 1-based indices") from None
    X = sp.csr_matrix(X)
    if not np.isfinite(X.data).all() or not all(
            math.isfinite(x) for doc in y for x in doc):
        raise CorpusError(_first_bad_line(path) or f"{path}: a label or value is NaN or "
                          "infinite")
    return X, y


def read_svmlight_file(path, n_features=None):
    """``(X, label tuples)`` of one svmlight file (CSR, 1-based indices).

    Every problem is a :class:`CorpusError` naming the line; with ``n_features``
    (a model's width), an index beyond it too, and ``X`` has that width.
    """
    X, y = _load_svmlight(Path(path))
    if n_features is not None:
        if X.shape[1] > n_features:
            raise CorpusError(
                f"{path}:{_line_with_index(path, n_features + 1)}: feature index "
                f"{X.shape[1]} is beyond the {n_features} features of the model")
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    return X, y


#: Weights this large (bytes) for a feature space mostly unused earn a warning.
WIDE_WEIGHTS = 2**28


def svmlight_inputs(path, *, n_features=None, skipped=None):
    """Vectors to score, the file in one part: ``(ids, X)``, one id ``FILE:LINE`` per
    line; with ``n_features`` (the model's), an index beyond it is an error naming the
    line."""
    X, _ = read_svmlight_file(path, n_features=n_features)
    yield [f"{path}:{k + 1}" for k in range(X.shape[0])], X


def _check_feature_space(path, X, n_labels):
    """Refuse a feature space too wide to train in memory, and warn of one that costs
    much memory for features mostly unused (one index of 10^8 in a small file made
    training take 4.8 GB and 43 s): one line naming the line of ``path`` with the
    largest index. Training holds about two float64 vectors of weights per category
    (the solver's and the model's) and one more."""
    n_features = X.shape[1]
    k = max(1, n_labels)
    need = 8 * n_features * (2 * k + 1)
    free = available_memory()
    fits = free is None or need <= free
    if fits and need < WIDE_WEIGHTS:
        return
    used = np.unique(X.indices).size
    if fits and used * 10 >= n_features:
        return
    lineno = _line_with_index(path, n_features)
    cost = (f"{path}:{lineno}: feature index {n_features} makes a feature space whose "
            f"training {'would need' if not fits else 'needs'} about {need / 2**30:.1f} GiB "
            f"({k} categor{'y' if k == 1 else 'ies'} x {n_features:,} features, float64 "
            "weights)")
    if not fits:
        raise CorpusError(f"{cost}, more than the memory available ({free / 2**30:.1f} GiB); "
                          "renumber the features from 1 without gaps")
    warnings.warn(f"{cost}, though only {used:,} features are used: renumber the features "
                  "from 1 without gaps to save that memory and time", UserWarning, stacklevel=4)


def svmlight_documents(path, *, allow_unlabeled=False):
    """The :class:`Documents` of one svmlight file (every line has its labels, maybe
    none: ``allow_unlabeled`` is for the table's sake)."""
    path = Path(path)
    X, y = _load_svmlight(path)
    labels = [sorted({_label_name(x) for x in doc}) for doc in y]
    return Documents(X, labels, [str(i + 1) for i in range(X.shape[0])], "vectors", str(path),
                     check=partial(_check_feature_space, path))


def read_svmlight(path, test_path=None, *, test_size=0.25, random_state=0):
    """Read svmlight/libsvm files (multi-label allowed; see the module docstring)."""
    found = svmlight_documents(path)
    if test_path is not None:
        found = join_split(found, svmlight_documents(test_path), test_path)
    return finish(found, test_size=test_size, random_state=random_state)


def _label_name(x):
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


"""Readers for a user's own labelled corpus.

Three layouts are understood (:func:`load_corpus` tells them apart):

JSON Lines
    One JSON object per line: ``{"text": "...", "labels": ["a", "b"]}``. An
    empty label list is a legal document in no category. An optional
    ``"split": "train"|"test"`` field fixes the split; without it the corpus is
    split at random (``test_size``, ``random_state``).
A folder per category
    ``ROOT/<category>/<file>``: each file is one document (decoded as UTF-8,
    undecodable bytes as latin-1). A file name found under several category
    folders is one document with several labels. If ``ROOT`` holds ``train/``
    and ``test/`` folders, each is read this way and gives the split.
svmlight / libsvm
    ``label[,label...] index:value ...`` lines (1-based indices, label-only
    lines allowed, multi-label as a comma-separated list). Pass a test file as
    well, or the training file is split at random. These corpora are numeric:
    there is no text to vectorize.

Every reader returns a :class:`CustomCorpus`; text corpora keep raw strings,
numeric ones sparse matrices.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["CorpusError", "CustomCorpus", "load_corpus", "read_jsonl", "read_folder",
           "read_svmlight"]


class CorpusError(ValueError):
    """A user corpus cannot be read (wrong layout, malformed line, no documents)."""


@dataclass
class CustomCorpus:
    """A labelled corpus split into training and test parts.

    ``Y_train``/``Y_test`` are uint8 indicator matrices (documents x
    ``target_names``, names sorted). For text corpora ``train``/``test`` are
    lists of strings; for svmlight corpora they are CSR matrices.
    """

    train: object
    test: object
    Y_train: np.ndarray
    Y_test: np.ndarray
    target_names: list
    kind: str  # "text" or "vectors"
    source: str
    ids_train: list = field(default_factory=list)
    ids_test: list = field(default_factory=list)

    @property
    def is_text(self):
        return self.kind == "text"


def _indicator(label_sets, names=None):
    names = sorted({lab for labs in label_sets for lab in labs}) if names is None else names
    index = {name: j for j, name in enumerate(names)}
    Y = np.zeros((len(label_sets), len(names)), dtype=np.uint8)
    for i, labs in enumerate(label_sets):
        for lab in labs:
            Y[i, index[lab]] = 1
    return Y, names


def _split(n, test_size, random_state):
    if not 0.0 < test_size < 1.0:
        raise CorpusError(f"test_size must be between 0 and 1 (exclusive), got {test_size}")
    n_test = int(round(n * test_size))
    if n_test < 1 or n_test >= n:
        raise CorpusError(
            f"cannot hold out {test_size:.0%} of {n} documents: give a separate test set "
            "or more documents")
    perm = np.random.default_rng(random_state).permutation(n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _finish(docs, labels, ids, splits, *, kind, source, test_size, random_state, stack=None):
    n_docs = len(docs) if stack is None else docs.shape[0]
    if n_docs == 0:
        raise CorpusError(f"{source}: no documents found")
    Y, names = _indicator(labels)
    if not names:
        raise CorpusError(f"{source}: no document has a label; give each document its "
                          "categories (\"labels\" in JSON Lines, folder names otherwise)")
    if splits is not None and any(s is not None for s in splits):
        bad = sorted({s for s in splits if s not in ("train", "test")}, key=str)
        if bad:
            raise CorpusError(f"{source}: split must be \"train\" or \"test\", found {bad[:3]} "
                              "(give every document a split, or none to split at random)")
        tr = np.flatnonzero(np.array([s == "train" for s in splits]))
        te = np.flatnonzero(np.array([s == "test" for s in splits]))
        if tr.size == 0 or te.size == 0:
            raise CorpusError(f"{source}: the split field gives no "
                              f"{'training' if tr.size == 0 else 'test'} documents")
    else:
        tr, te = _split(len(labels), test_size, random_state)
    take = (lambda idx: [docs[i] for i in idx]) if stack is None else (lambda idx: docs[idx])
    return CustomCorpus(take(tr), take(te), Y[tr], Y[te], names, kind, source,
                        [ids[i] for i in tr], [ids[i] for i in te])


def read_jsonl(path, *, test_size=0.25, random_state=0):
    """Read a JSON Lines corpus (see the module docstring)."""
    path = Path(path)
    docs, labels, ids, splits = [], [], [], []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise CorpusError(
                    f"{where}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                    f"{exc.start + 1}); JSON Lines files are UTF-8: re-save the file as UTF-8 "
                    "(e.g. `iconv -f latin1 -t utf-8`)") from None
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{where}: not valid JSON ({exc.msg}); each line must be "
                                  'one object like {"text": "...", "labels": ["a"]}') from None
            if not isinstance(rec, dict) or not isinstance(rec.get("text"), str):
                raise CorpusError(f'{where}: each line needs a "text" string')
            labs = rec.get("labels", [])
            if isinstance(labs, str):
                labs = [labs]
            if not isinstance(labs, list) or not all(isinstance(x, (str, int)) for x in labs):
                raise CorpusError(f'{where}: "labels" must be a list of category names')
            docs.append(rec["text"])
            labels.append(sorted({str(x) for x in labs}))
            ids.append(str(rec.get("id", lineno)))
            splits.append(rec.get("split"))
    if any(s is not None for s in splits) and any(s is None for s in splits):
        raise CorpusError(f"{path}: some lines have a \"split\" field and some do not; "
                          "give it to every line or to none")
    return _finish(docs, labels, ids, splits, kind="text", source=str(path),
                   test_size=test_size, random_state=random_state)


def decode_text(raw):
    """Bytes of a document as text: UTF-8, else latin-1 (which decodes any bytes)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _read_text(path):
    return decode_text(path.read_bytes())


def _read_category_folders(root):
    by_name = {}  # file name -> (text, set of labels), in a stable order
    for cat_dir in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for f in sorted(p for p in cat_dir.rglob("*") if p.is_file() and not p.name.startswith(".")):
            key = str(f.relative_to(cat_dir))
            if key not in by_name:
                by_name[key] = (_read_text(f), set())
            by_name[key][1].add(cat_dir.name)
    return by_name


def read_folder(root, *, test_size=0.25, random_state=0):
    """Read a folder-per-category corpus (see the module docstring)."""
    root = Path(root)
    parts = {s: root / s for s in ("train", "test")}
    present = [s for s, p in parts.items() if p.is_dir()]
    if len(present) == 1:
        missing = "test" if present == ["train"] else "train"
        raise CorpusError(f"{root} has a {present[0]}/ folder but no {missing}/ folder: give "
                          f"both ({root}/train/<category>/<file> and {root}/test/...), or put "
                          f"the category folders directly in {root} to split at random")
    if present:
        docs, labels, ids, splits = [], [], [], []
        for split, sub in parts.items():
            for key, (text, labs) in _read_category_folders(sub).items():
                docs.append(text)
                labels.append(sorted(labs))
                ids.append(f"{split}/{key}")
                splits.append(split)
    else:
        found = _read_category_folders(root)
        docs = [t for t, _ in found.values()]
        labels = [sorted(labs) for _, labs in found.values()]
        ids = list(found)
        splits = None
    if not docs:
        raise CorpusError(f"{root}: no documents found; expected ROOT/<category>/<file> "
                          "(or ROOT/train/<category>/<file> and ROOT/test/<category>/<file>)")
    return _finish(docs, labels, ids, splits, kind="text", source=str(root),
                   test_size=test_size, random_state=random_state)


def read_svmlight(path, test_path=None, *, test_size=0.25, random_state=0):
    """Read svmlight/libsvm files (multi-label allowed; see the module docstring)."""
    from sklearn.datasets import load_svmlight_files

    paths = [str(path)] + ([str(test_path)] if test_path is not None else [])
    try:
        loaded = load_svmlight_files(paths, multilabel=True, dtype=np.float64, zero_based=False)
    except ValueError as exc:
        raise CorpusError(f"{', '.join(paths)}: not a valid svmlight file ({exc}); lines look "
                          "like `label[,label] index:value ...` with 1-based indices") from None
    Xs, label_lists = loaded[0::2], loaded[1::2]
    for file, X in zip(paths, Xs):
        X = sp.csr_matrix(X)
        bad = np.flatnonzero(~np.isfinite(X.data))
        if bad.size:
            row = int(np.searchsorted(X.indptr, bad[0], side="right"))
            raise CorpusError(f"{file}: document {row} (its {row}th data line) has a NaN or "
                              "infinite feature value; every value must be a finite number")

    def names(labs):
        return [sorted({_label_name(x) for x in doc}) for doc in labs]

    if test_path is None:
        X = sp.csr_matrix(Xs[0])
        labels = names(label_lists[0])
        ids = [str(i + 1) for i in range(X.shape[0])]
        return _finish(X, labels, ids, None, kind="vectors", source=str(path),
                       test_size=test_size, random_state=random_state, stack=True)
    Xtr, Xte = (sp.csr_matrix(X) for X in Xs)
    ltr, lte = names(label_lists[0]), names(label_lists[1])
    all_names = sorted({x for labs in ltr + lte for x in labs}, key=_label_key)
    Ytr, _ = _indicator(ltr, all_names)
    Yte, _ = _indicator(lte, all_names)
    if Xtr.shape[0] == 0 or Xte.shape[0] == 0:
        raise CorpusError(f"{path if Xtr.shape[0] == 0 else test_path}: no documents found")
    return CustomCorpus(Xtr, Xte, Ytr, Yte, all_names, "vectors", str(path),
                        [str(i + 1) for i in range(Xtr.shape[0])],
                        [str(i + 1) for i in range(Xte.shape[0])])


def _label_name(x):
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def _label_key(name):
    try:
        return (0, float(name), name)
    except ValueError:
        return (1, 0.0, name)


def load_corpus(path, *, test_path=None, test_size=0.25, random_state=0):
    """Read a user corpus, recognising its layout.

    Parameters
    ----------
    path : str or Path
        A ``.jsonl``/``.json`` file, a folder per category, or an svmlight file
        (any other file name).
    test_path : str or Path, optional
        An svmlight test file (svmlight only; the other layouts carry their
        split themselves, or are split at random).
    test_size : float
        Fraction held out for testing when the corpus has no split.
    random_state : int
        Seed of that held-out split.
    """
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"corpus not found: {path}")
    if path.is_dir():
        if test_path is not None:
            raise CorpusError("a separate test file is only for svmlight corpora; a folder "
                              "corpus gives its split with train/ and test/ sub-folders")
        return read_folder(path, test_size=test_size, random_state=random_state)
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        if test_path is not None:
            raise CorpusError("a separate test file is only for svmlight corpora; in JSON "
                              'Lines give each document a "split" field')
        return read_jsonl(path, test_size=test_size, random_state=random_state)
    return read_svmlight(path, test_path, test_size=test_size, random_state=random_state)

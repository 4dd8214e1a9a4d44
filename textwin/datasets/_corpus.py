"""A user's labelled corpus: what every reader returns, and the split.

A reader (one per layout, listed in :mod:`textwin.datasets._layouts`) returns
:class:`Documents`: the documents of one file or folder, their label lists, ids
and, if the layout carries it, each document's split. :func:`finish` turns them
into a :class:`CustomCorpus`: the split (given, or drawn at random), the label
matrices and the report of what was read and skipped.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._encoding import MAX_DOCUMENT_BYTES, in_units

__all__ = ["CorpusError", "CustomCorpus", "Documents", "corpus_from_labels", "finish",
           "join_split", "SKIP_REASONS"]

# Why a file was not read, in the order the report lists them.
SKIP_REASONS = {
    "hidden": "hidden (name starts with '.')",
    "empty": "empty (nothing but white space)",
    "binary": "binary (NUL bytes, or mostly non-text bytes)",
    "damaged_gzip": "damaged gzip (truncated, corrupt, or not gzip-compressed)",
    "unreadable": "unreadable (permission or I/O error)",
    "special": "not a regular file (a named pipe, a socket, a device)",
    "too_large": f"too large (more than {in_units(MAX_DOCUMENT_BYTES)} of text, gunzipped)",
    "unreadable_folder": "unreadable folder (its files not read)",
    "empty_folder": "empty category folder (no document in it: not a category)",
    "outside": "not inside a category folder",
    "empty_text": "with an empty text (white space only)",
}
#: The reasons that skip a row of a table or a line of a file, not a file.
ROW_REASONS = ("empty_text",)


def counted(reason, n):
    """``n`` things skipped for ``reason``, as the report says it: "2 binary (...)",
    "1 row with an empty text (...)"."""
    if reason in ROW_REASONS:
        return f"{n} row{'s' if n != 1 else ''} {SKIP_REASONS[reason]}"
    return f"{n} {SKIP_REASONS[reason]}"


class CorpusError(ValueError):
    """A user corpus cannot be read (wrong layout, malformed line, no documents)."""


@dataclass
class Documents:
    """What a reader found in one file or folder, before the split.

    ``docs`` is a list of strings (``kind="text"``) or a CSR matrix
    (``kind="vectors"``); ``labels`` one sorted list of category names per
    document; ``splits`` ``None`` or one ``"train"``/``"test"`` (or a wrong value,
    which :func:`finish` refuses) per document. ``check(X, n_labels)``, if
    given, refuses (or warns of) a feature space too wide for memory; ``label_key`` orders the
    category names (default: :func:`label_order`, numbers as numbers).
    """

    docs: object
    labels: list
    ids: list
    kind: str
    source: str
    splits: list | None = None
    skipped: dict | None = None
    merged: dict | None = None
    check: object = None
    label_key: object = None
    split_name: str = "split given"

    def __len__(self):
        return len(self.labels)


@dataclass
class CustomCorpus:
    """A labelled corpus split into training and test parts.

    ``Y_train``/``Y_test`` are uint8 indicator matrices (documents x
    ``target_names``, names sorted). For text corpora ``train``/``test`` are
    lists of strings; for svmlight corpora they are CSR matrices. ``report``
    says what was read and skipped (see :meth:`describe`).
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
    report: dict = field(default_factory=dict)

    @property
    def is_text(self):
        return self.kind == "text"

    @property
    def task(self):
        """``"multiclass"``, ``"binary"`` or ``"multilabel"``, read from the labels
        (see :func:`textwin.tasks.detect_task`)."""
        from ..tasks import detect_task

        return detect_task(self.Y_train, self.Y_test)

    def describe(self, max_categories=None):
        """The report as lines of text: documents per split and category, skips.

        ``max_categories``: list at most this many categories, then how many more."""
        r = self.report
        lines = [f"{self.source}: {r['documents']['train']} training and "
                 f"{r['documents']['test']} test documents ({r['split']}), "
                 f"{len(self.target_names)} categories"]
        width = max(len(c) for c in self.target_names)
        shown = list(r["categories"].items())[:max_categories]
        for name, counts in shown:
            lines.append(f"  {name:<{width}}  {counts['train']:>6} train {counts['test']:>6} test")
        if len(shown) < len(r["categories"]):
            lines.append(f"  ... and {len(r['categories']) - len(shown)} more categories")
        if r.get("unlabeled"):
            lines.append(f"  {r['unlabeled']} documents have no label")
        if r.get("repeated"):
            rep = r["repeated"]
            lines.append(f"  {rep['documents']} documents repeat another's text ({rep['texts']} "
                         f"texts: {rep['different_labels']} with different labels, "
                         f"{rep['in_both_splits']} in both the training and the test split)")
        if r.get("merged"):
            lines.append(f"  {r['merged']['files']} files of the same name and identical bytes "
                         f"in several category folders read as {r['merged']['documents']} "
                         "multi-labelled documents")
        for reason, paths in r.get("skipped", {}).items():
            if paths:
                lines.append(f"  skipped {counted(reason, len(paths))}: "
                             + examples(paths))
        return lines


def examples(items, n=3):
    """The first ``n`` of ``items``, and how many more."""
    more = f", ... ({len(items) - n} more)" if len(items) > n else ""
    return ", ".join(str(p) for p in items[:n]) + more


def label_order(name):
    """Sort key of category names in every layout: numbers as numbers (2 before 10, as
    scikit-learn orders numeric labels, so that the positive class of two, the last,
    is the larger), then the other names as strings."""
    try:
        value = float(name)
    except (TypeError, ValueError):
        value = None
    if value is None or value != value:  # not a number, or NaN (unordered)
        return (1, 0.0, str(name))
    return (0, value, str(name))


def indicator_matrix(label_sets, names=None, key=None):
    """``(Y, names)``: a uint8 documents x categories matrix (names sorted by ``key``,
    default :func:`label_order`, if not given)."""
    if names is None:
        names = sorted({lab for labs in label_sets for lab in labs}, key=key or label_order)
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


def _report(names, Y_train, Y_test, split, skipped=None, merged=None):
    tr, te = Y_train.sum(axis=0), Y_test.sum(axis=0)
    report = {
        "documents": {"train": int(Y_train.shape[0]), "test": int(Y_test.shape[0])},
        "split": split,
        "categories": {c: {"train": int(a), "test": int(b)} for c, a, b in zip(names, tr, te)},
        "unlabeled": int((Y_train.sum(axis=1) == 0).sum() + (Y_test.sum(axis=1) == 0).sum()),
        "skipped": {k: list(v) for k, v in (skipped or {}).items() if v},
    }
    if merged:
        report["merged"] = merged
    return report


def warn_skipped(source, skipped):
    """One warning for every file not read, hidden files excepted (they are routine)."""
    parts = [f"{counted(reason, len(paths))} ({examples(paths)})"
             for reason, paths in skipped.items() if paths and reason != "hidden"]
    if parts:
        folder_reasons = ("unreadable_folder", "empty_folder")
        n = sum(len(p) for r, p in skipped.items()
                if r not in ("hidden", *folder_reasons, *ROW_REASONS))
        folders = sum(len(skipped.get(r, ())) for r in folder_reasons)
        rows = sum(len(skipped.get(r, ())) for r in ROW_REASONS)
        counts = [f"{n} file{'s' if n != 1 else ''}"] * bool(n) + [
            f"{folders} folder{'s' if folders != 1 else ''}"] * bool(folders) + [
            f"{rows} row{'s' if rows != 1 else ''}"] * bool(rows)
        warnings.warn(f"{source}: skipped {' and '.join(counts)}: " + "; ".join(parts),
                      UserWarning, stacklevel=3)


def _given_split(source, splits):
    bad = []  # by first appearance: a JSON value may be a list, which no set holds
    for s in splits:
        if s not in ("train", "test") and s not in bad:
            bad.append(s)
    if bad:
        raise CorpusError(f"{source}: split must be \"train\" or \"test\", found {bad[:3]} "
                          "(give every document a split, or none to split at random)")
    tr = np.flatnonzero(np.array([s == "train" for s in splits]))
    te = np.flatnonzero(np.array([s == "test" for s in splits]))
    if tr.size == 0 or te.size == 0:
        raise CorpusError(f"{source}: the split field gives no "
                          f"{'training' if tr.size == 0 else 'test'} documents")
    return tr, te


#: The category name ``textwin predict`` prints for a document in no category.
NO_LABEL = "-"


def clean_labels(source, labels, ids):
    """The label lists with white space around a name dropped (and one warning that
    says so); a name that is empty or the no-category mark is refused."""
    cleaned, changed = [], {}
    for labs, doc_id in zip(labels, ids):
        for name in labs:
            if not name.strip() or name.strip() == NO_LABEL:
                what = ("an empty category name" if not name.strip() else
                        f"the category {NO_LABEL!r}, the mark of no category in what "
                        "`textwin predict` prints")
                raise CorpusError(f"{source}: document {doc_id} has {what}: rename it (a "
                                  "document in no category has no label at all)")
            if name != name.strip():
                changed.setdefault(name, name.strip())
        cleaned.append(sorted({name.strip() for name in labs}))
    if changed:
        shown = examples([f"{a!r} as {b!r}" for a, b in changed.items()])
        warnings.warn(f"{source}: {len(changed)} category name{'s' if len(changed) > 1 else ''}"
                      f" with white space around, read without it: {shown}", UserWarning,
                      stacklevel=3)
    return cleaned


def finish(found, *, test_size=0.25, random_state=0):
    """The :class:`CustomCorpus` of ``found`` (:class:`Documents`): its split if it
    carries one, else a random one (``test_size`` held out, seed ``random_state``)."""
    source, docs, ids = found.source, found.docs, found.ids
    labels = clean_labels(source, found.labels, ids)
    if len(found) == 0:
        raise _no_documents(found)
    Y, names = indicator_matrix(labels, key=found.label_key)
    if not names:
        raise CorpusError(f"{source}: no document has a label; give each document its "
                          "categories (\"labels\" in JSON Lines, folder names otherwise)")
    if found.check is not None:
        found.check(docs, len(names))
    if found.splits is not None and any(s is not None for s in found.splits):
        tr, te = _given_split(source, found.splits)
        split = found.split_name
        _check_shared_categories(source, split, [labels[i] for i in tr],
                                 [labels[i] for i in te], found.label_key or label_order)
    else:
        tr, te = _split(len(labels), test_size, random_state)
        split = f"random split: {test_size:g} held out, seed {random_state}"
    text = found.kind == "text"
    take = (lambda idx: [docs[i] for i in idx]) if text else (lambda idx: docs[idx])
    report = _report(names, Y[tr], Y[te], split, found.skipped, found.merged)
    if text:
        repeated = _repeated_texts(docs, labels, set(te.tolist()))
        if repeated:
            report["repeated"] = repeated
    return CustomCorpus(take(tr), take(te), Y[tr], Y[te], names, found.kind, source,
                        [ids[i] for i in tr], [ids[i] for i in te], report)


def _no_documents(found):
    """The error of a corpus with no document: an empty file, or every one skipped."""
    skipped = [f"{counted(reason, len(paths))} ({examples(paths)})"
               for reason, paths in (found.skipped or {}).items() if paths]
    why = "skipped " + "; ".join(skipped) if skipped else "it is empty, or a header alone"
    return CorpusError(f"{found.source}: no documents found ({why}); give a corpus of "
                       "texts and their labels")


def _check_shared_categories(source, split, train, test, key):
    """A given test set none of whose categories (``test``: label lists) the training
    set has is another corpus's: every figure would be 0, its categories' models constant."""
    ours, theirs = ({name for labels in part for name in labels} for part in (train, test))
    if ours and theirs and not ours & theirs:
        raise CorpusError(
            f"{source} ({split}): none of the test set's categories "
            f"({examples(sorted(theirs, key=key))}) is one of the training set's "
            f"({examples(sorted(ours, key=key))}): give the test set of this corpus, or the "
            "column that holds its labels")


def join_split(train, test, test_source):
    """One :class:`Documents` of a training part and a test part read apart
    (``test_source``: how the report names the test part)."""
    if train.kind != test.kind:
        raise CorpusError(f"{test_source} holds {_KINDS[test.kind]} but {train.source} "
                          f"holds {_KINDS[train.kind]}: give a test set of the same kind")
    for part in (train, test):
        if len(part) == 0:
            raise _no_documents(part)
    check = None
    if train.kind == "text":
        docs = list(train.docs) + list(test.docs)
    else:
        import scipy.sparse as sp  # here: a text corpus, and --help, need no SciPy

        width = max(train.docs.shape[1], test.docs.shape[1])
        docs = sp.vstack([sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
                          for X in (train.docs, test.docs)]).tocsr()
        check = next(p.check for p in (train, test) if p.docs.shape[1] == width)
    skipped = {r: (train.skipped or {}).get(r, []) + (test.skipped or {}).get(r, [])
               for r in SKIP_REASONS}
    return Documents(
        docs, train.labels + test.labels, train.ids + test.ids, train.kind, train.source,
        splits=["train"] * len(train) + ["test"] * len(test), skipped=skipped,
        merged=_merged(train.merged, test.merged), check=check,
        label_key=train.label_key, split_name=f"split given by {Path(test_source).name}")


_KINDS = {"text": "texts", "vectors": "feature vectors (svmlight)"}


def _merged(a, b):
    if not a and not b:
        return None
    return {k: (a or {}).get(k, 0) + (b or {}).get(k, 0) for k in ("files", "documents")}


def _repeated_texts(docs, labels, test):
    """Documents whose text another one repeats, by text: how many, and how many of
    those texts have different labels or are in both splits (``test``: indices).
    Each copy stays a document; the report only says so."""
    groups = {}
    for i, doc in enumerate(docs):
        groups.setdefault(doc, []).append(i)
    repeated = [g for g in groups.values() if len(g) > 1]
    if not repeated:
        return None
    return {"documents": sum(len(g) for g in repeated), "texts": len(repeated),
            "different_labels": sum(len({tuple(labels[i]) for i in g}) > 1 for g in repeated),
            "in_both_splits": sum(len({i in test for i in g}) > 1 for g in repeated)}


def corpus_from_labels(train, labels_train, test, labels_test, *, source, ids_train=None,
                       ids_test=None):
    """A text :class:`CustomCorpus` from documents and their label lists, split given."""
    names = sorted({lab for labs in list(labels_train) + list(labels_test) for lab in labs},
                   key=label_order)
    Y_train, _ = indicator_matrix(labels_train, names)
    Y_test, _ = indicator_matrix(labels_test, names)
    ids_train = ids_train or [str(i + 1) for i in range(len(train))]
    ids_test = ids_test or [str(i + 1) for i in range(len(test))]
    report = _report(names, Y_train, Y_test, "split given")
    repeated = _repeated_texts(list(train) + list(test),
                               [sorted(labs) for labs in list(labels_train) + list(labels_test)],
                               set(range(len(train), len(train) + len(test))))
    if repeated:
        report["repeated"] = repeated
    return CustomCorpus(list(train), list(test), Y_train, Y_test, names, "text", source,
                        list(ids_train), list(ids_test), report)

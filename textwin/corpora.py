"""Readers for a user's own labelled corpus.

Three layouts are understood (:func:`load_corpus` tells them apart):

JSON Lines
    One JSON object per line: ``{"text": "...", "labels": ["a", "b"]}``. An
    empty label list is a legal document in no category; a line without
    ``"labels"`` is an error (or, with ``allow_unlabeled=True``, a document in no
    category). An optional ``"split": "train"|"test"`` field fixes the split;
    without it the corpus is split at random (``test_size``, ``random_state``).
    Blank lines are ignored; a line whose text is empty is a document (it
    scores the bias).
A folder per category
    ``ROOT/<category>/<file>``: each file is one document, as in
    ``sklearn.datasets.load_files`` (decoded as UTF-8, undecodable bytes as
    latin-1). Files of the same name in several category folders are one
    document with all those labels only when their bytes are identical (the
    way a multi-label corpus is laid out as folders: a copy of the document in
    the folder of each of its categories); otherwise, and whenever the names
    differ, each file is a document of its own (a corpus that numbers its files
    from 1 in every folder loses nothing). If ``ROOT`` holds ``train/`` and
    ``test/`` folders, each is read this way and gives the split.
svmlight / libsvm
    ``label[,label...] index:value ...`` lines (1-based increasing indices,
    label-only lines allowed, multi-label as a comma-separated list, ``#``
    comments). Pass a test file as well, or the training file is split at
    random. These corpora are numeric: there is no text to vectorize.

Nothing is dropped silently. Hidden files (a name starting with ``.``, or in
such a folder), empty files (no character other than white space), binary
files (see :func:`looks_binary`), unreadable files and files outside a
category folder are skipped, counted in :attr:`CustomCorpus.report` and, except
hidden ones, named in one ``UserWarning``. The report also gives the documents
per split and per category.

Every reader returns a :class:`CustomCorpus`; text corpora keep raw strings,
numeric ones sparse matrices.
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["CorpusError", "CustomCorpus", "load_corpus", "read_jsonl", "read_folder",
           "read_svmlight", "read_svmlight_file", "looks_binary", "decode_text",
           "corpus_from_labels"]

#: The largest feature index an svmlight file may use: the kernels index
#: features with a C int.
MAX_FEATURE_INDEX = 2**31 - 1

# Why a file was not read, in the order the report lists them.
SKIP_REASONS = {
    "hidden": "hidden (name starts with '.')",
    "empty": "empty (nothing but white space)",
    "binary": "binary (NUL bytes, or mostly non-text bytes)",
    "unreadable": "unreadable (permission or I/O error)",
    "outside": "not inside a category folder",
}


class CorpusError(ValueError):
    """A user corpus cannot be read (wrong layout, malformed line, no documents)."""


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
        from .tasks import detect_task

        return detect_task(self.Y_train, self.Y_test)

    def describe(self):
        """The report as lines of text: documents per split and category, skips."""
        r = self.report
        lines = [f"{self.source}: {r['documents']['train']} training and "
                 f"{r['documents']['test']} test documents ({r['split']}), "
                 f"{len(self.target_names)} categories"]
        width = max(len(c) for c in self.target_names)
        for name, counts in r["categories"].items():
            lines.append(f"  {name:<{width}}  {counts['train']:>6} train {counts['test']:>6} test")
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
                lines.append(f"  skipped {len(paths)} {SKIP_REASONS[reason]}: "
                             + _examples(paths))
        return lines


def _examples(paths, n=3):
    more = f", ... ({len(paths) - n} more)" if len(paths) > n else ""
    return ", ".join(str(p) for p in paths[:n]) + more


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


def _warn_skipped(source, skipped):
    """One warning for every file not read, hidden files excepted (they are routine)."""
    parts = [f"{len(paths)} {SKIP_REASONS[reason]} ({_examples(paths)})"
             for reason, paths in skipped.items() if paths and reason != "hidden"]
    if parts:
        n = sum(len(p) for r, p in skipped.items() if r != "hidden")
        warnings.warn(f"{source}: skipped {n} file{'s' if n != 1 else ''}: "
                      + "; ".join(parts), UserWarning, stacklevel=3)


def _finish(docs, labels, ids, splits, *, kind, source, test_size, random_state, stack=None,
            skipped=None, merged=None):
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
        split = "split given"
    else:
        tr, te = _split(len(labels), test_size, random_state)
        split = f"random split: {test_size:g} held out, seed {random_state}"
    take = (lambda idx: [docs[i] for i in idx]) if stack is None else (lambda idx: docs[idx])
    report = _report(names, Y[tr], Y[te], split, skipped, merged)
    if stack is None:
        repeated = _repeated_texts(docs, labels, set(te.tolist()))
        if repeated:
            report["repeated"] = repeated
    return CustomCorpus(take(tr), take(te), Y[tr], Y[te], names, kind, source,
                        [ids[i] for i in tr], [ids[i] for i in te], report)


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
    names = sorted({lab for labs in list(labels_train) + list(labels_test) for lab in labs})
    Y_train, _ = _indicator(labels_train, names)
    Y_test, _ = _indicator(labels_test, names)
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


# ---------------------------------------------------------------------------
# JSON Lines
# ---------------------------------------------------------------------------

def read_jsonl(path, *, test_size=0.25, random_state=0, allow_unlabeled=False):
    """Read a JSON Lines corpus (see the module docstring).

    ``allow_unlabeled=True`` reads a line without ``"labels"`` as a document in
    no category; otherwise such a line is an error naming it. A line whose text
    is empty (white space only) is a document, which scores the bias; blank
    lines are skipped.
    """
    path = Path(path)
    docs, labels, ids, splits = [], [], [], []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            where = f"{path}:{lineno}"
            try:
                # utf-8-sig on the first line: a byte order mark (Windows editors) is not text
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise CorpusError(
                    f"{where}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                    f"{exc.start + 1}); JSON Lines files are UTF-8: re-save the file as UTF-8 "
                    "(e.g. `iconv -f latin1 -t utf-8`)") from None
            if not line.strip():
                continue
            if not docs and line.lstrip().startswith("["):
                raise CorpusError(
                    f"{path} holds a JSON array; textwin reads JSON Lines, one object per "
                    f"line: convert it with `jq -c '.[]' {path} > {path.with_suffix('.jsonl')}`")
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{where}: not valid JSON ({exc.msg}); each line must be "
                                  'one object like {"text": "...", "labels": ["a"]}') from None
            if not isinstance(rec, dict) or not isinstance(rec.get("text"), str):
                raise CorpusError(f'{where}: each line needs a "text" string')
            if "labels" not in rec:
                if "label" in rec:
                    raise CorpusError(
                        f'{where}: the field is "labels" (a list), not "label": write '
                        f'"labels": [{json.dumps(rec["label"])}]')
                if not allow_unlabeled:
                    raise CorpusError(
                        f'{where}: no "labels" field; give each line its categories '
                        '("labels": ["a", "b"], or [] for a document in none), or allow '
                        "unlabelled documents explicitly (--allow-unlabeled, "
                        "allow_unlabeled=True)")
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


# ---------------------------------------------------------------------------
# A folder per category
# ---------------------------------------------------------------------------

def decode_text(raw):
    """Bytes of a document as text: UTF-8, else latin-1 (which decodes any bytes)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


# Bytes that never occur in text: the C0 controls but tab, LF, VT, FF, CR, and
# ESC (terminal colours), plus DEL.
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r\x1b") + b"\x7f"
_SAMPLE = 8192
_NON_TEXT_SHARE = 0.30


def looks_binary(raw):
    """Whether ``raw`` is a binary file, not text.

    Binary: a NUL byte anywhere, or, in the first 8 KiB, more than 30 % of
    non-text bytes: control characters (other than tab, newlines, form feed,
    ESC) and, when that sample is not UTF-8, bytes >= 0x80. A latin-1 letter
    here and there keeps a document text; an image, an archive or a PDF's
    compressed stream does not.
    """
    if b"\x00" in raw:
        return True
    sample = raw[:_SAMPLE]
    if not sample:
        return False
    bad = len(sample) - len(sample.translate(None, _CONTROL))
    if not _is_utf8(sample, cut=len(raw) > _SAMPLE):
        bad += sum(sample.count(bytes([b])) for b in range(128, 256))
    return bad > _NON_TEXT_SHARE * len(sample)


def _is_utf8(sample, cut):
    try:
        sample.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        # a multi-byte character cut by the sample's end is not an error
        return cut and exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data"


def _is_hidden(relative):
    return any(part.startswith(".") for part in relative.parts)


def _read_category_folders(root, prefix, skipped):
    """``[(shown path, name in its category folder, raw bytes, category)]`` for every
    file read under ``root``."""
    found = []
    for entry in sorted(root.iterdir()):
        rel = Path(prefix) / entry.name
        if entry.name.startswith("."):
            skipped["hidden"].append(str(rel) + ("/" if entry.is_dir() else ""))
        elif not entry.is_dir():
            skipped["outside"].append(str(rel))
    for cat_dir in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for f in sorted(cat_dir.rglob("*")):
            rel = f.relative_to(cat_dir)
            shown = str(Path(prefix) / cat_dir.name / rel)
            if f.is_dir() or _is_hidden(rel.parent):
                continue  # a hidden folder is reported once, below, not per file
            if _is_hidden(rel):
                skipped["hidden"].append(shown)
                continue
            try:
                raw = f.read_bytes()
            except OSError:
                skipped["unreadable"].append(shown)
                continue
            if not raw.strip():
                skipped["empty"].append(shown)
            elif looks_binary(raw):
                skipped["binary"].append(shown)
            else:
                found.append((shown, str(rel), raw, cat_dir.name))
        for d in sorted(p for p in cat_dir.rglob(".*") if p.is_dir()):
            if not _is_hidden(d.relative_to(cat_dir).parent):
                skipped["hidden"].append(str(Path(prefix) / cat_dir.name / d.relative_to(cat_dir))
                                         + "/")
    return found


def _documents_of(found):
    """One document per file, except that files of the same name with identical bytes
    in several category folders are one document with all their labels.
    Returns ``(docs, labels, ids, merged)``."""
    groups = {}
    for shown, name, raw, cat in found:
        groups.setdefault((name, hashlib.sha256(raw).digest()), []).append(cat)
    docs, labels, ids = [], [], []
    merged_files = merged_docs = 0
    done = set()
    for shown, name, raw, cat in found:
        key = (name, hashlib.sha256(raw).digest())
        cats = groups[key]
        if len(cats) == 1:
            docs.append(decode_text(raw))
            labels.append([cat])
            ids.append(shown)
        elif key not in done:  # the first copy stands for the document
            done.add(key)
            docs.append(decode_text(raw))
            labels.append(sorted(cats))
            ids.append(shown)
            merged_files += len(cats)
            merged_docs += 1
    merged = {"files": merged_files, "documents": merged_docs} if merged_files else None
    return docs, labels, ids, merged


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
    skipped = {reason: [] for reason in SKIP_REASONS}
    merged_all = {"files": 0, "documents": 0}
    if present:
        docs, labels, ids, splits = [], [], [], []
        for entry in sorted(root.iterdir()):
            if entry.name not in parts:
                (skipped["hidden"] if entry.name.startswith(".")
                 else skipped["outside"]).append(entry.name + ("/" if entry.is_dir() else ""))
        for split, sub in parts.items():
            d, lab, i, merged = _documents_of(_read_category_folders(sub, split, skipped))
            docs += d
            labels += lab
            ids += i
            splits += [split] * len(d)
            for k in merged_all:
                merged_all[k] += (merged or {}).get(k, 0)
    else:
        docs, labels, ids, merged = _documents_of(_read_category_folders(root, "", skipped))
        merged_all = merged or merged_all
        splits = None
    _warn_skipped(str(root), skipped)
    if not docs:
        raise CorpusError(f"{root}: no documents found; expected ROOT/<category>/<file> "
                          "(or ROOT/train/<category>/<file> and ROOT/test/<category>/<file>)")
    return _finish(docs, labels, ids, splits, kind="text", source=str(root),
                   test_size=test_size, random_state=random_state, skipped=skipped,
                   merged=merged_all if merged_all["files"] else None)


# ---------------------------------------------------------------------------
# svmlight / libsvm
# ---------------------------------------------------------------------------

def available_memory():
    """Bytes of memory available to this process (MemAvailable on Linux, else the
    physical memory; ``None`` if unknown)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


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
                if not np.isfinite(float(lab)):
                    raise ValueError
            except ValueError:
                return (f"{where}: label {lab.decode('latin-1')!r} is not a number; a line "
                        "starts with its labels (numbers, comma-separated), then index:value "
                        "pairs")
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


def _first_bad_line(path):
    with open(path, "rb") as fh:
        for lineno, line in enumerate(fh, 1):
            message = _svmlight_line_error(path, lineno, line)
            if message:
                return message
    return None


def _line_with_index(path, index):
    """The first line of ``path`` that uses feature ``index`` (or a larger one)."""
    with open(path, "rb") as fh:
        for lineno, line in enumerate(fh, 1):
            for pair in line.split(b"#", 1)[0].split()[1:]:
                key, _, _ = pair.partition(b":")
                if key != b"qid" and key.isdigit() and int(key) >= index:
                    return lineno
    return None


def _load_svmlight(path):
    """(X, label tuples) of one file; every problem is a one-line error naming the line."""
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(str(path), multilabel=True, dtype=np.float64,
                                  zero_based=False)
    except (ValueError, OverflowError) as exc:
        # The fast reader does not say where: read again, line by line, to find out.
        message = _first_bad_line(path)
        if message and message.startswith(f"{path}:1:"):  # maybe not svmlight at all
            message += (f" ({path} was read as svmlight, the layout of a file not named "
                        ".jsonl, .json or .ndjson; text documents go in JSON Lines, "
                        '{"text": "...", "labels": ["a"]} per line, or a folder per category)')
        raise CorpusError(message or f"{path}: not a valid svmlight file ({exc}); lines look "
                          "like `label[,label] index:value ...` with 1-based indices") from None
    X = sp.csr_matrix(X)
    if not np.isfinite(X.data).all():
        raise CorpusError(_first_bad_line(path) or f"{path}: a value is NaN or infinite")
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


def _check_feature_space(files, n_features, n_labels):
    """Refuse a feature space too wide to train in memory: one line naming the line
    with the largest index. Training holds about two float64 vectors of weights per
    category (the solver's and the model's) and one more."""
    k = max(1, n_labels)
    need = 8 * n_features * (2 * k + 1)
    free = available_memory()
    if free is None or need <= free:
        return
    for path, X in files:
        if X.shape[1] == n_features:
            lineno = _line_with_index(path, n_features)
            break
    raise CorpusError(
        f"{path}:{lineno}: feature index {n_features} makes a feature space whose training "
        f"would need about {need / 2**30:.1f} GiB ({k} categor{'y' if k == 1 else 'ies'} "
        f"x {n_features:,} features, float64 weights), more than the memory available "
        f"({free / 2**30:.1f} GiB); renumber the features from 1 without gaps")


def read_svmlight(path, test_path=None, *, test_size=0.25, random_state=0):
    """Read svmlight/libsvm files (multi-label allowed; see the module docstring)."""
    paths = [Path(path)] + ([Path(test_path)] if test_path is not None else [])
    loaded = [_load_svmlight(p) for p in paths]
    label_lists = [[sorted({_label_name(x) for x in doc}) for doc in y] for _, y in loaded]
    all_names = sorted({x for labs in label_lists for doc in labs for x in doc}, key=_label_key)
    width = max(X.shape[1] for X, _ in loaded)
    _check_feature_space([(p, X) for p, (X, _) in zip(paths, loaded)], width, len(all_names))
    mats = []
    for X, _ in loaded:
        X = X.copy() if X.shape[1] == width else sp.csr_matrix(
            (X.data, X.indices, X.indptr), shape=(X.shape[0], width))
        mats.append(X)
    if test_path is None:
        labels = label_lists[0]
        ids = [str(i + 1) for i in range(mats[0].shape[0])]
        return _finish(mats[0], labels, ids, None, kind="vectors", source=str(path),
                       test_size=test_size, random_state=random_state, stack=True)
    Xtr, Xte = mats
    if Xtr.shape[0] == 0 or Xte.shape[0] == 0:
        raise CorpusError(f"{path if Xtr.shape[0] == 0 else test_path}: no documents found")
    Ytr, _ = _indicator(label_lists[0], all_names)
    Yte, _ = _indicator(label_lists[1], all_names)
    if not all_names:
        raise CorpusError(f"{path}: no document has a label")
    return CustomCorpus(Xtr, Xte, Ytr, Yte, all_names, "vectors", str(path),
                        [str(i + 1) for i in range(Xtr.shape[0])],
                        [str(i + 1) for i in range(Xte.shape[0])],
                        _report(all_names, Ytr, Yte, f"split given by {Path(test_path).name}"))


def _label_name(x):
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def _label_key(name):
    try:
        return (0, float(name), name)
    except ValueError:
        return (1, 0.0, name)


def load_corpus(path, *, test_path=None, test_size=0.25, random_state=0,
                allow_unlabeled=False):
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
    allow_unlabeled : bool
        JSON Lines: read a line without ``"labels"`` as a document in no
        category instead of refusing it.
    """
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"corpus not found: {path}")
    if test_path is not None and not Path(test_path).exists():
        raise CorpusError(f"test corpus not found: {test_path}")
    if path.is_dir():
        if test_path is not None:
            raise CorpusError("a separate test file is only for svmlight corpora; a folder "
                              "corpus gives its split with train/ and test/ sub-folders")
        return read_folder(path, test_size=test_size, random_state=random_state)
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        if test_path is not None:
            raise CorpusError("a separate test file is only for svmlight corpora; in JSON "
                              'Lines give each document a "split" field')
        return read_jsonl(path, test_size=test_size, random_state=random_state,
                          allow_unlabeled=allow_unlabeled)
    if test_path is not None and Path(test_path).is_dir():
        raise CorpusError(f"test corpus {test_path} is a folder, not an svmlight file")
    return read_svmlight(path, test_path, test_size=test_size, random_state=random_state)

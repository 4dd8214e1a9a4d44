"""A folder per category: ``ROOT/<category>/<file>``, each file one document.

As ``sklearn.datasets.load_files`` reads it (decoded as UTF-8, undecodable
bytes as latin-1). Files of the same name in several category folders are one
document with all those labels only when their bytes are identical (the way a
multi-label corpus is laid out as folders: a copy of the document in the folder
of each of its categories); otherwise, and whenever the names differ, each file
is a document of its own (a corpus that numbers its files from 1 in every folder
loses nothing). If ``ROOT`` holds ``train/`` and ``test/`` folders, each is read
this way and gives the split. A file whose name ends in ``.gz`` is gunzipped.

Nothing is dropped silently. Hidden files (a name starting with ``.``, or in
such a folder), empty files (no character other than white space), binary
files (see :func:`looks_binary`), damaged ``.gz`` files, unreadable files (no
permission, an I/O error), what is not a regular file (a named pipe, which would
wait for a writer forever; a device) and files outside a category folder are
skipped, counted in the report and, except hidden ones, named in one ``UserWarning``.
"""
import hashlib
import os
from pathlib import Path

from .._io import file_kind
from ._corpus import SKIP_REASONS, CorpusError, Documents, finish, warn_skipped
from ._encoding import (DamagedGzip, DocumentTooLarge, binary_at_start, decode_text,
                        looks_binary, read_document)

__all__ = ["folder_documents", "folder_inputs", "read_folder"]


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
        shown_dir = Path(prefix) / cat_dir.name
        files, hidden_dirs = _walk(cat_dir, shown_dir, skipped["unreadable_folder"])
        if not files and not hidden_dirs and str(shown_dir) not in " ".join(
                skipped["unreadable_folder"]):
            skipped["empty_folder"].append(f"{shown_dir}/")
        for rel in files:
            shown = str(shown_dir / rel)
            if rel.name.startswith("."):
                skipped["hidden"].append(shown)
                continue
            try:
                if _special(cat_dir / rel):  # a pipe waits for a writer, a device never ends
                    skipped["special"].append(shown)
                    continue
                if binary_at_start(cat_dir / rel):  # a video is not read whole
                    skipped["binary"].append(shown)
                    continue
                raw = read_document(cat_dir / rel)
            except DocumentTooLarge:
                skipped["too_large"].append(shown)
                continue
            except DamagedGzip:
                skipped["damaged_gzip"].append(shown)
                continue
            except OSError:
                skipped["unreadable"].append(shown)
                continue
            if not raw.strip():
                skipped["empty"].append(shown)
            elif looks_binary(raw):
                skipped["binary"].append(shown)
            else:
                found.append((shown, str(rel), raw, cat_dir.name))
        skipped["hidden"] += [f"{shown_dir / d}/" for d in hidden_dirs]
    return found


def _walk(cat_dir, shown_dir, unreadable):
    """``(files, hidden folders)`` under ``cat_dir``, relative to it, sorted; the files
    in hidden folders are left out (the folder is reported once). A folder that cannot
    be listed goes to ``unreadable`` with the reason (``pathlib.rglob`` skips it
    silently: a category folder under ``chmod 000`` was a category with no file)."""
    files, hidden, seen = [], [], set()

    def failed(exc):
        where = shown_dir / Path(exc.filename).relative_to(cat_dir)
        unreadable.append(f"{where}/: {exc.strerror or exc}")

    # A link to a folder is followed, as a link to a file is (os.walk lists it among
    # the folders and, by default, never enters it); a folder met twice (a link to an
    # ancestor) is read once.
    for top, dirs, names in os.walk(cat_dir, onerror=failed, followlinks=True):
        st = os.stat(top)
        if (st.st_dev, st.st_ino) in seen:
            dirs[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        rel = Path(top).relative_to(cat_dir)
        hidden += [rel / d for d in dirs if d.startswith(".")]
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        files += [rel / name for name in names]
    return sorted(files), sorted(hidden)


def _special(path):
    """What ``path`` is if it is not a regular file (a link followed), else None."""
    return file_kind(os.stat(path).st_mode)


def folder_inputs(root, *, n_features=None, skipped, columns=None):
    """Documents to score, in parts as they are read (``(ids, texts)``): every file
    under ``root`` but hidden ones (a ``.git/``), binary ones skipped (added to
    ``skipped`` as training reports them); an id is the file's path. A file of many
    documents (JSON Lines, CSV, TSV, Parquet, fastText: ``test.jsonl`` of a folder of
    split files) is its documents, as when it is given alone."""
    from ._layouts import BATCH, LAYOUTS

    many = [row for row in LAYOUTS if row.many]
    root = Path(root)
    unreadable = skipped.setdefault("unreadable_folder", [])
    before = len(unreadable)
    files, _ = _walk(root, root, unreadable)
    ids, docs, found = [], [], len(unreadable) > before
    for rel in files:
        if rel.name.startswith("."):
            continue
        layout = (None if _special(root / rel) else
                  next((row for row in many if row.matches(root / rel)), None))
        if layout is not None:
            if docs:
                yield ids, docs
                ids, docs = [], []
            for part in layout.inputs_of(root / rel, skipped=skipped, columns=columns):
                found = True
                yield part
            continue
        raw, reason = _read_to_score(root / rel)
        if reason:  # reported as training reports it; the other files are scored
            skipped.setdefault(reason, []).append(str(root / rel))
            found = True
        else:
            ids.append(str(root / rel))
            docs.append(decode_text(raw))
            found = True
            if len(docs) == BATCH:
                yield ids, docs
                ids, docs = [], []
    if docs:
        yield ids, docs
    if not found:
        raise CorpusError(f"folder {root} holds no files to score")


def _read_to_score(path):
    """``(bytes, None)`` of a file of a folder to score, or ``(None, why not)``, why
    a key of :data:`SKIP_REASONS`."""
    try:
        if _special(path):  # reading it would wait for a writer, or never end
            return None, "special"
        if binary_at_start(path):  # an image, an archive: a large one is not read whole
            return None, "binary"
        raw = read_document(path)
    except DocumentTooLarge:
        return None, "too_large"
    except DamagedGzip:
        return None, "damaged_gzip"
    except OSError:
        return None, "unreadable"
    return (None, "binary") if looks_binary(raw) else (raw, None)


def _documents_of(found, split):
    """One document per file, except that files of the same name with identical bytes
    in several category folders are one document with all their labels.
    Returns ``(docs, labels, ids, splits, merged)``."""
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
    return docs, labels, ids, [split] * len(docs), merged


def folder_documents(root, *, allow_unlabeled=False):
    """The :class:`Documents` of a folder per category (see the module docstring);
    ``allow_unlabeled`` is for the table's sake: every file here has a label."""
    root = Path(root)
    parts = {s: root / s for s in ("train", "test")}
    present = [s for s, p in parts.items() if p.is_dir()]
    if len(present) == 1:
        missing = "test" if present == ["train"] else "train"
        raise CorpusError(f"{root} has a {present[0]}/ folder but no {missing}/ folder: give "
                          f"both ({root}/train/<category>/<file> and {root}/test/...), or put "
                          f"the category folders directly in {root} to split at random")
    skipped = {reason: [] for reason in SKIP_REASONS}
    if present:
        for entry in sorted(root.iterdir()):
            if entry.name not in parts:
                (skipped["hidden"] if entry.name.startswith(".")
                 else skipped["outside"]).append(entry.name + ("/" if entry.is_dir() else ""))
        found = [_documents_of(_read_category_folders(sub, split, skipped), split)
                 for split, sub in parts.items()]
    else:
        found = [_documents_of(_read_category_folders(root, "", skipped), None)]
    warn_skipped(str(root), skipped)
    docs, labels, ids, splits = ([x for part in found for x in part[k]] for k in range(4))
    if not docs:
        raise CorpusError(f"{root}: no documents found; expected ROOT/<category>/<file> "
                          "(or ROOT/train/<category>/<file> and ROOT/test/<category>/<file>), or "
                          "ROOT/train.jsonl and ROOT/test.jsonl")
    merged = {k: sum((part[4] or {}).get(k, 0) for part in found) for k in ("files", "documents")}
    return Documents(docs, labels, ids, "text", str(root), splits=splits if present else None,
                     skipped=skipped, merged=merged if merged["files"] else None)


def read_folder(root, *, test_size=0.25, random_state=0):
    """Read a folder-per-category corpus (see the module docstring)."""
    return finish(folder_documents(root), test_size=test_size, random_state=random_state)

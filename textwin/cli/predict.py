"""`textwin predict`: score documents (files, folders, stdin) with a saved model."""
from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

from .common import (
    EXIT_BAD_MODEL,
    EXIT_NO_DATA,
    EXIT_OK,
    CLIError,
    HelpFormatter,
    common_options,
    logger,
    out,
    print_json,
)


def add_parser(sub):
    """The `predict` subcommand's options."""
    p = sub.add_parser(
        "predict", formatter_class=HelpFormatter,
        help="score new documents with a saved model",
        description="Score documents with a model saved by `textwin train --output`. Prints "
                    "one line per document: the score, the label (the category when the "
                    "score is above the threshold, '-' otherwise) and the document. With "
                    "several categories: the labels, one score per category, the document. "
                    "A single-label model (multi-class or binary) gives each document "
                    "exactly one label: the class of the highest score (ties: the first "
                    "class in sorted order), or of a binary model's score against 0.",
        epilog="""examples:
  textwin predict acq.npz letter.txt memo.txt
  textwin predict acq.npz inbox/                 every file in the folder
  cat headlines.txt | textwin predict acq.npz    one document per line
  textwin predict acq.npz - --json < headlines.txt
""")
    p.add_argument("model", metavar="MODEL", help="model file (.npz)")
    p.add_argument("inputs", nargs="*", default=[], metavar="INPUT",  # default: not "required"
                   help="files or folders; '-' or nothing: stdin, one document per line")
    p.add_argument("--threshold", type=float, default=None,
                   help="decision threshold on the score (default: the model's, 0); "
                        "multi-label and binary models only")
    common_options(p, data=False)
    p.set_defaults(func=cmd_predict)


def _read_documents(inputs):
    """(id, text) pairs from files, folders (every file inside) or stdin (one per line)."""
    from ..corpora import decode_text, looks_binary

    docs, binary = [], []
    if not inputs or inputs == ["-"]:
        if sys.stdin.isatty():
            logger.warning("reading documents from the terminal, one per line; end with Ctrl-D")
        # Bytes, decoded line by line as files are (UTF-8, else latin-1), whatever
        # the locale says; a text stream without a buffer (tests) is read as is.
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        for i, line in enumerate(stream, 1):
            text = decode_text(line) if isinstance(line, bytes) else line
            if text.strip():
                docs.append((f"line {i}", text.rstrip("\r\n")))
        return docs
    for item in inputs:
        path = Path(item)
        if item == "-":
            raise CLIError("read stdin alone: `textwin predict MODEL -` (or no input at all)")
        if path.is_dir():  # hidden files and folders (.git/) left out, as in training
            files = sorted(p for p in path.rglob("*") if p.is_file() and not any(
                part.startswith(".") for part in p.relative_to(path).parts))
            if not files:
                raise CLIError(f"folder {path} holds no files to score")
        elif path.exists():  # a file, or a pipe such as bash's <(...)
            files = [path]
        else:
            raise CLIError(f"no such file or folder: {path}", EXIT_NO_DATA)
        for f in files:
            raw = f.read_bytes()
            if looks_binary(raw):  # an image, an archive: no text to score
                binary.append(str(f))
            else:
                docs.append((str(f), decode_text(raw)))
    if binary:  # as training says it, even with -q
        more = f", ... ({len(binary) - 3} more)" if len(binary) > 3 else ""
        logger.warning("warning: skipped %d binary file%s (NUL bytes, or mostly non-text "
                       "bytes): %s%s", len(binary), "s" if len(binary) > 1 else "",
                       ", ".join(binary[:3]), more)
    return docs


def cmd_predict(args):
    from ..persistence import ModelFormatError, load_model

    if args.threshold is not None and not math.isfinite(args.threshold):
        raise CLIError(f"--threshold must be a finite number, got {args.threshold}")
    if Path(args.model).is_dir():
        raise CLIError(f"{args.model} is a folder: the first argument is the model file "
                       "(textwin predict MODEL.npz [INPUT ...])")
    try:
        model = load_model(args.model)
    except FileNotFoundError as exc:
        raise CLIError(f"{exc}; train one with `textwin train --category CAT --output MODEL.npz`",
                       EXIT_NO_DATA) from None
    except ModelFormatError as exc:
        raise CLIError(str(exc), EXIT_BAD_MODEL) from None
    except OSError as exc:  # unreadable: permissions, an I/O error
        raise CLIError(f"cannot read the model file {args.model}: "
                       f"{exc.strerror or exc}", EXIT_NO_DATA) from None
    try:
        return _predict(args, model)
    except OSError as exc:  # an input that cannot be read
        raise CLIError(f"cannot read {exc.filename or 'the input'}: {exc.strerror or exc}",
                       EXIT_NO_DATA) from None


def _predict(args, model):
    import numpy as np

    from ..tasks import predicted_classes

    if model.vocabulary is None:
        ids, X = _read_svmlight_inputs(args.inputs, model)
        scores = model.decision_function(X)
    else:
        docs = _read_documents(args.inputs)
        if not docs:
            raise CLIError("no document to score: give files, a folder, or lines on stdin")
        ids = [d[0] for d in docs]
        try:
            scores = model.decision_function([d[1] for d in docs])
        except ImportError as exc:  # stems with PyStemmer, not installed here
            raise CLIError(str(exc), EXIT_BAD_MODEL) from None
    scores = np.asarray(scores).reshape(len(ids), -1)  # a binary model's 1-d scores too
    if model.task == "multiclass" and args.threshold is not None:
        warnings.warn("--threshold does not apply to a single-label model: each document "
                      "gets exactly one class, that of its highest score", stacklevel=1)
        args.threshold = None
    thresholds = model.thresholds if args.threshold is None else np.full(
        len(model.target_names), args.threshold)
    labels = scores > thresholds
    names = model.target_names
    if model.task == "multiclass":
        # one class per document, as the saved (one-vs-rest) estimator predicted
        labels = np.zeros_like(labels)
        labels[np.arange(len(ids)), predicted_classes(scores, thresholds)] = True
    elif model.task == "binary":
        # one of the two classes: the second where the score is above the threshold
        classes = [str(c) for c in model.classes]
        chosen = [classes[1] if on else classes[0] for on in labels[:, 0]]
        if args.json:
            print_json([{"id": i, "scores": {names[0]: float(row[0])}, "labels": [c]}
                        for i, row, c in zip(ids, scores, chosen)])
            return EXIT_OK
        for i, row, c in zip(ids, scores, chosen):
            out(f"{row[0]: .6f}\t{c}\t{i}")
        return EXIT_OK
    if args.json:
        print_json([
            {"id": i, "scores": {c: float(s) for c, s in zip(names, row)},
             "labels": [c for c, on in zip(names, lab) if on]}
            for i, row, lab in zip(ids, scores, labels)])
        return EXIT_OK
    if len(names) == 1:
        for i, row, lab in zip(ids, scores, labels):
            out(f"{row[0]: .6f}\t{names[0] if lab[0] else '-'}\t{i}")
    else:
        out("\t".join(["labels", *names, "document"]))
        for i, row, lab in zip(ids, scores, labels):
            chosen = ",".join(c for c, on in zip(names, lab) if on) or "-"
            out("\t".join([chosen, *(f"{s:.6f}" for s in row), i]))
    return EXIT_OK


def _read_svmlight_inputs(inputs, model):
    import scipy.sparse as sp

    from ..corpora import CorpusError, read_svmlight_file

    if not inputs or inputs == ["-"]:
        raise CLIError("this model was trained on svmlight vectors: give svmlight files to score")
    ids, mats = [], []
    for item in inputs:
        if Path(item).is_dir():
            raise CLIError(f"{item} is a folder: this model scores svmlight files, give "
                           f"them one by one (e.g. {item}/*.svm)")
        try:
            X, _ = read_svmlight_file(item, n_features=model.n_features_in_)
        except FileNotFoundError:
            raise CLIError(f"no such file: {item}", EXIT_NO_DATA) from None
        except OSError as exc:
            raise CLIError(f"cannot read {item}: {exc.strerror or exc}", EXIT_NO_DATA) from None
        except CorpusError as exc:
            raise CLIError(str(exc)) from None
        mats.append(X)
        ids += [f"{item}:{k + 1}" for k in range(X.shape[0])]
    if not ids:
        raise CLIError("no document to score: the svmlight files are empty")
    return ids, sp.vstack(mats).tocsr()

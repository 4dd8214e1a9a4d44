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
                    "class in sorted order), or for a binary model the second class where "
                    "the score is above the model's threshold (0 unless tuned), else the "
                    "first.",
        epilog="""examples:
  textwin predict acq.npz letter.txt memo.txt
  textwin predict acq.npz inbox/                 every file in the folder
  cat headlines.txt | textwin predict acq.npz    one document per line
  textwin predict acq.npz - --json < headlines.txt
""")
    p.add_argument("model", metavar="MODEL", help="model file (.npz)")
    p.add_argument("inputs", nargs="*", default=[], metavar="INPUT",  # default: not "required"
                   help="files, folders (every file inside) or JSON Lines files (each "
                        "line's text); '-' or nothing: stdin, one document per line")
    p.add_argument("--threshold", type=float, default=None,
                   help="decision threshold on the score (default: the model's, 0); "
                        "multi-label and binary models only")
    common_options(p, data=False)
    p.set_defaults(func=cmd_predict)


def _read_stdin():
    """(ids, texts): one document per line of stdin."""
    from ..datasets import decode_text

    if sys.stdin.isatty():
        logger.warning("reading documents from the terminal, one per line; end with Ctrl-D")
    # Bytes, decoded line by line as files are (UTF-8, else latin-1), whatever
    # the locale says; a text stream without a buffer (tests) is read as is.
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    ids, docs = [], []
    for i, line in enumerate(stream, 1):
        text = decode_text(line) if isinstance(line, bytes) else line
        if text.strip():
            ids.append(f"line {i}")
            docs.append(text.rstrip("\r\n"))
    return ids, docs


#: How the warning names the files not scored, by reason.
def _read_inputs(inputs, model):
    """(ids, documents) to score: stdin's lines, or files and folders in any layout
    of the model's kind (the table of layouts in textwin.datasets)."""
    from ..datasets import SKIP_REASONS, CorpusError, read_inputs

    text = model.vocabulary is not None
    if not inputs or inputs == ["-"]:
        if not text:
            raise CLIError("this model was trained on svmlight vectors: give svmlight files "
                           "to score")
        return _read_stdin()
    if "-" in inputs:
        raise CLIError("read stdin alone: `textwin predict MODEL -` (or no input at all)")
    try:
        ids, docs, skipped = read_inputs(inputs, "text" if text else "vectors",
                                         n_features=None if text else model.n_features_in_)
    except FileNotFoundError as exc:
        raise CLIError(f"no such file or folder: {exc.filename}", EXIT_NO_DATA) from None
    except CorpusError as exc:
        raise CLIError(str(exc)) from None
    for reason, paths in skipped.items():  # as training says it, even with -q
        if paths:
            # the readers' own reasons: "binary (NUL bytes, ...)" -> "binary file", "NUL
            # ..."; "not a regular file (a named pipe, ...)" -> "file", "not a ...: a ..."
            what, _, why = SKIP_REASONS[reason].rstrip(")").partition(" (")
            if what.endswith("file"):
                what, why = "file", f"{what}: {why}"
            elif not what.endswith("folder"):
                what = f"{what} file"
            more = f", ... ({len(paths) - 3} more)" if len(paths) > 3 else ""
            logger.warning("warning: skipped %d %s%s (%s): %s%s", len(paths), what,
                           "s" if len(paths) > 1 else "", why, ", ".join(paths[:3]), more)
    return ids, docs


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
    except BrokenPipeError:  # `textwin predict ... | head`: stdout's reader left
        raise
    except OSError as exc:  # an input that cannot be read
        raise CLIError(f"cannot read {exc.filename or 'the input'}: {exc.strerror or exc}",
                       EXIT_NO_DATA) from None


def _predict(args, model):
    import numpy as np

    from ..tasks import predicted_classes

    ids, docs = _read_inputs(args.inputs, model)
    if not ids:
        raise CLIError("no document to score: give files, a folder, or lines on stdin"
                       if model.vocabulary is not None else
                       "no document to score: the svmlight files are empty")
    try:
        scores = model.decision_function(docs)
    except ImportError as exc:  # stems with PyStemmer, not installed here
        raise CLIError(str(exc), EXIT_BAD_MODEL) from None
    scores = np.asarray(scores).reshape(len(ids), -1)  # a binary model's 1-d scores too
    if model.task == "multiclass" and args.threshold is not None:
        warnings.warn("--threshold does not apply to a multi-class model: each document "
                      "gets exactly one class, that of its highest score less the model's "
                      "class thresholds (0 unless tuned)", stacklevel=1)
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

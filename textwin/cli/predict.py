"""`textwin predict`: score documents (files, folders, stdin) with a saved model."""
from __future__ import annotations

import math
import os
import sys
import warnings

from .common import (
    EXIT_BAD_MODEL,
    EXIT_NO_DATA,
    EXIT_OK,
    CLIError,
    json_text,
    logger,
    open_model,
    out,
)
from .options import HelpFormatter, columns_of, common_options, table_options


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
                    "first. Results are written as the documents are read, so a million "
                    "lines from stdin are scored in bounded memory and the first result comes "
                    "at once; an input that cannot be read stops the output there, with an "
                    "error and a non-zero exit status.",
        epilog="""examples:
  textwin predict acq.npz letter.txt memo.txt
  textwin predict acq.npz inbox/                 every file in the folder
  cat headlines.txt | textwin predict acq.npz    one document per line
  textwin predict acq.npz - --json < headlines.txt
  tail -f feed.txt | textwin predict acq.npz --jsonl | jq -r .labels[0]
  textwin predict news.npz --proba --top-k 2 inbox/    the two likeliest classes, with
                                                       their probabilities
  echo "Oil prices rose" | textwin predict news.npz --explain 5
""")
    p.add_argument("model", metavar="MODEL", help="model file (.npz)")
    p.add_argument("inputs", nargs="*", default=[], metavar="INPUT",  # default: not "required"
                   help="files, folders (every file inside), or files of many documents: "
                        "JSON Lines (each line's text), CSV, TSV, Parquet (each row's text) "
                        "and fastText files (each line's text, its __label__ words "
                        "stripped); '-' or nothing: stdin, one document per line (a line "
                        "that starts with __label__ words, as a fastText file's, without "
                        "them)")
    table_options(p, labels=False)
    p.add_argument("--threshold", type=float, default=None,
                   help="decision threshold on the score (default: the model's, 0); "
                        "multi-label and binary models only")
    g = p.add_argument_group("probabilities and explanations")
    g.add_argument("--proba", action="store_true",
                   help="probabilities instead of scores: of each class, summing to 1 for a "
                        "single-label model (the label's own for a binary one), of each "
                        "category for a multi-label one ('probabilities' with --json); the "
                        "model must have them: `textwin train --proba` (Platt's sigmoid on "
                        "cross-validated scores), --auto or the logistic loss")
    g.add_argument("--top-k", type=int, default=None, metavar="K",
                   help="the K likeliest labels: the label the model gives first, then the "
                        "others by score less threshold (with --proba, by their "
                        "probabilities, printed beside): exactly K of a single-label model, "
                        "at most K of the categories a multi-label one gives")
    g.add_argument("--explain", type=int, default=None, metavar="N",
                   help="for each label given, the N words of the document that pushed its "
                        "score most, as the document writes them, with their contributions "
                        "w*x (weight times feature value); the contributions, the rest of "
                        "the document's and the model's bias add up to the score "
                        "(a binary model's first class, which low scores give: the words "
                        "that pushed the score down most; 'explanation' with --json)")
    common_options(p, data=False, stream=True,
                   json_help="print one JSON array of every document's id, scores and "
                             "labels (written as each is scored, but whole only after the "
                             "last: --jsonl gives the same objects one per line)")
    p.set_defaults(func=cmd_predict)


#: The most bytes read from stdin at once: what a pipe holds is scored before
#: waiting for more, so a line fed alone is answered at once.
_CHUNK = 1 << 18


def _stdin_batches():
    """``(ids, texts)`` parts of stdin, one document per line, as lines arrive: a
    part ends at :data:`BATCH` lines or where reading more would wait, so memory
    holds one part and a line piped in alone is scored before the next comes."""
    from ..datasets import decode_text
    from ..datasets._fasttext import PREFIX, strip_labels
    from ..datasets._layouts import BATCH

    if sys.stdin.isatty():
        logger.warning("reading documents from the terminal, one per line; end with Ctrl-D")
    # Bytes, decoded line by line as files are (UTF-8, else latin-1), whatever
    # the locale says; a text stream without a buffer (tests) is read as is.
    ids, docs = [], []
    for lineno, line, waits in _stdin_lines():
        text = decode_text(line) if isinstance(line, bytes) else line
        if text.strip():
            ids.append(f"line {lineno}")
            # a fastText line (a test file piped in) is scored without its labels, as
            # fastText's predict does: their names are words the model knows
            docs.append(strip_labels(text) if text.lstrip().startswith(PREFIX)
                        else text.rstrip("\r\n"))
        if docs and (waits or len(docs) == BATCH):
            yield ids, docs
            ids, docs = [], []
    if docs:
        yield ids, docs


def _stdin_lines():
    """``(line number, line, whether the next line must be waited for)`` of stdin;
    read from its file descriptor, whose reads return what the pipe holds, so that
    the reader knows when a line is the last one at hand."""
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # a stream in memory: all at hand
        yield from ((i, line, False) for i, line in enumerate(stream, 1))
        return
    from ..datasets._encoding import MAX_DOCUMENT_BYTES, in_units

    pending, lineno, scanned = bytearray(), 0, 0
    while True:
        end = pending.find(b"\n", scanned)
        if end < 0:
            scanned = len(pending)
            if scanned > MAX_DOCUMENT_BYTES:
                raise CLIError(f"line {lineno + 1} of stdin is longer than "
                               f"{in_units(MAX_DOCUMENT_BYTES)}: give one document per line")
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            pending += chunk
            continue
        line = bytes(pending[:end + 1])
        del pending[:end + 1]  # from the front of a bytearray: no copy of the rest
        scanned, lineno = 0, lineno + 1
        yield lineno, line, b"\n" not in pending
    if pending:
        yield lineno + 1, bytes(pending), True


def _file_batches(args, model, skipped):
    """``(ids, documents)`` parts of files and folders in any layout of the model's
    kind (the table of layouts in textwin.datasets), as they are read."""
    from ..datasets import CorpusError
    from ..datasets._layouts import iter_inputs

    text = model.vocabulary is not None
    try:
        yield from iter_inputs(args.inputs, "text" if text else "vectors", skipped=skipped,
                               n_features=None if text else model.n_features_in_,
                               columns=columns_of(args))
    except FileNotFoundError as exc:
        raise CLIError(f"no such file or folder: {exc.filename}", EXIT_NO_DATA) from None
    except CorpusError as exc:
        raise CLIError(str(exc)) from None


def _batches(args, model, skipped):
    """``(ids, documents)`` parts to score: stdin's lines, or files and folders."""
    inputs = args.inputs
    if not inputs or inputs == ["-"]:
        if model.vocabulary is None:
            raise CLIError("this model was trained on svmlight vectors: give svmlight files "
                           "to score")
        return _stdin_batches()
    if "-" in inputs:
        raise CLIError("read stdin alone: `textwin predict MODEL -` (or no input at all)")
    return _file_batches(args, model, skipped)


def _warn_skipped(skipped):
    """One warning line per reason a file was not scored, as training says it, even
    with -q."""
    from ..datasets import SKIP_REASONS

    for reason in SKIP_REASONS:  # in the order training lists them
        paths = skipped.get(reason)
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


def cmd_predict(args):
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise CLIError(f"--threshold must be a finite number, got {args.threshold}")
    if args.json and args.jsonl:
        raise CLIError("--json prints one JSON array, --jsonl one object per line: give one")
    for option, value, what in (("--top-k", args.top_k, "labels"),
                                ("--explain", args.explain, "words per label")):
        if value is not None and value < 1:
            raise CLIError(f"{option} {value}: give a number of {what} of 1 or more")
    model = open_model(args.model)
    if args.proba:
        try:
            args.calibration = model.probability_calibration()
        except ValueError as exc:
            raise CLIError(f"--proba: {exc}") from None
    if args.explain and model.vocabulary is None:
        raise CLIError("--explain: this model scores svmlight vectors, which have no words "
                       "to show; explanations need a model trained on texts")
    try:
        return _predict(args, model)
    except BrokenPipeError:  # `textwin predict ... | head`: stdout's reader left
        raise
    except OSError as exc:  # an input that cannot be read
        raise CLIError(f"cannot read {exc.filename or 'the input'}: {exc.strerror or exc}",
                       EXIT_NO_DATA) from None


def _predict(args, model):
    if model.task == "multiclass" and args.threshold is not None:
        warnings.warn("--threshold does not apply to a multi-class model: each document "
                      "gets exactly one class, that of its highest score less the model's "
                      "class thresholds (0 unless tuned)", stacklevel=1)
        args.threshold = None
    write = _writer(args, model)
    skipped = {}
    n_documents = 0
    for ids, docs in _batches(args, model, skipped):
        if not ids:  # an empty svmlight file
            continue
        try:
            scores = model.decision_function(docs)
        except ImportError as exc:  # stems with PyStemmer, not installed here
            raise CLIError(str(exc), EXIT_BAD_MODEL) from None
        write(ids, _results(args, model, ids, scores, docs))
        sys.stdout.flush()  # each part as soon as it is scored
        n_documents += len(ids)
    _warn_skipped(skipped)
    if not n_documents:
        raise CLIError(_nothing_to_score(args.inputs, model, skipped))
    write(None, None)
    return EXIT_OK


def _nothing_to_score(inputs, model, skipped):
    """What to say when the inputs held no document."""
    if model.vocabulary is None:
        return "no document to score: the svmlight files are empty"
    if not inputs or inputs == ["-"]:
        return "no document to score: stdin held no line; give files, a folder, or lines on stdin"
    shown = ", ".join(inputs[:3]) + (f" and {len(inputs) - 3} more" if len(inputs) > 3 else "")
    why = ("skipped, as the warning says" if any(skipped.values()) else
           "empty, blank lines or a header alone")
    return f"no document to score in {shown} ({why}); give files holding the documents"


def _results(args, model, ids, scores, docs):
    """``(scores, labels, extras)`` of a part: a row of scores per document (one column
    for a binary model), per document the labels the model gives (with --top-k, its K
    first), and what --proba and --explain add to each document's object."""
    import numpy as np

    from ..tasks import decide, ranked_labels

    scores = np.asarray(scores).reshape(len(ids), -1)  # a binary model's 1-d scores too
    names = model.target_names
    thresholds = model.thresholds if args.threshold is None else np.full(
        len(names), args.threshold)
    classes = [str(c) for c in model.classes] if model.task == "binary" else names
    P = args.calibration.predict_proba(scores, model.task) if args.proba else None
    if args.top_k is not None:  # with --proba, the likeliest after the labels given
        labels = [[classes[j] for j in row]
                  for row in ranked_labels(scores, thresholds, model.task, args.top_k, by=P)]
    elif model.task == "multiclass":
        # one class per document, as the saved (one-vs-rest) estimator predicted
        labels = [[names[k]] for k in decide(model.task, scores, thresholds)]
    elif model.task == "binary":
        # one of the two classes: the second where the score is above the threshold
        labels = [[classes[1] if on else classes[0]]
                  for on in decide(model.task, scores[:, 0], thresholds[:1])]
    else:
        labels = [[c for c, on in zip(names, row) if on]
                  for row in decide(model.task, scores, thresholds)]
    extras = [{} for _ in ids]
    if args.proba:
        for extra, row in zip(extras, P.tolist()):
            extra["probabilities"] = dict(zip(classes, row))
    if args.explain:
        for extra, why in zip(extras, model.explain(docs, args.explain, labels)):
            extra["explanation"] = why
    return scores, labels, extras


def _writer(args, model):
    """``write(ids, (scores, labels))``: prints a part's results as --json, --jsonl
    or the table ask; ``write(None, None)`` ends the output."""
    names = model.target_names
    if args.json or args.jsonl:
        # each document its object, written as it is scored: --jsonl one per line,
        # --json the elements of one array, indented as json.dumps(indent=2) does
        state = {"opened": False}

        def write(ids, results):
            if ids is None:
                if args.json:
                    sys.stdout.write("\n]\n")
                return
            scores, labels, extras = results
            for doc_id, row, labs, extra in zip(ids, scores, labels, extras):
                obj = {"id": doc_id, "scores": {c: float(s) for c, s in zip(names, row)},
                       "labels": labs, **extra}
                if args.jsonl:
                    sys.stdout.write(json_text(obj) + "\n")
                    continue
                element = "  " + json_text(obj, indent=2).replace("\n", "\n  ")
                sys.stdout.write((",\n" if state["opened"] else "[\n") + element)
                state["opened"] = True

        return write
    state = {"header": False}

    def write(ids, results):
        if ids is None:
            return
        scores, labels, extras = results
        if model.task == "binary" or len(names) == 1:
            for doc_id, row, labs, extra in zip(ids, scores, labels, extras):
                # with --proba: the probability of the label given (a binary model's
                # first class has 1 - p), else the score
                shown = (f"{extra['probabilities'][labs[0] if labs else names[0]]:.6f}"
                         if args.proba else f"{row[0]: .6f}")
                out(f"{shown}\t{','.join(labs) or '-'}\t{doc_id}")
                _explanation_lines(extra)
            return
        if not state["header"]:
            out("\t".join(["labels", *names, "document"]))
            state["header"] = True
        for doc_id, row, labs, extra in zip(ids, scores, labels, extras):
            values = (extra["probabilities"].values() if args.proba else row)
            out("\t".join([",".join(labs) or "-", *(f"{s:.6f}" for s in values), doc_id]))
            _explanation_lines(extra)

    return write


def _explanation_lines(extra):
    """Under a document's line, one indented line per label explained: its words of
    largest contribution, as the document writes them."""
    for label, why in extra.get("explanation", {}).items():
        terms = ", ".join(f"{'/'.join(t['words'])} {t['contribution']:+.3f}"
                          for t in why["terms"]) or "(no word of the model)"
        out(f"  {label}: {terms} (bias {why['intercept']:+.3f}, other words "
            f"{why['rest']:+.3f}, score {why['score']:+.3f})")

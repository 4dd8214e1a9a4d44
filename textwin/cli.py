"""The ``textwin`` command: train, evaluate, score and manage data from a shell.

Results go to stdout (a table, or JSON with ``--json``); logs and progress bars
go to stderr (progress bars only on a terminal; ``-q`` silences both). Every
failure the user can fix prints one line on stderr, ``textwin: error: ...``,
saying what is wrong and what to do, and exits with a code that tells failures
apart (see :data:`EXIT_CODES`); there is never a traceback for those.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import sys
import textwrap
import time
import warnings
from pathlib import Path

from ._languages import LANGUAGES
from ._version import __version__
from ._cli_common import (  # noqa: F401 (the exit codes are part of this module's API)
    EXIT_BAD_MODEL,
    EXIT_CODES,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO_DATA,
    EXIT_OK,
    EXIT_USAGE,
    CLIError,
    HelpFormatter,
    damaged_corpus,
    fail,
    first_line,
    missing_data,
    n_jobs_error,
)

logger = logging.getLogger("textwin")

# Method settings that may be given on the command line: option -> setting name.
_SETTING_OPTIONS = ("lam", "epochs", "tol", "eta", "theta", "gamma")


# ---------------------------------------------------------------------------
# Output helpers
# ---------------------------------------------------------------------------

def _out(text=""):
    # rstrip: table cells without a paper figure would leave trailing blanks
    print(text.rstrip(), file=sys.stdout)


def _print_json(obj):
    # the whole document is built before anything is written: an error cannot
    # leave half a document on stdout
    text = json.dumps(_finite_json(obj), indent=2, allow_nan=False, default=_json_default)
    sys.stdout.write(text + "\n")


def _finite_json(obj):
    """``obj`` with +-inf as the strings "inf"/"-inf" (a threshold never/always
    met) and NaN as null: standard JSON has no such numbers."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_json(v) for v in obj]
    return obj


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def _pct(x, width=5):
    return "-".rjust(width) if x is None or not math.isfinite(x) else f"{100 * x:{width}.1f}"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time (pipes, tests' capture)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):  # StreamHandler.__init__ assigns it; always use sys.stderr
        pass


def _setup_logging(args):
    level = logging.WARNING if args.quiet else (logging.DEBUG if args.verbose else logging.INFO)
    logger.setLevel(level)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("textwin: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def _progress_enabled(args):
    return not args.quiet and sys.stderr.isatty()


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

def _protocol_data(categories, args):
    from .datasets import ReutersFormatError
    from .experiments import load_protocol_data

    try:
        return load_protocol_data(categories, args.data_home, n_features=args.features or 1000,
                                  download_if_missing=not args.offline)
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, args.data_home) from None
    except (FileNotFoundError, OSError) as exc:
        raise missing_data(exc, args.data_home) from None


# ---------------------------------------------------------------------------
# train
# ---------------------------------------------------------------------------

def _overrides(args, method):
    """Settings given on the command line, checked against the method's."""
    given = _given_settings(args)
    unknown = sorted(set(given) - set(method.settings))
    if unknown:
        raise CLIError(
            f"method {method.key!r} has no setting {', '.join('--' + u for u in unknown)}; "
            f"its settings: {', '.join('--' + s for s in sorted(method.settings))}")
    return given


def _given_settings(args):
    """The method settings given on the command line, their values checked."""
    given = {k: getattr(args, k) for k in _SETTING_OPTIONS if getattr(args, k, None) is not None}
    if getattr(args, "plot", None) is not None and given.get("lam") != "auto":
        raise CLIError("--plot draws the cross-validated score against lambda: add --lam auto")
    numbers = {k: v for k, v in given.items() if not (k == "lam" and v == "auto")}
    for key in ("lam", "eta", "tol", "theta", "gamma"):
        if key in numbers and not math.isfinite(given[key]):
            raise CLIError(f"--{key} must be a finite number, got {given[key]}")
    for key in ("lam", "eta", "tol"):
        if key in numbers and not given[key] > 0:
            raise CLIError(f"--{key} must be positive, got {given[key]}")
    if "tol" in given and not given["tol"] < 1:
        raise CLIError(f"--tol is a relative duality gap: give a value below 1 (e.g. 1e-3), "
                       f"got {given['tol']}")
    if "gamma" in given and given["gamma"] < 0:
        raise CLIError(f"--gamma is a margin: give a value >= 0, got {given['gamma']}")
    from ._ovr import MAX_EPOCHS  # the kernels count epochs in a C int

    if "epochs" in given and not 1 <= given["epochs"] <= MAX_EPOCHS:
        raise CLIError(f"--epochs must be an integer from 1 to {MAX_EPOCHS}, got "
                       f"{given['epochs']}")
    return given


def _estimator_verbosity(args):
    """2 (-v): a line per binary problem; 1: a progress bar over them (on a terminal)."""
    return 2 if args.verbose else (1 if _progress_enabled(args) else 0)


def _train_problem(method, X_train, Y_train, overrides, n_jobs=None, verbose=0, order=None,
                   single_label=False):
    """Fit ``method`` on the columns of ``Y_train``; return the fitted estimator and time."""
    from ._ovr import ConstantModelWarning
    from .experiments import fit_method

    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # _check_trainable named these categories already; the estimators can
            # only give column numbers.
            warnings.filterwarnings("ignore", category=ConstantModelWarning)
            est = fit_method(method, X_train, Y_train, overrides, n_jobs=n_jobs,
                             verbose=verbose, order=order, single_label=single_label)
    except ValueError as exc:
        # The estimators validate their settings and data in fit, with messages
        # that name the parameter; they are the user's to fix.
        raise CLIError(first_line(exc)) from None
    return est, time.perf_counter() - t0


# the number of folds of `train --tune-thresholds`
TUNING_FOLDS = 3


def _tune_thresholds(est, X_train, Y_train, objective):
    """Per-category thresholds from out-of-fold scores of ``est``'s settings on the training set."""
    from .metrics import breakeven_thresholds, f1_thresholds
    from .thresholds import out_of_fold_scores

    import numpy as np

    # With fewer positives than folds, some fold trains without any: its
    # out-of-fold scores say nothing, and the tuned threshold fell far below 0
    # (castorseed, one positive: -1, every document labelled). Keep 0 there; a
    # single such category is not tuned at all (its fold could not be trained).
    positives = np.asarray((Y_train != 0).sum(axis=0)).ravel()
    if positives.size == 1 and positives[0] < TUNING_FOLDS:
        thresholds = np.ones(1)  # not 0: the warning below names it
    else:
        with warnings.catch_warnings():
            # the folds' fits repeat what the full fit already reported
            warnings.simplefilter("ignore")
            oof = out_of_fold_scores(est, X_train, Y_train, cv=TUNING_FOLDS)
        tune = f1_thresholds if objective == "f1" else breakeven_thresholds
        thresholds = np.asarray(tune(Y_train, oof), dtype=np.float64)
    rare = [j for j in range(thresholds.size)
            if 0 < positives[j] < TUNING_FOLDS and thresholds[j] != 0]
    if rare:
        thresholds[rare] = 0.0
        names = _first_names([f"{_PROBLEM_NAMES[j] if j < len(_PROBLEM_NAMES) else j} "
                              f"({positives[j]})" for j in rare])
        warnings.warn(f"--tune-thresholds: {len(rare)} categor"
                      f"{'y has' if len(rare) == 1 else 'ies have'} fewer training "
                      f"documents than the {TUNING_FOLDS} folds and keep"
                      f"{'s' if len(rare) == 1 else ''} threshold 0: {names}", stacklevel=2)
    return thresholds


#: The built-in single-label corpora that ``--corpus`` takes by name (when no file
#: or folder has that name).
BUILTIN_CORPORA = ("r8", "r52")

#: Methods whose ``lam`` defaults to :func:`default_lam` on a user's corpus: those
#: with a squared-norm regularizer, and the Winnow whose scale comes from the data
#: (its lam is then on the SVM's scale, docs/mathematics.md §14).
LAM_ONE_OVER_N = ("svm", "svm-alg2", "svm-alg2-converged", "mls", "smo", "linearsvc",
                  "rwinnow-auto")

#: The methods `textwin eval --corpus` compares by default: one of each family.
CORPUS_METHODS = ("svm", "mls", "rwinnow-auto", "perceptron", "winnow", "linearsvc")


def default_lam(n_train):
    """lam on a user's corpus when --lam is not given: 1/n, scikit-learn's C = 1
    (C = 1/(lam n)), the baseline a LinearSVC() user knows."""
    return 1.0 / n_train


def _builtin_corpus(args):
    """R8 or R52 as a :class:`textwin.corpora.CustomCorpus` (ModApte's own split)."""
    from .corpora import corpus_from_labels
    from .datasets import ReutersFormatError, fetch_reuters_single_label

    name = str(args.corpus).lower()
    if args.test_corpus is not None or args.test_size is not None:
        raise CLIError(f"--corpus {args.corpus} is split already (ModApte): drop "
                       "--test-corpus / --test-size")
    parts = {}
    try:
        for subset in ("train", "test"):
            parts[subset] = fetch_reuters_single_label(
                name, data_home=args.data_home, subset=subset,
                download_if_missing=not args.offline)
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, args.data_home) from None
    except OSError as exc:
        raise missing_data(exc, args.data_home) from None
    tr, te = parts["train"], parts["test"]
    names = tr.target_names
    return corpus_from_labels(
        tr.data, [[names[k]] for k in tr.target], te.data, [[names[k]] for k in te.target],
        source=f"Reuters-21578 {name.upper()}", ids_train=[str(i) for i in tr.ids],
        ids_test=[str(i) for i in te.ids])


def _load_user_corpus(args):
    from .corpora import CorpusError, load_corpus

    if str(args.corpus).lower() in BUILTIN_CORPORA and not Path(args.corpus).exists():
        corpus = _builtin_corpus(args)
        logger.info("%s", "\n".join(corpus.describe()))
        return corpus
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            corpus = load_corpus(args.corpus, test_path=args.test_corpus,
                                 test_size=0.25 if args.test_size is None else args.test_size,
                                 random_state=0 if args.seed is None else args.seed,
                                 allow_unlabeled=args.allow_unlabeled)
    except CorpusError as exc:
        code = EXIT_NO_DATA if "not found" in str(exc) else EXIT_USAGE
        raise CLIError(str(exc), code) from None
    except OSError as exc:
        raise CLIError(f"cannot read corpus {args.corpus}: {exc}", EXIT_NO_DATA) from None
    for w in caught:  # the skipped files: one warning line, even with -q
        logger.warning("warning: %s", w.message)
    logger.info("%s", "\n".join(corpus.describe()))
    return corpus


def _prepare_user_corpus(args, corpus):
    """Vectorize (text corpora) and select features; return matrices and model parts.

    ``support`` is None when every feature is kept (``--features all``, the
    default on a user's corpus).
    """
    import numpy as np

    from .feature_selection import InformationGain

    vectorizer = None
    if corpus.is_text:
        from .text import TextVectorizer

        vectorizer = TextVectorizer(weighting=args.weighting or "tfidf",
                                    stem=not args.no_stem, language=args.language or "english")
        try:
            X_train = vectorizer.fit_transform(corpus.train)
        except ValueError as exc:
            raise CLIError(f"{corpus.source}: {exc}") from None
        X_test = vectorizer.transform(corpus.test)
    else:
        text_only = [opt for opt, given in (("--weighting", args.weighting),
                                            ("--language", args.language),
                                            ("--no-stem", args.no_stem)) if given]
        if text_only:
            raise CLIError(f"{', '.join(text_only)} {'is' if len(text_only) == 1 else 'are'} "
                           f"for text corpora; {corpus.source} holds feature values "
                           "(svmlight), which are used as given")
        X_train, X_test = corpus.train, corpus.test
    if args.features in (None, "all") or args.features >= X_train.shape[1]:
        return X_train.tocsr(), X_test.tocsr(), vectorizer, None
    selector = InformationGain(k=args.features).fit(X_train, corpus.Y_train)
    support = selector.get_support(indices=True)
    return (X_train[:, support].tocsr(), X_test[:, support].tocsr(), vectorizer,
            np.asarray(support, dtype=np.int64))


# The categories being trained, in column order: the estimators' warnings say
# "problem k", the command line says which category that is.
_PROBLEM_NAMES = []


# The solvers' parameters by the flags of this command line (a convergence
# warning's advice; Algorithm 2 to convergence is a method of its own here).
_CLI_NAMES = {
    "max_epochs": "--epochs",
    "tol": "--tol",
    "lam": "--lam",
    "converged": "--method svm-alg2-converged",
}


def _first_names(names, shown=10):
    """``names`` joined by commas, the first ``shown`` of them and how many more: a
    corpus of hundreds of rare categories keeps its warnings to a line."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more (--json names them)" if more > 0
                                       else "")


def _check_trainable(categories, Y_train, source, everything):
    """A category needs positive and negative training documents.

    Named explicitly, a category without them is an error; with ``--category all``
    such categories are kept (a constant model, no break-even point) and named in
    one warning.
    """
    no_pos = [c for j, c in enumerate(categories) if not Y_train[:, j].any()]
    no_neg = [c for j, c in enumerate(categories) if Y_train[:, j].all()]
    if everything:
        if no_pos or no_neg:
            n = len(no_pos) + len(no_neg)
            names = [*(f"{c} (no training document)" for c in no_pos),
                     *(f"{c} (in every training document)" for c in no_neg)]
            # A warning, not a log line: -q silences it as it does the estimators'.
            warnings.warn(f"{n} categor{'y' if n == 1 else 'ies'} of {source} cannot be "
                          f"learned and get a constant model: {_first_names(names)}",
                          stacklevel=2)
        return
    if no_pos:
        raise CLIError(f"category {no_pos[0]!r} has no training document in {source}; a "
                       "classifier needs positive examples")
    if no_neg:
        raise CLIError(
            f"every training document of {source} is in category {no_neg[0]!r}; a "
            "classifier needs negative examples too (in a folder corpus, files of the same name "
            "and identical bytes in several category folders are one document with all "
            "their labels)")


_CORPUS_ONLY = (("--test-corpus", "test_corpus"), ("--test-size", "test_size"),
                ("--task", "task"), ("--allow-unlabeled", "allow_unlabeled"),
                ("--language", "language"), ("--no-stem", "no_stem"))


def _training_data(args, categories_arg):
    """Matrices, categories, task and model parts (Reuters or ``--corpus``)."""
    from types import SimpleNamespace

    from .experiments import UnknownCategoryError, resolve_categories
    from .tasks import detect_task

    if args.corpus is None:
        if categories_arg is None and args.command == "train":
            raise CLIError("give --category: one of the 118 Reuters-21578 categories (e.g. acq, "
                           "earn, grain), a comma-separated list, or all")
        if args.weighting not in (None, "binary"):
            raise CLIError("--weighting is for --corpus; the Reuters protocol uses binary "
                           "features")
        given = [opt for opt, key in _CORPUS_ONLY if getattr(args, key, None)]
        if args.seed is not None and not args.shuffle:
            given.append("--seed")
        if given:
            raise CLIError(f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} for "
                           "--corpus; Reuters-21578 has its own ModApte split and is "
                           "multi-label" + ("; on it, --seed seeds the order of --shuffle"
                                            if "--seed" in given else ""))
        if args.features == "all":
            raise CLIError("--features all is for --corpus; the Reuters protocol selects "
                           "features by information gain: give a number (the paper: 1000)")
        try:
            data = _protocol_data(categories_arg, args)
        except UnknownCategoryError as exc:
            raise CLIError(str(exc)) from None
        _check_trainable(data.categories, data.Y_train, "the ModApte training set",
                         categories_arg in (None, "top10", "all"))
        # The cached corpus is vectorized with TextVectorizer's defaults (title and body)
        # and NLTK's stemmer.
        return SimpleNamespace(
            categories=data.categories, X_train=data.X_train, X_test=data.X_test,
            Y_train=data.Y_train, Y_test=data.Y_test, vocabulary=data.vocabulary,
            support=data.support, preprocessing={"weighting": "binary", "stemmer": "nltk"},
            idf=None, source="Reuters-21578 ModApte", task="multilabel", report=None)

    corpus = _load_user_corpus(args)
    available = corpus.target_names
    if categories_arg in (None, "all"):
        categories = available
    else:
        try:
            categories = resolve_categories(categories_arg, available)
        except UnknownCategoryError as exc:
            raise CLIError(str(exc)) from None
    cols = [available.index(c) for c in categories]
    Y_train, Y_test = corpus.Y_train[:, cols], corpus.Y_test[:, cols]
    try:
        task = detect_task(Y_train, Y_test, args.task)
    except ValueError as exc:
        raise CLIError(f"{corpus.source}: {exc} (--task multilabel)") from None
    X_train, X_test, vectorizer, support = _prepare_user_corpus(args, corpus)
    _check_trainable(categories, Y_train, corpus.source, categories_arg in (None, "all"))
    return SimpleNamespace(
        categories=categories, X_train=X_train, X_test=X_test, Y_train=Y_train,
        Y_test=Y_test,
        vocabulary=None if vectorizer is None else vectorizer.get_feature_names_out().astype(str),
        support=support,
        preprocessing={} if vectorizer is None else vectorizer.preprocessing_params(),
        idf=getattr(vectorizer, "idf_", None), source=corpus.source, task=task,
        report=corpus.report)


def _method_settings(args, method, d, given):
    """The settings given, plus lam = :func:`default_lam` on a user's corpus for
    the methods of :data:`LAM_ONE_OVER_N` (the Reuters commands keep the paper's)."""
    settings = dict(given)
    if (args.corpus is not None and method.key in LAM_ONE_OVER_N
            and "lam" not in settings):
        settings["lam"] = default_lam(d.X_train.shape[0])
    return settings


def _order(args):
    """How the examples are visited: a fresh random order every epoch on a user's
    corpus (and with --shuffle), each method's own on Reuters (the paper's)."""
    shuffle = args.shuffle if args.shuffle is not None else (args.corpus is not None or None)
    if shuffle is None:
        return {}
    seed = 0 if args.seed is None else args.seed
    return {"shuffle": True, "random_state": seed} if shuffle else {"shuffle": False}


def _fit_task(method, d, settings, order, args):
    """Fit ``method`` for ``d.task``; return (estimator, seconds, test scores with one
    column per category: a binary problem's ``s`` becomes ``[-s, s]``)."""
    import numpy as np

    from .experiments import score_matrix

    Y = d.Y_train[:, [1]] if d.task == "binary" else d.Y_train
    est, seconds = _train_problem(method, d.X_train, Y, settings, n_jobs=args.n_jobs,
                                  verbose=_estimator_verbosity(args), order=order,
                                  single_label=d.task == "multiclass")
    scores = score_matrix(est, d.X_test)
    if d.task == "binary":
        scores = np.hstack([-scores, scores])
    return est, seconds, scores


def _class_thresholds(d):
    """A multi-class task's thresholds: +inf for a class without training documents,
    which no document can be given (a constant score, 0 for the Perceptron, would
    win the argmax over classes scoring below it); None when every class has some."""
    import numpy as np

    if d.task != "multiclass":
        return None
    absent = ~np.asarray(d.Y_train).any(axis=0)
    return np.where(absent, np.inf, 0.0) if absent.any() else None


def _summary(d, scores, thresholds=None):
    """Summary (percent) and per-category figures of the test scores."""
    from .tasks import score_task

    if thresholds is None:
        thresholds = _class_thresholds(d)
    summary, per = score_task(d.task, d.Y_test, scores,
                              0.0 if thresholds is None else thresholds)
    return {k: _num(100 * v) for k, v in summary.items()}, per


_SUMMARY_NAMES = {"accuracy": "accuracy", "micro_breakeven": "micro-BEP",
                  "macro_breakeven": "macro-BEP", "micro_f1": "micro-F1",
                  "macro_f1": "macro-F1"}

_TASK_TEXT = {
    "multiclass": "multi-class: one label per document, the class of the highest score "
                  "(ties: the first class in sorted order)",
    "binary": "binary: one of two labels per document, the second class where its score "
              "is above 0",
    "multilabel": "multi-label: every category whose score is above its threshold",
}


def cmd_train(args):
    import numpy as np

    from .experiments import resolve_methods
    from .persistence import TextModel, estimator_metadata, linear_weights, save_model

    try:
        (method,) = resolve_methods([args.method])
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    given = _overrides(args, method)
    _check_plot(args)
    if args.output is not None:  # before the training, not after it
        from ._io import NotARegularFileError, resolve_destination

        try:
            resolve_destination(args.output)
        except NotARegularFileError as exc:
            raise CLIError(f"cannot write the model to {args.output}: {exc}") from None
    d = _training_data(args, args.category)
    if args.tune_thresholds and d.task != "multilabel":
        raise CLIError(f"--tune-thresholds is for multi-label categories; this corpus is "
                       f"{d.task} (each document gets the class of its highest score); "
                       "--task multilabel treats the classes as independent categories")
    overrides = _method_settings(args, method, d, given)
    categories, X_train, X_test = d.categories, d.X_train, d.X_test
    Y_train, Y_test, source = d.Y_train, d.Y_test, d.source
    logger.info("training %s on %d documents, %d features, %d categor%s (%s)", method.key,
                X_train.shape[0], X_train.shape[1], len(categories),
                "y" if len(categories) == 1 else "ies", d.task)
    empty = [int((X.getnnz(axis=1) == 0).sum()) for X in (X_train, X_test)]
    if any(empty):  # valid documents, but a user wants to know they carry no feature
        logger.info("%d training and %d test documents have none of the %d features; "
                    "they score the bias", *empty, X_train.shape[1])
    _PROBLEM_NAMES[:] = categories[1:] if d.task == "binary" else categories
    est, seconds, scores = _fit_task(method, d, overrides, _order(args), args)
    cv = est.cv_summary(list(_PROBLEM_NAMES)) if hasattr(est, "cv_summary") else None
    thresholds = None
    if args.tune_thresholds:
        try:
            thresholds = _tune_thresholds(est, X_train, Y_train, args.tune_thresholds)
        except ValueError as exc:  # e.g. a category with too few documents for the folds
            raise CLIError(f"--tune-thresholds: {first_line(exc)}") from None
    summary, per = _summary(d, scores, thresholds)

    gap = getattr(est, "duality_gap_", None)
    n_iter = getattr(est, "n_iter_", None)
    rows = []
    for j, cat in enumerate(categories):
        k = 0 if d.task == "binary" else j  # the binary problem serves both classes
        rows.append({
            "category": cat,
            "breakeven": _num(100 * per["breakeven"][j]),
            "precision": _num(100 * per["precision"][j]),
            "recall": _num(100 * per["recall"][j]),
            "f1": _num(100 * per["f1"][j]),
            "train_positives": int(Y_train[:, j].sum()),
            "test_positives": int(Y_test[:, j].sum()),
            "duality_gap": _pick(gap, k, float),
            "epochs": _pick(n_iter, k, int),
        })
        if thresholds is not None:
            rows[-1]["threshold"] = float(thresholds[j])  # +-inf: never / always
        if cv is not None:
            rows[-1]["lam"] = cv["lam"][cat]
    result = {
        "method": method.key, "paper_name": method.paper_name, "corpus": source,
        "task": d.task, "settings": {**method.settings, **overrides},
        "order": _order_text(args, method),
        "n_train": int(X_train.shape[0]), "n_test": int(X_test.shape[0]),
        "n_features": int(X_train.shape[1]), **summary, "seconds": round(seconds, 3),
        "categories": rows,
    }
    if cv is not None:
        result["lam_by_cv"] = cv
        if args.plot is not None:
            _plot_cv({"": cv}, args.plot)
            result["plot"] = str(args.plot)
    if d.report is not None:
        result["corpus_report"] = d.report
    if args.output is not None:
        single = d.task != "multilabel"
        model = TextModel(
            *linear_weights(est), categories[1:] if d.task == "binary" else categories,
            vocabulary=d.vocabulary, selected=d.support, preprocessing=d.preprocessing,
            idf=d.idf, thresholds=_class_thresholds(d) if thresholds is None else thresholds,
            task=d.task,
            classes=list(categories) if single else None,
            metadata={**estimator_metadata(est), "method": method.key,
                      "settings": result["settings"], "corpus": source, "task": d.task,
                      "test": rows, "summary": summary})
        # The weights written must reproduce the estimator's own scores (a threshold
        # or bias kept outside coef_/intercept_ would be lost otherwise).
        check = np.asarray(X_test @ model.coef.T) + model.intercept
        own = scores[:, 1:] if d.task == "binary" else scores
        if not np.allclose(check, own, rtol=1e-7, atol=1e-9):
            raise CLIError(f"internal error: {type(est).__name__}'s scores are not "
                           "coef_ @ x + intercept_; the model cannot be saved", EXIT_INTERNAL)
        try:
            save_model(args.output, model)
        except OSError as exc:
            raise CLIError(f"cannot write the model to {args.output}: {exc}") from None
        result["model"] = str(args.output)
        logger.info("model written to %s", args.output)
    if args.json:
        _print_json(result)
        return EXIT_OK
    changed = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in overrides.items() if method.settings.get(k) != v)
    _out(f"{method.paper_name}{f' (here {changed})' if changed else ''}  [{source}: "
         f"{result['n_train']} train / {result['n_test']} test documents, "
         f"{result['n_features']} features]")
    if args.corpus is not None:
        _out(f"task: {_TASK_TEXT[d.task]}; {result['order']}")
    width = max(16, max(len(c) for c in categories) + 2)
    _out(f"{'class' if d.task != 'multilabel' else 'category':<{width}}{'BEP':>7}"
         f"{'prec':>7}{'recall':>7}{'F1':>7}{'gap':>11}{'epochs':>8}")
    for r in rows:
        gap_s = "-" if r["duality_gap"] is None else f"{r['duality_gap']:.2e}"
        ep_s = "-" if r["epochs"] is None else str(r["epochs"])
        _out(f"{r['category']:<{width}}{_fmt(r['breakeven'])}{_fmt(r['precision'])}"
             f"{_fmt(r['recall'])}{_fmt(r['f1'])}{gap_s:>11}{ep_s:>8}")
    _out("  ".join(f"{_SUMMARY_NAMES[k]} {_fmt(v, 0)}" for k, v in summary.items()))
    if thresholds is not None:
        _out(f"precision, recall and F1 at thresholds tuned for {args.tune_thresholds} by "
             f"{TUNING_FOLDS}-fold cross-validation on the training set: "
             + ", ".join(f"{r['category']} {r['threshold']:.3g}" for r in rows))
    if cv is not None:
        _out(_cv_line(cv))
    _out(f"time: {seconds:.2f} s (training)")
    if "plot" in result:
        _out(f"plot: {result['plot']}")
    if "model" in result:
        _out(f"model: {result['model']}")
    return EXIT_OK


def _cv_line(cv, method=None):
    """The lambda chosen by --lam auto and its cross-validated score, in one line."""
    lams = cv["lam"]
    chosen = (f"{next(iter(lams.values())):.3g} for every class" if cv["shared"] and len(lams) > 1
              else ", ".join(f"{c} {lam:.3g}" for c, lam in lams.items()))
    who = f"{method}: " if method else ""
    return (f"{who}lambda by {cv['folds']}-fold cross-validation on the training set over "
            f"{len(cv['lams'])} values from {cv['lams'][0]:.3g} to {cv['lams'][-1]:.3g} "
            f"({cv['scoring']} {100 * cv['cv_score']:.2f}): {chosen}")


def _check_plot(args):
    """--plot: matplotlib present and the file writable, before any training."""
    if getattr(args, "plot", None) is None:
        return
    import importlib.util

    from ._io import NotARegularFileError, resolve_destination

    if importlib.util.find_spec("matplotlib") is None:
        raise CLIError("--plot draws with matplotlib, which is not installed: "
                       "pip install 'textwin[plot]' (or pip install matplotlib)")
    if args.plot.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise CLIError(f"--plot {args.plot}: give a .png, .pdf or .svg file")
    try:
        resolve_destination(args.plot)
    except NotARegularFileError as exc:
        raise CLIError(f"cannot write the plot to {args.plot}: {exc}") from None


def _plot_cv(summaries, path):
    """Cross-validated score against lambda: a curve per category (or the shared one)
    of every ``{method: cv_summary}``, the chosen lambda marked; written atomically."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._io import atomic_write

    fig, ax = plt.subplots(figsize=(7, 4.5))
    scoring = set()
    for method, cv in summaries.items():
        scoring.add(cv["scoring"])
        for name, values in cv["curves"].items():
            y = [float("nan") if v is None else 100 * v for v in values]
            label = " ".join(x for x in (method, "" if name == "all" else name) if x) or "mean"
            line, = ax.semilogx(cv["lams"], y, "-o", ms=3, lw=1.2, label=label)
            lam = next(iter(cv["lam"].values())) if name == "all" else cv["lam"][name]
            ax.semilogx([lam], [y[cv["lams"].index(lam)]], "*", ms=11, color=line.get_color())
    ax.set_xlabel("lambda (star: chosen)")
    ax.set_ylabel(f"cross-validated {' / '.join(sorted(scoring))} (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    buf = io.BytesIO()
    fig.savefig(buf, format=path.suffix.lower().lstrip("."), dpi=110, bbox_inches="tight")
    plt.close(fig)
    try:
        with atomic_write(path) as fh:
            fh.write(buf.getvalue())
    except OSError as exc:
        raise CLIError(f"cannot write the plot to {path}: {exc}") from None
    logger.info("plot written to %s", path)


def _order_text(args, method):
    order = _order(args)
    if not order:
        return "the method's own example order"
    if order["shuffle"]:
        return f"a random example order each epoch (seed {order['random_state']})"
    return "examples in data order"


def _num(x):
    return None if x is None or not math.isfinite(x) else round(float(x), 4)


def _fmt(x, width=7):
    return "-".rjust(width) if x is None else f"{x:{width}.1f}"


def _pick(values, j, kind):
    """Entry ``j`` of a per-problem attribute (``None`` if absent or not finite)."""
    import numpy as np

    if values is None:
        return None
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    v = arr[j] if arr.size > j else arr[0]
    return kind(v) if math.isfinite(v) else None


# ---------------------------------------------------------------------------
# eval
# ---------------------------------------------------------------------------

def cmd_eval(args):
    from .experiments import UnknownCategoryError, run_micro_breakeven

    if args.corpus is not None:
        if args.micro_breakeven:
            raise CLIError("--micro-breakeven is the paper's Reuters-21578 protocol; with "
                           "--corpus, eval compares the methods on your corpus")
        return _eval_corpus(args)
    if not args.micro_breakeven:
        raise CLIError("choose an evaluation: --micro-breakeven (the paper's protocol on "
                       "Reuters-21578) or --corpus PATH (the methods compared on your corpus)")
    methods, given = _eval_methods(args, None)
    overrides = {}
    for m in methods:
        mine = {k: v for k, v in given.items() if k in m.settings}
        if mine:
            overrides[m.key] = mine
        if mine.get("lam") == "auto":  # not every method can: say so before any training
            try:
                m.build(1, **mine)
            except ValueError as exc:
                raise CLIError(f"--methods {m.key}: {first_line(exc)}") from None
    _check_plot(args)
    given_corpus = [opt for opt, key in _CORPUS_ONLY if getattr(args, key, None)]
    if given_corpus or args.weighting not in (None, "binary") or args.shuffle is not None:
        raise CLIError(f"{', '.join(given_corpus) or '--weighting/--shuffle'}: for --corpus; "
                       "--micro-breakeven runs the paper's protocol as published")
    if args.features == "all":
        raise CLIError("--features all is for --corpus; the paper's protocol selects features "
                       "by information gain: give a number (the paper: 1000)")
    try:
        data = _protocol_data(args.categories, args)
    except UnknownCategoryError as exc:
        raise CLIError(str(exc)) from None
    logger.info("ModApte: %d training, %d test documents, %d features, %d categories",
                data.X_train.shape[0], data.X_test.shape[0], data.X_train.shape[1],
                len(data.categories))
    # named categories must be learnable; 'all' keeps the unlearnable ones with a warning
    _check_trainable(data.categories, data.Y_train, "the ModApte training set",
                     args.categories in (None, "top10", "all"))
    _PROBLEM_NAMES[:] = data.categories
    from ._ovr import ConstantModelWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConstantModelWarning)  # named just above
        try:
            results = run_micro_breakeven([m.key for m in methods], data=data,
                                          overrides=overrides, progress=_progress_enabled(args),
                                          n_jobs=args.n_jobs, verbose=_estimator_verbosity(args))
        except ValueError as exc:  # as in train: the estimators' checks name the setting
            raise CLIError(first_line(exc)) from None
    sizes = {"task": "multilabel", "n_train": int(data.X_train.shape[0]),
             "n_test": int(data.X_test.shape[0]), "n_features": int(data.X_train.shape[1])}
    dicts = [{**r.to_dict(), **sizes} for r in results]
    chosen = {r.method: r.extra["lam_by_cv"] for r in results if "lam_by_cv" in r.extra}
    if args.plot is not None and chosen:
        _plot_cv(chosen, args.plot)
    if args.json:
        _print_json(dicts)
        return EXIT_OK
    _print_table(results, data.categories)
    for key, cv in chosen.items():
        _out(_cv_line(cv, key))
    if args.plot is not None and chosen:
        _out(f"plot: {args.plot}")
    return EXIT_OK


def _eval_methods(args, default):
    """The methods of `textwin eval` and the settings given for them."""
    from .experiments import UnknownMethodError, resolve_methods

    try:
        methods = resolve_methods(args.methods if args.methods is not None else default)
    except UnknownMethodError as exc:
        raise CLIError(str(exc)) from None
    given = _given_settings(args)
    unused = sorted(k for k in given if not any(k in m.settings for m in methods))
    if unused:
        raise CLIError(
            f"{', '.join('--' + u for u in unused)} applies to none of the methods "
            f"({', '.join(m.key for m in methods)}); `textwin eval --help` lists each "
            "method's settings")
    return methods, given


def _eval_corpus(args):
    """Every method on the user's corpus: one row each, its summary and its time."""
    from ._ovr import ConstantModelWarning

    methods, given = _eval_methods(args, CORPUS_METHODS)
    if given.get("lam") == "auto":  # not every method can choose lam: before any training
        able = []
        for m in methods:
            try:
                if "lam" in m.settings:
                    m.build(1, lam="auto")
                able.append(m)
            except ValueError as exc:
                if args.methods is not None:
                    raise CLIError(f"--methods {m.key}: {first_line(exc)}") from None
                logger.info("%s left out: it cannot choose lam by cross-validation", m.key)
        methods = able
    _check_plot(args)
    d = _training_data(args, args.categories)
    logger.info("%s: %d training, %d test documents, %d features, %d categories (%s)",
                d.source, d.X_train.shape[0], d.X_test.shape[0], d.X_train.shape[1],
                len(d.categories), d.task)
    _PROBLEM_NAMES[:] = d.categories[1:] if d.task == "binary" else d.categories
    order = _order(args)
    rows = []
    bar = None
    if _progress_enabled(args):
        from tqdm.auto import tqdm

        bar = tqdm(total=len(methods), desc="methods", unit="method", leave=False)
    try:
        for method in methods:
            if bar is not None:
                bar.set_postfix_str(method.key)
            settings = _method_settings(
                args, method, d, {k: v for k, v in given.items() if k in method.settings})
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", category=ConstantModelWarning)
                est, seconds, scores = _fit_task(method, d, settings, order, args)
            summary, _ = _summary(d, scores)
            rows.append({"method": method.key, "paper_name": method.paper_name,
                         "settings": {**method.settings, **settings}, **summary,
                         "seconds": round(seconds, 3)})
            if hasattr(est, "cv_summary"):  # --lam auto
                rows[-1]["lam_by_cv"] = est.cv_summary(list(_PROBLEM_NAMES))
            logger.info("%s: %s in %.1f s", method.key, ", ".join(
                f"{_SUMMARY_NAMES[k]} {_fmt(v, 0)}" for k, v in summary.items()), seconds)
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    chosen = {r["method"]: r["lam_by_cv"] for r in rows if "lam_by_cv" in r}
    if args.plot is not None and chosen:
        _plot_cv(chosen, args.plot)
    result = {"corpus": d.source, "task": d.task, "n_train": int(d.X_train.shape[0]),
              "n_test": int(d.X_test.shape[0]), "n_features": int(d.X_train.shape[1]),
              "categories": list(d.categories), "order": _order_text(args, methods[0]),
              "methods": rows, "corpus_report": d.report}
    if args.json:
        _print_json(result)
        return EXIT_OK
    keys = [k for k in rows[0] if k in _SUMMARY_NAMES]
    name_w = max(12, max(len(r["method"]) for r in rows) + 2)
    _out(f"{d.source}: {result['n_train']} train / {result['n_test']} test documents, "
         f"{result['n_features']} features, {len(d.categories)} "
         f"{'classes' if d.task != 'multilabel' else 'categories'}; {_TASK_TEXT[d.task]}")
    _out("method".ljust(name_w) + "".join(f"{_SUMMARY_NAMES[k]:>11}" for k in keys)
         + f"{'time (s)':>10}")
    for r in rows:
        _out(r["method"].ljust(name_w) + "".join(_fmt(r[k], 11) for k in keys)
             + f"{r['seconds']:10.1f}")
    for key, cv in chosen.items():
        _out(_cv_line(cv, key))
    _out(f"figures in percent on the test set; {result['order']}; lam = 1/n for "
         f"{', '.join(m for m in LAM_ONE_OVER_N if m in {r['method'] for r in rows})} "
         "unless --lam is given")
    return EXIT_OK


def _print_table(results, categories):
    """Categories down, methods across; each cell 'ours (paper)'."""
    name_w = max(14, max(len(c) for c in categories) + 2)
    col_w = max(14, max(len(r.method) for r in results) + 2)
    _out("Break-even points (%) on the ModApte test set: ours (the paper's); then the "
         "macro-averaged break-even point and F1 at score > 0")
    _out("".ljust(name_w) + "".join(r.method.rjust(col_w) for r in results))

    def cell(ours, paper):
        p = " " * 6 if paper is None else f"({paper:4.1f})"
        return f"{_pct(ours)} {p}".rjust(col_w)

    for cat in categories:
        _out(cat.ljust(name_w) + "".join(
            cell(r.breakeven.get(cat), r.paper_breakeven.get(cat)) for r in results))
    _out("micro-average".ljust(name_w) + "".join(
        cell(r.micro_breakeven, r.paper_micro_breakeven) for r in results))
    for key, label in (("macro_breakeven", "macro-average"), ("micro_f1", "micro-F1"),
                       ("macro_f1", "macro-F1")):
        _out(label.ljust(name_w) + "".join(
            (_fmt(r.extra.get(key), 5) + " " * 7).rjust(col_w) for r in results))
    _out("time (s)".ljust(name_w) + "".join(f"{r.seconds:.1f}".rjust(col_w - 7) + " " * 7
                                            for r in results))


# ---------------------------------------------------------------------------
# predict
# ---------------------------------------------------------------------------

def _read_documents(inputs):
    """(id, text) pairs from files, folders (every file inside) or stdin (one per line)."""
    from .corpora import decode_text, looks_binary

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
    import numpy as np

    from .persistence import ModelFormatError, load_model
    from .tasks import predicted_classes

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
    thresholds = model.thresholds if args.threshold is None else np.full(
        len(model.target_names), args.threshold)
    labels = scores > thresholds
    names = model.target_names
    if model.task == "multiclass" and args.threshold is None:
        # one class per document, as the saved (one-vs-rest) estimator predicted
        labels = np.zeros_like(labels)
        labels[np.arange(len(ids)), predicted_classes(scores, thresholds)] = True
    elif model.task == "binary":
        # one of the two classes: the second where the score is above the threshold
        classes = [str(c) for c in model.classes]
        chosen = [classes[1] if on else classes[0] for on in labels[:, 0]]
        if args.json:
            _print_json([{"id": i, "scores": {names[0]: float(row[0])}, "labels": [c]}
                         for i, row, c in zip(ids, scores, chosen)])
            return EXIT_OK
        for i, row, c in zip(ids, scores, chosen):
            _out(f"{row[0]: .6f}\t{c}\t{i}")
        return EXIT_OK
    if args.json:
        _print_json([
            {"id": i, "scores": {c: float(s) for c, s in zip(names, row)},
             "labels": [c for c, on in zip(names, lab) if on]}
            for i, row, lab in zip(ids, scores, labels)])
        return EXIT_OK
    if len(names) == 1:
        for i, row, lab in zip(ids, scores, labels):
            _out(f"{row[0]: .6f}\t{names[0] if lab[0] else '-'}\t{i}")
    else:
        _out("\t".join(["labels", *names, "document"]))
        for i, row, lab in zip(ids, scores, labels):
            chosen = ",".join(c for c, on in zip(names, lab) if on) or "-"
            _out("\t".join([chosen, *(f"{s:.6f}" for s in row), i]))
    return EXIT_OK


def _read_svmlight_inputs(inputs, model):
    import scipy.sparse as sp

    from .corpora import CorpusError, read_svmlight_file

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


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

def cmd_data(args):
    from .datasets import (ReutersFormatError, fetch_reuters21578, get_data_home,
                           load_reuters_vectorized)

    try:
        home = get_data_home(args.data_home)
    except NotADirectoryError as exc:
        raise missing_data(exc, args.data_home) from None
    folder = home / "reuters21578"

    def count_sgm():
        return len(list(folder.glob("reut2-*.sgm"))) if folder.is_dir() else 0

    report = {"data_home": str(home), "corpus_dir": str(folder), "sgm_files": count_sgm()}
    if (args.fetch or args.verify) and report["sgm_files"] < 22:
        # An archive placed by hand is unpacked; --fetch also downloads.
        if args.fetch:
            logger.info("fetching Reuters-21578 into %s", home)
        try:
            fetch_reuters21578(data_home=args.data_home, subset="all",
                               download_if_missing=args.fetch)
        except ReutersFormatError as exc:
            raise damaged_corpus(exc, args.data_home) from None
        except OSError as exc:
            raise CLIError(
                f"{first_line(exc)}; download reuters21578.tar.gz by hand (see "
                f"`textwin data --help`) and put it in {home}", EXIT_NO_DATA) from None
        report["sgm_files"] = count_sgm()
    report["present"] = report["sgm_files"] == 22
    if report["present"] and (args.verify or args.fetch):
        # Loading checks every file's SHA-256 against the published release (a
        # mismatch is a warning) and parses the split; the result is cached.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                data = load_reuters_vectorized(data_home=args.data_home,
                                               download_if_missing=False)
            except ReutersFormatError as exc:
                raise damaged_corpus(exc, args.data_home) from None
            except (FileNotFoundError, OSError) as exc:
                raise missing_data(exc, args.data_home) from None
        problems = [str(w.message) for w in caught if "differ" in str(w.message)]
        counts = {"train": int(data.X_train.shape[0]), "test": int(data.X_test.shape[0]),
                  "categories": len(data.target_names)}
        expected = {"train": 9603, "test": 3299, "categories": 118}
        report.update(counts=counts, expected=expected, checksums_ok=not problems,
                      verified=counts == expected and not problems)
        for msg in problems:
            logger.warning("%s", msg)
    if args.json:
        _print_json(report)
    else:
        _out(f"data home:  {report['data_home']}")
        _out(f"corpus:     {report['corpus_dir']} "
             f"({report['sgm_files']} of 22 reut2-*.sgm files)")
        if "counts" in report:
            c, e = report["counts"], report["expected"]
            _out(f"ModApte:    {c['train']} training / {c['test']} test documents, "
                 f"{c['categories']} categories (expected {e['train']} / {e['test']}, "
                 f"{e['categories']})")
            _out("checksums:  " + ("match the published release" if report["checksums_ok"]
                                   else "DIFFER from the published release"))
            _out("verified:   " + ("yes" if report["verified"] else "NO"))
    if not report["present"]:
        raise CLIError(f"the corpus is missing from {folder}: run `textwin data --fetch`, or copy "
                       "the 22 reut2-*.sgm files there, or give --data-home", EXIT_NO_DATA)
    if report.get("verified") is False:
        raise CLIError("the corpus does not match the published Reuters-21578 ModApte split: "
                       "replace the files (`textwin data --fetch` into an empty data home)",
                       EXIT_NO_DATA)
    return EXIT_OK


# ---------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------

MAIN_EPILOG = """\
examples:
  textwin data --verify                      where the corpus is, and its ModApte counts
  textwin train --category acq               SVM (Algorithm 1) on 'acq', test break-even point
  textwin train --category acq --method rwinnow --output acq.npz
  echo "cargo ship collides with tanker" | textwin predict acq.npz
  textwin eval --micro-breakeven             the paper's methods on its ten categories
  textwin eval --micro-breakeven --methods svm-alg2,smo --json
  textwin reproduce --quick --output /tmp/repro.md   a small run of the reproduction report

{exit_codes}
The corpus is looked for in <data home>/reuters21578/, the data home being --data-home,
else $TEXTWIN_DATA_HOME, else ~/textwin_data; train, eval and reproduce download it there
when it is missing (not with --offline).
"""


def _common(p, data=True):
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true", help="print results as JSON on stdout")
    g.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no logs or progress bars on stderr")
    g.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                   help="more logs on stderr")
    if data == "download":  # the commands that train
        p.add_argument("--n-jobs", type=int, default=None, metavar="N",
                       help="threads over the categories (-1: one per core); the results "
                            "do not depend on it")
        p.add_argument("--scheduler", metavar="ADDRESS",
                       default=os.environ.get("DASK_SCHEDULER_ADDRESS") or None,
                       help="train the categories as tasks on the Dask cluster of this "
                            "scheduler (e.g. tcp://HOST:8786, from `dask scheduler`; "
                            "default: $DASK_SCHEDULER_ADDRESS), or on Ray: `ray` for the "
                            "Ray cluster of $RAY_ADDRESS or of this machine (`ray start "
                            "--head`), ray://HOST:10001 for Ray Client; same results as "
                            "locally (docs/scaling.md)")
    if data:
        p.add_argument("--data-home", metavar="DIR", default=None,
                       help="folder holding reuters21578/ (default: $TEXTWIN_DATA_HOME or "
                            "~/textwin_data)")
    if data == "download":
        p.add_argument("--offline", action="store_true",
                       help="never download the corpus; fail (exit 3) if it is missing")


def _feature_count(text):
    """--features: a number of information-gain features, or all."""
    if text == "all":
        return "all"
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give a number or all, not {text!r}") from None
    if k < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {k}")
    return k


def _training_options(p):
    """What `train` and `eval` share: corpus, features, method settings, output, data."""
    g = p.add_argument_group(
        "your own corpus (defaults: tf-idf, every feature, lam = 1/n, a random example "
        "order each epoch)")
    g.add_argument("--corpus", metavar="PATH",
                   help="a JSON Lines file ({\"text\": ..., \"labels\": [...]} per line), a "
                        "folder per category (one document per file), an svmlight file, or "
                        "r8 / r52 (the single-label subsets of Reuters-21578)")
    g.add_argument("--test-corpus", metavar="PATH", help="svmlight test file")
    g.add_argument("--test-size", type=float, default=None,
                   help="fraction held out for testing when the corpus has no split "
                        "(default: 0.25)")
    g.add_argument("--seed", type=int, default=None,
                   help="seed of the held-out split and of the example order (default: 0)")
    g.add_argument("--weighting", choices=("binary", "count", "tfidf"), default=None,
                   help="feature values of a text corpus (default: tfidf, sublinear tf, "
                        "unit-length rows)")
    g.add_argument("--language", choices=LANGUAGES, default=None, metavar="LANG",
                   help="the language of a text corpus, for the stemmer (default: english, "
                        "Porter's; the others take Snowball's stemmer of the language): "
                        + ", ".join(LANGUAGES))
    g.add_argument("--no-stem", action="store_true",
                   help="keep the words of a text corpus as they are (no stemming)")
    g.add_argument("--task", choices=("multiclass", "multilabel"), default=None,
                   help="single- or multi-label (default: read from the labels: exactly one "
                        "per document is multi-class, two classes binary)")
    g.add_argument("--allow-unlabeled", action="store_true",
                   help="JSON Lines: read a line without \"labels\" as a document in no "
                        "category (otherwise an error)")
    g.add_argument("--shuffle", action=argparse.BooleanOptionalAction, default=None,
                   help="visit the examples in a fresh random order each epoch (default on "
                        "your corpus; on Reuters-21578 each method keeps the paper's order)")
    p.add_argument("--features", type=_feature_count, default=None, metavar="K",
                   help="keep the K words of highest information gain, or all (default: "
                        "1000 on Reuters-21578, the paper's; all on your corpus)")
    _settings_options(p)
    _common(p, data="download")


def _lam_option(text):
    """--lam: a number, or 'auto' (chosen by cross-validation)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {text!r}") from None


def _settings_options(p):
    g = p.add_argument_group(
        "method settings (default: each method's own, the paper's; the methods are listed below)")
    g.add_argument("--lam", type=_lam_option, metavar="LAM|auto",
                   help="regularization parameter lambda > 0, or 'auto': chosen per "
                        "category (one shared for a multi-class task) by 5-fold "
                        "cross-validation on the training set over a grid from the data "
                        "(dual Gauss-Seidel methods)")
    g.add_argument("--plot", metavar="FILE.png", type=Path, default=None,
                   help="with --lam auto: draw the cross-validated score against lambda "
                        "(needs matplotlib: pip install 'textwin[plot]')")
    g.add_argument("--epochs", type=int,
                   help="passes over the data: at most this many for the dual methods (per "
                        "inner solve for Algorithm 2), exactly this many for Perceptron and "
                        "Winnow")
    g.add_argument("--tol", type=float, help="stop when the relative duality gap "
                                             "gap/max(P(w), eps) is at most tol")
    g.add_argument("--eta", type=float, help="learning rate (Winnow, Perceptron)")
    g.add_argument("--theta", type=float, help="threshold theta (Winnows)")
    g.add_argument("--gamma", type=float, help="margin gamma (regularized Winnow)")


def build_parser():
    """The argument parser of the ``textwin`` command."""
    from .experiments import METHODS, PAPER_METHODS

    parser = argparse.ArgumentParser(
        prog="textwin", formatter_class=HelpFormatter,
        description="Sparse text categorization by the dual Gauss-Seidel method: SVMs, "
                    "regularized Winnows and their baselines on Reuters-21578 or your corpus.",
        epilog=MAIN_EPILOG.format(exit_codes=textwrap.fill("exit codes: " + ", ".join(
            f"{code} {meaning}" for meaning, code in EXIT_CODES.items()) + ".", 88)))
    parser.add_argument("--version", action="version", version=f"textwin {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="no logs or progress bars")
    parser.add_argument("-v", "--verbose", action="store_true", help="more logs on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    methods_help = "\n".join(
        f"  {k:<20}{m.paper_name}" + ("" if m.paper_micro is None
                                      else f" (paper: {m.paper_micro})")
        for k, m in METHODS.items())

    p = sub.add_parser(
        "train", formatter_class=HelpFormatter,
        help="train a classifier on Reuters-21578 categories or your corpus, and test it",
        description="Train on the ModApte training set (or your corpus) and report, on the "
                    "test set, each category's break-even point, precision, recall and F1, "
                    "the duality gap reached, the epochs and the time, with the summary: "
                    "micro/macro break-even points and F1 for multi-label categories; "
                    "accuracy, macro- and micro-F1 for a single-label corpus (each document "
                    "gets the class of its highest score).",
        epilog="methods:\n" + methods_help + """

examples:
  textwin train --category acq
  textwin train --category acq --method svm-alg2 --output acq.npz
  textwin train --category grain,wheat,corn --method mls --json
  textwin train --corpus news/ --output news.npz        every class of news/<class>/<file>
  textwin train --corpus r8 --method mls                 R8, single-label Reuters
  textwin train --corpus mail.jsonl --category spam --output spam.npz
  textwin train --corpus train.svm --test-corpus test.svm
""")
    p.add_argument("--category", "-c", metavar="NAME",
                   help="categories to train: a name, a comma-separated list, or all "
                        "(Reuters-21578: required, any of the 118; your corpus: default all)")
    p.add_argument("--method", "-m", default="svm", metavar="METHOD",
                   help="one of: " + ", ".join(METHODS) + " (default: %(default)s)")
    p.add_argument("--output", "-o", metavar="MODEL.npz",
                   help="save the model (weights, vocabulary, selected features, settings)")
    p.add_argument("--tune-thresholds", choices=["f1", "breakeven"], default=None,
                   help=f"choose each category's decision threshold by {TUNING_FOLDS}-fold "
                        "cross-validation on the training set, for the largest F1 or at the "
                        "break-even point (default: score > 0); the model keeps them and "
                        "`textwin predict` applies them")
    _training_options(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser(
        "eval", formatter_class=HelpFormatter,
        help="compare methods: the paper's break-even experiment, or on your corpus",
        description="--micro-breakeven: train every method on every category with the "
                    "paper's own settings (1,000 information-gain features, binary values, "
                    "ModApte) and print per-category and micro-averaged break-even points, "
                    "each beside the paper's figure, the macro-averages, and the time per "
                    "method (training and testing; the shared feature selection excluded). "
                    "--corpus PATH: train every method on your corpus (with its defaults: "
                    "tf-idf, every feature, lam = 1/n, a random order each epoch) and print "
                    "one row per method: accuracy, macro- and micro-F1 for a single-label "
                    "corpus, micro/macro break-even points and F1 for a multi-label one, "
                    "and the time (training and testing).",
        epilog="methods (default: the paper's: " + ", ".join(PAPER_METHODS) + "; with "
               "--corpus: " + ", ".join(CORPUS_METHODS) + "):\n"
               + methods_help + """

examples:
  textwin eval --micro-breakeven
  textwin eval --micro-breakeven --methods svm-alg2,smo,linearsvc --categories acq,grain
  textwin eval --micro-breakeven --categories all --json > all.json
  textwin eval --corpus r8                          the main methods on R8 (single-label)
  textwin eval --corpus news/ --methods svm,linearsvc --json
""")
    p.add_argument("--micro-breakeven", action="store_true",
                   help="run the micro-averaged break-even experiment")
    p.add_argument("--methods", metavar="M1,M2",
                   help="comma-separated method names, 'paper' or 'all'")
    p.add_argument("--categories", default=None, metavar="LIST",
                   help="top10, all, or a comma-separated list (default: top10 on "
                        "Reuters-21578, all on your corpus)")
    _training_options(p)
    p.set_defaults(func=cmd_eval)

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
                   help="decision threshold on the score (default: the model's, 0)")
    _common(p, data=False)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser(
        "data", formatter_class=HelpFormatter,
        help="where the corpus is; fetch and verify it",
        description="Report the data home and whether the 22 Reuters-21578 SGML files are "
                    "there; --fetch downloads them, --verify parses them and checks the "
                    "ModApte counts (9,603 training and 3,299 test documents, 118 categories).",
        epilog="""examples:
  textwin data
  textwin data --verify
  textwin data --data-home /srv/corpora --fetch

offline: put reuters21578.tar.gz (from the UCI KDD archive), unopened, into the data
home, or extract its 22 reut2-*.sgm files into <data home>/reuters21578/, then run
`textwin data --verify` (it unpacks the archive and checks every file's SHA-256).
""")
    p.add_argument("--fetch", action="store_true", help="download the corpus if it is missing")
    p.add_argument("--verify", action="store_true",
                   help="parse the corpus and check the ModApte counts")
    _common(p)
    p.set_defaults(func=cmd_data)

    # Parsed by textwin.reproduce itself (main() forwards everything after the word);
    # listed here so that `textwin --help` shows it.
    sub.add_parser(
        "reproduce", add_help=False,
        help="rerun the papers' experiments and write their report (reproduction.md in "
             "the current folder; see `textwin reproduce --help`)")
    return parser


def main(argv=None):
    """Run the ``textwin`` command; return its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    _PROBLEM_NAMES.clear()  # set by train/eval once their categories are known
    # `textwin reproduce ...` hands everything after the word to textwin.reproduce,
    # which has its own options and --help.
    first = next((i for i, a in enumerate(argv) if not a.startswith("-")), None)
    if first is not None and argv[first] == "reproduce" and not (
            {"-h", "--help", "--version"} & set(argv[:first])):
        forwarded = argv[first + 1:]
        if {"-q", "--quiet"} & set(argv[:first]):
            forwarded = ["-q", *forwarded]
        return cmd_reproduce(forwarded)
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # argparse leaves inputs given after an option (`predict M --json - a.txt`) over.
    if extra and getattr(args, "command", None) == "predict" and all(
            e == "-" or not e.startswith("-") for e in extra):
        args.inputs = [*args.inputs, *extra]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    # -q/-v may come before or after the subcommand.
    args.quiet = getattr(args, "quiet", False)
    args.verbose = getattr(args, "verbose", False)
    _setup_logging(args)
    if n_jobs_error(getattr(args, "n_jobs", None)):
        return fail(n_jobs_error(args.n_jobs), EXIT_USAGE)

    def show(message, category, filename, lineno, file=None, line=None):
        # Library warnings (ConvergenceWarning, ...) as one log line each, not a
        # source excerpt; silenced by -q. The solvers' convergence warning is
        # worded with the flags and categories of this command line.
        from ._ovr import SolverConvergenceWarning

        if isinstance(message, SolverConvergenceWarning):
            names = list(_PROBLEM_NAMES)
            text = message.render(_CLI_NAMES, resume=False,
                                  describe=lambda k: names[k] if k < len(names) else None)
        else:
            text = str(message)
        logger.warning("warning: %s", text)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            if args.quiet:
                warnings.simplefilter("ignore")
                # -q silences progress, not a corpus that differs from the published one
                warnings.filterwarnings("always", message=r".*differ from the published")
            with _on_cluster(getattr(args, "scheduler", None)):
                return args.func(args)
    except CLIError as exc:
        return fail(str(exc), exc.code)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        # `textwin ... | head`: the reader went away; nothing more to say.
        return EXIT_OK


def cmd_reproduce(argv):
    """Forward ``argv`` to :func:`textwin.reproduce.main` (imported only now)."""
    _setup_logging(argparse.Namespace(quiet="-q" in argv or "--quiet" in argv, verbose=False))
    try:
        from . import reproduce
    except ImportError as exc:
        return fail(f"`textwin reproduce` is not available in this installation ({exc}); "
                     "reinstall textwin (`pip install .`)", EXIT_INTERNAL)
    if not {"-h", "--help"} & set(argv):
        import importlib.util

        # Checked first: the figures come at the end of a long run.
        if importlib.util.find_spec("matplotlib") is None:
            return fail("`textwin reproduce` draws its figures with matplotlib, which is not "
                         "installed: pip install 'textwin[plot]' (or pip install matplotlib)",
                         EXIT_NO_DATA)
    try:
        return reproduce.main(argv, prog="textwin reproduce") or EXIT_OK
    except SystemExit as exc:  # its argparse: --help (0) or a bad option (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except (FileNotFoundError, OSError) as exc:
        return fail(f"{first_line(exc)}; the reproduction needs the Reuters-21578 corpus "
                     "(see `textwin data --help`) and a writable --output folder",
                     EXIT_NO_DATA)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)


@contextlib.contextmanager
def _on_cluster(address, timeout=5):
    """Inside: joblib's Dask backend on the scheduler at ``address``, or Ray's backend when
    ``address`` is "ray" or ray://... (nothing when None)."""
    if not address:
        yield
        return
    from ._distributed import ClusterError, connect, connect_ray

    if address == "ray" or address.startswith("ray://"):
        try:
            ray = connect_ray(None if address == "ray" else address)
        except ClusterError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        import joblib

        logger.info("on the Ray cluster: %d CPUs", int(ray.cluster_resources().get("CPU", 0)))
        try:
            with joblib.parallel_config(backend="ray"):
                yield
        except ClusterError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        return

    try:
        client = connect(address, timeout=timeout)
    except ClusterError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None
    import joblib

    workers = client.scheduler_info().get("workers", {})
    logger.info("on the Dask cluster at %s: %d workers, %d threads", address, len(workers),
                sum(w.get("nthreads", 0) for w in workers.values()))
    try:
        with joblib.parallel_config(backend="dask", client=client):
            yield
    except ClusterError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None
    finally:
        client.close()


def console_main():  # pragma: no cover - thin wrapper for `python -m textwin.cli`
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    console_main()

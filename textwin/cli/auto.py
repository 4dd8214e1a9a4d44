"""`--auto` on `train` and `eval`: the text features, the loss and lambda chosen together
by cross-validation on the training documents alone (:class:`textwin.TextClassifierCV`).

What the command line fixes is not searched: ``--no-stem`` (stemming off),
``--ngrams N``, ``--chars MIN-MAX``, ``--lam X``, ``--weighting``, ``--language``. The
rest is: stemming on and off, words alone or with their bigrams, the naive Bayes scaling
of one class per document (one-vs-rest), character n-grams of 2 to 5 characters beside
the best of those (training texts of at most 2 million characters, and 8 million times
the binary problems), and lambda over seven
values of
``C = 1/(lam n)`` from 0.1 to 100, with a bias; and the decision: the score 0, or
thresholds tuned for F1 (multi-label categories), or a cut tuned for the scoring
(two classes), tuned in other folds than those they are scored on. The search runs on at
most ``--search-texts`` training documents (a stratified sample), the final fit on all.
"""
from __future__ import annotations

import time
import warnings

from .common import CLIError, first_line, warnings_naming
from .training import Fit, two_class_scores, two_class_thresholds

#: The folds of --auto's cross-validation.
AUTO_FOLDS = 5


def check_auto(args, d, method_key="svm"):
    """Refuse what --auto cannot do, in one line each, before any training."""
    from ..model_selection import fold_shortfall

    if d.texts_train is None:
        raise CLIError(f"--auto chooses the text features; {d.source} holds feature values "
                       "(svmlight): use --lam auto to choose lambda alone")
    if method_key != "svm":
        raise CLIError(f"--auto searches the SVM's settings (--method svm); drop --method "
                       f"{method_key}, or drop --auto")
    if args.features not in (None, "all"):
        raise CLIError("--auto keeps every feature; drop --features")
    if getattr(args, "tune_thresholds", None) and d.task != "multiclass":
        raise CLIError("--auto tunes the thresholds of multi-label categories and two-class "
                       "corpora itself, in its folds (or keeps 0 where they score better); "
                       "drop --tune-thresholds")
    if len(d.texts_train) < AUTO_FOLDS:
        raise CLIError(f"--auto: the {len(d.texts_train)} training documents are fewer than "
                       f"the {AUTO_FOLDS} folds of the cross-validation; add documents, or "
                       "train without --auto")
    counts = _class_sizes(d)
    if counts is not None and counts.max() < AUTO_FOLDS:
        raise CLIError(f"--auto: {fold_shortfall(counts, d.categories, AUTO_FOLDS, 'documents')}"
                       "; add documents, or train without --auto")


def _class_sizes(d):
    """The training documents of each class (None for multi-label categories)."""
    import numpy as np

    return None if d.task == "multilabel" else np.asarray(d.Y_train.sum(axis=0)).ravel()


def warn_small_classes(d, option="--auto"):
    """One line for the classes smaller than the folds of ``option`` (--auto or --lam
    auto), in this command line's words; the estimators' own warnings are silenced where
    they are fitted."""
    from ..model_selection import (SMALL_CLASS_FALLBACK, SMALL_CLASS_NOISE,
                                   DualGaussSeidelClassifierCV)
    from ..model_selection._split import small_classes

    counts = _class_sizes(d)
    folds = AUTO_FOLDS if option == "--auto" else DualGaussSeidelClassifierCV().cv
    if counts is not None and folds <= counts.max():
        effect = SMALL_CLASS_FALLBACK if option == "--auto" else SMALL_CLASS_NOISE
        said = small_classes(option, counts, d.categories, folds, "documents", effect)
        if said:
            warnings.warn(said, stacklevel=3)


def auto_search(args, d, progress):
    """The :class:`TextClassifierCV` of the command line's options."""
    from ..model_selection import TextClassifierCV

    lam = getattr(args, "lam", None)
    ngrams = getattr(args, "ngrams", None)
    scoring = getattr(args, "scoring", None)
    return TextClassifierCV(
        weighting=args.weighting or "tfidf", stem=[True, False] if d.stem else False,
        ngrams=ngrams if ngrams else [1, 2],
        chars=getattr(args, "chars", None) or (None, (2, 5)),
        class_weight=getattr(args, "class_weight", None) or (
            [None, "balanced"] if scoring == "macro-f1" else None),
        language=d.language, lam=None if lam in (None, "auto") else lam,
        scoring=scoring, cv=AUTO_FOLDS,
        task="multilabel" if d.task == "multilabel" else None,  # None: binary or multiclass
        tol=args.tol if args.tol is not None else 1e-3,
        max_epochs=args.epochs if args.epochs is not None else 1000,
        random_state=0 if args.seed is None else args.seed, n_jobs=args.n_jobs,
        time_budget=getattr(args, "time_budget", None), verbose=int(progress),
        thresholds=getattr(args, "tune_thresholds", None),  # multi-class: the class offsets
        **_sample_option(getattr(args, "search_texts", None)))


def _sample_option(texts):
    """--search-texts as TextClassifierCV's max_search_texts (not given: its default)."""
    return {} if texts is None else {"max_search_texts": None if texts == "all" else texts}


def fit_auto(args, d, progress):
    """Search and refit on the training texts, and score the test texts: a :class:`Fit`
    whose data has the chosen features (its texts are not vectorized again), whose
    scores have one column per category (a binary problem's ``s`` as ``[-s, s]``), with
    the multi-label thresholds (None for one class per document) and what the search
    chose (:func:`auto_summary`); ``estimator`` is the search's refitted best, ``search``
    the search (its model file is the search's)."""
    from dataclasses import replace

    import numpy as np

    from ..model_selection import SmallClassWarning

    search = auto_search(args, d, progress)
    warn_small_classes(d)
    start = time.perf_counter()
    try:
        with warnings_naming(d.problem_names), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*paths had points that stopped")
            warnings.filterwarnings("ignore", category=SmallClassWarning)  # said above
            search.fit(d.texts_train, d.Y_train, classes=d.categories)
    except ValueError as exc:
        raise CLIError(f"--auto: {first_line(exc)}") from None
    seconds = time.perf_counter() - start
    best = search.best_estimator_
    vec = best.vectorizer_
    d = replace(d, X_train=None, X_test=None, vocabulary=vec.vocabulary_, support=None,
                idf=getattr(vec, "idf_", None), preprocessing=vec.preprocessing_params())
    scores = best.decision_function(d.texts_test)
    scores = scores[:, None] if scores.ndim == 1 else np.asarray(scores)
    tuned = d.task == "multilabel" or getattr(args, "tune_thresholds", None)
    thresholds = best.thresholds_ if tuned else None
    if d.task == "binary":
        scores, thresholds = two_class_scores(scores), two_class_thresholds(best.thresholds_[-1])
    settings = {"lam": search.best_params_["lam"]} if not isinstance(
        search.best_params_["lam"], list) else {}
    return Fit(d, best, seconds, scores, settings, thresholds, auto_summary(search, d),
               search, getattr(best, "calibration_", None))


def auto_summary(search, d):
    """What --auto chose, JSON-ready: ``chosen`` (the settings, lambda and C = 1/(lam n)),
    ``lam`` per category (all the same), ``thresholds`` (multi-label), the CV score (a
    fraction) and the curves of every combination against lambda."""
    summary = search.search_summary()
    lam = summary["chosen"]["lam"]
    chosen = {**summary["chosen"], "C": 1.0 / (lam * len(d.texts_train))}
    summary = {**summary, "chosen": chosen, "lam": dict.fromkeys(d.categories, lam),
               "n_train": len(d.texts_train), "n_searched": search.n_search_texts_,
               "chars_searched": search.chars_searched_}
    if getattr(search, "time_budget_", None) is not None:  # what --time-budget left out
        summary["time_budget"] = search.time_budget_
    if d.task == "multilabel":
        summary["thresholds"] = dict(zip(d.categories,
                                         map(float, search.best_estimator_.thresholds_)))
    elif d.task == "binary":  # the positive class's cut of the one score
        summary["thresholds"] = {d.categories[-1]: float(search.best_estimator_.thresholds_[-1])}
    return summary

"""How `textwin train` and `textwin eval` fit a method: the settings given on the command
line (checked, with lam = 1/n on a user's corpus), the example order, the fit itself
(a :class:`Fit`) and its test scores summarized. The data they fit on is
:mod:`.corpus`'s; what they print of it, :mod:`.report`'s.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

from .common import CLIError, estimator_verbosity, first_line, num, warnings_naming
from .tuning import TUNING_FOLDS, in_lam_folds

# Method settings that may be given on the command line: option -> setting name.
SETTING_OPTIONS = ("lam", "epochs", "tol", "eta", "theta", "gamma", "class_weight")


#: Methods whose ``lam`` defaults to :func:`default_lam` on a user's corpus: those
#: with a squared-norm regularizer, and the Winnow whose scale comes from the data
#: (its lam is then on the SVM's scale, docs/mathematics.md §14).
LAM_ONE_OVER_N = ("svm", "svm-alg2", "svm-alg2-converged", "mls", "smo", "linearsvc",
                  "rwinnow-auto")


def default_lam(n_train):
    """lam on a user's corpus when --lam is not given: 1/n, scikit-learn's C = 1
    (C = 1/(lam n)), the baseline a LinearSVC() user knows."""
    return 1.0 / n_train


def given_settings(args):
    """The method settings given on the command line, their values checked."""
    given = {k: getattr(args, k) for k in SETTING_OPTIONS if getattr(args, k, None) is not None}
    searched = given.get("lam") == "auto" or getattr(args, "auto", False)
    if getattr(args, "plot", None) is not None and not searched:
        raise CLIError("--plot draws the cross-validated score against lambda: add --lam auto "
                       "or --auto")
    if getattr(args, "time_budget", None) is not None and not getattr(args, "auto", False):
        raise CLIError("--time-budget bounds the search of --auto: add --auto")
    if getattr(args, "search_texts", None) is not None and not getattr(args, "auto", False):
        raise CLIError("--search-texts samples the documents of --auto's search: add --auto")
    if getattr(args, "scoring", None) is not None and not searched:
        raise CLIError("--scoring is what the cross-validation maximises: add --lam auto "
                       "or --auto")
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
    from .._ovr import MAX_EPOCHS  # the kernels count epochs in a C int

    if "epochs" in given and not 1 <= given["epochs"] <= MAX_EPOCHS:
        raise CLIError(f"--epochs must be an integer from 1 to {MAX_EPOCHS}, got "
                       f"{given['epochs']}")
    return given


def checked_methods(names, args):
    """The methods ``names`` name (:func:`textwin.experiments.resolve_methods`: train's
    --method, eval's --methods) and the settings given on the command line
    (:func:`given_settings`), each of which must apply: to train's method, or to one of
    eval's."""
    from ..experiments import UnknownMethodError, resolve_methods

    try:
        methods = resolve_methods(names)
    except UnknownMethodError as exc:
        raise CLIError(str(exc)) from None
    given = given_settings(args)
    unused = sorted(k for k in given if not any(k in m.settings for m in methods))
    if unused and args.command == "train":
        (method,) = methods
        raise CLIError(f"method {method.key!r} has no setting {_options(unused)}; "
                       f"its settings: {_options(sorted(method.settings))}")
    if unused:
        raise CLIError(
            f"{', '.join('--' + u for u in unused)} applies to none of the methods "
            f"({', '.join(m.key for m in methods)}); `textwin eval --help` lists each "
            "method's settings")
    return methods, given


def _options(keys):
    """Settings as the command line names them: --class-weight for class_weight."""
    return ", ".join("--" + k.replace("_", "-") for k in keys)


def _train_problem(method, X_train, Y_train, overrides, n_jobs=None, verbose=0, order=None,
                   single_label=False, cv_params=None, **tuning):
    """Fit ``method`` on the columns of ``Y_train`` (with its thresholds tuned and its
    probabilities calibrated if ``tuning`` asks: :func:`textwin.experiments.fit_method`);
    return the fitted estimator and time."""
    from .._ovr import ConstantModelWarning
    from ..experiments import fit_method

    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # check_trainable named these categories already; the estimators can
            # only give column numbers.
            warnings.filterwarnings("ignore", category=ConstantModelWarning)
            est = fit_method(method, X_train, Y_train, overrides, n_jobs=n_jobs,
                             verbose=verbose, order=order, single_label=single_label,
                             cv_params=cv_params, **tuning)
    except ValueError as exc:
        # The estimators validate their settings and data in fit, with messages
        # that name the parameter; they are the user's to fix.
        raise CLIError(first_line(exc)) from None
    return est, time.perf_counter() - t0


@dataclass
class Fit:
    """A method fitted on :class:`TrainingData` and tested: what `train` and `eval` report,
    and what a model file keeps."""

    data: object          # the TrainingData fitted on (--auto: with its chosen features)
    estimator: object     # the fitted estimator (--auto: the search's refitted best)
    seconds: float        # the fit's (--auto: the search's and the refit's)
    scores: object        # the test scores, a column per category
    settings: dict        # the method's settings as given (with lam = 1/n, or as chosen)
    thresholds: object = None  # a threshold per category (None: 0, or the argmax)
    cv: dict = None       # what --lam auto or --auto chose, and their curves
    search: object = None  # --auto: the TextClassifierCV, whose best_estimator_ is estimator
    calibration: object = None  # the probabilities' (--proba, or the logistic loss's link)


@dataclass(frozen=True)
class FitOptions:
    """The options of every fit of a `train` or `eval` command, read once from the parsed
    options (:func:`fit_options`): the fits take these, not the options."""

    order: dict             # the example order (:func:`example_order`)
    n_jobs: object = None   # --n-jobs
    verbose: int = 0        # the estimators' verbosity (-v, and the progress bars)
    features: object = None  # --features K ("all" or None: every feature)
    corpus: bool = False    # a --corpus (its --lam auto scores the task's default)
    scoring: object = None  # --scoring
    tune: object = None     # --tune-thresholds
    proba: bool = False     # --proba
    auto: bool = False      # --auto


def fit_options(args):
    """The :class:`FitOptions` of the parsed options ``args``."""
    return FitOptions(order=example_order(args), n_jobs=args.n_jobs,
                      verbose=estimator_verbosity(args), features=args.features,
                      corpus=args.corpus is not None, scoring=getattr(args, "scoring", None),
                      tune=getattr(args, "tune_thresholds", None),
                      proba=getattr(args, "proba", False), auto=getattr(args, "auto", False))


def method_settings(method, d, given):
    """The settings given, plus lam = :func:`default_lam` on a user's corpus for
    the methods of :data:`LAM_ONE_OVER_N` (Reuters-21578's protocol keeps the paper's; its
    texts read as a corpus, with --weighting tfidf or --features all, take 1/n)."""
    settings = dict(given)
    if (d.as_corpus and method.key in LAM_ONE_OVER_N
            and "lam" not in settings):
        settings["lam"] = default_lam(d.n_train)
    return settings


def example_order(args):
    """How the examples are visited: a fresh random order every epoch on a user's
    corpus (and with --shuffle), each method's own on Reuters (the paper's)."""
    shuffle = args.shuffle if args.shuffle is not None else (args.corpus is not None or None)
    if shuffle is None:
        return {}
    seed = 0 if args.seed is None else args.seed
    return {"shuffle": True, "random_state": seed} if shuffle else {"shuffle": False}


def cv_settings(opts, d, settings):
    """--lam auto's cross-validation: the scoring (on a user's corpus, or with
    --tune-thresholds, the task's default; else each category's break-even point,
    the paper's figure), the thresholds the model will apply, and a grid through
    the default lam."""
    from ..model_selection._choice import default_scoring

    if settings.get("lam") != "auto":
        return None
    from ..model_selection import DualGaussSeidelClassifierCV

    folds, n = DualGaussSeidelClassifierCV().cv, d.n_train
    if n < folds:  # in this command line's words: it has no cv option to lower
        raise CLIError(f"--lam auto: the {n} training documents are fewer than the {folds} "
                       f"folds of its cross-validation; add documents, or give --lam a value")
    tune = opts.tune
    scoring = opts.scoring or (default_scoring(d.task) if opts.corpus or tune else None)
    return {"scoring": scoring,
            "thresholds": tune if tune and in_lam_folds(tune, d.task) else None,
            "lam_anchor": default_lam(d.n_train) if d.as_corpus else None}


def left_to_tune(opts, cv_params):
    """--tune-thresholds' objective for the fitted estimator to tune on folds of its own:
    None where --lam auto's search tunes the thresholds in the folds that choose lam
    (:func:`cv_settings`)."""
    if cv_params is not None and cv_params["thresholds"] is not None:
        return None
    return opts.tune


def fit_task(method, d, settings, opts):
    """Fit ``method`` for ``d.task`` and score the test set: a :class:`Fit`, whose
    scores have one column per category (a binary problem's ``s`` becomes ``[-s, s]``).
    --tune-thresholds (unless --lam auto's folds tune them) and --proba make the method a
    :class:`~textwin.model_selection.TunedThresholdsClassifierCV`, which tunes and
    calibrates on folds of its own; the Fit holds the method it fitted, its thresholds
    and its calibration."""
    from ..experiments import score_matrix

    from ..model_selection._split import SmallClassWarning  # light: no scikit-learn search

    Y = d.Y_train[:, [1]] if d.task == "binary" else d.Y_train
    cv_params = cv_settings(opts, d, settings)
    # the warnings name the method, not the estimator's class, and the categories
    with warnings_naming(d.problem_names, method.key), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=SmallClassWarning)  # said once, before
        est, seconds = _train_problem(method, d.X_train, Y, settings, n_jobs=opts.n_jobs,
                                      verbose=opts.verbose, order=opts.order,
                                      single_label=d.task == "multiclass",
                                      cv_params=cv_params, task=d.task,
                                      thresholds=left_to_tune(opts, cv_params),
                                      threshold_folds=TUNING_FOLDS, probability=opts.proba)
    fitted = getattr(est, "estimator_", est)  # the method, tuned by its wrapper
    scores = score_matrix(fitted, d.X_test)
    thresholds = [float(t) for t in est.thresholds_] if opts.tune else None
    if d.task == "binary":
        scores = two_class_scores(scores)
        thresholds = thresholds and two_class_thresholds(thresholds[0])
    return Fit(d, fitted, seconds, scores, settings, thresholds,
               calibration=getattr(est, "calibration_", None))


def fit_texts(method, d, settings, opts, words=None):
    """Fit ``method`` on a text corpus's texts as the :class:`textwin.TextClassifier` of the
    options (``d.text``'s vectorizer, --features K, the registry's ``method`` as its
    classifier, --tune-thresholds as its ``thresholds``, --proba as its ``probability``)
    and score the test texts: a :class:`Fit` whose estimator is that TextClassifier, with
    its thresholds (tuned: --lam auto's own folds, or its own) and calibration, and whose
    data has its test matrix (the columns it keeps) and model parts. ``words``:
    :func:`shared_words`, for fitting several methods on the same texts."""
    from dataclasses import replace

    from .._ovr import ConstantModelWarning
    from ..experiments import method_estimator
    from ..model_selection._split import SmallClassWarning  # light: no scikit-learn search
    from ..text_classifier import TextClassifier

    Y = d.Y_train[:, [1]] if d.task == "binary" else d.Y_train
    cv_params = cv_settings(opts, d, settings)
    t0 = time.perf_counter()
    # the warnings name the method, not the estimator's class, and the categories
    with warnings_naming(d.problem_names, method.key), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=SmallClassWarning)  # said once, before
        # check_trainable named these categories already; the estimators can only give
        # column numbers
        warnings.filterwarnings("ignore", category=ConstantModelWarning)
        try:
            classifier = method_estimator(method, Y, settings, n_jobs=opts.n_jobs,
                                          verbose=opts.verbose, order=opts.order,
                                          single_label=d.task == "multiclass",
                                          cv_params=cv_params)
            clf = TextClassifier(**d.text, features=None if opts.features == "all"
                                 else opts.features, classifier=classifier,
                                 task="multilabel" if d.task == "multilabel" else "multiclass",
                                 thresholds=left_to_tune(opts, cv_params),
                                 threshold_folds=TUNING_FOLDS, probability=opts.proba)
            clf.fit(d.texts_train, d.Y_train, words=words, classes=d.categories)
        except ValueError as exc:  # the estimators' own words, which name the parameter
            raise CLIError(first_line(exc)) from None
    seconds = time.perf_counter() - t0
    vec = clf.vectorizer_
    d = replace(d, X_train=None, X_test=clf.features_of(d.texts_test),
                vocabulary=vec.vocabulary_, support=clf.selected_,
                preprocessing=vec.preprocessing_params(), idf=getattr(vec, "idf_", None))
    scores = clf.scores_of(d.X_test)
    thresholds = [float(t) for t in clf.thresholds_] if opts.tune else None
    if d.task == "binary":
        scores = two_class_scores(scores)
        thresholds = thresholds and two_class_thresholds(thresholds[0])
    return Fit(d, clf, seconds, scores, settings, thresholds,
               calibration=getattr(clf, "calibration_", None))


def cv_summary(estimator, names):
    """What --lam auto chose (None without it): a TextClassifier's search, whose lam every
    class shares, or the estimator's own."""
    from ..experiments import shared_cv_summary

    search = getattr(estimator, "search_", None)
    if search is not None:
        return shared_cv_summary(search.cv_summary(), names)
    est = fitted(estimator)
    return est.cv_summary(names) if hasattr(est, "cv_summary") else None


def fitted(estimator):
    """The linear model fitted on the matrix: a TextClassifier's classifier, or itself."""
    return getattr(estimator, "classifier_", estimator)


def shared_words(d):
    """The words of a text corpus's training texts, found once for the methods that
    `textwin eval` fits on them (:class:`textwin.text.Words`; None where they serve no
    vectorizer of ``d.text``: character n-grams, or feature values)."""
    if d.text is None or d.text["chars"] is not None or not d.text["ngrams"]:
        return None
    from ..text import Words

    return Words(d.texts_train, d.text["ngrams"])


def two_class_scores(scores):
    """A two-class corpus's one score ``s`` (documents x 1) as the classes' ``[-s, s]``."""
    import numpy as np

    return np.hstack([-scores, scores])


def two_class_thresholds(cut):
    """The one problem decides ``s > cut``: the classes' thresholds ``[-cut, cut]``
    (0, never -0.0, at a cut of 0)."""
    return [0.0 - float(cut), float(cut)]


def class_thresholds(d):
    """A multi-class task's thresholds: +inf for a class without training documents,
    which no document can be given (a constant score, 0 for the Perceptron, would
    win the argmax over classes scoring below it); None when every class has some."""
    import numpy as np

    from ..tasks import never_given

    if d.task != "multiclass" or np.asarray(d.Y_train).any(axis=0).all():
        return None
    return never_given(d.Y_train)


def summarize(d, scores, thresholds=None):
    """Summary (percent) and per-category figures of the test scores."""
    from ..tasks import score_task

    if thresholds is None:
        thresholds = class_thresholds(d)
    constant = d.constant
    summary, per = score_task(d.task, d.Y_test, scores,
                              0.0 if thresholds is None else thresholds,
                              constant=[c in constant for c in d.categories])
    return {k: num(100 * v) for k, v in summary.items()}, per



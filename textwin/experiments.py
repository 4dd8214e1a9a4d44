"""The Reuters-21578 experiments of the dual-formulation paper, as data and code.

:data:`METHODS` is a registry: each :class:`Method` carries the paper's name
for it, the paper's settings (epochs, ``lam``, learning rate, threshold,
Algorithm 2's 4 x 50 budget), the break-even points the paper published
(docs/mathematics.md §12: copied here as data, they are the targets, never
results) and a factory that builds the textwin (or scikit-learn) estimator
with those settings. :func:`run_micro_breakeven` runs any of them on the
ModApte split with the paper's features (1,000 information-gain features,
binary values) and returns per-category and micro-averaged break-even points
beside the paper's, with the time each method took.

Paper settings that the extracted text lost are marked "reconstructed" in
:attr:`Method.notes`; every one of them can be overridden.
"""
from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .datasets._training_set import (  # the names of the categories, public here too
    TOP10,
    UnknownCategoryError,
    closest_names,
    resolve_categories,
)

__all__ = [
    "Method", "METHODS", "PAPER_METHODS", "UnknownCategoryError", "UnknownMethodError",
    "resolve_categories", "resolve_methods", "MethodResult", "run_micro_breakeven",
    "load_protocol_data", "score_matrix", "fit_method", "build_method",
]

logger = logging.getLogger("textwin")

class UnknownMethodError(ValueError):
    """A method name that is not in :data:`METHODS`."""


# ---------------------------------------------------------------------------
# Estimator factories. Each receives the resolved settings and the number of
# training documents (SVC's C = 1/(lam n) needs it) and returns an unfitted
# estimator that accepts a CSR matrix and a (documents x categories) indicator.
# ---------------------------------------------------------------------------

def _rename(settings, epochs_name, **fixed):
    """Settings as estimator keyword arguments (``epochs`` has another name per family)."""
    kw = {epochs_name if k == "epochs" else k: v for k, v in settings.items()}
    kw.update(fixed)
    return kw


def _dual_gauss_seidel(preset, settings, **fixed):
    """A :mod:`textwin.linear` preset; the paper visits the examples in data order."""
    from . import linear

    kw = _rename(settings, "max_epochs", **fixed)
    kw.setdefault("shuffle", False)
    if kw.get("lam") == "auto":  # lam by cross-validation (docs/mathematics.md §13)
        from .model_selection import DualGaussSeidelClassifierCV

        del kw["lam"]
        return DualGaussSeidelClassifierCV.from_estimator(getattr(linear, preset)(**kw))
    return getattr(linear, preset)(**kw)


def _online(cls_name, settings, **fixed):
    """A :mod:`textwin.online` learner; the paper visits the examples in data order."""
    from . import online

    kw = _rename(settings, "n_epochs", **fixed)
    kw.setdefault("shuffle", False)
    return getattr(online, cls_name)(**kw)


def _sklearn_c(settings, n):
    """scikit-learn's C = 1/(lam n); its models have no lam chosen by cross-validation."""
    if settings["lam"] == "auto":
        raise ValueError("lam='auto' (chosen by cross-validation) needs a dual Gauss-Seidel "
                         "method (svm, svm-alg2, svm-alg2-converged, mls, rwinnow, "
                         "rwinnow-balanced), not a scikit-learn one")
    return 1.0 / (settings["lam"] * n)


def _sklearn_svc(settings, n):
    from ._sklearn_baselines import linear_svc_one_vs_rest

    return linear_svc_one_vs_rest(_sklearn_c(settings, n), tol=settings.get("tol", 1e-3))


def _sklearn_linearsvc(settings, n):
    from ._sklearn_baselines import liblinear_one_vs_rest

    return liblinear_one_vs_rest(_sklearn_c(settings, n), tol=settings.get("tol", 1e-4),
                                 max_iter=settings.get("max_iter", 10000),
                                 random_state=settings.get("random_state", 0))


@dataclass(frozen=True)
class Method:
    """One method of the paper's experiments (or a reference row).

    Attributes
    ----------
    key : str
        Command-line name (``textwin eval --methods KEY``).
    paper_name : str
        What the paper calls it.
    settings : dict
        The paper's settings, as keyword arguments of the factory.
    factory : callable ``(settings, n_train) -> estimator``
    paper_micro : float or None
        The paper's micro-averaged break-even point, percent.
    paper_breakeven : dict
        The paper's per-category break-even points, percent (earn: none).
    source : str
        Where the paper figures come from.
    notes : str
        Reconstructed constants and other caveats.
    """

    key: str
    paper_name: str
    settings: dict
    factory: Callable
    paper_micro: float | None = None
    paper_breakeven: dict = field(default_factory=dict)
    source: str = ""
    notes: str = ""

    def build(self, n_train, **overrides):
        """The estimator with the paper's settings, updated by ``overrides``."""
        unknown = set(overrides) - set(self.settings)
        if unknown:
            raise ValueError(
                f"method {self.key!r} has no setting {', '.join(sorted(unknown))}; its "
                f"settings are {', '.join(sorted(self.settings))}")
        settings = {**self.settings, **{k: v for k, v in overrides.items() if v is not None}}
        return self.factory(settings, n_train)


def _cats(values):
    names = TOP10[1:]  # the paper's tables as extracted lost the earn row
    return dict(zip(names, values))


_WINNOW_TABLE1 = _cats([82.8, 58.7, 78.4, 78.1, 65.3, 61.7, 63.7, 76.4, 65.5])
_RWINNOW_TABLE1 = _cats([85.4, 62.8, 84.7, 78.7, 71.1, 72.5, 75.0, 83.1, 80.4])
_PERCEPTRON_TABLE2 = _cats([92.4, 68.7, 87.9, 81.0, 68.6, 63.4, 82.0, 77.8, 77.2])
_SMO_TABLE2 = _cats([95.5, 69.8, 91.3, 81.5, 73.5, 74.8, 82.0, 83.1, 87.5])
_ALG2_TABLE2 = _cats([95.0, 75.4, 88.6, 84.1, 73.5, 77.1, 80.9, 84.7, 83.9])

_T1 = "Zhang, dual formulation, Table 1 and section 5"
_T2 = "Zhang, dual formulation, Table 2 and section 5"
_A_NOTE = ("the norm A of the weights was lost (reconstructed: A = 1); prior uniform "
           "(reconstructed)")


def _method_list():
    def winnow(theta):
        return Method(
            key="winnow" if theta == 0.1 else f"winnow-{theta}",
            paper_name=f"Winnow (normalized, positive weights, theta = {theta})",
            settings={"theta": theta, "eta": 0.001, "epochs": 100},
            factory=lambda s, n: _online("Winnow", s),
            paper_micro=83.0 if theta == 0.1 else 81.6,
            paper_breakeven=_WINNOW_TABLE1 if theta == 0.1 else {},
            source=_T1, notes=_A_NOTE)

    def rwinnow(theta):
        return Method(
            key="rwinnow" if theta == 0.1 else f"rwinnow-{theta}",
            paper_name=f"regularized Winnow, update (28) (theta = {theta})",
            settings={"theta": theta, "gamma": 0.1, "lam": 1e-4, "epochs": 100, "tol": 1e-3},
            factory=lambda s, n: _dual_gauss_seidel("RegularizedWinnow", s, mass=1.0),
            paper_micro=86.3 if theta == 0.1 else 85.0,
            paper_breakeven=_RWINNOW_TABLE1 if theta == 0.1 else {},
            source=_T1, notes=_A_NOTE)

    return [
        winnow(0.1), rwinnow(0.1), winnow(0.3), rwinnow(0.3),
        Method(
            key="perceptron", paper_name="Perceptron",
            settings={"eta": 0.001, "epochs": 100},
            factory=lambda s, n: _online("Perceptron", s),
            paper_micro=88.5, paper_breakeven=_PERCEPTRON_TABLE2, source=_T2,
            notes="weights rescaled to unit Euclidean norm after each epoch (reconstructed)"),
        Method(
            key="smo", paper_name="SVM by SMO (scikit-learn SVC, kernel='linear')",
            settings={"lam": 1e-3, "tol": 1e-3},
            factory=_sklearn_svc,
            paper_micro=91.0, paper_breakeven=_SMO_TABLE2, source=_T2,
            notes="libsvm's SMO stands in for the paper's own SMO; C = 1/(lam n)"),
        Method(
            key="svm-alg2", paper_name="SVM by Algorithm 2, update (30) (4 x 50 epochs)",
            settings={"lam": 1e-3, "tol": 1e-3},
            factory=lambda s, n: _dual_gauss_seidel(
                "DualSVM", s, fit_intercept=True, intercept_solver="paper"),
            paper_micro=91.2, paper_breakeven=_ALG2_TABLE2, source=_T2,
            notes="the paper's budget: 4 rounds of at most 50 epochs; rho0 = 1 "
                  "(reconstructed; the paper's starting value was lost)"),
        Method(
            key="mls", paper_name="modified least squares, update (27), Algorithm 1",
            settings={"lam": 1e-3, "epochs": 100, "tol": 1e-3},
            factory=lambda s, n: _dual_gauss_seidel(
                "ModifiedLeastSquares", s, fit_intercept=True,
                intercept_solver="constant_feature"),
            paper_micro=91.0, source=_T2,
            notes="the paper says 'about 91' and gives no per-category figures; lam = 1e-3 "
                  "(reconstructed: the SVMs' value); constant feature 1 appended"),
        # Rows beyond the paper.
        Method(
            key="svm", paper_name="SVM by Algorithm 1 (hinge, square regularizer)",
            settings={"lam": 1e-3, "epochs": 1000, "tol": 1e-3, "class_weight": None},
            factory=lambda s, n: _dual_gauss_seidel(
                "DualSVM", s, fit_intercept=True, intercept_solver="constant_feature",
                shuffle=True, random_state=0),
            notes="not in the paper's tables: update (29) with a regularized constant "
                  "feature, examples in a random order each epoch (seed 0), run until the "
                  "relative duality gap is at most tol"),
        Method(
            key="svm-alg2-converged",
            paper_name="SVM by Algorithm 2, converged",
            settings={"lam": 1e-3, "epochs": 500, "tol": 1e-4},
            factory=lambda s, n: _dual_gauss_seidel(
                "DualSVM", s, fit_intercept=True, intercept_solver="converged",
                shuffle=True, random_state=0),
            notes="not in the paper: Algorithm 2 until the inner gap is at most tol and "
                  "the residual at most 1e-6"),
        Method(
            key="rwinnow-balanced",
            paper_name="balanced regularized Winnow (positive and negative weights)",
            settings={"theta": 0.1, "gamma": 0.1, "lam": 1e-4, "epochs": 100, "tol": 1e-3},
            factory=lambda s, n: _dual_gauss_seidel(
                "DualGaussSeidelClassifier", s, loss="squared_hinge",
                regularizer="balanced_normalized_entropy", mass=1.0),
            notes="not in the paper, which names it as open work: update (28) with w = w+ - w-, "
                  "||w+||_1 + ||w-||_1 = 1, everything else as rwinnow"),
        Method(
            key="rwinnow-auto",
            paper_name="balanced regularized Winnow, its scale from the data",
            settings={"lam": 1e-3, "epochs": 100, "tol": 1e-3},
            factory=lambda s, n: _dual_gauss_seidel(
                "DualGaussSeidelClassifier", s, loss="squared_hinge",
                regularizer="balanced_normalized_entropy", mass="auto"),
            notes="not in the paper: rwinnow-balanced with the norm A of the weights "
                  "chosen from the data (mass='auto'), which gives lam the square "
                  "regularizer's meaning: the SVMs' lam = 1e-3 here, lam = 1/n on a user's "
                  "corpus; a bias from a regularized constant feature"),
        Method(
            key="linearsvc", paper_name="scikit-learn LinearSVC (liblinear, hinge)",
            settings={"lam": 1e-3, "tol": 1e-4, "max_iter": 10000},
            factory=_sklearn_linearsvc,
            notes="not in the paper: a modern reference; C = 1/(lam n), bias regularized"),
    ]


#: Every method, by key.
METHODS = {m.key: m for m in _method_list()}
#: The rows of the paper's Tables 1 and 2 (and the update (27) remark), in order.
PAPER_METHODS = ("winnow", "rwinnow", "winnow-0.3", "rwinnow-0.3", "perceptron", "smo",
                 "svm-alg2", "mls")


def resolve_methods(methods):
    """Method keys (``None`` = the paper's, ``"all"`` = every one) to :class:`Method`."""
    if methods is None or methods == "paper":
        keys = list(PAPER_METHODS)
    elif methods == "all":
        keys = list(METHODS)
    elif isinstance(methods, str):
        keys = [m.strip() for m in methods.split(",") if m.strip()]
    else:
        keys = list(methods)
    choices = f"methods: {', '.join(METHODS)}; or 'paper' (the paper's) or 'all'"
    if not keys:
        raise UnknownMethodError(f"no method given; {choices}")
    out = []
    for key in keys:
        if key not in METHODS:
            close = closest_names(key, list(METHODS))
            raise UnknownMethodError(
                f"unknown method {key!r}" + (f" (closest: {', '.join(close)})" if close else "")
                + f"; {choices}")
        if METHODS[key] in out:
            raise UnknownMethodError(f"method {key!r} is listed more than once")
        out.append(METHODS[key])
    return out


# ---------------------------------------------------------------------------
# Running the protocol
# ---------------------------------------------------------------------------

@dataclass
class MethodResult:
    """Break-even points of one method (fractions in [0, 1]; ``to_dict`` gives percent)."""

    method: str
    paper_name: str
    breakeven: dict
    micro_breakeven: float
    paper_micro_breakeven: float | None
    paper_breakeven: dict
    seconds: float
    settings: dict
    extra: dict = field(default_factory=dict)

    def to_dict(self):
        """JSON-ready, break-even points in percent; ``None`` where undefined."""
        def pct(x):
            return None if x is None or not np.isfinite(x) else round(100.0 * float(x), 4)

        return {
            "method": self.method,
            "paper_name": self.paper_name,
            "breakeven": {c: pct(v) for c, v in self.breakeven.items()},
            "micro_breakeven": pct(self.micro_breakeven),
            "paper_micro_breakeven": self.paper_micro_breakeven,
            "paper_breakeven": {c: self.paper_breakeven.get(c) for c in self.breakeven},
            "seconds": round(self.seconds, 3),
            "settings": self.settings,
            **self.extra,
        }


@dataclass
class ProtocolData:
    """The ModApte matrices restricted to the selected features and categories."""

    X_train: object
    X_test: object
    Y_train: np.ndarray
    Y_test: np.ndarray
    categories: list
    feature_names: np.ndarray
    selection_seconds: float
    vocabulary: np.ndarray = None  # every term of the vectorized corpus, in column order
    support: np.ndarray = None     # the selected columns of that vocabulary


def load_protocol_data(categories="top10", data_home=None, *, n_features=1000,
                       download_if_missing=True):
    """ModApte, binary features, the ``n_features`` words of highest information gain.

    Information gain is computed on the training set over all categories
    (docs/mathematics.md §11); the targets are then restricted to ``categories``.
    A missing corpus is downloaded (and verified) unless ``download_if_missing``
    is false, as in :func:`textwin.datasets.fetch_reuters21578`.
    """
    from .datasets import load_reuters_vectorized
    from .feature_selection import top_columns

    data = load_reuters_vectorized(data_home=data_home, weighting="binary",
                                   download_if_missing=download_if_missing)
    names = resolve_categories(categories, list(data.target_names))
    t0 = time.perf_counter()
    support = top_columns(data.X_train, np.asarray(data.Y_train), n_features)
    seconds = time.perf_counter() - t0
    cols = [list(data.target_names).index(c) for c in names]
    return ProtocolData(
        X_train=data.X_train[:, support].tocsr(), X_test=data.X_test[:, support].tocsr(),
        Y_train=_dense(data.Y_train)[:, cols], Y_test=_dense(data.Y_test)[:, cols],
        categories=names, feature_names=np.asarray(data.feature_names)[support],
        selection_seconds=seconds, vocabulary=np.asarray(data.feature_names, dtype=str),
        support=support)


def _dense(Y):
    return np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)


def score_matrix(estimator, X):
    """``decision_function`` as a (documents x problems) array."""
    scores = np.asarray(estimator.decision_function(X), dtype=np.float64)
    return scores[:, None] if scores.ndim == 1 else scores


def fit_method(method, X_train, Y_train, overrides=None, *, n_jobs=None, verbose=0,
               order=None, single_label=False, cv_params=None, task=None, thresholds=None,
               threshold_folds=3, probability=False):
    """Build ``method`` (with ``overrides``) and fit it on the columns of ``Y_train``.

    One column is fitted as a binary problem, not as a one-column indicator.
    ``n_jobs`` and ``verbose`` go to estimators that take them, and so do the
    entries of ``order`` (``{"shuffle": True, "random_state": 0}``: the order in
    which the examples are visited, instead of the method's own).

    ``single_label``: every row of ``Y_train`` has exactly one label (a
    multi-class task). The estimator is then given the class index of each
    document, so that it knows the classes compete: the same binary problems
    as the columns, but a cross-validated ``lam`` is shared by the classes and
    chosen by accuracy. The indicator is used instead when a class has no
    training document (its column would be missing from the scores); a
    cross-validated ``lam`` is then chosen on the other classes, and the model
    refitted at it on the indicator.

    ``cv_params``: settings of a ``lam`` chosen by cross-validation
    (``scoring``, ``thresholds``, ``lam_anchor``; None values are left out).
    Without a ``scoring``, categories are judged by their break-even points (the
    paper's figure); multi-class targets by accuracy.

    ``thresholds`` (an objective: "f1", "breakeven", "accuracy") or ``probability``:
    the estimator is a :class:`~textwin.model_selection.TunedThresholdsClassifierCV` of
    the ``task`` of ``Y_train`` ("binary": its one column is the positive class's),
    which tunes its thresholds on ``threshold_folds`` folds and calibrates on folds of
    its own, each fold's model built here at the final model's ``C``
    (:func:`fold_estimator`); the fitted method is its ``estimator_``.
    """
    present = np.asarray(Y_train.sum(axis=0)).ravel() > 0
    competing = _competing(Y_train, single_label)
    est = method_estimator(method, Y_train, overrides, n_jobs=n_jobs, verbose=verbose,
                           order=order, single_label=single_label, cv_params=cv_params)
    n = X_train.shape[0]
    tuning = {"objective": thresholds, "cv": threshold_folds, "task": task,
              "probability": probability} if thresholds or probability else None
    y = np.asarray(Y_train.argmax(axis=1)).ravel() if competing else None
    if competing and hasattr(est, "cv_summary") and not present.all():
        cv = est.fit(X_train, y)  # lam chosen on the classes with documents
        chosen = {**(overrides or {}), "lam": float(cv.lam_[0])}
        final = _configured(method, n, chosen, n_jobs, verbose, order, by_breakeven=False)
        if tuning is not None:
            final = _tuned(final, method, n, chosen, n_jobs, order, tuning).fit(X_train,
                                                                                Y_train)
        else:
            final.fit(X_train, Y_train)
        fitted = getattr(final, "estimator_", final)
        fitted.cv_summary = functools.partial(shared_cv_summary, cv.cv_summary())
        return final
    if tuning is not None:  # it fits the estimator as below
        return _tuned(est, method, n, overrides, n_jobs, order, tuning).fit(X_train, Y_train)
    if competing and present.all():
        return est.fit(X_train, y)
    return est.fit(X_train, Y_train[:, 0] if Y_train.shape[1] == 1 else Y_train)


def _tuned(est, method, n_train, overrides, n_jobs, order, tuning):
    """``est`` as a :class:`~textwin.model_selection.TunedThresholdsClassifierCV` of
    ``tuning`` whose folds' models are :func:`fold_estimator`'s."""
    from .model_selection import TunedThresholdsClassifierCV

    return TunedThresholdsClassifierCV(
        est, **tuning, fold_estimator=fold_estimator(method, n_train, overrides,
                                                     n_jobs=n_jobs, order=order))


def fold_estimator(method, n_train, overrides=None, *, n_jobs=None, order=None):
    """``at(n_rows, lam)``: ``method`` built for a fold of ``n_rows`` of the ``n_train``
    training rows at the final model's ``C``: ``lam`` (a search's choice; None: the
    ``lam`` of ``overrides``, if given) times ``n_train / n_rows`` (the factories of the
    scikit-learn methods turn it into ``C = 1/(lam n_rows)``); at ``n_rows = n_train``,
    the model at ``lam``. The ``fold_estimator`` of
    :class:`~textwin.model_selection.TunedThresholdsClassifierCV`."""
    overrides = dict(overrides or {})

    def at(n_rows, lam=None):
        lam = overrides.get("lam") if lam is None else lam
        if lam is not None and n_rows != n_train:
            lam = lam * n_train / n_rows
        return build_method(method, n_rows, overrides if lam is None else {**overrides,
                                                                            "lam": lam},
                            n_jobs=n_jobs, order=order)

    return at


def _competing(Y_train, single_label):
    """Whether the classes of ``Y_train`` compete in one fit (more than two, with documents)."""
    present = np.asarray(Y_train.sum(axis=0)).ravel() > 0
    return single_label and Y_train.shape[1] > 2 and int(present.sum()) > 2


def method_estimator(method, Y_train, overrides=None, *, n_jobs=None, verbose=0, order=None,
                     single_label=False, cv_params=None):
    """The estimator that :func:`fit_method` fits on ``Y_train``'s columns, unfitted."""
    competing = _competing(Y_train, single_label)
    cv_params = {k: v for k, v in (cv_params or {}).items() if v is not None}
    est = _configured(method, Y_train.shape[0], overrides, n_jobs, verbose, order,
                      by_breakeven=not competing and "scoring" not in cv_params)
    if hasattr(est, "cv_summary"):
        est.set_params(**cv_params)
    return est


def build_method(method, n_train, overrides=None, *, n_jobs=None, order=None):
    """``method`` built for ``n_train`` documents with ``overrides``, ``n_jobs`` and the
    example ``order`` as :func:`fit_method` gives them, not fitted."""
    return _configured(method, n_train, overrides, n_jobs, 0, order, by_breakeven=False)


def _configured(method, n_train, overrides, n_jobs, verbose, order, by_breakeven):
    """``method`` built for ``n_train`` documents, with the front end's settings."""
    est = method.build(n_train, **(overrides or {}))
    params = est.get_params()
    if n_jobs is not None and "n_jobs" in params:
        est.set_params(n_jobs=n_jobs)
    if verbose and "verbose" in params and "estimator" not in params:
        # a scikit-learn meta-estimator (one-vs-rest) passes verbose to joblib, which
        # prints "[Parallel(n_jobs=1)]: Done ..." lines between the progress bars
        est.set_params(verbose=verbose)
    if by_breakeven and "scoring" in params and params["scoring"] is None:
        # categories (one or several columns) are judged by break-even points
        est.set_params(scoring="micro_breakeven_point")
    for key, value in (order or {}).items():
        # OneVsRestClassifier(LinearSVC): estimator__random_state
        for name in (key, f"estimator__{key}"):
            if name in params:
                est.set_params(**{name: value})
    return est


def shared_cv_summary(summary, names=None):
    """A cross-validation's summary whose shared lam is named for every class
    (``names``), those without training documents included."""
    if names is None:
        return summary
    lam = next(iter(summary["lam"].values()))
    return {**summary, "lam": {str(name): lam for name in names}}


def _fit_scores(method, data, overrides, n_jobs, verbose=0):
    """Fit one method on every category and score the test set."""
    est = fit_method(method, data.X_train, data.Y_train, overrides, n_jobs=n_jobs,
                     verbose=verbose)
    return est, score_matrix(est, data.X_test)


def run_micro_breakeven(methods=None, categories="top10", data_home=None, *, n_features=1000,
                        overrides=None, n_jobs=None, progress=False, data=None,
                        download_if_missing=True, verbose=0):
    """Train each method on ModApte training and score the test set.

    Parameters
    ----------
    methods : None, "all", str or list of str
        Keys of :data:`METHODS` (default: the paper's methods, :data:`PAPER_METHODS`).
    categories : "top10", "all", str or list of str
        Categories to train (default the paper's ten).
    data_home : str or Path, optional
        Where the corpus is (see :func:`textwin.datasets.get_data_home`).
    n_features : int
        Information-gain features (paper: 1,000).
    overrides : dict, optional
        ``{method key: {setting: value}}`` to change a method's paper settings.
    n_jobs : int, optional
        Passed to estimators that take it.
    progress : bool
        Show a tqdm bar (on stderr) over the methods.
    verbose : int
        Passed to estimators that take it (textwin's: 1 a progress bar over the
        categories, 2 a line per category).
    data : ProtocolData, optional
        Pre-loaded data (from :func:`load_protocol_data`).
    download_if_missing : bool
        Download a missing corpus (as :func:`textwin.datasets.fetch_reuters21578`).

    Returns
    -------
    results : list of MethodResult
        Per-category and micro-averaged break-even points (fractions; the
        macro-average and the micro/macro F1 at score > 0 in ``extra``, percent), the
        paper's figures (percent) and the seconds each method took to train on
        every category and score the test set (feature selection excluded: it
        is shared, and reported in ``extra["selection_seconds"]``).
    """
    from .metrics import breakeven_points, micro_breakeven_point
    from .tasks import score_task

    chosen = resolve_methods(methods)
    if data is None:
        data = load_protocol_data(categories, data_home, n_features=n_features,
                                  download_if_missing=download_if_missing)
    overrides = overrides or {}
    results = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(chosen), desc="methods", unit="method", leave=False)
    try:
        for method in chosen:
            if bar is not None:
                bar.set_postfix_str(method.key)
            logger.info("training %s on %d categories", method.key, len(data.categories))
            t0 = time.perf_counter()
            est, scores = _fit_scores(method, data, overrides.get(method.key, {}), n_jobs,
                                      verbose)
            seconds = time.perf_counter() - t0
            # A category without positive test documents has no BEP (None); it adds
            # nothing to the micro-average.
            beps = breakeven_points(data.Y_test, scores, zero_division=np.nan)
            per_cat = {cat: (None if np.isnan(b) else float(b))
                       for cat, b in zip(data.categories, beps)}
            micro = float(micro_breakeven_point(data.Y_test, scores, zero_division=np.nan))
            summary, _ = score_task("multilabel", data.Y_test, scores)
            extra = {"selection_seconds": round(data.selection_seconds, 3),
                     # percent, as to_dict's break-even points
                     **{k: (None if np.isnan(summary[k]) else round(100 * summary[k], 4))
                        for k in ("macro_breakeven", "micro_f1", "macro_f1")}}
            for attr, key in (("duality_gap_", "duality_gap"), ("n_iter_", "n_iter")):
                if hasattr(est, attr):
                    extra[key] = np.asarray(getattr(est, attr)).tolist()
            if hasattr(est, "gap_history_"):         # exact duality-gap checks per category
                extra["exact_checks"] = [len(h) for h in est.gap_history_]
            if hasattr(est, "cv_summary"):           # lam chosen by cross-validation
                extra["lam_by_cv"] = est.cv_summary(list(data.categories))
            logger.info("%s: micro-BEP %.1f%% in %.1f s", method.key, 100 * micro, seconds)
            results.append(MethodResult(
                method=method.key, paper_name=method.paper_name, breakeven=per_cat,
                micro_breakeven=micro,
                paper_micro_breakeven=method.paper_micro if _is_top10(data.categories) else None,
                paper_breakeven=dict(method.paper_breakeven), seconds=seconds,
                settings={**method.settings, **overrides.get(method.key, {})}, extra=extra))
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return results


def _is_top10(categories):
    """The paper's micro-average is over exactly its ten categories."""
    return sorted(categories) == sorted(TOP10)

"""Regularization paths and cross-validated lam (docs/mathematics.md §13).

:func:`regularization_path` solves one estimator's binary problems along a
descending grid of ``lam``, each point warm-started from the previous one's
dual solution and stopped on the relative duality gap as a single fit is.
:class:`DualGaussSeidelClassifierCV` runs that path on every cross-validation
fold and binary problem (in the estimators' thread pool), scores each point
on the held-out fold, chooses ``lam`` (per binary problem for multi-label
targets, shared for multi-class ones) and refits at the choice.
:func:`lam_max` is the top of the default grid: the largest ``lam`` at which
the solution is still the trivial one, to first order.
"""
import math
import sys
import threading
import warnings
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import check_scoring, get_scorer
from sklearn.model_selection import check_cv
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted
from tqdm import tqdm

from textwin._binary import solve_binary_problem
from textwin._lam_choice import (SCORINGS, SmallClassWarning, check_choice, fold_of,
                                 fold_scores, mean_and_se, past_the_best, select_lam,
                                 shared_choice, tuned_thresholds)
from textwin._distributed import Scattered, active_cluster, map_on_cluster
from textwin._kernels._dual_gs import check_csr
from textwin._losses_and_regularizers import loss_named, regularizer_named
from textwin._scale import AUTO, DegenerateSolutionWarning
from textwin._ovr import (SolverConvergenceWarning, as_canonical_csr, map_problems,
                          problem_seeds, problem_weight, store_params)
from textwin.linear import DualGaussSeidelClassifier
from textwin.metrics import breakeven_points

__all__ = ["DualGaussSeidelClassifierCV", "regularization_path", "held_out_path_scores",
           "lam_max", "lam_grid", "select_lam", "LamGridWarning",
           "PathConvergenceWarning", "SmallClassWarning"]

# the default scorer of multi-label targets: micro-averaged break-even point
MICRO_BEP = "micro_breakeven_point"
_DEFAULT_N_LAMS = 10
_DEFAULT_MIN_RATIO = 1e-4


# ---------------------------------------------------------------------------
# One fit's prepared problems
# ---------------------------------------------------------------------------


class _Problems:
    """The binary problems of ``estimator``'s fit on (X, y), prepared once.

    Runs the estimator's own preparation (validation, label encoding, bias
    mode, prior and mass), so that a path or a cross-validation solves
    exactly the problems ``estimator.fit`` would, one lam after another.
    """

    def __init__(self, estimator, X, y, sample_weight):
        p = estimator._all_params()
        estimator._check_params(p)
        X, labels, sw = estimator._validate_fit_data(X, y, sample_weight, p)
        # the estimator's name, not the estimator: these problems travel to a cluster's
        # workers, which need none of a fitted estimator's arrays
        self.name, self.params = type(estimator).__name__, p
        self.n, self.d_user = X.shape
        self.X_user = X
        self.X = estimator._choose_intercept(X, p)
        self.settings = estimator._solver_settings(self.X, p)
        self.labels, self.sample_weight = labels, sw
        self.n_problems = labels.n_problems
        self.seeds = problem_seeds(p["random_state"], self.n_problems)
        self.classes, self.mode = estimator.classes_, estimator._label_mode
        # gradient_step is per unit of lam n (docs/mathematics.md §10): rescaled per point
        g = self.settings.gradient_step
        self._step_unit = None if g is None else g / (p["lam"] * self.n)

    def at(self, lam, n_rows):
        """The solver settings at ``lam`` for a problem of ``n_rows`` rows."""
        g = None if self._step_unit is None else self._step_unit * lam * n_rows
        return replace(self.settings, lam=float(lam), gradient_step=g)

    def rows(self, k, index=None):
        """Labels and kernel loss weights of problem k on the rows ``index`` (all: None).

        The weights are computed on those rows alone (``class_weight="balanced"``
        balances the training fold) and scaled to average over their total.
        """
        y = self.labels.column(k)
        sw = self.sample_weight
        if index is not None:
            y, sw = y[index], sw[index]
        weight = problem_weight(self.params["class_weight"], y, k, sw, self.classes, self.mode)
        total = sw.sum()
        weight *= (y.size / total) if total > 0 else 0.0
        return y, weight

    def class_index(self):
        """Index into ``classes`` of each sample's class (binary and multi-class targets)."""
        if getattr(self, "_class_index", None) is None:
            if self.mode == "binary":
                self._class_index = (self.labels.column(0) > 0).astype(np.intp)
            else:
                self._class_index = np.zeros(self.n, dtype=np.intp)
                for k in range(self.n_problems):
                    self._class_index[self.labels.column(k) > 0] = k
        return self._class_index

    def own_views(self):
        """:meth:`views` of the problems' own matrix, made once."""
        if getattr(self, "_own_views", None) is None:
            self._own_views = self.views(self.X)
        return self._own_views

    def views(self, X):
        """The kernels' checked views of X: the solver's, and the square solve's of the
        automatic scale (None without it), made once per matrix."""
        entropy = regularizer_named(self.settings.regularizer).entropy
        square = (check_csr(X.data, X.indices, X.indptr, X.shape[1], False)
                  if self.settings.mass == AUTO else None)
        return check_csr(X.data, X.indices, X.indptr, X.shape[1], entropy), square


def _trivial_margins(X, y, settings):
    """Margins ``u0 = y x' grad h(0)`` of the trivial solution (lam -> infinity)."""
    if settings.mass == AUTO:  # w0 = A mu -> 0 with A = ||w_sq||_1 (docs/mathematics.md §14)
        return np.zeros(X.shape[0])
    w0 = regularizer_named(settings.regularizer).trivial_weights(settings.mu, settings.mass)
    if w0 is None:  # square and the balanced rows: w0 = 0
        return np.zeros(X.shape[0])
    return y * (X @ w0)


def _trivial_alpha(X, y, weight, settings):
    """The dual of the trivial solution, ``alpha0_i = -s_i f'(u0_i)`` (docs/mathematics.md §13).

    For the hinge it is exact at every lam >= lam_max; for the other losses it
    is the limit as lam -> infinity. It lies in each loss's dual domain.
    """
    t = settings.gamma + y * settings.theta
    r = t - _trivial_margins(X, y, settings)
    return weight * loss_named(settings.loss).trivial_dual(r)


def _curvature_times(g, settings):
    """``hess h(0) @ g``: the regularizer's curvature at the trivial solution."""
    if settings.mass == AUTO:  # an automatic scale curves as the square (§14)
        return g
    reg = regularizer_named(settings.regularizer)
    return reg.curvature_at_zero(g, settings.mu, settings.mass)


def _problem_lam_max(X, y, weight, settings):
    """lam_max of one binary problem (docs/mathematics.md §13).

    The larger of two onsets, each where the first-order departure from the
    trivial solution, ``v = g0 / (lam n)`` with ``g0 = sum_i alpha0_i z_i``,
    reaches 1: some margin moves by the target margin tau (the loss leaves
    its linear or quadratic piece), ``max_i |z_i' H0 g0| / (n tau)``; and,
    for the entropies, some weight moves by a factor e from the prior (their
    ``w`` is exponential in ``v``), ``max_j |g0_j| / n``.
    """
    alpha0 = _trivial_alpha(X, y, weight, settings)
    g0 = X.T @ (alpha0 * y)
    du = X @ _curvature_times(g0, settings)
    t = np.abs(settings.gamma + y * settings.theta)
    tau = float(t.max()) if t.max() > 0 else 1.0  # the logistic loss's target is 0
    n = X.shape[0]
    onset = float(np.max(np.abs(du))) / (n * tau)
    if regularizer_named(settings.regularizer).entropy and settings.mass != AUTO:
        onset = max(onset, float(np.max(np.abs(g0))) / n)
    return onset


def _lam_max_of(problems):
    values = []
    for k in range(problems.n_problems):
        y, weight = problems.rows(k)
        if np.any((weight > 0) & (y > 0)) and np.any((weight > 0) & (y < 0)):
            values.append(_problem_lam_max(problems.X, y, weight, problems.settings))
    top = max(values, default=0.0)
    if not (np.isfinite(top) and top > 0):
        raise ValueError(
            f"{problems.name}: no default lam grid for this data (the "
            f"trivial solution's margins do not move: every binary problem has a single "
            f"class, or X is zero); pass lams explicitly."
        )
    return top


def lam_max(X, y, *, sample_weight=None, **params):
    """The largest useful ``lam``: above it the solution is the trivial one.

    Every binary problem of ``DualGaussSeidelClassifier(**params).fit(X, y)``
    is considered and the largest value is returned. For the hinge loss with
    the square regularizer it is exact: for ``lam >= lam_max`` every example
    is a bound support vector and ``w`` is the weighted class centroid over
    ``lam n`` (its predictions no longer change). For the other pairs it is
    where the first-order departure from the trivial solution moves some
    margin by the target margin (docs/mathematics.md §13).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
    sample_weight : array-like of shape (n_samples,), default=None
    **params
        Parameters of :class:`~textwin.DualGaussSeidelClassifier` (``loss``,
        ``regularizer``, ``fit_intercept``, ``theta``, ``prior``, ...).

    Returns
    -------
    lam_max : float
    """
    return _lam_max_of(_Problems(DualGaussSeidelClassifier(**params), X, y, sample_weight))


def lam_grid(lam_top, n_lams=_DEFAULT_N_LAMS, min_ratio=_DEFAULT_MIN_RATIO):
    """``n_lams`` values from ``lam_top`` down to ``lam_top * min_ratio``, evenly on a log scale."""
    if n_lams == 1:
        return np.array([float(lam_top)])
    return float(lam_top) * np.logspace(0.0, math.log10(min_ratio), int(n_lams))


def _check_lams(name, lams):
    """Descending unique lams from a user's array (one-line errors)."""
    try:
        arr = np.asarray(lams, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: lams must be an int or an array of numbers, got {lams!r}.") from None
    arr = np.ravel(arr)
    if arr.size == 0:
        raise ValueError(f"{name}: lams is empty; pass an int (grid size) or lam values > 0.")
    bad = arr[~(np.isfinite(arr) & (arr > 0))]
    if bad.size:
        raise ValueError(f"{name}: every lam must be a finite number > 0, got {bad[0]!r} in "
                         f"lams; pass values such as np.logspace(-1, -5, 9).")
    return np.unique(arr)[::-1].copy()


def _resolve_lams(name, lams, min_ratio, problems, anchor=None):
    if isinstance(lams, Integral) and not isinstance(lams, bool):
        if lams < 1:
            raise ValueError(f"{name}: lams={lams} grid points; use an int >= 1 or an array.")
        if not (isinstance(min_ratio, Real) and 0 < min_ratio < 1):
            raise ValueError(f"{name}: lam_min_ratio must be in (0, 1), got {min_ratio!r}.")
        grid = lam_grid(_lam_max_of(problems), lams, min_ratio)
        if anchor is None or grid.size < 2 or not 0 < anchor < grid[0]:
            return grid
        # shifted down by less than a step, so that a point falls on the anchor
        step = grid[0] / grid[1]
        above = math.floor(math.log(grid[0] / anchor) / math.log(step) + 1e-9)
        return anchor * step ** (above - np.arange(grid.size, dtype=np.float64))
    return _check_lams(name, lams)


# ---------------------------------------------------------------------------
# The path of one binary problem
# ---------------------------------------------------------------------------


def _solve_path(problems, views, X_rows, y, weight, lams, seed, on_point, start=None):
    """Solve one binary problem along the descending ``lams``, warm-started.

    The first point starts from the trivial solution's dual (rescaled from
    lam_max when ``lams[0]`` is smaller); each next one
    from the previous solution scaled by ``lam_new / lam_old``, which keeps
    ``v`` and so ``w = grad h(v)`` unchanged and stays in every loss's dual
    domain (docs/mathematics.md §13). Algorithm 2 restarts its multiplier at
    the previous bias. ``views``: :meth:`_Problems.views` of ``X_rows``.
    ``on_point(l, out, alpha, bias)`` receives each
    solution (``bias``: the model's bias before ``theta``). ``start``: the
    ``(alpha, sigma)`` to continue from; returns where the path stopped.
    """
    s = problems.settings
    n_rows = y.size
    Xc, X_square = views
    if start is not None:  # a path continued: (alpha, sigma) already at lams[0]
        # a copy: updated in place (a task's argument may be a read-only view, on Ray)
        alpha, sigma = np.array(start[0], dtype=np.float64), start[1]
    else:
        alpha, sigma = np.ascontiguousarray(_trivial_alpha(X_rows, y, weight, s)), 0.0
        top = _problem_lam_max(X_rows, y, weight, s)
        if top > lams[0]:  # rescaled from lam_max, as between points: |v_j| <= 1 at the start
            alpha *= lams[0] / top
    for l, lam in enumerate(lams):
        if l > 0:
            alpha *= lam / lams[l - 1]
        out = solve_binary_problem(Xc, y, weight, alpha, problems.at(lam, n_rows), seed,
                                   sigma0=sigma, X_square=X_square)
        own_bias = s.intercept == "constant_feature" and not out["constant"]
        bias = out["w"][-1] if own_bias else out["bias"]
        if s.intercept in ("converged", "paper") and not out["constant"]:
            sigma = out["bias"]
        on_point(l, out, alpha, bias)
    return alpha, sigma


def regularization_path(X, y, lams=_DEFAULT_N_LAMS, *, sample_weight=None,
                        lam_min_ratio=_DEFAULT_MIN_RATIO, **params):
    """Solve every binary problem along a descending grid of ``lam``, warm-started.

    Each point stops on the relative duality gap (``tol``) as a single fit
    does and equals a cold fit at that ``lam`` to that precision; it starts
    from the previous point's dual solution, rescaled so that the weights
    carry over (docs/mathematics.md §13).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
        Binary, multi-class or multi-label targets, as for
        :class:`~textwin.DualGaussSeidelClassifier`.
    lams : int or array-like of float, default=10
        The grid (sorted descending, duplicates dropped), or the number of
        points from :func:`lam_max` down to ``lam_max * lam_min_ratio``.
    sample_weight : array-like of shape (n_samples,), default=None
    lam_min_ratio : float in (0, 1), default=1e-4
        Bottom of the default grid, relative to its top.
    **params
        Parameters of :class:`~textwin.DualGaussSeidelClassifier` (``loss``,
        ``regularizer``, ``tol``, ``fit_intercept``, ``n_jobs``, ...; not ``lam``).

    Returns
    -------
    path : :class:`~sklearn.utils.Bunch`
        ``lams`` (n_lams,), descending; ``coef`` (n_lams, n_problems,
        n_features); ``intercept`` (n_lams, n_problems), with ``theta``
        subtracted as in ``intercept_``; ``dual_coef`` (n_lams, n_problems,
        n_samples); ``duality_gap`` (relative, n_lams, n_problems);
        ``n_iter`` (epochs, n_lams, n_problems); ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> from textwin import regularization_path
    >>> X = np.array([[1., 0.], [0.9, 0.2], [0., 1.], [0.1, 0.8]])
    >>> path = regularization_path(X, [1, 1, 0, 0], lams=[1e-1, 1e-2], tol=1e-6)
    >>> path.coef.shape, bool(np.all(path.duality_gap <= 1e-6))
    ((2, 1, 2), True)
    """
    if "lam" in params:
        raise TypeError("regularization_path takes lams (the grid), not lam.")
    est = DualGaussSeidelClassifier(**params)
    problems = _Problems(est, X, y, sample_weight)
    lams = _resolve_lams("regularization_path", lams, lam_min_ratio, problems)
    L, K, n, d = lams.size, problems.n_problems, problems.n, problems.d_user
    coef, intercept, dual = np.empty((L, K, d)), np.empty((L, K)), np.empty((L, K, n))
    theta = problems.settings.theta

    def keep(l, k, out, alpha, bias):
        coef[l, k] = out["w"][:d]
        intercept[l, k] = bias - theta
        dual[l, k] = alpha

    gap, n_iter, _ = _every_path("regularization_path", problems, lams, keep)
    return Bunch(lams=lams, coef=coef, intercept=intercept, dual_coef=dual, duality_gap=gap,
                 n_iter=n_iter, classes=problems.classes)


def _every_path(name, problems, lams, keep, starts=None):
    """Solve every problem's path along ``lams`` in the thread pool; ``keep(l, k, out,
    alpha, bias)`` receives each point. ``starts``: each problem's ``(alpha, sigma)`` at
    ``lams[0]``, to continue from. Returns the gaps and epochs (n_lams, n_problems) and
    where each path stopped, and warns about the points that stopped before ``tol``."""
    L, K = lams.size, problems.n_problems
    gap, n_iter = np.empty((L, K)), np.empty((L, K), dtype=int)
    views = problems.own_views()
    failures, ends = [], [None] * K

    def solve(k):
        y_k, weight = problems.rows(k)

        def record(l, out, alpha, bias):
            keep(l, k, out, alpha, bias)
            gap[l, k], n_iter[l, k] = out["gap"], out["n_epochs"]
            if not out["converged"]:
                failures.append((lams[l], k, out["gap"]))

        ends[k] = _solve_path(problems, views, problems.X, y_k, weight, lams,
                              int(problems.seeds[k]), record,
                              None if starts is None else starts[k])

    map_problems(solve, K, problems.params["n_jobs"])
    _warn_path_failures(name, failures, L * K, problems.params["tol"], stacklevel=4)
    return gap, n_iter, ends


def held_out_path_scores(X, y, X_held_out, lams, *, sample_weight=None, warm_start=None,
                         **params):
    """The scores of held-out rows along the warm-started path of (X, y).

    :func:`regularization_path` without its weights: each point's model
    scores ``X_held_out`` and only the scores are kept, so that a
    cross-validation over a vocabulary of millions of terms holds
    ``n_lams x n_held_out x n_problems`` numbers per fold, not the weights.
    A path can be solved a piece at a time (``warm_start``), to stop it where
    its scores say it is past its best: the pieces' points are those of one
    call over the whole grid.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
    X_held_out : {array-like, sparse matrix} of shape (n_held_out, n_features)
    lams : array-like of float
        The grid, solved in descending order (duplicates dropped).
    sample_weight : array-like of shape (n_samples,), default=None
    warm_start : the ``state`` of an earlier call, default=None
        Continue that call's paths (same ``X``, ``y`` and parameters; other
        labels or parameters are refused); its last ``lam`` must be above
        ``lams[0]``. Given the same ``X`` object, the call reuses the training
        matrix the earlier one prepared.
    **params
        Parameters of :class:`~textwin.DualGaussSeidelClassifier` (not ``lam``).

    Returns
    -------
    path : :class:`~sklearn.utils.Bunch`
        ``lams`` (n_lams,), descending; ``scores`` (n_lams, n_held_out,
        n_problems), ``decision_function``'s values with one column per
        binary problem (one for binary ``y``); ``duality_gap`` and ``n_iter``
        (n_lams, n_problems); ``classes``; ``state``: where the paths stopped,
        for ``warm_start`` (``lam``, ``paths``, ``params``, ``y``), and
        ``state.prepared``, the prepared copy of the training matrix: set it to
        None to let that copy go when the next piece gives another matrix.
    """
    name = "held_out_path_scores"
    if "lam" in params:
        raise TypeError(f"{name} takes lams (the grid), not lam.")
    est = DualGaussSeidelClassifier(**params)
    if warm_start is not None:
        _check_continuation(name, warm_start, y, est)
    problems = _prepared(warm_start, X, sample_weight)
    if problems is None:
        problems = _Problems(est, X, y, sample_weight)
    lams = _check_lams(name, lams)
    X_held_out = as_canonical_csr(X_held_out)
    if X_held_out.shape[1] != problems.d_user:
        raise ValueError(f"{name}: X_held_out has {X_held_out.shape[1]} "
                         f"features, X has {problems.d_user}.")
    starts = None if warm_start is None else _continued(name, warm_start, problems, lams[0])
    d, theta = problems.d_user, problems.settings.theta
    scores = np.empty((lams.size, X_held_out.shape[0], problems.n_problems))

    def keep(l, k, out, alpha, bias):
        scores[l, :, k] = X_held_out @ out["w"][:d] + (bias - theta)

    gap, n_iter, ends = _every_path(name, problems, lams, keep, starts)
    state = Bunch(lam=float(lams[-1]), paths=ends, params=problems.params,
                  y=y.copy() if sp.issparse(y) else np.array(y),
                  prepared=Bunch(problems=problems, X=X, sample_weight=sample_weight))
    return Bunch(lams=lams, scores=scores, duality_gap=gap, n_iter=n_iter,
                 classes=problems.classes, state=state)


def _check_continuation(name, state, y, estimator):
    """Refuse a ``warm_start`` solved on other labels or with other parameters: its
    solutions are no start of this path."""
    params = estimator._all_params()
    old = getattr(state, "params", None)
    if old is not None and (old.keys() != params.keys()
                            or not all(_equal(old[k], params[k]) for k in params)):
        raise ValueError(f"{name}: warm_start was solved with other parameters; continue "
                         "a path with the parameters it began with.")
    old_y = getattr(state, "y", None)  # (another number of samples: said below)
    if (old_y is not None and getattr(y, "shape", np.shape(y)) == old_y.shape
            and not _same_labels(y, old_y)):
        raise ValueError(f"{name}: warm_start was solved on other labels; continue a path "
                         "with the labels it began with.")


def _prepared(state, X, sample_weight):
    """The problems ``state``'s call prepared, when this call gives the same matrix (the
    same object) and no weights: a path continued in pieces validates and copies its
    matrix once."""
    prepared = getattr(state, "prepared", None)
    if (prepared is None or prepared.X is not X or sample_weight is not None
            or prepared.sample_weight is not None):
        return None
    return prepared.problems


def _same_labels(y, old):
    """Are the labels ``y`` those of ``old`` (arrays, or sparse indicator matrices)?"""
    if sp.issparse(y) or sp.issparse(old):
        return (sp.issparse(y) and sp.issparse(old) and y.shape == old.shape
                and (y != old).nnz == 0)
    y = np.asarray(y)
    return y.shape == old.shape and np.array_equal(y, old)


def _equal(a, b):
    try:
        return a is b or bool(a == b)
    except (TypeError, ValueError):  # arrays
        return np.array_equal(a, b)


def _continued(name, state, problems, lam):
    """Each problem's ``(alpha, sigma)`` of ``state`` rescaled to ``lam``, as between the
    points of one path (:func:`_solve_path`)."""
    paths = getattr(state, "paths", None)
    if paths is None or len(paths) != problems.n_problems or any(
            np.shape(alpha) != (problems.n,) for alpha, _ in paths):
        raise ValueError(f"{name}: warm_start is not the state of a path of these "
                         f"{problems.n_problems} problems on {problems.n} samples.")
    if not lam < state.lam:
        raise ValueError(f"{name}: warm_start ended at lam={state.lam:g}; continue it below, "
                         f"not at lam={lam:g}.")
    return [(alpha * (lam / state.lam), sigma) for alpha, sigma in paths]


class _Worded:
    """A warning whose problems and advice are worded by whoever shows it.

    The message names label columns and the API's parameters (``API_NAMES``);
    a front end renders it in its own words with :meth:`render` (the command
    line names categories and its options).
    """

    API_NAMES = {"max_epochs": "max_epochs", "tol": "tol",
                 "search_lower": "a smaller lam_min_ratio",
                 "search_given": "smaller values in lams",
                 "avoid_smallest": ", a larger lam_min_ratio avoids them"}

    def __init__(self, template, problems=(), estimator=""):
        self.template, self.problems, self.estimator = template, list(problems), estimator
        super().__init__(self.render(self.API_NAMES))

    def render(self, names, describe=None, estimator=None):
        """The message with the parameters called ``names[key]``, problem k
        called ``describe(k)`` (default: "label column k", "problem k") and the
        estimator called ``estimator`` (default: its class)."""
        if describe is None:
            what = f"label column(s) {self.problems}"
            one = f"problem {self.problems[0]}" if self.problems else ""
        else:
            shown = [str(describe(k)) for k in self.problems[:10]]
            more = len(self.problems) - len(shown)
            what = (f"categor{'y' if len(self.problems) == 1 else 'ies'} {', '.join(shown)}"
                    + (f" and {more} more" if more else ""))
            one = shown[0] if shown else ""
        return self.template.format(problems=what, problem=one,
                                    estimator=estimator or self.estimator, **names)


#: What a class smaller than the folds does to DualGaussSeidelClassifierCV's choice.
SMALL_CLASS_NOISE = ("some folds train or test without it, which makes its part of the CV "
                     "score noisy")


def fold_shortfall(counts, names, folds, noun):
    """The classes smaller than ``folds``, in words: the smallest (or, when every class is,
    the largest) with its count of training ``noun`` ("texts", "documents")."""
    counts = np.asarray(counts)
    if counts.max() < folds:
        k = int(np.argmax(counts))
        return (f"every class has fewer training {noun} than the {folds} folds (the "
                f"largest, {_label(names[k])!r}, has {int(counts[k])})")
    k, short = int(np.argmin(counts)), int((counts < folds).sum())
    many = f" (the smallest of {short} such classes)" if short > 1 else ""
    return (f"class {_label(names[k])!r} has {int(counts[k])} training "
            f"{noun if counts[k] != 1 else noun[:-1]}, fewer than the {folds} folds{many}")


def _label(x):
    return x.item() if isinstance(x, np.generic) else x


class LamGridWarning(_Worded, UserWarning):
    """The cross-validation's best ``lam`` is the smallest of its grid."""


class PathConvergenceWarning(_Worded, ConvergenceWarning):
    """Some path points stopped before their duality gap reached ``tol``."""


def _warn_path_failures(name, failures, total, tol, stacklevel=3):
    if not failures:
        return
    lam, k, worst = max(failures, key=lambda f: f[2])
    warnings.warn(PathConvergenceWarning(
        f"{{estimator}}: {len(failures)} of {total} path points stopped before the relative "
        f"duality gap reached {{tol}}={tol:g} (worst {worst:.3g}, {{problem}} at "
        f"lam={lam:.3g}). Raise {{max_epochs}} or loosen {{tol}}; the smallest lams are the "
        f"hardest{{avoid_smallest}}.", [k], name), stacklevel=stacklevel)


# ---------------------------------------------------------------------------
# Scoring a path point
# ---------------------------------------------------------------------------


def _snapshot(params, coef, intercept, classes, mode):
    """A fitted DualGaussSeidelClassifier holding given weights (for scikit-learn scorers)."""
    est = DualGaussSeidelClassifier(**params)
    est.coef_, est.intercept_ = coef, intercept
    est.classes_, est._label_mode, est._sparse_labels = classes, mode, False
    est.n_features_in_ = coef.shape[1]
    return est


class _Scoring:
    """How a held-out fold is scored: micro break-even point or a scikit-learn scorer."""

    def __init__(self, scoring, estimator):
        self.name = scoring
        task = estimator._label_mode
        # textwin's own scorings, of the decision the model makes (textwin._lam_choice)
        self.native = scoring is None or (isinstance(scoring, str) and scoring in SCORINGS)
        self.rule = estimator.thresholds or "zero"
        if self.native:
            self.name = check_choice(task, scoring, self.rule, type(estimator).__name__)
        elif self.rule != "zero":
            raise ValueError(f"{type(estimator).__name__}: thresholds={estimator.thresholds!r} "
                             f"is scored by textwin's own scorings; use scoring=None or one "
                             f"of {', '.join(SCORINGS)}.")
        self.bep = self.name == MICRO_BEP
        self.scorer = None
        if not self.bep and not self.native:
            self.scorer = (check_scoring(estimator, scoring=scoring) if callable(self.name)
                           else get_scorer(self.name))
        self.params = {k: v for k, v in estimator.get_params(deep=False).items()
                       if k in DualGaussSeidelClassifier().get_params(deep=False)}

    def binary_counts(self, y_true, scores):
        """(TP at the break-even cutoff, positives) of one binary problem on one fold."""
        pos = y_true > 0
        npos = int(pos.sum())
        if npos == 0:
            return 0.0, 0
        return float(breakeven_points(pos, scores, zero_division=0.0)[0]) * npos, npos

    def score(self, X, y, coef, intercept, classes, mode):
        """A scorer's value of the model (coef, intercept) on (X, y); NaN if undefined."""
        est = _snapshot(self.params, coef, intercept, classes, mode)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # undefined metrics: NaN, reported by the caller
                value = float(self.scorer(est, X, y))
        except ValueError:  # e.g. ROC AUC of a fold with one class
            return np.nan
        return value if np.isfinite(value) else np.nan


# ---------------------------------------------------------------------------
# Paths on every fold and problem
# ---------------------------------------------------------------------------

_FLOOR = 1e-8  # an automatic grid extends down to lam_max * _FLOOR at most
# Below this many held-out positives (all folds together), a label column's break-even
# point moves in steps of a tenth or more: too coarse to tell lams apart
_FEW_POSITIVES = 10


def _fold_matrices(problems, train, test, X_train=None):
    """A fold's training CSR (cut here unless given), its kernel views (shared by its
    problems) and held-out rows."""
    if X_train is None:
        X_train = as_canonical_csr(problems.X[train])
    return problems.views(X_train), X_train, problems.X_user[test]


def _held_out_path(problems, scoring, shared, fold, matrices, k, lams, start):
    """Problem k's path on one fold along ``lams``, each point scored on the held-out rows.

    Returns ``(points, state)``: per lam, ``(epochs, constant, converged,
    gap, value)`` with ``value`` the held-out scores (lam shared), the
    break-even counts ``(tp, npos)`` or the scorer's value; ``state``: where
    the path stopped (see :func:`_solve_path`).
    """
    train, test = fold
    views, X_train, X_test = matrices
    theta, d = problems.settings.theta, problems.d_user
    y_k, weight = problems.rows(k, train)
    y_test = problems.labels.column(k)[test]
    points = []

    def record(l, out, alpha, bias):
        scores = X_test @ out["w"][:d] + (bias - theta)
        if shared:
            value = scores
        elif scoring.bep:
            value = scoring.binary_counts(y_test, scores)
        else:
            value = scoring.score(X_test, (y_test > 0).astype(int), out["w"][None, :d],
                                  np.array([bias - theta]), np.array([0, 1]), "binary")
        points.append((out["n_epochs"], out["constant"], out["converged"], out["gap"], value))

    state = _solve_path(problems, views, X_train, y_k, weight, lams, int(problems.seeds[k]),
                        record, start)
    return points, state


def _held_out_path_task(shipment, i, f, k, start, lams):
    """Path (fold f, problem k) along ``lams``, run as a task on a cluster's worker.

    ``shipment.payload`` (on this worker once per fit): ``problems``,
    ``scoring``, ``shared`` and ``folds``, and on Ray ``fold_X``, the folds'
    training matrices (cut once by the client and mapped from the object
    store, rather than cut again by every worker process); a fold's matrices
    are made once per worker, shared by its tasks at every step. ``start``:
    where the path stopped before.
    """
    P = shipment.payload
    given = P.get("fold_X")
    matrices = shipment.cached(("fold", f), lambda P: _fold_matrices(
        P["problems"], *P["folds"][f], X_train=None if given is None else given[f]))
    return _held_out_path(P["problems"], P["scoring"], P["shared"], P["folds"][f], matrices, k,
                          lams, start)


def _refit_problem(problems, views, k, lam, alpha):
    """Problem k on all the data at ``lam``, from alpha = 0 (``alpha`` receives the solution)."""
    y, weight = problems.rows(k)
    alpha[:] = 0.0
    return solve_binary_problem(views[0], y, weight, alpha, problems.at(lam, problems.n),
                                int(problems.seeds[k]), X_square=views[1])


def _refit_task(shipment, k, lam):
    """The cross-validation's refit of problem k, run as a task on a Dask worker."""
    problems = shipment.payload["problems"]
    views = shipment.cached("all", lambda P: problems.views(problems.X))
    alpha = np.empty(problems.n)
    out = _refit_problem(problems, views, k, lam, alpha)
    out["alpha"] = alpha
    return out


class _FoldPaths:
    """The warm-started paths of every (fold, binary problem), scored on the held-out fold.

    :meth:`extend` solves the next lams of every path in the thread pool (on
    joblib's Dask cluster, as tasks: docs/scaling.md), continuing from where
    each stopped; the scores and epochs grow by as many columns. On a
    cluster, the data goes to the workers once for every step (``data``,
    released by :meth:`close`).
    """

    def __init__(self, estimator, problems, scoring, folds):
        self.estimator, self.problems, self.scoring, self.folds = estimator, problems, scoring, folds
        # the held-out scores are kept where the choice reads them: a shared lam, or
        # textwin's scorings of the model's decision (every problem's scores at once)
        self.shared = problems.mode != "multilabel" or scoring.native
        F, K = len(folds), problems.n_problems
        self.n_tasks = F * K
        self.lams = np.zeros(0)
        self.path_iter = np.zeros((F, K, 0), dtype=int)
        self.held = [np.zeros((test.size, K, 0)) for _, test in folds]  # shared: scores
        self.col_scores, self.tp = np.zeros((K, F, 0)), np.zeros((K, F, 0))
        self.npos = np.zeros((K, F))
        self.solved = np.zeros((K, 0), dtype=bool)  # the problems' paths reached that lam
        self.fold_scores = np.zeros((F, 0))  # shared lam: the whole model's score per fold
        self.failures, self.constant = [], set()
        self.truth = np.column_stack([problems.labels.column(k) > 0 for k in range(K)])
        self.fold_of = fold_of(folds, problems.n)
        self.cluster = active_cluster()
        if self.cluster is None:
            self.data, self.matrices = None, [_fold_matrices(problems, *fold) for fold in folds]
        else:
            self.matrices = None
            payload = dict(problems=problems, scoring=scoring, shared=self.shared, folds=folds)
            if self.cluster.read_per_task:  # Ray: one copy of each fold per machine
                payload["fold_X"] = [as_canonical_csr(problems.X[train]) for train, _ in folds]
            self.data = Scattered(self.cluster, payload, "textwin-cv")
        self.state = [None] * self.n_tasks  # (alpha, sigma) where each path stopped

    def extend(self, lams, bar, active=None):
        """Solve ``lams`` on every path of the ``active`` problems (default: all);
        the others' scores at these lams are NaN and their paths end."""
        problems, scoring, shared = self.problems, self.scoring, self.shared
        F, K, L = len(self.folds), problems.n_problems, lams.size
        all_lams = np.concatenate([self.lams, lams])
        path_iter = np.zeros((F, K, L), dtype=int)
        held = [np.empty((test.size, K, L)) for _, test in self.folds]
        col_scores, tp = np.full((K, F, L), np.nan), np.zeros((K, F, L))
        lock = threading.Lock()

        tasks = [j for j in range(self.n_tasks) if active is None or active[j % K]]

        def start(j):
            if self.state[j] is None:
                return None
            alpha, sigma = self.state[j]
            return alpha * (lams[0] / self.lams[-1]), sigma

        def store(i, result):
            j = tasks[i]
            f, k = divmod(j, K)
            points, self.state[j] = result
            for l, (epochs, constant, converged, gap, value) in enumerate(points):
                path_iter[f, k, l] = epochs
                if constant:
                    self.constant.add(k)
                elif not converged:
                    self.failures.append((lams[l], k, gap))
                if shared:
                    held[f][:, k, l] = value
                elif scoring.bep:
                    tp[k, f, l], self.npos[k, f] = value
                    if self.npos[k, f]:
                        col_scores[k, f, l] = tp[k, f, l] / self.npos[k, f]
                else:
                    col_scores[k, f, l] = value
            with lock:
                bar.update(L)

        if self.cluster is None:  # threads over each fold's one matrix
            def task(i):
                f, k = divmod(tasks[i], K)
                store(i, _held_out_path(problems, scoring, shared, self.folds[f],
                                        self.matrices[f], k, lams, start(tasks[i])))

            map_problems(task, len(tasks), self.estimator.n_jobs)
        else:  # one task per path on joblib's Dask or Ray cluster (docs/scaling.md)
            map_on_cluster(self.cluster, _held_out_path_task, self.data, len(tasks),
                           extra=lambda i: (*divmod(tasks[i], K), start(tasks[i]), lams),
                           on_result=store,
                           describe=lambda i: "fold %d's path of problem %d" % divmod(tasks[i], K))
        self.lams = all_lams
        self.path_iter = np.concatenate([self.path_iter, path_iter], axis=2)
        self.held = [np.concatenate([a, b], axis=2) for a, b in zip(self.held, held)]
        self.col_scores = np.concatenate([self.col_scores, col_scores], axis=2)
        self.tp = np.concatenate([self.tp, tp], axis=2)
        reached = np.ones(K, dtype=bool) if active is None else active.copy()
        self.solved = np.concatenate([self.solved, np.repeat(reached[:, None], L, axis=1)], axis=1)

    def close(self):
        """Release the data on the cluster's workers."""
        if self.data is not None:
            self.data.release()
            self.data = None


# ---------------------------------------------------------------------------
# The cross-validated estimator
# ---------------------------------------------------------------------------


class DualGaussSeidelClassifierCV(DualGaussSeidelClassifier):
    """:class:`DualGaussSeidelClassifier` with ``lam`` chosen by cross-validation.

    For every fold and binary problem, a warm-started regularization path
    over ``lams`` (:func:`regularization_path`, docs/mathematics.md §13) scores
    the held-out fold. By default every document's out-of-fold scores are
    judged at the decision the fitted model will make (:func:`select_lam`):
    a label where its score is above 0, or above the thresholds tuned on the
    other folds' scores (``thresholds``); a class by the argmax. The lam of
    the best mean score over the folds (micro-F1 for multi-label targets,
    accuracy for single-label ones; ``scoring``) is shared by every binary
    problem; ties go to the larger ``lam``. Then every problem is refit on
    all the data at the choice. A scikit-learn scorer, or
    ``"micro_breakeven_point"``, instead scores each label column of a
    multi-label target on its own and chooses a ``lam`` per column. Folds
    and problems run together in ``n_jobs`` threads (inside
    ``joblib.parallel_config(backend="dask")``, as tasks on the Dask
    cluster: docs/scaling.md); results do not depend on ``n_jobs`` or the
    cluster.

    Parameters
    ----------
    loss, regularizer, tol, max_epochs, fit_intercept, intercept_solver, rho0, \
intercept_tol, theta, gamma, prior, mass, shuffle, random_state, n_jobs, step, \
step_fraction, gradient_step, exp_cap, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier` (``verbose >= 1``: a progress
        bar over folds x problems x lams on a terminal).
    lams : int or array-like of float, default=10
        The grid of ``lam`` (sorted descending, duplicates dropped), or the
        number of points from :func:`lam_max` of the training data down to
        ``lam_max * lam_min_ratio``, evenly on a log scale. Such a grid is
        continued below its bottom, three points at a time (down to
        ``lam_max * 1e-8``), while some problem's score at the smallest
        ``lam`` so far beats all others by more than a standard error (over
        the folds); a given array is searched as it is. A warning says when
        the smallest ``lam`` searched scores best.
    lam_min_ratio : float in (0, 1), default=1e-4
        Bottom of the first grid, relative to its top (four decades).
    lam_anchor : float or None, default=None
        A ``lam`` that a grid from the data passes through (such as the
        default ``1/n``): the grid is shifted down by less than one of its
        steps so that a point falls on it, and the choice is never between
        two points around it.
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (``check_cv``): an int is ``StratifiedKFold`` for
        binary and multi-class targets, ``KFold`` for multi-label ones,
        without shuffling.
    scoring : str, callable or None, default=None
        textwin's scorings of the model's decision: ``"micro-f1"`` (None for
        multi-label targets), ``"accuracy"`` (None for binary and
        multi-class targets; exact match of a multi-label row),
        ``"macro-f1"`` (over the labels or classes on the fold, both classes
        of a binary target) or ``"breakeven"`` (micro-averaged break-even
        point of the ranking). Otherwise a scikit-learn scorer name or
        callable, or ``"micro_breakeven_point"``: for multi-label targets
        each label column is then scored as a binary problem and gets its own
        ``lam``, and folds where it is undefined (a column without positives
        in the held-out fold) are left out of that column's mean, with a
        warning.
    thresholds : {None, "f1", "breakeven"}, default=None
        The decision of a multi-label or binary model: None, score > 0;
        otherwise per-label thresholds tuned for F1 or the break-even point,
        both in the cross-validation (each fold's from the other folds'
        scores) and in the fitted model (``thresholds_``, from every
        out-of-fold score at the chosen ``lam``; ``predict`` applies them). A
        label with fewer positives than folds keeps 0.
    one_se : bool, default=False
        Take the largest ``lam`` whose mean score is within one standard
        error (over the folds) of the best: the most regularized model the
        folds cannot tell from it, for noisy curves.
    early_stopping : bool, default=True
        Stop descending a problem's paths (all of them, when lam is shared)
        once its mean held-out score has been more than one standard error
        (over the folds) below its best at two lams in a row: the path is past its optimum, and the
        smaller lams, the costliest to solve, are left out (NaN in
        ``cv_scores_`` and 0 in ``path_n_iter_`` for that problem; with a
        shared lam, ``lams_`` ends there). As liblinear's ``-C`` search
        stops. False solves the whole grid.

    Attributes
    ----------
    lams_ : ndarray of shape (n_lams,)
        The grid searched, descending (continued or cut short as
        ``lams`` and ``early_stopping`` say).
    lam_ : ndarray of shape (n_problems,)
        The chosen ``lam`` of each binary problem (all equal when shared).
    cv_scores_ : ndarray of shape (n_folds, n_lams) or (n_problems, n_folds, n_lams)
        The held-out score of every fold and ``lam``: of the whole model when
        ``lam`` is shared, of each label column when it is per problem (NaN
        where undefined: a fold without a positive of the column).
    thresholds_ : ndarray of shape (n_problems,)
        With ``thresholds``: the tuned decision thresholds.
    best_score_ : float
        The cross-validated score of the choice: its mean over the folds
        (``"micro_breakeven_point"``: the pooled true positives at each
        column's ``lam`` over the pooled positives, all folds).
    scoring_ : str or callable
        The scoring used.
    path_n_iter_ : ndarray of shape (n_folds, n_problems, n_lams)
        Epochs of every path point (the path's cost).
    classes_, coef_, intercept_, dual_coef_, duality_gap_, gap_history_, \
n_iter_, intercept_solver_, intercept_residual_, n_rounds_, n_features_in_
        Of the final fit, as in :class:`DualGaussSeidelClassifier`.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from textwin import DualGaussSeidelClassifierCV
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> clf = DualGaussSeidelClassifierCV(lams=5, cv=3, random_state=0).fit(X, y)
    >>> clf.lams_.shape, clf.cv_scores_.shape
    ((5,), (3, 5))
    """

    def __init__(
        self,
        loss="hinge",
        regularizer="square",
        lams=_DEFAULT_N_LAMS,
        lam_min_ratio=_DEFAULT_MIN_RATIO,
        lam_anchor=None,
        cv=5,
        scoring=None,
        thresholds=None,
        one_se=False,
        early_stopping=True,
        tol=1e-3,
        max_epochs=1000,
        fit_intercept=False,
        intercept_solver="auto",
        rho0=1.0,
        intercept_tol=1e-6,
        theta=0.0,
        gamma=None,
        prior="auto",
        mass="auto",
        shuffle=True,
        random_state=None,
        n_jobs=None,
        step="auto",
        step_fraction=1.0,
        gradient_step=None,
        exp_cap=math.log(2) / 2,
        class_weight=None,
        verbose=0,
    ):
        store_params(self, locals())

    @classmethod
    def from_estimator(cls, estimator, **params):
        """The cross-validated version of a :class:`DualGaussSeidelClassifier` or preset.

        Every setting of ``estimator`` (a preset's fixed loss and regularizer
        included) but ``lam`` and ``warm_start``, updated by ``params``
        (``lams``, ``cv``, ``scoring``, ...).
        """
        settings = estimator._all_params()
        for key in ("lam", "warm_start"):
            settings.pop(key)
        return cls(**{**settings, **params})

    def fit(self, X, y, sample_weight=None):
        """Choose ``lam`` by cross-validation, then fit every problem at its choice.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the training folds' losses (the held-out scores are unweighted).

        Returns
        -------
        self : object
        """
        name = type(self).__name__
        before = dict(vars(self))  # the model so far, whole again if this fit fails
        try:
            problems = _Problems(self, X, y, sample_weight)
            if self.lam_anchor is not None and not (isinstance(self.lam_anchor, Real)
                                                    and self.lam_anchor > 0):
                raise ValueError(f"{name}: lam_anchor must be a number > 0 or None, got "
                                 f"{self.lam_anchor!r}.")
            lams = _resolve_lams(name, self.lams, self.lam_min_ratio, problems, self.lam_anchor)
            scoring = _Scoring(self.scoring, self)
            folds = self._folds(problems, y)
            run = _FoldPaths(self, problems, scoring, folds)
            try:
                self._cross_validate(name, run, lams)
                vars(self).pop("thresholds_", None)
                self._tune_thresholds(run)
                self._refit(problems, run)
            finally:
                run.close()
        except BaseException:  # bad settings found late, a lost cluster, an interrupt: no
            vars(self).clear()  # new n_features_in_ or lam_ over the old coef_
            vars(self).update(before)
            raise
        return self

    def _cross_validate(self, name, run, lams):
        """Run the paths down ``lams`` (and below, see :meth:`fit`); set lams_ and the choice."""
        bar = tqdm(total=run.n_tasks * lams.size, desc=f"{name} (folds x problems x lams)",
                   unit="fit", file=sys.stderr, leave=False,
                   disable=not self.verbose or not sys.stderr.isatty())
        active = np.ones(run.problems.n_problems, dtype=bool)
        try:
            self._descend(run, lams, active, bar)
            # A grid from the data continues its warm-started paths below its
            # bottom while some problem's score still rises there by more than
            # a standard error (three more points at a time, to lam_max * 1e-8).
            auto = isinstance(self.lams, Integral) and lams.size > 1
            while (auto and (active & self._rising_at_the_bottom(run)).any()
                   and run.lams[-1] > lams[0] * _FLOOR):
                more = run.lams[-1] * (lams[1] / lams[0]) ** np.arange(1, 4)
                self._descend(run, more[more >= lams[0] * _FLOOR * lams[1] / lams[0]],
                              active, bar)
        finally:
            bar.close()
        _warn_path_failures(name, run.failures, run.n_tasks * run.lams.size,
                            run.problems.settings.tol, stacklevel=4)
        if run.shared and not np.isfinite(run.fold_scores).all():
            warnings.warn(f"{name}: the scoring {run.scoring.name!r} is undefined on some "
                          f"held-out folds; they are left out of the mean.", UserWarning,
                          stacklevel=3)
        self.lams_, self.scoring_, self.path_n_iter_ = run.lams, run.scoring.name, run.path_iter
        self._warn_at_the_bottom(run.lams, run.constant)

    def _descend(self, run, lams, active, bar):
        """Solve ``lams`` one after another on the active problems' paths, choosing as it goes.

        With ``early_stopping``, a problem (every problem, when lam is shared)
        stops descending once its mean held-out score has fallen more than one
        standard error (over the folds) below its best at two lams in a row:
        the path is past its optimum. ``active`` is updated in place.
        """
        for lam in lams:
            if not active.any():
                return
            bar.total = bar.n + run.n_tasks // active.size * int(active.sum()) * (
                lams.size - int(np.searchsorted(-lams, -lam)))
            run.extend(np.array([lam]), bar, active)
            self._choose(run)
            if self.early_stopping:
                active &= ~self._past_the_best(run)

    def _mean_and_se(self, run):
        """Mean held-out score and its standard error over the folds, (problems, lams)
        (one row when lam is shared); -inf where a path did not reach."""
        return mean_and_se(self.cv_scores_[None] if run.shared else self.cv_scores_, axis=1)

    def _per_problem(self, run, flags):
        return np.broadcast_to(flags, (run.problems.n_problems,)) if run.shared else flags

    def _past_the_best(self, run):
        """Per problem: are the last two lams' mean scores below best - one standard error?"""
        return self._per_problem(run, past_the_best(*self._mean_and_se(run)))

    def _rising_at_the_bottom(self, run):
        """Per problem: does the smallest lam's mean score beat all others by a standard error?"""
        mean, se = self._mean_and_se(run)
        rising = mean[:, -1] > mean[:, :-1].max(axis=1) + se[:, -1]
        return self._per_problem(run, rising)

    def _choose(self, run):
        """lam_, best_score_ and cv_scores_ from the paths run so far."""
        if run.scoring.native:
            self._native_choice(run)
        elif run.shared:
            self.cv_scores_ = self._shared_scores(run)
            mean = self.cv_scores_.mean(axis=0)
            best = int(np.argmax(mean))  # the first maximum: the largest lam
            self.lam_ = np.full(run.problems.n_problems, run.lams[best])
            self.best_score_ = float(mean[best])
        else:
            self.cv_scores_ = run.col_scores
            self.lam_, self.best_score_ = self._per_problem_choice(
                run.problems, run.scoring, run.lams, run.col_scores, run.tp, run.npos,
                run.constant, run.solved)

    def _native_choice(self, run):
        """lam_, best_score_ and cv_scores_ by textwin's scoring of the model's decision
        (:func:`select_lam`); the folds' scores of new lams are added to ``run``'s."""
        problems, scoring = run.problems, run.scoring
        done, L = run.fold_scores.shape[1], run.lams.size
        if done < L:
            whole = fold_scores(self._out_of_fold(run, slice(done, L)), run.truth, run.fold_of,
                                task=problems.mode, scoring=scoring.name, rule=scoring.rule)
            run.fold_scores = np.concatenate([run.fold_scores, whole], axis=1)
        if not np.isfinite(run.fold_scores).any(axis=0).all():
            raise ValueError(
                f"{type(self).__name__}: the scoring {scoring.name!r} is undefined on every "
                f"held-out fold; choose another scoring or other folds.")
        bad = ~np.isfinite(run.fold_scores)
        self.cv_scores_ = (np.where(bad, np.nanmean(run.fold_scores, axis=0), run.fold_scores)
                           if bad.any() else run.fold_scores)
        best, mean, _ = shared_choice(self.cv_scores_, self.one_se)
        self.best_score_ = float(mean[best])
        self._lam_index = best
        self.lam_ = np.full(problems.n_problems, run.lams[best])

    def _out_of_fold(self, run, lams):
        """(n, problems, lams) held-out scores: each sample's by the model of its fold."""
        K = run.problems.n_problems
        out = np.zeros((run.problems.n, K, len(range(*lams.indices(run.lams.size)))))
        for (_, test), held in zip(run.folds, run.held):
            out[test] = held[:, :, lams]
        return out

    def _tune_thresholds(self, run):
        """thresholds_ of the rule on every out-of-fold score at the chosen lam."""
        if run.scoring.rule == "zero":
            return
        S = self._out_of_fold(run, slice(0, run.lams.size))
        self.thresholds_ = tuned_thresholds(S[:, :, self._lam_index], run.truth,
                                            run.scoring.rule, len(run.folds))

    def cv_summary(self, names=None):
        """What the cross-validation chose, JSON-ready (for reports and plots).

        Parameters
        ----------
        names : list of str, optional
            A name per binary problem (default: the classes, or the label
            columns' indices).

        Returns
        -------
        summary : dict
            ``scoring``, ``folds``, ``lams`` (the grid, descending), ``shared``
            (one lam for every problem), ``lam`` ({name: chosen lam}),
            ``cv_score`` (:attr:`best_score_`) and ``curves`` ({name: mean
            held-out score per lam}; a single ``"all"`` curve when the lam is
            shared). Undefined means are None.
        """
        check_is_fitted(self, "lam_")
        if names is None:
            names = [str(c) for c in (self.classes_[-1:] if self._label_mode == "binary"
                                      else self.classes_)]
        shared = self.cv_scores_.ndim == 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: None
            means = (self.cv_scores_.mean(axis=0)[None] if shared
                     else np.nanmean(self.cv_scores_, axis=1))
        curves = {("all" if shared else str(name)): [None if not np.isfinite(x) else float(x)
                                                    for x in row]
                  for name, row in zip(["all"] if shared else names, means)}
        return {
            "scoring": self.scoring_ if isinstance(self.scoring_, str) else repr(self.scoring_),
            "folds": int(self.cv_scores_.shape[-2]), "lams": [float(x) for x in self.lams_],
            "shared": bool(shared),
            "lam": {str(name): float(lam) for name, lam in zip(names, self.lam_)},
            "cv_score": float(self.best_score_), "curves": curves,
        }

    # -- the steps of fit -----------------------------------------------------

    def _warn_at_the_bottom(self, lams, constant):
        """Say so when the best lam is the grid's smallest: the optimum may lie below it."""
        at_bottom = [k for k in range(self.lam_.size)
                     if self.lam_[k] == lams[-1] and k not in constant]
        if not at_bottom or lams.size < 2:
            return
        shared = self._label_mode != "multilabel" or np.all(self.lam_ == self.lam_[0])
        what = "the shared lam" if shared else "the lam of {problems}"
        fix = "{search_lower}" if isinstance(self.lams, Integral) else "{search_given}"
        warnings.warn(LamGridWarning(
            f"{{estimator}}: {what} is the smallest of the grid ({lams[-1]:.3g}); "
            f"the cross-validated score may still rise below it. Search further with {fix}.",
            [] if shared else at_bottom, type(self).__name__), stacklevel=4)

    def _folds(self, problems, y):
        """The (train, test) index pairs; one-line errors and warnings about sizes."""
        name = type(self).__name__
        n = problems.n
        if isinstance(self.cv, Integral) and not isinstance(self.cv, bool):
            if self.cv < 2:
                raise ValueError(f"{name}: cv={self.cv}; cross-validation needs at least 2 folds.")
            if self.cv > n:
                raise ValueError(f"{name}: cv={self.cv} folds but only {n} samples; "
                                 f"lower cv to at most {n}.")
        y_split = None if problems.mode == "multilabel" else problems.class_index()
        splitter = check_cv(self.cv, y_split, classifier=problems.mode != "multilabel")
        n_splits = splitter.get_n_splits(np.zeros((n, 1)), y_split)
        if problems.mode != "multilabel":
            counts = np.bincount(y_split, minlength=problems.classes.size)
            if counts.min() < n_splits:
                warnings.warn(SmallClassWarning(
                    f"{name}: {fold_shortfall(counts, problems.classes, n_splits, 'examples')}"
                    f": {SMALL_CLASS_NOISE}. Lower cv to at most {max(counts.min(), 2)} for a "
                    "fold per example."), stacklevel=3)
        with warnings.catch_warnings():
            # said above in textwin's words
            warnings.filterwarnings("ignore", message=".*least populated class")
            folds = list(splitter.split(np.zeros((n, 1)), y_split))
        if problems.mode == "multilabel" and not self._native_scoring():
            self._warn_missing_positives(problems, folds)
        return folds

    def _native_scoring(self):
        return self.scoring is None or (isinstance(self.scoring, str) and self.scoring in SCORINGS)

    def _in_class(self, scores):
        """Above the tuned thresholds (``thresholds=``), else above 0."""
        t = getattr(self, "thresholds_", None)
        return scores > (0.0 if t is None else (t[0] if self._label_mode == "binary" else t))

    def _warn_missing_positives(self, problems, folds):
        """Name the label columns with a held-out fold without positives (its score is left out)."""
        missing = []
        for k in range(problems.n_problems):
            y = problems.labels.column(k)
            empty = [f for f, (_, test) in enumerate(folds) if not np.any(y[test] > 0)]
            if empty and np.any(y > 0):
                missing.append((k, empty))
        if missing:
            shown = ", ".join(f"column {k} (folds {', '.join(map(str, e))})"
                              for k, e in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            warnings.warn(
                f"{type(self).__name__}: {len(missing)} label column(s) have a held-out fold "
                f"without positive examples: {shown}{more}. Those folds are left out of "
                f"the column's score; fewer folds (cv) give each one positives.",
                UserWarning, stacklevel=4)

    def _shared_scores(self, run):
        """(n_folds, n_lams) scores of the whole model (one lam for every problem).

        The lams scored before are kept (``run.fold_scores``); NaN where the
        scoring is undefined on a fold, which :meth:`fit` reports.
        """
        problems, scoring = run.problems, run.scoring
        done = run.fold_scores.shape[1]
        new = np.empty((len(run.folds), run.lams.size - done))
        for f, (_, test) in enumerate(run.folds):
            for l in range(done, run.lams.size):
                S = run.held[f][:, :, l]
                if scoring.bep:
                    T = np.column_stack([problems.labels.column(k)[test] > 0
                                         for k in range(problems.n_problems)])
                    counts = [scoring.binary_counts(T[:, k], S[:, k]) for k in range(S.shape[1])]
                    pos = sum(c[1] for c in counts)
                    new[f, l - done] = sum(c[0] for c in counts) / pos if pos else np.nan
                else:
                    new[f, l - done] = self._score_scores(problems, scoring, test, S)
        run.fold_scores = np.concatenate([run.fold_scores, new], axis=1)
        out = run.fold_scores
        bad = ~np.isfinite(out)
        if bad.all(axis=0).any():
            raise ValueError(
                f"{type(self).__name__}: the scoring {scoring.name!r} is undefined on every "
                f"held-out fold; choose another scoring or other folds.")
        return np.where(bad, np.nanmean(out, axis=0), out) if bad.any() else out

    def _score_scores(self, problems, scoring, test, S):
        """The scorer on one held-out fold, the model given by its scores ``S`` (n_test, K)."""
        index = problems.class_index()[test]
        if scoring.name == "accuracy":  # the estimator's predict, without building one
            predicted = (S[:, 0] > 0) if problems.mode == "binary" else np.argmax(S, axis=1)
            return float(np.mean(predicted == index))
        # a model whose decision_function returns S: identity weights over S's columns
        K = S.shape[1]
        y_test = problems.classes[index]
        if problems.mode == "binary":
            return scoring.score(S[:, :1], y_test, np.ones((1, 1)), np.zeros(1),
                                 problems.classes, "binary")
        return scoring.score(S, y_test, np.eye(K), np.zeros(K), problems.classes, problems.mode)

    def _per_problem_choice(self, problems, scoring, lams, col_scores, tp, npos, constant,
                            solved):
        """lam per label column and the CV score of the choice."""
        K = problems.n_problems
        if scoring.bep:
            pooled_tp, pooled_pos = tp.sum(axis=1), npos.sum(axis=1)  # (K, L), (K,)
            value = np.divide(pooled_tp, pooled_pos[:, None], out=np.full_like(pooled_tp, np.nan),
                              where=pooled_pos[:, None] > 0)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: below
                value = np.nanmean(col_scores, axis=1)
        value = np.where(solved, value, np.nan)  # lams a stopped path did not reach
        finite = np.isfinite(value)
        usable = finite.any(axis=1)
        if not usable.any():
            raise ValueError(
                f"{type(self).__name__}: the scoring {scoring.name!r} is undefined for every "
                f"label column on every fold (no held-out positives); choose fewer folds.")
        # a column whose own scores cannot choose (none, or a break-even point over too
        # few held-out positives) takes the lam best on average over those that can
        chooses = usable & (pooled_pos >= _FEW_POSITIVES) if scoring.bep else usable
        if not chooses.any():
            chooses = usable
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a lam no column reached
            average = np.nanmean(value[chooses], axis=0)
        fallback = int(np.argmax(np.where(np.isfinite(average), average, -np.inf)))
        choice = np.where(chooses, np.argmax(np.where(finite, value, -np.inf), axis=1),
                          fallback)
        unscored = [k for k in range(K) if not usable[k] and k not in constant]
        rare = [k for k in range(K) if usable[k] and not chooses[k] and k not in constant]
        for columns, why in ((unscored, f"no held-out fold where {scoring.name!r} is defined"),
                             (rare, f"fewer than {_FEW_POSITIVES} held-out positives, too "
                                    f"few to choose by")):
            if columns:
                named = ", ".join(str(k) for k in columns[:10]) + (
                    f" and {len(columns) - 10} more" if len(columns) > 10 else "")
                warnings.warn(
                    f"{type(self).__name__}: {len(columns)} label column(s) ({named}) have "
                    f"{why}; they take lam={lams[fallback]:.3g}, the best on average over "
                    f"the columns that can choose.", UserWarning, stacklevel=3)
        cols = np.arange(K)
        if scoring.bep:
            best = pooled_tp[cols, choice].sum() / pooled_pos.sum()
        else:
            best = value[cols[usable], choice[usable]].mean()
        return lams[choice], float(best)

    def _refit(self, problems, run):
        """Fit every problem on all the data at its chosen lam (the base estimator's
        collection; on the cluster's workers when the paths ran there)."""
        K, d = problems.n_problems, problems.d_user
        coef, dual, bias = np.empty((K, d)), np.empty((K, problems.n)), np.empty(K)
        s = problems.settings

        def store(k, out):
            coef[k] = out["w"][:d]
            own_bias = s.intercept == "constant_feature" and not out["constant"]
            bias[k] = out["w"][-1] if own_bias else out["bias"]
            del out["w"]
            return out

        if run.data is None:  # threads over the one matrix
            views = problems.views(problems.X)
            results = map_problems(
                lambda k: store(k, _refit_problem(problems, views, k, self.lam_[k], dual[k])),
                K, self.n_jobs)
        else:  # on the workers, which hold the data already
            def collect(k, out):
                dual[k] = out.pop("alpha")
                return store(k, out)

            results = map_on_cluster(run.cluster, _refit_task, run.data, K, label="textwin-refit",
                                     extra=lambda k: (self.lam_[k],), on_result=collect,
                                     describe=lambda k: f"the refit of problem {k}")
        self._collect(results, coef, dual, bias, s)
        self._fit_dimension = problems.X.shape[1]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self._warn_after_fit(results, s, problems.params)
        for w in caught:  # this estimator has no warm start to resume with
            message = w.message
            if isinstance(message, SolverConvergenceWarning):
                message.args = (message.render(SolverConvergenceWarning.API_NAMES, resume=False),)
            if isinstance(message, DegenerateSolutionWarning) and message.reason is not None:
                # lam was chosen: "choose it by cross-validation" is no advice here
                message.advice = (f"lam {self.lam_[message.problems[0]]:.3g} is the "
                                  "cross-validation's choice; {smaller_lam} avoids it")
                message.args = (message.render(DegenerateSolutionWarning.API_NAMES),)
            warnings.warn(message, stacklevel=3)

"""Regularization paths: warm-started dual solutions along a descending grid of lam
(docs/mathematics.md §13).

:func:`regularization_path` solves one estimator's binary problems along a
descending grid of ``lam``, each point warm-started from the previous one's
dual solution and stopped on the relative duality gap as a single fit is;
:func:`held_out_path_scores` keeps only the scores of held-out rows. :func:`lam_max`
is the top of the default grid: the largest ``lam`` at which the solution is still
the trivial one, to first order. :class:`Problems` is a fit's binary problems,
prepared once, that every path of a search solves.
"""
import math
import warnings
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import Bunch

from textwin._binary import solve_binary_problem
from textwin._kernels._dual_gs import check_csr
from textwin._losses_and_regularizers import loss_named, regularizer_named
from textwin._ovr import as_canonical_csr, map_problems, problem_seeds, problem_weight
from textwin._scale import AUTO
from textwin.linear import DualGaussSeidelClassifier

__all__ = ["Problems", "regularization_path", "held_out_path_scores", "lam_max", "lam_grid",
           "resolve_lams", "solve_path", "PathStop", "LamGridWarning", "PathConvergenceWarning",
           "warn_path_failures", "DEFAULT_N_LAMS", "DEFAULT_MIN_RATIO"]

DEFAULT_N_LAMS = 10
DEFAULT_MIN_RATIO = 1e-4


# ---------------------------------------------------------------------------
# One fit's prepared problems
# ---------------------------------------------------------------------------


class Problems:
    """The binary problems of ``estimator``'s fit on (X, y), prepared once.

    Runs the estimator's own preparation (validation, label encoding, bias
    mode, prior and mass), so that a path or a cross-validation solves
    exactly the problems ``estimator.fit`` would, one lam after another
    (``column_scale``: ``fit``'s).
    """

    def __init__(self, estimator, X, y, sample_weight, column_scale=None):
        prepared = estimator.prepare_fit(X, y, sample_weight, column_scale=column_scale)
        p, labels = prepared.params, prepared.labels
        # the estimator's name, not the estimator: these problems travel to a cluster's
        # workers, which need none of a fitted estimator's arrays
        self.name, self.params = type(estimator).__name__, p
        self.n, self.d_user = prepared.X_user.shape
        self.X_user, self.X, self.settings = prepared.X_user, prepared.X, prepared.settings
        self.labels, self.sample_weight = labels, prepared.sample_weight
        self.n_problems = labels.n_problems
        self.seeds = problem_seeds(p["random_state"], self.n_problems)
        self.classes, self.mode = estimator.classes_, estimator.task_
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
    if settings.column_scale is not None:  # the square on X diag(r), kept in X's columns (§5)
        return np.square(settings.column_scale) * g
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
    if settings.intercept == "regularized":  # the bias coordinate: a constant feature's
        du += float(np.sum(alpha0 * y))
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
    return _lam_max_of(Problems(DualGaussSeidelClassifier(**params), X, y, sample_weight))


def lam_grid(lam_top, n_lams=DEFAULT_N_LAMS, min_ratio=DEFAULT_MIN_RATIO):
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


def resolve_lams(name, lams, min_ratio, problems, anchor=None):
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


def solve_path(problems, views, X_rows, y, weight, lams, seed, on_point, start=None):
    """Solve one binary problem along the descending ``lams``, warm-started.

    The first point starts from the trivial solution's dual (rescaled from
    lam_max when ``lams[0]`` is smaller); each next one
    from the previous solution scaled by ``lam_new / lam_old``, which keeps
    ``v`` and so ``w = grad h(v)`` unchanged and stays in every loss's dual
    domain (docs/mathematics.md §13). Algorithm 2 restarts its multiplier at
    the previous bias. ``views``: :meth:`Problems.views` of ``X_rows``.
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
        # no degeneracy diagnostics: a path's points are read for their weights and
        # scores only, and the diagnostics' pass over the rows cost the search ~8 %
        out = solve_binary_problem(Xc, y, weight, alpha, problems.at(lam, n_rows), seed,
                                   sigma0=sigma, X_square=X_square, diagnose=False)
        own_bias = s.intercept == "constant_feature" and not out["constant"]
        bias = out["w"][-1] if own_bias else out["bias"]
        if s.intercept in ("converged", "paper") and not out["constant"]:
            sigma = out["bias"]
        on_point(l, out, alpha, bias)
    return alpha, sigma


class PathStop:
    """Where a path stopped, kept until its next lams: the dual variables ``alpha`` and the
    bias multiplier ``sigma`` (:func:`solve_path`'s return and ``start``).

    A search keeps one per fold and binary problem between its pieces (Reuters 90's
    titles: 450 paths of 6,200 texts, 22 MB as dense vectors), yet most of a path's
    dual variables are 0 (a hinge's well-classified texts: 95 % there), so only the
    nonzeros are kept where they are fewer than two thirds (an index and a value: 12
    bytes against 8). :meth:`alpha` gives the same vector back, value for value.
    """

    __slots__ = ("size", "index", "value", "sigma")

    def __init__(self, alpha, sigma):
        alpha = np.asarray(alpha, dtype=np.float64)
        self.size, self.sigma = alpha.size, sigma
        index = np.flatnonzero(alpha)
        if 3 * index.size < 2 * alpha.size:
            self.index, self.value = index.astype(np.int32), alpha[index]
        else:
            self.index, self.value = None, alpha.copy()

    def alpha(self):
        """A new dense vector of the dual variables."""
        if self.index is None:
            return self.value.copy()
        out = np.zeros(self.size)
        out[self.index] = self.value
        return out


def regularization_path(X, y, lams=DEFAULT_N_LAMS, *, sample_weight=None,
                        lam_min_ratio=DEFAULT_MIN_RATIO, **params):
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
    problems = Problems(est, X, y, sample_weight)
    lams = resolve_lams("regularization_path", lams, lam_min_ratio, problems)
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

        ends[k] = solve_path(problems, views, problems.X, y_k, weight, lams,
                              int(problems.seeds[k]), record,
                              None if starts is None else starts[k])

    map_problems(solve, K, problems.params["n_jobs"])
    warn_path_failures(name, failures, L * K, problems.params["tol"], stacklevel=4)
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
        problems = Problems(est, X, y, sample_weight)
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
    params = estimator.all_params()
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
    points of one path (:func:`solve_path`)."""
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


class LamGridWarning(_Worded, UserWarning):
    """The cross-validation's best ``lam`` is the smallest of its grid."""


class PathConvergenceWarning(_Worded, ConvergenceWarning):
    """Some path points stopped before their duality gap reached ``tol``."""


def warn_path_failures(name, failures, total, tol, stacklevel=3):
    if not failures:
        return
    lam, k, worst = max(failures, key=lambda f: f[2])
    warnings.warn(PathConvergenceWarning(
        f"{{estimator}}: {len(failures)} of {total} path points stopped before the relative "
        f"duality gap reached {{tol}}={tol:g} (worst {worst:.3g}, {{problem}} at "
        f"lam={lam:.3g}). Raise {{max_epochs}} or loosen {{tol}}; the smallest lams are the "
        f"hardest{{avoid_smallest}}.", [k], name), stacklevel=stacklevel)


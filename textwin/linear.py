"""Linear classifiers trained by dual Gauss-Seidel (docs/mathematics.md §1-§8, §10).

:class:`DualGaussSeidelClassifier` is the general estimator: any loss of
docs/mathematics.md §4 with any regularizer of section 5, an optional threshold and
margin (section 7), and an optional bias (Algorithm 2 of section 8, or a
regularized constant feature). The presets below it fix the loss and the
regularizer and carry the papers' defaults:

=========================  ==========================================================
class                      paper name
=========================  ==========================================================
DualSVM                    SVM by Algorithm 1 (update (29)); with ``fit_intercept``,
                           SVM by Algorithm 2 (update (30))
ModifiedLeastSquares       modified least squares, update (27), constant feature
RegularizedWinnow          regularized Winnow, update (28) (Reuters Table 1)
LargeMarginPerceptron      LM-Perc (*Regularized Winnow methods*, section 4)
LargeMarginUWinnow         LM-UWin (same)
LargeMarginNWinnow         LM-NWin (same)
=========================  ==========================================================

All of them share one CSR matrix across the binary problems of a multi-class
(one-vs-rest) or multi-label fit and train the problems in threads (the
kernel releases the GIL).
"""
import logging
import math
import os
import sys
import threading
import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data
from tqdm import tqdm

from textwin._kernels._dual_gs import _LOSSES as _KERNEL_LOSSES
from textwin._kernels._dual_gs import _REGULARIZERS, check_csr, dual_gauss_seidel

# one DEBUG record per binary problem (epochs, gap, seconds): applications see
# them through logging; ``verbose=2`` prints them on stderr instead
logger = logging.getLogger(__name__)

__all__ = [
    "DualGaussSeidelClassifier",
    "DualSVM",
    "ModifiedLeastSquares",
    "RegularizedWinnow",
    "LargeMarginPerceptron",
    "LargeMarginUWinnow",
    "LargeMarginNWinnow",
]

_INT32_MAX = np.iinfo(np.int32).max

# ---------------------------------------------------------------------------
# Shared plumbing (also used by textwin.online)
# ---------------------------------------------------------------------------


def _check_csr(X):
    """Return X as canonical CSR: float64 data, int32 indices, sorted, no duplicates.

    X has already been through ``validate_data`` (2-D, float64). The result
    may share memory with the input; it is never modified in place.
    """
    if not sp.issparse(X):
        X = sp.csr_matrix(X)
    elif X.format != "csr":
        X = X.tocsr()
    if X.dtype != np.float64:
        X = X.astype(np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # also sorts the indices
    if X.indices.dtype != np.int32 or X.indptr.dtype != np.int32:
        if X.nnz > _INT32_MAX or X.shape[1] > _INT32_MAX:
            raise ValueError(
                f"X has {X.nnz} stored values and {X.shape[1]} columns; the "
                f"kernels take 32-bit indices (at most {_INT32_MAX}). Split the "
                f"data or select fewer features."
            )
        X = sp.csr_matrix(
            (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
            shape=X.shape,
        )
    return X


def _check_finite(X):
    """Refuse NaN and inf in a canonical CSR X, naming the first one (row-major)."""
    with np.errstate(over="ignore", invalid="ignore"):
        # one pass without a temporary; a finite sum means every value is finite
        # (an overflowing sum of finite values falls through to the exact test)
        if np.isfinite(X.data.sum()):
            return
    bad = ~np.isfinite(X.data)
    if not bad.any():
        return
    pos = int(np.argmax(bad))
    row = int(np.searchsorted(X.indptr, pos, side="right")) - 1
    raise ValueError(
        f"X contains NaN or infinite values (the first: X[{row}, {X.indices[pos]}] = "
        f"{X.data[pos]}); textwin's solvers need finite features: drop those rows "
        f"or impute the values first."
    )


def _append_constant(X, value=1.0):
    """[X, value] as canonical CSR (the constant feature of a regularized bias)."""
    ones = sp.csr_matrix(np.full((X.shape[0], 1), value))
    return _check_csr(sp.hstack([X, ones], format="csr"))


def _effective_n_jobs(n_jobs):
    """Threads for ``n_jobs`` in joblib's convention (None: 1, -1: all cores, -2: all but one)."""
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, Integral):
        raise ValueError(f"n_jobs must be None or an integer, got {n_jobs!r}.")
    if n_jobs == 0:
        raise ValueError(
            "n_jobs == 0 has no meaning; use None or 1 for one thread, -1 for all cores."
        )
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return int(n_jobs)


def _map_problems(fn, n_problems, n_jobs, desc=None, verbose=0):
    """[fn(k) for k in range(n_problems)], in threads when n_jobs > 1.

    The calling thread solves problems too, next to ``n_workers - 1`` helper
    threads, each taking the next problem in order as it gets free (a greedy
    pool). Fits of ten problems take a tenth of a second: a pool executor's
    start-up, its futures and an idle calling thread cost a visible part of
    that (issue #5). After a failure no new problem starts; the exception of
    the first failed problem (in problem order) is raised.

    With ``verbose``, a progress bar over the problems goes to stderr (only
    when stderr is a terminal).
    """
    n_workers = min(_effective_n_jobs(n_jobs), n_problems)
    bar = tqdm(total=n_problems, desc=desc, unit="problem", file=sys.stderr, leave=False,
               disable=not verbose or n_problems < 2 or not sys.stderr.isatty())

    def run(k):
        out = fn(k)
        bar.update(1)
        return out

    try:
        if n_workers <= 1:
            return [run(k) for k in range(n_problems)]
        results = [None] * n_problems
        failed = {}
        lock = threading.Lock()
        todo = iter(range(n_problems))

        def work():
            while True:
                with lock:
                    k = None if failed else next(todo, None)
                if k is None:
                    return
                try:
                    results[k] = run(k)
                except BaseException as exc:  # also KeyboardInterrupt in the caller
                    with lock:
                        failed[k] = exc
                    return

        helpers = [threading.Thread(target=work, daemon=True) for _ in range(n_workers - 1)]
        for t in helpers:
            t.start()
        try:
            work()
        finally:
            for t in helpers:
                t.join()
        if failed:
            raise failed[min(failed)]
        return results
    finally:
        bar.close()


def _last_level_cache_bytes():
    """Size of the largest CPU cache, from Linux's sysfs (32 MiB if it cannot be read)."""
    sizes = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in os.listdir(base):
            with open(os.path.join(base, entry, "size")) as fh:
                text = fh.read().strip().upper()
            unit = {"K": 2 ** 10, "M": 2 ** 20}.get(text[-1:], 1)
            sizes.append(int(text.rstrip("KM")) * unit)
    except (OSError, ValueError):
        pass
    return max(sizes) if sizes else 32 * 2 ** 20


_BLOCK_MIN_ROWS = 120_000


def _shuffle_block(X):
    """Rows per block of the solver's visiting order: 4 for a matrix beyond the
    last-level cache with at least 120,000 rows, else 1 (a plain permutation).

    Blocks of consecutive rows let the hardware prefetcher stream the CSR
    arrays but cost epochs; docs/performance.md ("Block order: when it pays")
    measured blocks of 4 under this rule at 0.77 of the time (worst 1.06 in 80
    cases) and larger blocks or smaller matrices losing up to 5.5x.
    """
    nbytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    if X.shape[0] >= _BLOCK_MIN_ROWS and nbytes > _last_level_cache_bytes():
        return 4
    return 1


def _problem_seeds(random_state, n_problems):
    """The seed of each binary problem: one draw from random_state, shared by all.

    As scikit-learn's one-vs-rest gives every binary estimator the same
    random_state, a category's model does not depend on which other
    categories are trained beside it, nor on their order or on n_jobs
    (``textwin train -c acq`` fits the acq of ``-c top10``).
    """
    if isinstance(random_state, np.random.Generator):
        # drawn from the caller's generator, which advances (as a RandomState does)
        seed = random_state.integers(0, _INT32_MAX)
    else:
        seed = check_random_state(random_state).randint(0, _INT32_MAX)
    return np.full(n_problems, seed, dtype=np.int64)


class _Labels:
    """The {-1, +1} labels of each binary problem, one column at a time.

    Holds the class index of each sample (binary, multi-class) or the given
    indicator matrix (multi-label) instead of an n x n_problems float table,
    so that a fit over many problems keeps O(n) per problem in flight, not
    O(n) per problem for the whole fit.
    """

    def __init__(self, mode, codes, n_problems):
        self.mode = mode
        self.n_problems = n_problems
        self._codes = codes

    def column(self, k):
        """Labels of problem k: +1 in the class (label column) k, else -1."""
        if self.mode == "multilabel":
            # dense: a strided view, not a copy of the column
            col = self._codes[:, [k]].toarray() if sp.issparse(self._codes) else self._codes[:, k]
            return np.where(np.ravel(col) > 0, 1.0, -1.0)
        return np.where(self._codes == (1 if self.mode == "binary" else k), 1.0, -1.0)

    def dense(self):
        """All columns as one (n, n_problems) array (for the online learners)."""
        return np.column_stack([self.column(k) for k in range(self.n_problems)])


def _is_dense_indicator(y):
    """True for an integer or boolean array of shape (n, L >= 2) with at most two values.

    Exactly where scikit-learn's ``type_of_target`` answers
    "multilabel-indicator" for such an array, found with a few passes instead
    of its ``np.unique`` (a millisecond on Reuters' 9,603 x 10 labels, spent
    before the threads start); anything else goes to ``type_of_target``.
    """
    if not (isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] > 1 and y.size
            and y.dtype.kind in "biu"):
        return False
    lo, hi = y.min(), y.max()
    return bool(np.all((y == lo) | (y == hi)))


class _OneVsRestLinearMixin:
    """Target encoding, shared CSR validation and prediction for textwin's linear models.

    Subclasses set ``coef_`` (n_problems, n_features), ``intercept_``
    (n_problems,) and call :meth:`_encode_targets` in ``fit``. A positive
    decision value always means "in the class" (for a binary y, in
    ``classes_[1]``).
    """

    def _validate_X(self, X, reset):
        # NaN and inf are refused below, not here: scikit-learn's message points
        # to estimators that handle missing values, not what a text model needs.
        X = validate_data(
            self,
            X,
            accept_sparse=["csr", "csc", "coo"],
            accept_large_sparse=True,
            dtype=np.float64,
            reset=reset,
            ensure_all_finite=False,
        )
        X = _check_csr(X)
        _check_finite(X)
        return X

    def _encode_targets(self, y, n_samples):
        """Set classes_ and the label mode; return Y of shape (n, n_problems) in {-1, +1}."""
        return self._encode_labels(y, n_samples, stacklevel=4).dense()

    def _encode_labels(self, y, n_samples, stacklevel=3):
        """Set classes_ and the label mode; return the problems' labels as :class:`_Labels`."""
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        kind = "multilabel-indicator" if _is_dense_indicator(y) else type_of_target(y, input_name="y")
        if kind == "multilabel-indicator":
            # kept as given (sparse: by column), read one column per problem
            Y = y.tocsc() if sp.issparse(y) else np.asarray(y)
            if Y.shape[0] != n_samples:
                raise ValueError(
                    f"y has {Y.shape[0]} rows but X has {n_samples} samples."
                )
            self.classes_ = np.arange(Y.shape[1])
            self._label_mode = "multilabel"
            self._sparse_labels = sp.issparse(y)
            return _Labels("multilabel", Y, Y.shape[1])
        if kind not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type {kind!r}: {type(self).__name__} takes binary or "
                f"multi-class labels (one per sample) or a multi-label indicator "
                f"matrix (n_samples, n_labels) of 0/1."
            )
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is "
                "raveled to shape (n_samples,).",
                DataConversionWarning,
                stacklevel=stacklevel,
            )
            y = y.ravel()
        if y.shape[0] != n_samples:
            raise ValueError(f"y has {y.shape[0]} entries but X has {n_samples} samples.")
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        self._sparse_labels = False
        if self.classes_.size < 2:
            raise ValueError(
                f"The training labels contain only one class ({self.classes_[0]!r}); "
                f"a classifier needs at least two. For a label that is sometimes "
                f"absent, pass a multi-label indicator matrix instead."
            )
        if self.classes_.size == 2:
            self._label_mode = "binary"
            return _Labels("binary", y_idx, 1)
        self._label_mode = "multiclass"
        return _Labels("multiclass", y_idx, self.classes_.size)

    def decision_function(self, X):
        """Signed scores; positive means "in the class".

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) for a binary problem (the score
            of ``classes_[1]``), else (n_samples, n_classes)
        """
        check_is_fitted(self, "coef_")
        X = self._validate_X(X, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        if self._label_mode == "binary":
            return scores.ravel()
        return scores

    def _in_class(self, scores):
        return scores > 0

    def predict(self, X):
        """Predict labels: a class per sample, or an indicator row (multi-label).

        In multi-label mode a row of zeros (no score positive) is the empty set.
        In multi-class mode the class of largest score wins (ties: the first in
        ``classes_``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,), or (n_samples, n_labels) indicator
        """
        scores = self.decision_function(X)
        if self._label_mode == "binary":
            return self.classes_[self._in_class(scores).astype(int)]
        if self._label_mode == "multiclass":
            return self.classes_[np.argmax(scores, axis=1)]
        Y = self._in_class(scores).astype(int)
        return sp.csr_matrix(Y) if self._sparse_labels else Y

    def __sklearn_tags__(self):
        return _sparse_multilabel_tags(super().__sklearn_tags__())


def _sparse_multilabel_tags(tags):
    """scikit-learn tags of a classifier taking sparse X and a multi-label y."""
    tags.input_tags.sparse = True
    tags.classifier_tags.multi_label = True
    return tags


def _check_sample_weight(sample_weight, n_samples):
    if sample_weight is None:
        return np.ones(n_samples)
    sw = np.asarray(sample_weight, dtype=np.float64)
    if sw.ndim == 0:
        sw = np.full(n_samples, float(sw))
    if sw.shape != (n_samples,):
        raise ValueError(
            f"sample_weight has shape {sw.shape}; expected ({n_samples},), one weight per sample."
        )
    if not np.all(np.isfinite(sw)) or np.any(sw < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    if not np.any(sw > 0):
        raise ValueError(
            "Every sample weight is zero: at least one sample needs a positive weight."
        )
    return sw


def _check_class_weight(class_weight, classes):
    if class_weight is None:
        return
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(
                f"class_weight={class_weight!r} is not valid: use None, 'balanced' or a dict."
            )
        return
    if not isinstance(class_weight, dict):
        raise ValueError(
            f"class_weight must be None, 'balanced' or a dict, got {type(class_weight).__name__}."
        )
    unknown = [c for c in class_weight if c not in set(classes.tolist())]
    if unknown:
        raise ValueError(
            f"class_weight has labels {unknown} that are not in classes_ {classes.tolist()}."
        )


def _problem_weight(class_weight, yk, k, sample_weight, classes, label_mode):
    """Per-example loss weights s_i (n,) of problem k: sample weight times class weight.

    ``class_weight`` has passed :func:`_check_class_weight`. A dict maps a
    class label to the weight of that class's examples; in a one-vs-rest or
    multi-label problem it weights the positives of that class only (the
    negatives, everything else, keep weight 1). ``'balanced'`` weights the
    problem's two sides so that each carries half the total sample weight:
    ``s_i = S / (2 S_side)`` (``S`` the sum of sample weights), the formula of
    scikit-learn PR #30057.
    """
    w = sample_weight.copy()
    if class_weight is None:
        return w
    if isinstance(class_weight, str):
        total = sample_weight.sum()
        pos = yk > 0
        for side in (pos, ~pos):
            s = sample_weight[side].sum()
            if s > 0:
                w[side] *= total / (2.0 * s)
        return w
    if label_mode == "binary":
        for idx, c in enumerate(classes):
            side = yk > 0 if idx == 1 else yk < 0
            w[side] *= class_weight.get(c, 1.0)
        return w
    w[yk > 0] *= class_weight.get(classes[k], 1.0)
    return w


# the Python API's way on; the command line, which has no warm start, leaves it out
_RESUME_HINT = " With warm_start=True, calling fit again continues from where this fit stopped."
# the parameters to change, by their names in the API (the command line names its flags)
_BUDGET_HINT = "Increase max_epochs, loosen tol,"
_LAM_HINT = "a larger lam also helps"


def _convergence_warning(name, failures, tol, extra="", describe=None):
    """One ConvergenceWarning for the whole fit, quoting the worst problem.

    ``describe(k)``, if given, says what problem ``k`` is (its class or label column).
    """
    worst_k, worst_gap, epochs = max(failures, key=lambda f: f[1])
    what = f"problem {worst_k}" + (f": {describe(worst_k)}" if describe is not None else "")
    # Algorithm 2 can meet the gap's tol and still miss its residual's (extra says)
    gap = (f"at relative duality gap {worst_gap:.3g} (tol={tol:g})" if worst_gap > tol
           else f"with its relative duality gap {worst_gap:.3g} within tol={tol:g}")
    warnings.warn(
        f"{name} did not converge on {len(failures)} binary problem(s): the worst "
        f"({what}) stopped after {epochs} epochs {gap}{extra}. {_BUDGET_HINT} "
        f"or scale the features (e.g. unit-length rows); with an entropy "
        f"regularizer {_LAM_HINT}.{_RESUME_HINT}",
        ConvergenceWarning,
        stacklevel=3,
    )


# ---------------------------------------------------------------------------
# Dual Gauss-Seidel
# ---------------------------------------------------------------------------

# The kernel owns the names of the losses and regularizers (docs/mathematics.md §4, §5).
_LOSSES = tuple(_KERNEL_LOSSES)
# Every loss works with every regularizer (the kernel picks the step, docs/mathematics.md
# section 6); this list is what the error for a bad pair quotes.
_VALID_PAIRS = [(loss, reg) for loss in _LOSSES for reg in _REGULARIZERS]
_NORMALIZED = ("normalized_entropy", "balanced_normalized_entropy")
_BALANCED = ("balanced_entropy", "balanced_normalized_entropy")
_INTERCEPT_SOLVERS = ("auto", "converged", "paper", "constant_feature")
# Algorithm 2 budgets: (outer rounds, epochs per inner solve). "converged" runs
# up to 100 rounds of max_epochs each and stops on the gap and the residual;
# "paper" is the Reuters experiment's 4 x 50 (docs/mathematics.md §8).
_PAPER_ROUNDS, _PAPER_EPOCHS = 4, 50
_CONVERGED_ROUNDS = 100
_MAX_EPOCHS = 2 ** 31 - 1
_RHO_MIN = 1e-12  # Algorithm 2 never stiffens its penalty beyond this


def _store_params(estimator, params):
    """Store a preset's __init__ arguments unchanged (scikit-learn's rule), one line per preset."""
    for key, value in params.items():
        if key not in ("self", "__class__"):
            setattr(estimator, key, value)


class DualGaussSeidelClassifier(_OneVsRestLinearMixin, ClassifierMixin, BaseEstimator):
    """Linear classifier by dual Gauss-Seidel: a loss of the margin plus a regularizer.

    Solves, for each binary problem (docs/mathematics.md §1, ``z_i = y_i x_i``,
    ``u_i = w @ z_i``)::

        minimize_w  (1/N) sum_i s_i f(u_i; t_i) + lam g(w),   N = sum_i sample_weight_i

    by coordinate descent on the dual (Algorithm 1, docs/mathematics.md §3), and stops
    when the relative duality gap ``gap / max(P(w), eps)`` is at most ``tol``
    (checked every epoch). ``s_i`` is ``sample_weight`` times the class weight;
    ``N`` is ``n`` without sample weights, so that a weight ``k`` is exactly
    ``k`` copies of the row. In scikit-learn's scaling ``C = 1 / (lam * N)``:
    ``loss="hinge"`` with ``regularizer="square"`` is
    ``LinearSVC(loss="hinge", C=1/(lam n))``.

    Parameters
    ----------
    loss : {"hinge", "squared_hinge", "least_squares", "logistic"}, default="hinge"
        ``f`` of docs/mathematics.md §4. ``"squared_hinge"`` is the paper's modified
        least squares.
    regularizer : {"square", "entropy", "normalized_entropy", "balanced_entropy", \
            "balanced_normalized_entropy"}, default="square"
        ``g`` of docs/mathematics.md §5. The entropies keep positive weights
        (``"balanced_*"``: ``w = w+ - w-``); the normalized ones keep
        ``||w||_1 = mass`` (``||w+||_1 + ||w-||_1`` when balanced).
    lam : float > 0, default=1e-3
        Regularization strength ``lam`` (``C = 1 / (lam N)``, ``N = n`` without
        sample weights).
    tol : float >= 0, default=1e-3
        Stop when the relative duality gap is at most ``tol``.
    max_epochs : int >= 1, default=1000
        Most passes over the data per binary problem (per inner solve in
        Algorithm 2).
    fit_intercept : bool, default=False
        Fit a bias. How is chosen by ``intercept_solver``.
    intercept_solver : {"auto", "converged", "paper", "constant_feature"}, default="auto"
        ``"converged"``: Algorithm 2 (docs/mathematics.md §8), an unregularized bias by
        augmented Lagrangian, run until the inner relative gap is at most ``tol``
        and the residual ``|sum_i alpha_i y_i| / (lam n)`` at most
        ``intercept_tol`` (at most 100 rounds). ``"paper"``: Algorithm 2 with the
        Reuters experiment's budget, 4 rounds of at most 50 epochs (which can
        stop far from the optimum). ``"constant_feature"``: append a constant
        feature 1 and regularize it like the others (the *Regularized Winnow*
        paper's choice for its balanced Winnows). ``"auto"`` is
        ``"constant_feature"`` for the balanced entropies, as that paper did,
        and ``"converged"`` otherwise: under ``"entropy"`` and
        ``"normalized_entropy"`` every weight is >= 0, the constant feature's
        too, so such a bias could only raise the scores (the paper's positive
        Winnow used the threshold ``theta`` instead; Algorithm 2 works with
        every regularizer, the bias coordinate being kept out of ``g``). The
        choice made is stored in ``intercept_solver_``.
    rho0 : float > 0, default=1.0
        Algorithm 2's initial penalty parameter ``rho`` (the paper's value was
        lost; a small value hurts).
    intercept_tol : float > 0, default=1e-6
        Algorithm 2's bound on the residual ``|sum_i alpha_i y_i| / (lam n)``.
    theta : float, default=0.0
        Decision threshold: score ``w @ x - theta`` (docs/mathematics.md §7).
    gamma : float or None, default=None
        Margin around the threshold: the per-example target is
        ``t_i = gamma + y_i theta`` (in class: ``theta + gamma``, out of class:
        ``gamma - theta``). None means 1, or 0 for the logistic loss.
    prior : None, float or array of shape (n_features,), default=None
        The entropy regularizers' prior ``mu`` (positive). None is uniform:
        ``1/d`` (``"entropy"``, ``"normalized_entropy"``) or ``1/(2d)`` (the
        balanced ones), ``d`` counting the constant feature if any; so the
        unnormalized entropies start from total weight 1, like the normalized
        ones with ``mass=1``. A float fills every entry. For the normalized
        regularizers the prior is rescaled to sum to 1 (to 1/2 when balanced);
        its shape is what matters. Must be None for ``"square"``.
    mass : float > 0 or "prior", default=1.0
        The normalized entropies' ``A = ||w||_1``. ``"prior"`` takes the total
        of the prior as given (``sum mu``, or ``2 sum mu`` when balanced), the
        *Regularized Winnow* paper's ``W = ||mu||_1``.
    shuffle : bool, default=True
        Visit the examples in a fresh random order each epoch (else in data order,
        as in the papers). From 120,000 rows with a matrix beyond the CPU's
        last-level cache the order is drawn over blocks of 4 consecutive rows
        (faster to a given gap, docs/performance.md).
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the permutations (the only randomness; none with
        ``shuffle=False``). Problem ``k`` of a multi-class or multi-label fit
        gets the ``k``-th seed drawn from it, so results do not depend on
        ``n_jobs``. An int gives the same fit every time; a RandomState or
        Generator instance advances with each fit.
    n_jobs : int or None, default=None
        Threads over the binary problems: None or 1 for one, -1 for all cores,
        -2 for all but one (joblib's convention; 0 is an error). The CSR
        matrix is shared, never copied per problem.
    step : {"auto", "newton", "gradient"}, default="auto"
        The coordinate step (docs/mathematics.md §6): exact where a closed form
        exists, else a safeguarded Newton step; ``"gradient"`` is a fixed step
        ``gradient_step``.
    step_fraction : float in (0, 1], default=1.0
        Take this fraction of each step.
    gradient_step : float or None, default=None
        The fixed step of ``step="gradient"``, in the *Regularized Winnow*
        paper's scaling: the kernel takes ``gradient_step * lam * n`` (docs/mathematics.md
        section 10). None means 0.01, the paper's value.
    exp_cap : float > 0, default=ln(2)/2
        The entropy rows' exponent cap ``kappa`` (docs/mathematics.md §6).
    warm_start : bool, default=False
        Start from the previous fit's dual variables (same data shape and
        classes), e.g. along a decreasing ``lam`` path.
    class_weight : None, "balanced" or dict, default=None
        Multiplies the loss weight of each class's examples (for one-vs-rest and
        multi-label problems: the positives of that class).
    verbose : int, default=0
        1: a progress bar over the binary problems on stderr (when it is a
        terminal); 2: also one line per problem (its class, epochs, relative
        gap, seconds). Below 2 the same lines go to the ``textwin.linear``
        logger at DEBUG level, for applications that collect logs.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted class labels (``arange(n_labels)`` for a multi-label y).
    coef_ : ndarray of shape (n_problems, n_features)
        Weights ``w`` (one row per binary problem; one row for binary y).
    intercept_ : ndarray of shape (n_problems,)
        Bias minus ``theta``: ``decision_function = X @ coef_.T + intercept_``.
    dual_coef_ : ndarray of shape (n_problems, n_samples)
        The dual variables ``alpha`` in docs/mathematics.md's scaling (the *Regularized
        Winnow* paper's are ``alpha / (lam n)``), for the kernel's loss weights
        ``s_i n / N``.
    duality_gap_ : ndarray of shape (n_problems,)
        Final relative duality gap of each problem.
    gap_history_ : list of ndarray
        Relative duality gaps at each exact check, per problem (all rounds of
        Algorithm 2): the solver makes one when a cheap running estimate says
        it may be done (and, while that estimate is known to run low, at least
        every quarter of the epochs run).
    n_iter_ : ndarray of shape (n_problems,)
        Epochs run per problem (summed over Algorithm 2's rounds).
    intercept_solver_ : str
        ``"none"``, ``"converged"``, ``"paper"`` or ``"constant_feature"``.
    intercept_residual_ : ndarray of shape (n_problems,)
        Algorithm 2 only: ``|sum_i alpha_i y_i| / (lam n)`` at the end.
    n_rounds_ : ndarray of shape (n_problems,)
        Algorithm 2 only: outer rounds run.
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    DualSVM, ModifiedLeastSquares, RegularizedWinnow, LargeMarginPerceptron,
    LargeMarginUWinnow, LargeMarginNWinnow : presets of this class.
    """

    def __init__(
        self,
        loss="hinge",
        regularizer="square",
        lam=1e-3,
        tol=1e-3,
        max_epochs=1000,
        fit_intercept=False,
        intercept_solver="auto",
        rho0=1.0,
        intercept_tol=1e-6,
        theta=0.0,
        gamma=None,
        prior=None,
        mass=1.0,
        shuffle=True,
        random_state=None,
        n_jobs=None,
        step="auto",
        step_fraction=1.0,
        gradient_step=None,
        exp_cap=math.log(2) / 2,
        warm_start=False,
        class_weight=None,
        verbose=0,
    ):
        _store_params(self, locals())

    # The presets fix some of these; everything reads parameters through here.
    _fixed_params = {}

    def _all_params(self):
        params = dict(_GENERAL_DEFAULTS)
        params.update(self._fixed_params)
        params.update(self.get_params(deep=False))
        return params

    # -- validation ---------------------------------------------------------

    def _check_params(self, p):
        name = type(self).__name__
        if p["loss"] not in _LOSSES or p["regularizer"] not in _REGULARIZERS:
            valid = ", ".join(f"({loss!r}, {reg!r})" for loss, reg in _VALID_PAIRS)
            raise ValueError(
                f"{name}: the combination loss={p['loss']!r}, regularizer="
                f"{p['regularizer']!r} is not supported. Valid (loss, regularizer) "
                f"pairs: {valid}."
            )
        _check_positive(name, "lam", p["lam"])
        _check_positive(name, "tol", p["tol"], allow_zero=True)
        _check_positive(name, "rho0", p["rho0"])
        _check_positive(name, "intercept_tol", p["intercept_tol"])
        _check_positive(name, "exp_cap", p["exp_cap"])
        if (not isinstance(p["max_epochs"], Integral)
                or not 1 <= p["max_epochs"] <= _MAX_EPOCHS):  # the kernel counts in a C int
            raise ValueError(f"{name}: max_epochs must be an integer in [1, {_MAX_EPOCHS}], "
                             f"got {p['max_epochs']!r}.")
        if not (isinstance(p["step_fraction"], Real) and 0 < p["step_fraction"] <= 1):
            raise ValueError(f"{name}: step_fraction must be in (0, 1], got {p['step_fraction']!r}.")
        if p["step"] not in ("auto", "newton", "gradient"):
            raise ValueError(
                f"{name}: step={p['step']!r} is not valid; use 'auto', 'newton' or 'gradient'."
            )
        if p["gradient_step"] is not None:
            _check_positive(name, "gradient_step", p["gradient_step"])
        if p["intercept_solver"] not in _INTERCEPT_SOLVERS:
            raise ValueError(
                f"{name}: intercept_solver={p['intercept_solver']!r} is not valid; use one "
                f"of {list(_INTERCEPT_SOLVERS)}."
            )
        if not isinstance(p["theta"], Real) or not np.isfinite(p["theta"]):
            raise ValueError(f"{name}: theta must be a finite number, got {p['theta']!r}.")
        if p["gamma"] is not None and (not isinstance(p["gamma"], Real) or not np.isfinite(p["gamma"])):
            raise ValueError(f"{name}: gamma must be a finite number or None, got {p['gamma']!r}.")
        if p["regularizer"] == "square" and p["prior"] is not None:
            raise ValueError(
                f"{name}: prior is the entropy regularizers' mu; it must be None with "
                f"regularizer='square'."
            )
        if not (isinstance(p["mass"], str) and p["mass"] == "prior"):
            _check_positive(name, "mass", p["mass"])
        try:
            _effective_n_jobs(p["n_jobs"])
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None

    def _prior_and_mass(self, p, d):
        """mu (d,) and A in the kernel's conventions (docs/mathematics.md §5)."""
        reg = p["regularizer"]
        if reg == "square":
            return None, 1.0
        balanced = reg in _BALANCED
        if p["prior"] is None:
            mu = np.full(d, 1.0 / (2 * d if balanced else d))
        else:
            mu = np.asarray(p["prior"], dtype=np.float64)
            if mu.ndim == 0:
                mu = np.full(d, float(mu))
            elif p["fit_intercept"] and self.intercept_solver_ == "constant_feature" and mu.shape == (d - 1,):
                # a prior over the user's features: the constant feature gets their mean
                mu = np.append(mu, mu.mean())
            if mu.shape != (d,):
                raise ValueError(
                    f"{type(self).__name__}: prior has shape {mu.shape}; expected ({d},) "
                    f"(one entry per feature)."
                )
            if not np.all(np.isfinite(mu)) or np.any(mu <= 0):
                raise ValueError(f"{type(self).__name__}: prior must be finite and > 0.")
        total = mu.sum() * (2.0 if balanced else 1.0)
        if isinstance(p["mass"], str):
            if reg not in _NORMALIZED:
                raise ValueError(
                    f"{type(self).__name__}: mass='prior' only applies to the normalized "
                    f"entropies, not regularizer={reg!r}."
                )
            mass = float(total)
        else:
            mass = float(p["mass"])
        if reg in _NORMALIZED:
            mu = mu / total  # sum mu = 1 (sum 2 mu = 1 when balanced)
        return np.ascontiguousarray(mu), mass

    # -- fit ----------------------------------------------------------------

    def fit(self, X, y, sample_weight=None):
        """Fit one binary problem per class (one-vs-rest) or per label column.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; converted once to CSR (float64, int32 indices) and
            shared by every binary problem.
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a multi-label 0/1 indicator matrix (dense or sparse).
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each example's loss term (weight ``k`` = ``k`` copies).

        Returns
        -------
        self : object
        """
        p = self._all_params()
        self._check_params(p)
        name = type(self).__name__
        X = self._validate_X(X, reset=True)
        n, d_user = X.shape
        labels = self._encode_labels(y, n)
        sw = _check_sample_weight(sample_weight, n)
        _check_class_weight(p["class_weight"], self.classes_)
        # The kernel averages over the n rows; averaging over the total sample
        # weight instead makes weight k the same problem as k copies of the row.
        weight_scale = n / sw.sum()
        K = labels.n_problems

        if not p["fit_intercept"]:
            mode = "none"
        elif p["intercept_solver"] == "auto":
            mode = "constant_feature" if p["regularizer"] in _BALANCED else "converged"
        else:
            mode = p["intercept_solver"]
            if mode == "constant_feature" and p["regularizer"] in ("entropy",
                                                                   "normalized_entropy"):
                warnings.warn(
                    f"{name}: under regularizer={p['regularizer']!r} the constant "
                    f"feature's weight is >= 0, so intercept_solver='constant_feature' "
                    f"gives a bias that can only raise the scores. Use "
                    f"intercept_solver='converged' for a bias of either sign, or theta "
                    f"for a fixed threshold.", UserWarning, stacklevel=2)
        self.intercept_solver_ = mode
        if mode == "constant_feature":
            X = _append_constant(X)
        d = X.shape[1]
        mu, mass = self._prior_and_mass(p, d)

        gamma = p["gamma"]
        if gamma is None:
            gamma = 0.0 if p["loss"] == "logistic" else 1.0
        theta = float(p["theta"])
        lam_n = p["lam"] * n

        alpha0, sigma0 = None, np.zeros(K)
        if (
            p["warm_start"]
            and getattr(self, "dual_coef_", None) is not None
            and self.dual_coef_.shape == (K, n)
            and getattr(self, "_fit_dimension", None) == d
        ):
            alpha0 = self.dual_coef_
            # Algorithm 2 restarts its multiplier at the previous bias (sigma = b
            # at convergence, where v_b = 0)
            sigma0 = self.intercept_ + theta
        seeds = _problem_seeds(p["random_state"], K)
        # checked and scanned once here, not once per problem inside the kernel
        Xc = check_csr(X.data, X.indices, X.indptr, d, p["regularizer"] != "square")

        kernel_kwargs = dict(
            X_checked=Xc,
            loss=p["loss"],
            regularizer=p["regularizer"],
            lam=float(p["lam"]),
            mu=mu,
            mass=mass,
            shuffle=bool(p["shuffle"]),
            shuffle_block=_shuffle_block(X),
            step=p["step"],
            step_fraction=float(p["step_fraction"]),
            gradient_step=(
                (0.01 if p["gradient_step"] is None else float(p["gradient_step"])) * lam_n
                if p["step"] == "gradient"
                else None
            ),
            exp_cap=float(p["exp_cap"]),
        )
        kernel = dual_gauss_seidel
        constant = []  # multi-label columns with a single class
        # The fitted arrays are filled in place, row k by problem k: a fit over
        # K problems then holds the CSR matrix, these and O(n + d) per thread
        # (issue #5), not a list of K solutions stacked into copies at the end.
        coef = np.empty((K, d_user))
        dual = np.empty((K, n))
        bias = np.empty(K)

        def solve(k):
            started = time.perf_counter()
            yk = labels.column(k)
            wk = _problem_weight(p["class_weight"], yk, k, sw, self.classes_, self._label_mode)
            wk *= weight_scale
            alpha = dual[k]  # a contiguous row: the kernel updates it in place
            # a constant model unless both sides hold an example of nonzero weight
            # (a single class leaves one side empty)
            pos, nonzero = yk > 0, wk != 0
            if not (np.any(nonzero & pos) and np.any(nonzero & ~pos)):
                constant.append(k)
                coef[k] = 0.0
                alpha[:] = 0.0
                bias[k] = _constant_bias(yk, wk)
                return dict(n_epochs=0, gaps=np.zeros(0), gap=0.0, residual=0.0, rounds=0,
                            converged=True)
            target = gamma + yk * theta
            alpha[:] = alpha0[k] if alpha0 is not None else _initial_alpha(p["loss"])
            args = (Xc.data, Xc.indices, Xc.indptr, yk, target, wk, alpha, d)
            if mode in ("converged", "paper"):
                out = _algorithm2(kernel, args, kernel_kwargs, p, seeds[k], mode, sigma0[k])
            else:
                res = kernel(*args, tol=float(p["tol"]), max_epochs=int(p["max_epochs"]),
                             seed=int(seeds[k]), **kernel_kwargs)
                out = dict(w=res["w"], bias=0.0, n_epochs=int(res["n_epochs"]),
                           gaps=np.asarray(res["gaps"]), gap=float(res["gap"]),
                           residual=np.nan, rounds=0, converged=float(res["gap"]) <= p["tol"])
            w = out.pop("w")
            coef[k] = w[:d_user]
            bias[k] = w[-1] if mode == "constant_feature" else out["bias"]
            if p["verbose"] >= 2 or logger.isEnabledFor(logging.DEBUG):
                label = self.classes_[-1] if K == 1 else self.classes_[k]  # binary: the positive
                line = (f"[{name}] problem {k} ({label}): "
                        f"{out['n_epochs']} epochs, relative gap {out['gap']:.3g}, "
                        f"{time.perf_counter() - started:.3f} s")
                if p["verbose"] >= 2:
                    tqdm.write(line, file=sys.stderr)
                else:  # printed already: not twice where the logger has a handler too
                    logger.debug(line)
            return out

        results = _map_problems(solve, K, p["n_jobs"], desc=name, verbose=p["verbose"])

        self.coef_ = coef
        self.intercept_ = bias - theta
        self.dual_coef_ = dual
        self.duality_gap_ = np.array([r["gap"] for r in results])
        self.gap_history_ = [r["gaps"] for r in results]
        self.n_iter_ = np.array([r["n_epochs"] for r in results])
        if mode in ("converged", "paper"):
            self.intercept_residual_ = np.array([r["residual"] for r in results])
            self.n_rounds_ = np.array([r["rounds"] for r in results])
        else:  # an earlier fit's Algorithm 2 figures do not describe this one
            for attr in ("intercept_residual_", "n_rounds_"):
                self.__dict__.pop(attr, None)
        self._fit_dimension = d

        if constant:
            warnings.warn(
                f"{name}: label column(s) {sorted(constant)} have examples of a single "
                f"class (or zero weight on one side); they get a constant model "
                f"(coefficients 0, intercept +-1).",
                UserWarning,
                stacklevel=2,
            )
        failures = [(k, r["gap"], r["n_epochs"]) for k, r in enumerate(results) if not r["converged"]]
        if failures:
            extra = ""
            if mode in ("converged", "paper"):
                worst = max(failures, key=lambda f: f[1])[0]
                extra = (f", Algorithm 2 after {results[worst]['rounds']} rounds with "
                         f"residual |sum alpha_i y_i|/(lam n) = "
                         f"{results[worst]['residual']:.3g} (intercept_tol="
                         f"{p['intercept_tol']:g})")
                if mode == "paper":
                    extra += "; intercept_solver='converged' runs to the tolerances"
            _convergence_warning(name, failures, p["tol"], extra, self._describe_problem)
        return self

    def _describe_problem(self, k):
        """What binary problem k is: its class (one-vs-rest) or its label column."""
        if self._label_mode == "multilabel":
            return f"label column {k}"
        label = self.classes_[-1] if self._label_mode == "binary" else self.classes_[k]
        if isinstance(label, np.generic):
            label = label.item()  # 'cat', not np.str_('cat')
        return f"class {label!r}"

    def _predict_proba_available(self):
        return self._all_params()["loss"] == "logistic"

    @available_if(_predict_proba_available)
    def predict_proba(self, X):
        """Probabilities of the logistic loss, ``1 / (1 + exp(-score))``.

        Only with ``loss="logistic"``. Multi-class (one-vs-rest) rows are
        normalized to sum to 1; multi-label columns are independent.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X)
        prob = 1.0 / (1.0 + np.exp(-scores))
        if self._label_mode == "binary":
            return np.column_stack([1.0 - prob, prob])
        if self._label_mode == "multiclass":
            prob /= prob.sum(axis=1, keepdims=True)
        return prob


_GENERAL_DEFAULTS = {
    k: v.default
    for k, v in __import__("inspect").signature(DualGaussSeidelClassifier.__init__).parameters.items()
    if k != "self"
}


def _check_positive(name, key, value, allow_zero=False):
    ok = isinstance(value, Real) and np.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name}: {key} must be a finite number {bound}, got {value!r}.")


def _initial_alpha(loss):
    # Zero for every loss: the kernel moves a logistic alpha that lies outside the
    # open domain (0, s) to a small interior start scaled by lam / max|x_ij|
    # (docs/mathematics.md §4); a fixed 1e-3 overflows e^v at lam = 1e-8.
    return 0.0


def _constant_bias(yk, weight):
    """The bias of a column without both classes (w = 0): the only label present."""
    present = yk[weight > 0] if np.any(weight > 0) else yk
    return 1.0 if np.all(present > 0) else -1.0


def _algorithm2(kernel, args, kernel_kwargs, p, seed, mode, sigma0=0.0):
    """Algorithm 2 (docs/mathematics.md §8): an unregularized bias by augmented Lagrangian.

    ``sigma`` starts at ``sigma0`` (0, or the previous bias on a warm start).

    The kernel treats the bias coordinate with the conjugate
    ``sigma v_b + v_b^2 / (2 rho)`` (``b = sigma + v_b / rho``); this loop
    updates ``sigma`` and ``rho`` between warm-started inner solves:
    a multiplier step when the residual ``r = |v_b| = |sum alpha_i y_i|/(lam n)``
    at least halved, else ``rho /= 4``.

    Two guards that change nothing while the residual is above
    ``intercept_tol``: once it is below, the round only continues the inner
    solve (multiplier step, no stiffening), and ``rho`` never falls below
    ``_RHO_MIN``. Without them a residual at rounding level (which cannot halve
    any more) keeps dividing ``rho`` until ``v_b / rho`` -- rounding noise over
    a vanishing ``rho`` -- throws the bias off by orders of magnitude.
    """
    if mode == "paper":
        rounds, epochs = _PAPER_ROUNDS, _PAPER_EPOCHS
    else:
        rounds, epochs = _CONVERGED_ROUNDS, int(p["max_epochs"])
    sigma, rho, r_prev = float(sigma0), float(p["rho0"]), np.inf
    n_epochs, gaps = 0, []
    res = None
    for rnd in range(1, rounds + 1):
        round_seed = (int(seed) + rnd - 1) % _INT32_MAX
        res = kernel(*args, tol=float(p["tol"]), max_epochs=epochs, seed=round_seed,
                     bias_sigma=sigma, bias_rho=rho, **kernel_kwargs)
        n_epochs += int(res["n_epochs"])
        gaps.append(np.asarray(res["gaps"]))
        v_b = float(res["v_bias"])
        r = abs(v_b)
        bias = float(res["bias"])
        gap = float(res["gap"])
        if gap <= p["tol"] and r <= p["intercept_tol"]:
            break
        if r <= r_prev / 2 or r <= p["intercept_tol"] or rho / 4.0 < _RHO_MIN:
            sigma += v_b / rho  # multiplier step
        else:
            rho /= 4.0  # stiffen the penalty
        r_prev = r
    converged = gap <= p["tol"] and r <= p["intercept_tol"]
    return dict(w=res["w"], bias=bias, n_epochs=n_epochs,
                gaps=np.concatenate(gaps), gap=gap, residual=r, rounds=rnd,
                converged=converged)


# ---------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------


class DualSVM(DualGaussSeidelClassifier):
    """Linear SVM (hinge loss, square regularizer) by dual Gauss-Seidel.

    Paper names: *SVM by Algorithm 1*, the dual coordinate update (29), when
    ``fit_intercept=False``; *SVM by Algorithm 2*, update (30), with
    ``fit_intercept=True``: an unregularized bias by augmented Lagrangian
    (docs/mathematics.md §8). ``intercept_solver="paper"`` runs the Reuters
    experiment's budget of 4 rounds x 50 epochs; the default ``"converged"``
    runs to the duality-gap and residual tolerances. Same problem as
    ``sklearn.svm.LinearSVC(loss="hinge", C=1/(lam n))`` without intercept and
    ``sklearn.svm.SVC(kernel="linear", C=1/(lam n))`` with one.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, intercept_solver, rho0, intercept_tol, \
shuffle, random_state, n_jobs, step_fraction, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "square"}

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=1000, fit_intercept=False,
                 intercept_solver="auto", rho0=1.0, intercept_tol=1e-6, shuffle=True,
                 random_state=None, n_jobs=None, step_fraction=1.0, warm_start=False,
                 class_weight=None, verbose=0):
        _store_params(self, locals())


class ModifiedLeastSquares(DualGaussSeidelClassifier):
    """Modified least squares (squared hinge, square regularizer): update (27).

    Paper name: *modified least squares, update (27), constant feature,
    Algorithm 1* (Reuters, 100 epochs). The default bias is that constant
    feature, regularized (``intercept_solver="constant_feature"``); pass
    ``intercept_solver="converged"`` for an unregularized one (Algorithm 2).
    Same problem as ``sklearn.svm.LinearSVC(loss="squared_hinge",
    C=1/(lam n))`` when ``fit_intercept=False``.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, intercept_solver, shuffle, random_state, \
n_jobs, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`; ``max_epochs`` defaults to
        the paper's 100.
    """

    _fixed_params = {"loss": "squared_hinge", "regularizer": "square"}

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=100, fit_intercept=True,
                 intercept_solver="constant_feature", shuffle=True, random_state=None,
                 n_jobs=None, warm_start=False, class_weight=None, verbose=0):
        _store_params(self, locals())


class RegularizedWinnow(DualGaussSeidelClassifier):
    """Regularized Winnow: update (28), squared hinge + normalized entropy, threshold targets.

    Paper name: *regularized Winnow, update (28)* (Reuters Table 1). Positive
    weights with ``||w||_1 = mass``, score ``w @ x - theta``, trained towards
    ``w @ x >= theta + gamma`` in class and ``w @ x <= theta - gamma`` out of
    class (docs/mathematics.md §7): the modified least squares loss with targets
    ``t_i = gamma + y_i theta`` and the normalized positive entropy with a
    uniform prior. Paper settings: ``gamma = 0.1``, ``lam = 1e-4``,
    ``theta`` in {0.1, 0.3}, 100 epochs; ``mass = 1`` is reconstructed (the
    paper's ``A`` was lost). ``shuffle=False`` visits the examples in data
    order, as the paper did.

    Parameters
    ----------
    theta, gamma, lam, mass, prior, tol, max_epochs, shuffle, random_state, n_jobs, \
step, step_fraction, gradient_step, exp_cap, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "squared_hinge", "regularizer": "normalized_entropy"}

    def __init__(self, theta=0.1, gamma=0.1, lam=1e-4, mass=1.0, prior=None, tol=1e-3,
                 max_epochs=100, shuffle=True, random_state=None, n_jobs=None,
                 step="auto", step_fraction=1.0, gradient_step=None,
                 exp_cap=math.log(2) / 2, warm_start=False, class_weight=None, verbose=0):
        _store_params(self, locals())


class _LargeMargin(DualGaussSeidelClassifier):
    """Shared __init__ of the *Regularized Winnow methods* section-4 presets."""

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=200, fit_intercept=True, prior=0.01,
                 shuffle=False, random_state=None, n_jobs=None, step="auto",
                 gradient_step=None, warm_start=False, class_weight=None, verbose=0):
        _store_params(self, locals())


class LargeMarginPerceptron(DualGaussSeidelClassifier):
    """LM-Perc of *Regularized Winnow methods* (section 4): hinge + square, constant feature.

    The "SVM style large margin Perceptron" with the exact update
    (``eta = 1/||x_i||^2``), a regularized constant feature and 200 passes in
    data order. ``lam = 1/(n C)`` as in the paper's Figure 1.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, shuffle, random_state, n_jobs, warm_start, \
class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "square",
                     "intercept_solver": "constant_feature"}

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=200, fit_intercept=True, shuffle=False,
                 random_state=None, n_jobs=None, warm_start=False, class_weight=None,
                 verbose=0):
        _store_params(self, locals())


class LargeMarginUWinnow(_LargeMargin):
    """LM-UWin of *Regularized Winnow methods* (section 4): hinge + balanced unnormalized entropy.

    The large-margin (regularized) balanced unnormalized Winnow: prior
    ``mu_j = 0.01``, a regularized constant feature, 200 passes in data order.
    The paper took gradient steps of 0.01 in its dual scaling
    (``step="gradient"``, ``gradient_step=0.01``); the default here is the
    safeguarded Newton step, which reaches the same optimum in fewer epochs.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, prior, shuffle, random_state, n_jobs, step, \
gradient_step, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "balanced_entropy"}


class LargeMarginNWinnow(_LargeMargin):
    """LM-NWin of *Regularized Winnow methods* (section 4): hinge + balanced normalized entropy.

    The large-margin balanced normalized Winnow: prior ``mu_j = 0.01`` and
    ``||w+||_1 + ||w-||_1 = W = ||mu||_1`` over both halves (``mass="prior"``),
    a regularized constant feature, 200 passes in data order. Steps as in
    :class:`LargeMarginUWinnow`.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, prior, shuffle, random_state, n_jobs, step, \
gradient_step, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "balanced_normalized_entropy",
                     "mass": "prior"}

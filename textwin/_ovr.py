"""Plumbing shared by textwin's linear estimators (dual Gauss-Seidel and online).

Input checks (canonical CSR, finite values, sample and class weights), the
encoding of binary, multi-class and multi-label targets into binary problems,
the one-vs-rest prediction mixin, the per-problem seeds and loss weights, the
thread pool over binary problems and the convergence warning. It imports no
estimator: :mod:`textwin.linear` and :mod:`textwin.online` build on it.
"""
import os
import sys
import threading
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data
from tqdm import tqdm

from textwin._distributed import active_cluster, scores_on_cluster
from textwin.tasks import decide

INT32_MAX = np.iinfo(np.int32).max
MAX_EPOCHS = 2 ** 31 - 1  # the kernels count epochs in a C int


def store_params(estimator, params):
    """Store a preset's __init__ arguments unchanged (scikit-learn's rule), one line per preset."""
    for key, value in params.items():
        if key not in ("self", "__class__"):
            setattr(estimator, key, value)


def check_positive(name, key, value, allow_zero=False):
    ok = isinstance(value, Real) and np.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name}: {key} must be a finite number {bound}, got {value!r}.")




def as_canonical_csr(X):
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
        if X.nnz > INT32_MAX or X.shape[1] > INT32_MAX:
            raise ValueError(
                f"X has {X.nnz} stored values and {X.shape[1]} columns; the "
                f"kernels take 32-bit indices (at most {INT32_MAX}). Split the "
                f"data or select fewer features."
            )
        X = sp.csr_matrix(
            (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
            shape=X.shape,
        )
    return X


def check_finite_csr(X):
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


def append_constant(X, value=1.0):
    """[X, value] as canonical CSR (the constant feature of a regularized bias): each
    row's entries, then the constant in the new last column."""
    X = as_canonical_csr(X)
    n, d = X.shape
    if X.nnz + n > INT32_MAX or d + 1 > INT32_MAX:  # as_canonical_csr says what to do
        ones = sp.csr_matrix(np.full((n, 1), value))
        return as_canonical_csr(sp.hstack([X, ones], format="csr"))
    indptr = X.indptr + np.arange(n + 1, dtype=np.int32)
    ends = indptr[1:] - 1
    rest = np.ones(X.nnz + n, dtype=bool)
    rest[ends] = False
    data, indices = np.empty(X.nnz + n), np.empty(X.nnz + n, dtype=np.int32)
    data[rest], indices[rest] = X.data, X.indices
    data[ends], indices[ends] = value, d
    out = sp.csr_matrix((data, indices, indptr), shape=(n, d + 1))
    out.has_canonical_format = True  # sorted rows, d above every column of X
    return out


def effective_n_jobs(n_jobs):
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
        return max(1, usable_cores() + 1 + n_jobs)
    return int(n_jobs)


def usable_cores():
    """The cores this process may run on: joblib's count (as scikit-learn's ``n_jobs=-1``),
    which heeds the CPU affinity and a container's CPU quota, where ``os.cpu_count()``
    gives the whole machine's."""
    from joblib import cpu_count  # joblib comes with scikit-learn

    return max(1, int(cpu_count()))


def map_problems(fn, n_problems, n_jobs, desc=None, verbose=0):
    """[fn(k) for k in range(n_problems)], in threads when n_jobs > 1.

    The calling thread solves problems too, next to ``n_workers - 1`` helper
    threads, each taking the next problem in order as it gets free (a greedy
    pool). Fits of ten problems take a tenth of a second: a pool executor's
    start-up, its futures and an idle calling thread cost a visible part of
    that. After a failure no new problem starts; the exception of
    the first failed problem (in problem order) is raised.

    With ``verbose``, a progress bar over the problems goes to stderr (only
    when stderr is a terminal).
    """
    n_workers = min(effective_n_jobs(n_jobs), n_problems)
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


def last_level_cache_bytes():
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


BLOCK_MIN_ROWS = 120_000


def shuffle_block(X, constant=False):
    """Rows per block of the solver's visiting order: 4 for a matrix beyond the
    last-level cache with at least 120,000 rows, else 1 (a plain permutation).
    ``constant``: X's size counts a constant feature's entries (a bias the kernel fits
    as one), as the matrix with the column appended would.

    Blocks of consecutive rows let the hardware prefetcher stream the CSR
    arrays but cost epochs; docs/performance.md ("Block order: when it pays")
    measured blocks of 4 under this rule at 0.77 of the time (worst 1.06 in 80
    cases) and larger blocks or smaller matrices losing up to 5.5x.
    """
    nbytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    if constant:
        nbytes += X.shape[0] * (X.data.itemsize + X.indices.itemsize)
    if X.shape[0] >= BLOCK_MIN_ROWS and nbytes > last_level_cache_bytes():
        return 4
    return 1


def problem_seeds(random_state, n_problems):
    """The seed of each binary problem: one draw from random_state, shared by all.

    As scikit-learn's one-vs-rest gives every binary estimator the same
    random_state, a category's model does not depend on which other
    categories are trained beside it, nor on their order or on n_jobs
    (``textwin train -c acq`` fits the acq of ``-c top10``).
    """
    if isinstance(random_state, np.random.Generator):
        # drawn from the caller's generator, which advances (as a RandomState does)
        seed = random_state.integers(0, INT32_MAX)
    else:
        seed = check_random_state(random_state).randint(0, INT32_MAX)
    return np.full(n_problems, seed, dtype=np.int64)


class BinaryLabels:
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


def is_dense_indicator(y):
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


class OneVsRestLinearMixin:
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
        X = as_canonical_csr(X)
        check_finite_csr(X)
        return X

    def _encode_targets(self, y, n_samples):
        """Set classes_ and task_; return Y of shape (n, n_problems) in {-1, +1}."""
        return self._encode_labels(y, n_samples, stacklevel=4).dense()

    def _encode_labels(self, y, n_samples, stacklevel=3):
        """Set classes_ and task_ ("binary", "multiclass" or "multilabel"); return the problems' labels as :class:`BinaryLabels`."""
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        kind = "multilabel-indicator" if is_dense_indicator(y) else type_of_target(y, input_name="y")
        if kind == "multilabel-indicator":
            # kept as given (sparse: by column), read one column per problem
            Y = y.tocsc() if sp.issparse(y) else np.asarray(y)
            if Y.shape[0] != n_samples:
                raise ValueError(
                    f"y has {Y.shape[0]} rows but X has {n_samples} samples."
                )
            self.classes_ = np.arange(Y.shape[1])
            self.task_ = "multilabel"
            self._sparse_labels = sp.issparse(y)
            return BinaryLabels("multilabel", Y, Y.shape[1])
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
            self.task_ = "binary"
            return BinaryLabels("binary", y_idx, 1)
        self.task_ = "multiclass"
        return BinaryLabels("multiclass", y_idx, self.classes_.size)

    @classmethod
    def holding(cls, coef, intercept, classes, task, **params):
        """A fitted estimator of ``params`` that holds the given weights, ``classes_`` and
        ``task_`` (a point of a regularization path, scored as a fitted model)."""
        est = cls(**params)
        est.coef_, est.intercept_, est.classes_, est.task_ = coef, intercept, classes, task
        est._sparse_labels = False
        est.n_features_in_ = coef.shape[1]
        return est

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
        cluster = active_cluster()
        if cluster is not None and self.coef_.shape[0] > 1:  # blocks of problems as tasks
            scores = scores_on_cluster(cluster, X, self.coef_, self.intercept_)
        else:
            scores = np.asarray(X @ self.coef_.T) + self.intercept_
        if self.task_ == "binary":
            return scores.ravel()
        return scores

    def _decision_thresholds(self):
        """The thresholds :meth:`predict` decides at: 0 (the sign of the score)."""
        return 0.0

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
        scores = self.decision_function(X)  # checks that the model is fitted
        labels = decide(self.task_, scores, self._decision_thresholds())
        if self.task_ == "binary":
            return self.classes_[labels.astype(int)]
        if self.task_ == "multiclass":
            return self.classes_[labels]
        Y = labels.astype(int)
        return sp.csr_matrix(Y) if self._sparse_labels else Y

    def __sklearn_tags__(self):
        return sparse_multilabel_tags(super().__sklearn_tags__())


def sparse_multilabel_tags(tags):
    """scikit-learn tags of a classifier taking sparse X and a multi-label y."""
    tags.input_tags.sparse = True
    tags.classifier_tags.multi_label = True
    return tags


def check_sample_weight(sample_weight, n_samples):
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


def check_class_weight(class_weight, classes):
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


def problem_weight(class_weight, yk, k, sample_weight, classes, label_mode):
    """Per-example loss weights s_i (n,) of problem k: sample weight times class weight.

    ``class_weight`` has passed :func:`check_class_weight`. A dict maps a
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


class ConstantModelWarning(UserWarning):
    """Some binary problems had examples of one class only and got a constant model.

    ``problems`` lists them (label columns or classes, by index), so that a
    front end that knows their names can say which, or silence the warning
    where it has named them already.
    """

    def __init__(self, message, problems):
        super().__init__(message)
        self.problems = list(problems)


class SolverConvergenceWarning(ConvergenceWarning):
    """A :class:`~sklearn.exceptions.ConvergenceWarning` that keeps its parts.

    The message names the API's parameters (``max_epochs``, ``tol``, ``lam``);
    a front end with other names for them (the command line's flags) renders
    the same warning in its own words with :meth:`render`, and names the
    problems its own way (a category instead of a label column).

    Attributes
    ----------
    estimator : str
        Class name of the estimator that warns.
    n_failed : int
        Binary problems that missed a tolerance.
    problem : int
        Index of the worst of them (largest relative gap).
    epochs, gap, tol : int, float, float
        Its epochs, its final relative duality gap, and the gap's tolerance.
    """

    # {names} of the API; a front end passes its own to render()
    API_NAMES = {
        "max_epochs": "max_epochs",
        "tol": "tol",
        "lam": "lam",
        "converged": "intercept_solver='converged'",
    }

    def __init__(self, estimator, n_failed, problem, epochs, gap, tol, detail="",
                 describe=None):
        self.estimator, self.n_failed, self.problem = estimator, n_failed, problem
        self.epochs, self.gap, self.tol = epochs, gap, tol
        self._detail = detail  # may name parameters as {converged}
        self._description = describe(problem) if describe is not None else None
        super().__init__(self.render(self.API_NAMES))

    def render(self, names, describe=None, resume=True, estimator=None):
        """The message with the parameters called ``names[key]``.

        ``describe(k)`` says what problem ``k`` is (default: the estimator's
        own description, its class or label column); ``estimator`` what fitted
        it (default: its class); ``resume`` adds how a warm start continues the
        fit (the Python API's way on).
        """
        description = (describe(self.problem) if describe is not None else None) or self._description
        what = f"problem {self.problem}" + (f": {description}" if description else "")
        # Algorithm 2 can meet the gap's tol and still miss its residual's (detail says)
        gap = (f"at relative duality gap {self.gap:.3g} (tol={self.tol:g})"
               if self.gap > self.tol
               else f"with its relative duality gap {self.gap:.3g} within tol={self.tol:g}")
        text = (f"{estimator or self.estimator} did not converge on {self.n_failed} binary problem(s): "
                f"the worst ({what}) stopped after {self.epochs} epochs {gap}"
                f"{self._detail.format(**names)}. Raise {names['max_epochs']}, loosen "
                f"{names['tol']}, or scale the features (e.g. unit-length rows); with an "
                f"entropy regularizer a larger {names['lam']} also helps.")
        if resume:
            text += " With warm_start=True, calling fit again continues from where this fit stopped."
        return text


def convergence_warning(name, failures, tol, detail="", describe=None, stacklevel=3):
    """One :class:`SolverConvergenceWarning` for the whole fit, quoting the worst problem.

    ``failures`` holds ``(k, gap, epochs)`` per failed problem; ``describe(k)``,
    if given, says what problem ``k`` is (its class or label column).
    """
    worst_k, worst_gap, epochs = max(failures, key=lambda f: f[1])
    warnings.warn(
        SolverConvergenceWarning(name, len(failures), worst_k, epochs, worst_gap, tol,
                                 detail, describe),
        stacklevel=stacklevel,
    )

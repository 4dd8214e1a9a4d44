# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Dual Gauss-Seidel kernel, the Python boundary: Algorithm 1 of Zhang's dual
formulation (docs/mathematics.md §3).

We minimize the dual

    D(alpha) = (1/n) sum_i K_i(alpha_i) + lam h(v),   v = (1/(lam n)) sum_i alpha_i z_i,

with ``z_i = y_i x_i`` (labels are folded on the fly, the CSR matrix is never
copied), ``K_i(alpha) = s_i k(-alpha/s_i)`` the conjugate of the weighted loss
``s_i f(u)`` (docs/mathematics.md §4, with a per-example weight ``s_i >= 0`` and target
``t_i``) and ``h`` the conjugate of the regularizer ``g`` (docs/mathematics.md §5).  The
primal is ``P(w) = (1/n) sum_i s_i f(w.z_i) + lam g(w)`` with ``w = grad h(v)``;
``P + D`` is the duality gap (docs/mathematics.md §2), a sum of non-negative per-example
terms, and the solver stops on ``gap / max(P, tiny) <= tol``.

The pieces, one file each (a .pxd declares what the others cimport):

- ``_losses``: the losses' conjugates, gap terms and one-dimensional steps.
- ``_regularizers``: ``v`` and the caches that give ``w = grad h(v)``, the
  margin and curvature of a row, the update along it; their per-entry loops
  are the C of ``rowops.h`` (baseline and AVX2/FMA, chosen at import).
- ``_stop``: the stopping rule, cheap estimate then exact gap.
- ``_solver``: the epoch and the whole solve, without the GIL, so that the
  estimator may train many categories in parallel threads on one matrix.
- here: ``dual_gauss_seidel`` checks its input (``_validate``), fills the
  solver's records (``_build``), runs ``solve`` and reads the result
  (``_result``); ``check_csr`` checks a matrix once for many calls.
"""
from libc.math cimport fabs, isfinite, INFINITY, NAN
from libc.stdint cimport uint64_t

from ._losses cimport Loss
from ._regularizers cimport Regularizer, DiagonalSquare
from ._solver cimport (Example, Problem, Order, Record, solve, STEP_AUTO, STEP_NEWTON,
                       STEP_GRADIENT)
from ._stop cimport StopRule

import numpy as np

from ._losses import LOSSES as _LOSSES, make_loss
from ._regularizers import REGULARIZERS as _REGULARIZERS, make_regularizer
# the SIMD path of the per-entry loops (tests and benchmarks ask for it here)
from ._regularizers import select_simd as _select_simd, simd_path

cdef double TINY = 1e-300          # floor of P in the relative gap
_STEPS = {"auto": STEP_AUTO, "newton": STEP_NEWTON, "gradient": STEP_GRADIENT}


def _vector(name, a, n, writable=False, check_values=True):
    a = np.asarray(a)
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"{name} must be a 1-D array of length {n}, got shape {a.shape}")
    if writable:
        if a.dtype != np.float64 or not a.flags.c_contiguous or not a.flags.writeable:
            raise ValueError(
                f"{name} is updated in place: pass a writable, C-contiguous float64 array"
            )
    else:
        a = np.ascontiguousarray(a, dtype=np.float64)
    if check_values and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


cdef int _scan_rows(const double* data, const int* indices, const int* indptr,
                    Py_ssize_t n, int d, bint entropy, double* out, double* one) noexcept nogil:
    """One pass over X: checks it and stores per row ||x_i||^2 (square curvature)
    or max_j |x_ij| (entropy: the exponent cap), and in ``one`` the value every
    entry of the row shares (NaN if they differ; 0 for an empty row).

    Returns 0, or 1 (indptr decreases), 2 (a column outside [0, d)), 3 (NaN or inf).
    """
    cdef Py_ssize_t i, k
    cdef double acc, x
    for i in range(n):
        if indptr[i + 1] < indptr[i]:
            return 1
        acc = 0.0
        one[i] = data[indptr[i]] if indptr[i + 1] > indptr[i] else 0.0
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] < 0 or indices[k] >= d:
                return 2
            x = data[k]
            if not isfinite(x):
                return 3
            if x != one[i]:
                one[i] = NAN
            if entropy:
                if fabs(x) > acc:
                    acc = fabs(x)
            else:
                acc += x * x
        out[i] = acc
    return 0


def _csr(X_data, X_indices, X_indptr, n_features, entropy):
    """Check the CSR triple (dtypes, shapes, values) and return it with the row statistic."""
    X_data = np.asarray(X_data)
    X_indices = np.asarray(X_indices)
    X_indptr = np.asarray(X_indptr)
    if X_data.dtype != np.float64:
        raise ValueError(f"X_data must be float64, got {X_data.dtype}; convert the matrix once with X.astype(np.float64)")
    for name, a in (("X_indices", X_indices), ("X_indptr", X_indptr)):
        if a.dtype != np.int32:
            raise ValueError(
                f"{name} must be int32, got {a.dtype}; convert the matrix once "
                "(X.indices = X.indices.astype(np.int32), same for indptr)"
            )
    if X_data.ndim != 1 or X_indices.shape != X_data.shape or X_indptr.ndim != 1 or X_indptr.shape[0] < 2:
        raise ValueError("X_data, X_indices, X_indptr must be the 1-D arrays of a CSR matrix")
    n = X_indptr.shape[0] - 1
    nnz = X_data.shape[0]
    if X_indptr[0] != 0 or X_indptr[n] != nnz:
        raise ValueError("X_indptr is not a valid CSR row pointer array for these data")
    if nnz == 0:                           # keep valid pointers for the empty matrix
        X_data = np.zeros(1)
        X_indices = np.zeros(1, dtype=np.int32)
    X_data = np.ascontiguousarray(X_data)
    X_indices = np.ascontiguousarray(X_indices)
    X_indptr = np.ascontiguousarray(X_indptr)
    row_stat = np.zeros(n)
    row_value = np.zeros(n)
    cdef const double[::1] xd = X_data
    cdef const int[::1] xi = X_indices
    cdef const int[::1] xp = X_indptr
    cdef double[::1] rs = row_stat
    cdef double[::1] rv = row_value
    cdef int err, d = n_features
    cdef Py_ssize_t n_rows = n
    cdef bint ent = entropy
    with nogil:
        err = _scan_rows(&xd[0], &xi[0], &xp[0], n_rows, d, ent, &rs[0], &rv[0])
    if err == 1:
        raise ValueError("X_indptr is not a valid CSR row pointer array (it decreases)")
    if err == 2:
        raise ValueError(f"X_indices must lie in [0, n_features={n_features})")
    if err == 3:
        raise ValueError("X contains NaN or infinite values")
    return X_data, X_indices, X_indptr, row_stat, row_value


cdef class CheckedCSR:
    """A CSR matrix checked once (dtypes, pointers, columns, finite values) with
    the per-row statistics the solver needs: pass it as ``X_checked=`` to every
    ``dual_gauss_seidel`` call on that matrix (one per category) instead of
    scanning X again in each.  Made by :func:`check_csr`."""
    cdef readonly object data, indices, indptr, row_stat, row_value
    cdef readonly Py_ssize_t n_features, max_nnz
    cdef readonly bint entropy


def check_csr(X_data, X_indices, X_indptr, n_features, entropy):
    """Check a CSR triple once for ``dual_gauss_seidel`` (``entropy``: for the
    entropy regularizers, whose row statistic is max_j |x_ij| rather than
    ||x_i||^2); pass its ``data``, ``indices`` and ``indptr`` and the object
    itself (``X_checked=``) to the solver."""
    cdef CheckedCSR out = CheckedCSR.__new__(CheckedCSR)
    out.data, out.indices, out.indptr, out.row_stat, out.row_value = _csr(
        X_data, X_indices, X_indptr, int(n_features), bool(entropy))
    out.n_features = int(n_features)
    out.entropy = bool(entropy)
    out.max_nnz = int(np.max(np.diff(out.indptr)))      # the regularizers' scratch
    return out



def dual_gauss_seidel(
    X_data, X_indices, X_indptr, y, target, weight, alpha, n_features,
    loss="hinge", regularizer="square", lam=1e-3, mu=None, mass=1.0,
    bias_sigma=0.0, bias_rho=0.0, tol=1e-3, max_epochs=1000, shuffle=True,
    seed=0, step="auto", step_fraction=1.0, gradient_step=None,
    exp_cap=0.34657359027997264, curvature_floor=1e-12, gap_every=1,
    exact_gap_every=100, shrinking=True, return_gap_terms=False, trace_dual=False,
    shuffle_block=1, X_checked=None, column_scale=None,
):
    """Minimize the dual (docs/mathematics.md §2) by Gauss-Seidel over the examples.

    We minimize ``D(alpha) = (1/n) sum_i s_i k(-alpha_i/s_i) + lam h(v)`` with
    ``v = (1/(lam n)) sum_i alpha_i y_i x_i``; the primal weight is
    ``w = grad h(v)`` and ``P(w) = (1/n) sum_i s_i f(y_i w.x_i) + lam g(w)``.

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarray of float64, int32, int32
        The CSR matrix of shape (n, n_features); read only, never copied.
    y : ndarray of shape (n,)
        Labels, +1 or -1.
    target : ndarray of shape (n,)
        Target margins ``t_i`` (1 for the usual SVM, 0 for logistic).
    weight : ndarray of shape (n,)
        Loss weights ``s_i >= 0``; ``s_i = 0`` pins ``alpha_i = 0``.
    alpha : ndarray of shape (n,), float64, writable
        Dual variables, docs/mathematics.md scaling; the warm start on entry (projected
        into the domain of the loss first), the solution on exit.
    n_features : int
        ``d``.
    loss : {"hinge", "squared_hinge", "least_squares", "logistic"}
    regularizer : {"square", "entropy", "normalized_entropy", "balanced_entropy", \
"balanced_normalized_entropy"}
    lam : float > 0
        Regularization strength (``C_liblinear = 1 / (lam n)``).
    mu : ndarray of shape (n_features,), optional
        Prior of the entropy regularizers (required for them). The normalized
        rows rescale it to ``sum mu = 1`` (``sum 2 mu = 1`` balanced).
    mass : float > 0
        ``A``, the 1-norm of ``w`` in the normalized rows.
    bias_sigma, bias_rho : float
        ``bias_rho > 0`` adds the augmented bias coordinate of Algorithm 2
        (docs/mathematics.md §8) with multiplier ``bias_sigma``; ``b = sigma + v_b / rho``.
    tol : float
        Stop when the exact relative duality gap ``gap / max(P, tiny) <= tol``.
    max_epochs : int
        Epoch budget; 0 only rebuilds ``v`` and measures the gap.
    shuffle, seed :
        A fresh Fisher-Yates permutation per epoch from a generator seeded by
        ``seed`` (deterministic), or data order when ``shuffle=False``.
    shuffle_block : int >= 1
        With ``shuffle``: 1 permutes all rows; ``B > 1`` visits blocks of
        ``B`` consecutive rows in a random order and each block's rows in a
        random order (cache-friendly on matrices beyond the caches).
    X_checked : CheckedCSR, optional
        From :func:`check_csr` on these very arrays (``X_data`` must be its
        ``data`` etc.): skips checking and scanning X again, for many calls
        on one matrix.  The caller (the estimators) then vouches for the
        values of ``y``, ``target``, ``weight``, ``alpha`` and ``mu`` too: only
        their shapes and the settings are checked.
    column_scale : ndarray of shape (n_features,), optional
        ``r``: solve the problem on ``X diag(r)`` (the square regularizer only), without
        scaling a copy of X (docs/mathematics.md §5, "A per-feature scale"). "w" and "v"
        are then the weights on X's own columns, ``diag(r) w~`` with ``w~`` the scaled
        problem's: its scores are ``X @ w``. The bias coordinate is not scaled.
    step : {"auto", "newton", "gradient"}
        "auto": exact where docs/mathematics.md §6 has a closed form (square regularizer
        with the quadratic losses), the logistic 1-D problem solved on a
        majorizer, else one capped Newton step. "newton": one Newton step
        everywhere. "gradient": ``delta = -gradient_step * Phi'(0)``.
    step_fraction : float in (0, 1]
        ``eta``: take ``eta * delta``.
    gradient_step : float, optional
        Step of the gradient mode; default ``0.01 * lam * n`` (docs/mathematics.md §6).
    exp_cap : float > 0
        ``kappa``: ``|delta| max_j |x_ij| / (lam n) <= kappa`` on entropy rows
        (``np.inf`` switches the cap off, and with it the guarantee).
    curvature_floor : float > 0
        Lower bound on ``Phi''(0)``.
    gap_every : int >= 1
        Check convergence every ``gap_every`` epochs: a cheap estimate from the
        margins seen during the epoch, then the exact gap (one more pass) only
        if the estimate is below ``tol``.
    exact_gap_every : int >= 1
        Also compute the exact gap every this many epochs (and after the
        last), a safety net for the estimate; "gaps" holds every exact check.
    shrinking : bool
        liblinear's shrinking: examples at a bound of their domain whose
        gradient points out of it leave the epoch; all come back when the
        estimate says converged but the exact gap (always over every
        example) does not.
    return_gap_terms : bool
        Add "gap_terms", the per-example terms of the final exact gap.
    trace_dual : bool
        Add "dual_trace": ``D`` at entry and after every step that moved
        ``alpha`` (O(n + d) per step: for tests only).

    Returns
    -------
    res : dict
        "w", "v" (ndarray (d,)); "bias" (``sigma + v_b / rho``, 0 without the
        bias coordinate) and "v_bias"; "n_epochs"; "gaps" (relative gap at
        each exact check) and "epochs_at_gaps" (0 = the warm-start check at
        entry); "gap" (final relative gap, exact), "abs_gap" (``P + D``),
        "primal" (P), "dual" (D); "converged" (``gap <= tol``);
        "gap_estimates" (the cheap estimate of each epoch, NaN where not
        formed); "work" (counts over the epochs: examples visited, steps
        that moved alpha, and the nonzeros of the rows behind each);
        optionally "gap_terms" and "dual_trace".

    Notes
    -----
    ``alpha`` is modified in place and ``v`` is rebuilt from it on entry, so
    successive calls warm-start each other (Algorithm 2's outer loop).  The
    whole solve runs without the GIL: several calls may share one matrix in
    parallel threads.  Deterministic for a given ``seed``.
    """
    cdef _Run run = _Run()
    run.settings = dict(
        loss=loss, regularizer=regularizer, lam=lam, mu=mu, mass=mass,
        bias_sigma=bias_sigma, bias_rho=bias_rho, tol=tol, max_epochs=max_epochs,
        shuffle=shuffle, seed=seed, step=step, step_fraction=step_fraction,
        gradient_step=gradient_step, exp_cap=exp_cap, curvature_floor=curvature_floor,
        gap_every=gap_every, exact_gap_every=exact_gap_every, shrinking=shrinking,
        return_gap_terms=return_gap_terms, trace_dual=trace_dual, shuffle_block=shuffle_block,
        column_scale=column_scale)
    _validate(run, X_data, X_indices, X_indptr, y, target, weight, alpha, n_features,
              X_checked)
    _build(run)
    cdef Loss loss_obj = run.loss
    cdef Regularizer reg = run.reg
    cdef StopRule stop = run.stop
    with nogil:
        solve(&run.P, loss_obj, reg, stop, &run.order, &run.rec, run.warm)
    return _result(run)


cdef class _Run:
    """One call's checked input, the solver's records and the arrays behind them."""
    cdef dict settings, arrays
    cdef object X, alpha
    cdef Py_ssize_t n, d
    cdef Loss loss
    cdef Regularizer reg
    cdef StopRule stop
    cdef Problem P
    cdef Order order
    cdef Record rec
    cdef bint warm


def _validate(_Run run, X_data, X_indices, X_indptr, y, target, weight, alpha, n_features,
              X_checked):
    """Check every setting, and the arrays (their values too unless X_checked:
    the estimators check those before they call)."""
    s = run.settings
    make_loss(s["loss"])
    if s["regularizer"] not in _REGULARIZERS:
        raise ValueError(f"unknown regularizer {s['regularizer']!r}; valid regularizers "
                         f"are {list(_REGULARIZERS)}")
    if s["step"] not in _STEPS:
        raise ValueError(f"unknown step {s['step']!r}; valid steps are {list(_STEPS)}")
    d = int(n_features)
    if d < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}")
    X_indptr_arr = np.asarray(X_indptr)
    n = X_indptr_arr.shape[0] - 1 if X_indptr_arr.ndim == 1 else -1
    if n < 1:
        raise ValueError("X must have at least one row (X_indptr of length n + 1 >= 2)")
    entropy = s["regularizer"] != "square"
    if X_checked is None:
        run.X = check_csr(X_data, X_indices, X_indptr_arr, d, entropy)
    else:
        _check_same_csr(X_checked, X_data, X_indices, X_indptr, d, s["regularizer"])
        run.X = X_checked
    run.n, run.d = n, d
    full = X_checked is None                 # check the values as well as the shapes
    y = _vector("y", y, n, check_values=full)
    if full and not np.all(np.abs(y) == 1):
        raise ValueError("y must contain only +1 and -1")
    target = _vector("target", target, n, check_values=full)
    weight = _vector("weight", weight, n, check_values=full)
    if full and np.any(weight < 0):
        raise ValueError("weight must be >= 0 (s_i = 0 removes example i)")
    run.alpha = _vector("alpha", alpha, n, writable=True, check_values=full)
    run.arrays = dict(y=y, target=target, weight=weight)
    _check_settings(s, n)
    if entropy:
        if s["mu"] is None:
            raise ValueError(f"the {s['regularizer']} regularizer needs a prior mu of length {d}")
        s["mu"] = _vector("mu", s["mu"], d, check_values=full)
        if full and (np.any(s["mu"] < 0) or not np.sum(s["mu"]) > 0):
            raise ValueError("mu must be >= 0 with a positive sum")
    if s["column_scale"] is not None:
        if entropy:
            raise ValueError(f"column_scale is for the square regularizer, not {s['regularizer']!r}")
        s["column_scale"] = _vector("column_scale", s["column_scale"], d)
    sb = s["shuffle_block"]
    if int(sb) != sb or sb < 1:
        raise ValueError(f"shuffle_block must be an integer >= 1, got {sb}")


def _check_same_csr(X_checked, X_data, X_indices, X_indptr, d, regularizer):
    if not isinstance(X_checked, CheckedCSR):
        raise TypeError(f"X_checked must come from check_csr, got {type(X_checked).__name__}")
    if not (X_data is X_checked.data and X_indices is X_checked.indices
            and X_indptr is X_checked.indptr):
        raise ValueError("X_checked was made for other arrays: pass X_checked.data, "
                         "X_checked.indices and X_checked.indptr as X_data, X_indices, X_indptr")
    if X_checked.n_features != d or X_checked.entropy != (regularizer != "square"):
        raise ValueError(
            f"X_checked was made for n_features={X_checked.n_features} and "
            f"{'an entropy' if X_checked.entropy else 'the square'} regularizer; "
            f"call check_csr again for n_features={d} and {regularizer!r}")


def _check_settings(dict s, Py_ssize_t n):
    """The numbers among the settings (in place: converted to float)."""
    for name in ("lam", "mass"):
        s[name] = float(s[name])
        if not (np.isfinite(s[name]) and s[name] > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {s[name]}")
    s["bias_rho"], s["bias_sigma"] = float(s["bias_rho"]), float(s["bias_sigma"])
    if not (np.isfinite(s["bias_rho"]) and s["bias_rho"] >= 0 and np.isfinite(s["bias_sigma"])):
        raise ValueError("bias_rho must be finite and >= 0 (0 = no bias), bias_sigma finite")
    s["tol"] = float(s["tol"])
    if not s["tol"] >= 0:
        raise ValueError(f"tol must be >= 0, got {s['tol']}")
    if int(s["max_epochs"]) != s["max_epochs"] or s["max_epochs"] < 0:
        raise ValueError(f"max_epochs must be an integer >= 0, got {s['max_epochs']}")
    if not 0 < s["step_fraction"] <= 1:
        raise ValueError(f"step_fraction must lie in (0, 1], got {s['step_fraction']}")
    if s["gradient_step"] is None:
        s["gradient_step"] = 0.01 * s["lam"] * n
    if not (np.isfinite(s["gradient_step"]) and s["gradient_step"] > 0):
        raise ValueError(f"gradient_step must be a finite number > 0, got {s['gradient_step']}")
    if not s["exp_cap"] > 0:
        raise ValueError(f"exp_cap must be > 0 (np.inf for no cap), got {s['exp_cap']}")
    if not (np.isfinite(s["curvature_floor"]) and s["curvature_floor"] > 0):
        raise ValueError(
            f"curvature_floor must be a finite number > 0, got {s['curvature_floor']}")
    if int(s["gap_every"]) < 1 or int(s["exact_gap_every"]) < 1:
        raise ValueError("gap_every and exact_gap_every must be integers >= 1")


def _build(_Run run):
    """The loss, regularizer and stopping rule, alpha projected into the loss's
    domain, and the solver's records over the arrays they point into."""
    s, a = run.settings, run.arrays
    cdef CheckedCSR X = run.X
    cdef Py_ssize_t n = run.n, d = run.d
    cdef Loss loss = make_loss(s["loss"])
    run.loss = loss
    x_top = None                          # max |x_ij| of the problem's matrix (X's if None)
    if s["column_scale"] is None:
        run.reg = make_regularizer(s["regularizer"], d, s["mu"], s["mass"])
    else:  # the rows' statistic and largest entry are the scaled rows'
        a["scale2"] = np.square(s["column_scale"])
        run.reg = DiagonalSquare(d, a["scale2"])
        a["row_stat"], x_top = _scaled_rows(X, s["column_scale"], a["scale2"])
    run.reg.prepare(X.max_nnz, s["exp_cap"], s["lam"] * n)
    max_ep = int(s["max_epochs"])
    run.stop = StopRule(s["tol"], int(s["gap_every"]), int(s["exact_gap_every"]), max_ep)
    run.warm = max_ep > 0 and bool(np.any(run.alpha != 0))
    _project_alpha(loss, run.alpha, a["weight"], s["lam"], X.data, x_top)

    # what the solve writes: gaps, their epochs, estimates, terms, the trace
    a["gaps"] = np.zeros(max_ep + 2)
    a["at"] = np.zeros(max_ep + 2, dtype=np.int64)
    a["ests"] = np.full(max_ep + 1, np.nan)
    a["terms"] = np.zeros(n)
    a["trace"] = np.zeros(n * max_ep + 1 if s["trace_dual"] else 1)  # D at entry, per step
    cdef double[::1] gaps = a["gaps"], ests = a["ests"], terms = a["terms"]
    cdef double[::1] trace = a["trace"]
    cdef long long[::1] at = a["at"]
    run.rec = Record(gaps=&gaps[0], at=&at[0], n_gaps=0, estimates=&ests[0],
                     trace=NULL, n_trace=0, terms=NULL, n_epochs=0,
                     gap_abs=0.0, primal=0.0, dual=0.0)
    if s["trace_dual"]:
        run.rec.trace = &trace[0]
    if s["return_gap_terms"]:
        run.rec.terms = &terms[0]
    _fill_problem(run, X)
    _fill_order(run)


def _project_alpha(Loss loss, alpha, weight, lam, X_data, x_top=None):
    """Bring a warm start into the domain of the loss (open for the logistic loss);
    ``x_top``: max |x_ij| of the problem's matrix when it is not ``X_data``'s."""
    n = alpha.shape[0]
    lo1, hi1 = loss.lower(1.0), loss.upper(1.0)
    lower = lo1 * weight if np.isfinite(lo1) else np.full(n, lo1)
    upper = hi1 * weight if np.isfinite(hi1) else np.full(n, hi1)
    if loss.smooth_solve:
        # start inside (0, s) and small (docs/mathematics.md §4): a0 = s * min(1e-3, lam / max|x|)
        # keeps |v_j| = |sum_i a0_i z_ij| / (lam n) <= max s, so e^v stays finite
        if x_top is None:
            x_top = float(np.max(np.abs(X_data)))
        x_top = max(x_top, 1e-300)
        frac = min(1e-3, lam / x_top)
        too_high = alpha >= upper
        too_low = alpha <= lower
        alpha[too_low] = frac * weight[too_low]
        alpha[too_high] = (1 - frac) * weight[too_high]
    else:
        np.clip(alpha, lower, upper, out=alpha)
    alpha[weight == 0] = 0.0


cdef double _scaled_scan(const double* data, const int* indices, const int* indptr,
                         Py_ssize_t n, const double* r, const double* s,
                         double* out) noexcept nogil:
    """out[i] = ||D x_i||^2 = sum_k s_(j_k) x_ik^2 (s = r^2); returns max |x_ij r_j|."""
    cdef Py_ssize_t i, k
    cdef double acc, x, top = 0.0
    for i in range(n):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            x = data[k]
            acc += s[indices[k]] * x * x
            x = fabs(x * r[indices[k]])
            if x > top:
                top = x
        out[i] = acc
    return top


def _scaled_rows(CheckedCSR X, r, s):
    """The square rows' statistic of the problem on X diag(r), per row (n doubles, a
    problem's own), and its largest |entry|."""
    row_stat = np.empty(X.indptr.shape[0] - 1)
    cdef const double[::1] xd = X.data, rv = r, sv = s
    cdef const int[::1] xi = X.indices, xp = X.indptr
    cdef double[::1] out = row_stat
    cdef double top
    with nogil:
        top = _scaled_scan(&xd[0], &xi[0], &xp[0], out.shape[0], &rv[0], &sv[0], &out[0])
    return row_stat, top


cdef void _fill_problem(_Run run, CheckedCSR X) except *:
    """The examples' records (one 64-byte aligned cache line each) and the settings."""
    s, a = run.settings, run.arrays
    cdef Py_ssize_t i, n = run.n
    cdef const double[::1] Xd = X.data
    cdef const int[::1] Xi = X.indices
    cdef const int[::1] Xp = X.indptr
    cdef const double[::1] yv = a["y"], tv = a["target"], sv = a["weight"]
    cdef const double[::1] xm = a.get("row_stat", X.row_stat), x1 = X.row_value
    cdef double[::1] av = run.alpha
    a["ex"] = np.zeros(n * sizeof(Example) + 64, dtype=np.uint8)
    cdef unsigned char[::1] ex_bytes = a["ex"]
    cdef Example* ex = <Example*>((<size_t>&ex_bytes[0] + 63) & ~(<size_t>63))
    for i in range(n):
        ex[i] = Example(alpha=av[i], y=yv[i], t=tv[i], s=sv[i], gap_seen=0.0, xone=x1[i],
                        row_stat=xm[i], start=Xp[i], nnz=Xp[i + 1] - Xp[i])
    cdef Problem* P = &run.P
    P.data = &Xd[0]
    P.indices = &Xi[0]
    P.ex = ex
    P.n = n
    P.lam = s["lam"]
    P.S = s["lam"] * n
    P.bias = s["bias_rho"] > 0
    P.sigma = s["bias_sigma"]
    P.rho = s["bias_rho"] if s["bias_rho"] > 0 else 1.0
    P.vb = 0.0
    P.step = _STEPS[s["step"]]
    P.eta = s["step_fraction"]
    P.eta_g = s["gradient_step"]
    P.floor = s["curvature_floor"]
    P.growth = run.reg.curvature_growth(s["exp_cap"])
    P.shrinking = bool(s["shrinking"])
    P.active = n                         # every example, shrinking starts afresh
    P.pg_max_old = INFINITY
    P.pg_min_old = -INFINITY
    P.n_visits = P.n_steps = P.nnz_visits = P.nnz_steps = P.n_syncs = 0


cdef void _fill_order(_Run run) except *:
    """The visiting order: data order, then a seeded shuffle per epoch if asked."""
    s, a = run.settings, run.arrays
    cdef Py_ssize_t n = run.n
    cdef int block = int(min(s["shuffle_block"], n))
    a["order"] = np.arange(n, dtype=np.int32)
    a["blocks"] = np.zeros((n + block - 1) // block if block > 1 else 1, dtype=np.int32)
    a["mark"] = np.zeros(n if block > 1 else 1, dtype=np.int8)
    cdef int[::1] order = a["order"], blocks = a["blocks"]
    cdef char[::1] mark = a["mark"]
    run.order = Order(order=&order[0], shuffle=bool(s["shuffle"]), block=block,
                      blocks=&blocks[0], mark=&mark[0],
                      state=<uint64_t>(int(s["seed"]) & 0xFFFFFFFFFFFFFFFF))


def _result(_Run run):
    """The solution and its record as ``dual_gauss_seidel`` returns them; alpha
    copied back into the caller's array."""
    s, a = run.settings, run.arrays
    cdef Py_ssize_t i, n = run.n
    cdef double[::1] av = run.alpha
    cdef Problem* P = &run.P
    cdef Record* rec = &run.rec
    for i in range(n):                        # alpha is in/out
        av[i] = P.ex[i].alpha
    w = np.zeros(run.d)
    run.reg.weights(w)
    rel = rec.gap_abs / max(rec.primal, TINY)
    res = {
        "w": w,
        "v": np.array(run.reg.v),
        "bias": (P.sigma + P.vb / P.rho) if P.bias else 0.0,
        "v_bias": P.vb if P.bias else 0.0,
        "n_epochs": rec.n_epochs,
        "gaps": a["gaps"][:rec.n_gaps].copy(),
        "epochs_at_gaps": a["at"][:rec.n_gaps].copy(),
        "gap_estimates": a["ests"][:rec.n_epochs].copy(),
        "gap": rel,
        "abs_gap": rec.gap_abs,
        "primal": rec.primal,
        "dual": rec.dual,
        "converged": bool(rel <= s["tol"]),
        "work": {"visits": P.n_visits, "steps": P.n_steps,
                 "nnz_visits": P.nnz_visits, "nnz_steps": P.nnz_steps, "syncs": P.n_syncs},
    }
    if s["return_gap_terms"]:
        res["gap_terms"] = a["terms"]
    if s["trace_dual"]:
        res["dual_trace"] = a["trace"][:rec.n_trace].copy()
    return res


# ---------------------------------------------------------------------------
# Shims for tests
# ---------------------------------------------------------------------------

def gap_terms(X_data, X_indices, X_indptr, y, target, weight, alpha, n_features, **kwargs):
    """Per-example gap terms at the given alpha (v rebuilt from it; alpha is not changed)."""
    a = np.array(alpha, dtype=np.float64)
    kwargs["max_epochs"] = 0
    res = dual_gauss_seidel(X_data, X_indices, X_indptr, y, target, weight, a,
                            n_features, return_gap_terms=True, **kwargs)
    return res["gap_terms"]


def dual_trace(X_data, X_indices, X_indptr, y, target, weight, alpha, n_features, **kwargs):
    """D(alpha) at entry and after every coordinate step (tests only: O(n + d) per step)."""
    kwargs.setdefault("tol", 0.0)
    res = dual_gauss_seidel(X_data, X_indices, X_indptr, y, target, weight, alpha,
                            n_features, trace_dual=True, **kwargs)
    return res["dual_trace"]


# The names the estimators offer and validate against (public: the kernel owns them).
LOSSES = tuple(_LOSSES)
REGULARIZERS = tuple(_REGULARIZERS)

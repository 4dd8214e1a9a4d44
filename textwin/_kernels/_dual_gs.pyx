# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Dual Gauss-Seidel kernel: Algorithm 1 of Zhang's dual formulation (docs/mathematics.md §3).

We minimize the dual

    D(alpha) = (1/n) sum_i K_i(alpha_i) + lam h(v),   v = (1/(lam n)) sum_i alpha_i z_i,

with ``z_i = y_i x_i`` (labels are folded on the fly, the CSR matrix is never
copied), ``K_i(alpha) = s_i k(-alpha/s_i)`` the conjugate of the weighted loss
``s_i f(u)`` (docs/mathematics.md §4, with a per-example weight ``s_i >= 0`` and target
``t_i``) and ``h`` the conjugate of the regularizer ``g`` (docs/mathematics.md §5).  The
primal is ``P(w) = (1/n) sum_i s_i f(w.z_i) + lam g(w)`` with ``w = grad h(v)``;
``P + D`` is the duality gap (docs/mathematics.md §2), a sum of non-negative per-example
terms, and the solver stops on ``gap / max(P, tiny) <= tol``.

The pieces:

- ``Loss`` subclasses (docs/mathematics.md §4): the conjugate ``K``, its derivatives, the
  domain of ``alpha``, the per-example gap term and the one-dimensional step.
- ``Regularizer`` subclasses (docs/mathematics.md §5): own ``v`` and whatever cache gives
  ``w = grad h(v)`` cheaply (``w = v``; ``mu e^v``; the exponentials ``E`` and
  their sum ``Z`` of the normalized rows), the margin ``b_i = w.x_i`` and the
  curvature ``c_i = x_i' hess h(v) x_i`` of a row, the update along a row,
  the refresh of the cache from ``v``, ``g(w)`` and ``h(v)``.  The entropy
  rows update only their cache along a row (``lazy_v``): ``v`` itself is
  rebuilt from ``alpha`` (one scatter pass) when it is needed, before an
  exact gap, which also refreshes the cache against rounding drift.
- ``_epoch``: one short loop that combines them (docs/mathematics.md §3 and §6), with
  liblinear's shrinking as a switch.
- stopping, cheap-then-exact (as scikit-learn's ``_cd_fast``): each epoch
  sums the per-example gap terms seen at each example's last visit; only
  when that estimate (corrected by the lag measured at the previous exact
  check) is below ``tol`` is the exact gap computed, in one more pass.  The
  reported gap is always exact.

Everything inside the solve is C: the whole run happens ``with nogil`` so that
the estimator may train many categories in parallel threads on one matrix.
"""
from libc.math cimport exp, log, log1p, fabs, sqrt, sinh, expm1, isfinite, INFINITY, NAN
from libc.stdint cimport uint64_t

from ._rowops cimport (tw_ops, tw_simd_select, tw_scale_f, tw_pair_scale, tw_pair_sum,
                      tw_pair_scale1, tw_expm1_pm, TW_PREFETCH, TW_FTZ_ON, TW_CSR_GET,
                      TW_CSR_SET)

import os
import warnings

import numpy as np

cdef double TINY = 1e-300          # floor of P in the relative gap
cdef double BIG = 1e100            # rescale the normalized rows' exponentials beyond this
cdef double SMALL = 1e-100         # or below this
cdef double LAG_MIN = 0.001        # range of the learnt ratio cheap / exact gap
cdef double LAG_MAX = 5.0
cdef double SKIP_PG = 1e-12        # liblinear: skip a step when |projected gradient| <= this
cdef double V_WARM_LIMIT = 300.0   # e^300 ~ 1e130: weights stay finite, sums too

cdef enum:
    STEP_AUTO = 0
    STEP_NEWTON = 1
    STEP_GRADIENT = 2


cdef inline double _clip(double x, double lo, double hi) noexcept nogil:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


cdef inline double _softplus(double x) noexcept nogil:
    """np.logaddexp(0, x)"""
    if x > 0:
        return x + log1p(exp(-x))
    return log1p(exp(x))


cdef inline double _xlogx(double x) noexcept nogil:
    if x <= 0:
        return 0.0
    return x * log(x)


# ---------------------------------------------------------------------------
# Losses (docs/mathematics.md §4), weighted: K(alpha) = s k(-alpha/s), domain scaled by s.
# ---------------------------------------------------------------------------

cdef class Loss:
    """Base class: a convex loss ``f`` of the margin and its weighted conjugate.

    All methods take the target margin ``t`` and the example weight ``s > 0``.
    ``conj(alpha)`` is ``K(alpha) = s k(-alpha/s)``, the term of the dual.
    """
    cdef bint smooth_solve     # solve the 1-D problem to accuracy (logistic)
    cdef double lo_scale       # the domain of alpha is [lo_scale s, hi_scale s]
    cdef double hi_scale

    def __cinit__(self):
        self.lo_scale = -INFINITY
        self.hi_scale = INFINITY

    cdef double value(self, double u, double t) noexcept nogil:
        """f(u), unweighted."""
        return 0.0

    cdef double conj(self, double a, double t, double s) noexcept nogil:
        return 0.0

    cdef double dconj(self, double a, double t, double s) noexcept nogil:
        return 0.0

    cdef double d2conj(self, double a, double t, double s) noexcept nogil:
        return 0.0

    cdef double lower(self, double s) noexcept nogil:
        return self.lo_scale * s if self.lo_scale != 0 else 0.0

    cdef double upper(self, double s) noexcept nogil:
        return self.hi_scale * s

    cdef double gap_term(self, double u, double a, double t, double s) noexcept nogil:
        """s f(u) + K(a) + a u >= 0 (Fenchel-Young), written without cancellation."""
        return 0.0

    cdef double project(self, double a, double delta, double s) noexcept nogil:
        """The step actually taken once ``a + delta`` is brought into the domain."""
        return _clip(a + delta, self.lower(s), self.upper(s)) - a

    cdef double solve(self, double a, double b, double q, double t, double s,
                      double cap) noexcept nogil:
        """argmin over |delta| <= cap of K(a + delta) + b delta + q delta^2 / 2.

        Only the logistic loss uses it (``smooth_solve``); the quadratic losses
        take the Newton step of the epoch, which is exact for them.
        """
        return 0.0

    def __reduce__(self):
        return (type(self), ())


cdef class Hinge(Loss):
    """f(u) = max(0, t - u);  K(alpha) = -t alpha on 0 <= alpha <= s."""

    def __cinit__(self):
        self.lo_scale = 0.0
        self.hi_scale = 1.0

    cdef double value(self, double u, double t) noexcept nogil:
        return t - u if u < t else 0.0

    cdef double conj(self, double a, double t, double s) noexcept nogil:
        return -t * a

    cdef double dconj(self, double a, double t, double s) noexcept nogil:
        return -t

    cdef double d2conj(self, double a, double t, double s) noexcept nogil:
        return 0.0



    cdef double gap_term(self, double u, double a, double t, double s) noexcept nogil:
        # s max(0, t-u) - a (t-u): (s-a)(t-u) when u < t, a (u-t) otherwise
        if u < t:
            return (s - a) * (t - u)
        return a * (u - t)


cdef class SquaredHinge(Loss):
    """Modified least squares: f(u) = (t-u)_+^2;  K = -t alpha + alpha^2/(4s), alpha >= 0."""

    def __cinit__(self):
        self.lo_scale = 0.0

    cdef double value(self, double u, double t) noexcept nogil:
        return (t - u) * (t - u) if u < t else 0.0

    cdef double conj(self, double a, double t, double s) noexcept nogil:
        return -t * a + a * a / (4.0 * s)

    cdef double dconj(self, double a, double t, double s) noexcept nogil:
        return -t + a / (2.0 * s)

    cdef double d2conj(self, double a, double t, double s) noexcept nogil:
        return 0.5 / s


    cdef double gap_term(self, double u, double a, double t, double s) noexcept nogil:
        cdef double r
        if u <= t:
            r = (t - u) - a / (2.0 * s)
            return s * r * r
        return a * (u - t) + a * a / (4.0 * s)


cdef class LeastSquares(Loss):
    """f(u) = (t-u)^2;  K = -t alpha + alpha^2/(4s), alpha real."""

    cdef double value(self, double u, double t) noexcept nogil:
        return (t - u) * (t - u)

    cdef double conj(self, double a, double t, double s) noexcept nogil:
        return -t * a + a * a / (4.0 * s)

    cdef double dconj(self, double a, double t, double s) noexcept nogil:
        return -t + a / (2.0 * s)

    cdef double d2conj(self, double a, double t, double s) noexcept nogil:
        return 0.5 / s

    cdef double gap_term(self, double u, double a, double t, double s) noexcept nogil:
        cdef double r = (t - u) - a / (2.0 * s)
        return s * r * r


cdef class Logistic(Loss):
    """f(u) = ln(1 + e^(t-u));  K = a ln(a/s) + (s-a) ln((s-a)/s) - t a on 0 < a < s.

    The coordinate problem is solved to accuracy by a safeguarded Newton
    method that keeps ``alpha`` strictly inside ``(0, s)`` (liblinear's dual
    logistic solver is the model): a Newton iterate that leaves the bracket
    of the root is replaced by the bracket's midpoint.
    """

    def __cinit__(self):
        self.smooth_solve = True
        self.lo_scale = 0.0
        self.hi_scale = 1.0

    cdef double value(self, double u, double t) noexcept nogil:
        return _softplus(t - u)

    cdef double conj(self, double a, double t, double s) noexcept nogil:
        return _xlogx(a / s) * s + _xlogx((s - a) / s) * s - t * a

    cdef double dconj(self, double a, double t, double s) noexcept nogil:
        return log(a / (s - a)) - t

    cdef double d2conj(self, double a, double t, double s) noexcept nogil:
        return s / (a * (s - a))



    cdef double gap_term(self, double u, double a, double t, double s) noexcept nogil:
        # s KL(Bernoulli(a/s) || Bernoulli(sigmoid(t-u))) >= 0
        cdef double m = t - u, p = a / s, r = (s - a) / s, out = 0.0
        if p > 0:
            out += p * (log(p) + _softplus(-m))
        if r > 0:
            out += r * (log(r) + _softplus(m))
        return s * out if out > 0 else 0.0

    cdef double project(self, double a, double delta, double s) noexcept nogil:
        # a step leaving the open domain goes 90 % of the way to its edge
        cdef double x = a + delta
        if x <= 0:
            x = 0.1 * a
        elif x >= s:
            x = s - 0.1 * (s - a)
        if not (0 < x < s):        # lost to rounding (or flushed to 0) at the edge: no step
            return 0.0
        return x - a

    cdef double solve(self, double a, double b, double q, double t, double s,
                      double cap) noexcept nogil:
        cdef double lo = a - cap, hi = a + cap, x, g, h, xn, L, H
        cdef int it
        # the cap bounds are closed: stop on one if the derivative says so
        if lo > 0:
            if log(lo / (s - lo)) - t + b - q * cap >= 0:
                return -cap
        else:
            lo = 0.0
        if hi < s:
            if log(hi / (s - hi)) - t + b + q * cap <= 0:
                return cap
        else:
            hi = s
        L = lo
        H = hi
        x = a
        for it in range(100):
            g = log(x / (s - x)) - t + b + q * (x - a)
            if fabs(g) <= 1e-12:
                break
            if g > 0:
                H = x
            else:
                L = x
            h = s / (x * (s - x)) + q
            xn = x - g / h
            if not (L < xn < H):
                xn = 0.5 * (L + H)
            if xn == x:
                break
            x = xn
        if not (0 < x < s):        # lost to rounding at the edge: no step
            return 0.0
        return x - a


# ---------------------------------------------------------------------------
# Regularizers (docs/mathematics.md §5): own v and the cache that gives w = grad h(v).
# Rows arrive as raw pointers (values x, columns j, nnz) plus ``x0``, the value
# every entry of the row shares (binary features), or NaN when they differ.
# A row with one value needs no per-entry multiply and one factor per step
# (tw_expm1_pm): its margin is x0 times a plain sum.  Margins and curvatures
# are of x_i, the caller folds the label in.  Each method copies the memoryviews' data
# pointers to locals first, so the loops index plain C arrays.
# ---------------------------------------------------------------------------

cdef double EXP_POLY_T = 0.35       # |t| within which the factors' polynomials are exact to rounding


cdef void _exp_pm_row_libm(const double* x, int nnz, double dv, double* f,
                           double* fi) noexcept nogil:
    """f[k] = e^(dv x_k) and fi[k] = e^(-dv x_k) from libm: the factors of an
    entropy update when the caller raised the exponent cap beyond EXP_POLY_T.

    Within the cap (docs/mathematics.md §6, kappa = ln(2)/2, so |dv x_k| <= 0.347) the
    updates take the Taylor polynomials of the even and odd parts of e^t
    instead (rowops_base.c, rowops_avx2.c): e^t = E + O,
    e^-t = E - O, exact to rounding, without libm and without a division.
    """
    cdef int k
    for k in range(nnz):
        f[k] = exp(dv * x[k])
        fi[k] = 1.0 / f[k]


cdef inline bint _one_value(double x0) noexcept nogil:
    return x0 == x0                  # not NaN: every entry of the row equals x0


cdef class Regularizer:
    """Base class: ``h(v)`` and ``w = grad h(v)`` over ``d`` features."""
    cdef Py_ssize_t d
    cdef double[::1] v
    cdef double growth2          # bound on the curvature growth across a step is growth2 ** kappa
    cdef bint entropy            # cap the exponent of a step (docs/mathematics.md §6)
    # largest |v_j| a warm start may bring: the unnormalized rows store mu e^(+-v)
    # unscaled, so a warm start from a much larger lam would overflow them;
    # with ``v_limit_above_only`` only v_j > v_limit counts (mu e^v alone:
    # a very negative v_j is a weight that underflows to 0, as converged
    # solutions have, and must not trigger the scaling)
    cdef double v_limit
    cdef bint v_limit_above_only
    # The entropy rows keep only their cache up to date along a row, not v
    # (one array less read and written per nonzero); v is rebuilt from alpha
    # by _sync before anything reads it.  need_sync: the cache over- or
    # underflowed (an uncapped step) and must be recomputed from v.
    cdef bint lazy_v
    cdef bint need_sync
    # scratch for a row's factors e^(dv x_k), e^(-dv x_k) (entropy rows, per entry)
    cdef double[::1] scratch
    cdef double* fp
    cdef double* fm
    cdef bint poly

    def set_scratch(self, int max_nnz, bint poly):
        self.scratch = np.empty(2 * max_nnz + 2)
        self.fp = &self.scratch[0]
        self.fm = self.fp + max_nnz + 1
        self.poly = poly

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        return 0.0

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        """Return b = w.x_i and store c = x_i' hess h(v) x_i in curv (row_stat: the
        row's statistic from _scan_rows, ||x_i||^2 for the square regularizer)."""
        curv[0] = 0.0
        return 0.0

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double xmax,
                  double dv) noexcept nogil:
        """v <- v + dv * x_i, and the caches along (xmax = max_k |x_k|)."""
        pass

    cdef void refresh(self) noexcept nogil:
        """Recompute every cache from v (after _sync: v must be up to date)."""
        pass

    cdef void tidy(self) noexcept nogil:
        """Once per epoch, O(d) and no transcendental function: re-sum running totals."""
        pass

    cdef double value(self) noexcept nogil:
        """g(w) >= 0 from v and the caches (after _sync)."""
        return 0.0

    cdef double conj_value(self) noexcept nogil:
        """h(v), from the caches (valid at any time, v may be stale)."""
        return 0.0

    cdef void weights(self, double[::1] w) noexcept nogil:
        pass


cdef inline double _scale_exp(Regularizer reg, double* w, const double* x, const int* j,
                              int nnz, double xmax, double dv, bint want_dz) noexcept nogil:
    """w[j_k] *= e^(dv x_k) along a row; returns the sum of the changes (if
    want_dz: only the normalized rows need it)."""
    if reg.poly:
        return tw_ops.scale_exp(w, j, x, nnz, dv, fabs(dv) * xmax, want_dz, reg.fp, reg.fm)
    _exp_pm_row_libm(x, nnz, dv, reg.fp, reg.fm)        # beyond the polynomials
    return tw_scale_f(w, j, nnz, reg.fp, want_dz)


cdef inline double _pair_scale_exp(Regularizer reg, double* pm, const double* x, const int* j,
                                   int nnz, double xmax, double dv, bint want_dz) noexcept nogil:
    """(p_j, m_j) *= (e^(dv x_k), e^(-dv x_k)) along a row; returns the sum of the
    changes (if want_dz)."""
    if reg.poly:
        return tw_ops.pair_scale_exp(pm, j, x, nnz, dv, fabs(dv) * xmax, want_dz, reg.fp, reg.fm)
    _exp_pm_row_libm(x, nnz, dv, reg.fp, reg.fm)
    return tw_pair_scale(pm, j, nnz, reg.fp, reg.fm, want_dz)


cdef inline void _expm1_pm(Regularizer reg, double t, double* ep, double* em) noexcept nogil:
    """e^t - 1 and e^-t - 1: the one-value rows' factors, polynomials within the cap."""
    if reg.poly:
        tw_expm1_pm(t, ep, em)
    else:
        ep[0] = expm1(t)
        em[0] = expm1(-t)


cdef inline double _gather_sum(const double* a, const int* j, int nnz) noexcept nogil:
    """sum_k a[j[k]], in four partial sums: a single running sum waits the
    latency of every addition (about 4 cycles), partial sums overlap, which
    matters when the row and ``a`` are in cache (binary rows in data order)."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef int k = 0
    while k + 4 <= nnz:
        s0 += a[j[k]]
        s1 += a[j[k + 1]]
        s2 += a[j[k + 2]]
        s3 += a[j[k + 3]]
        k += 4
    while k < nnz:
        s0 += a[j[k]]
        k += 1
    return (s0 + s1) + (s2 + s3)


cdef inline double _dot(const double* a, const double* x, const int* j, int nnz,
                        double x0) noexcept nogil:
    """a @ x_i over the row's columns."""
    if _one_value(x0):
        return x0 * _gather_sum(a, j, nnz)
    return tw_ops.dot(a, x, j, nnz)              # rowops.h: baseline or AVX2/FMA


cdef inline double _dot2(const double* a, const double* x, const int* j, int nnz,
                         double x0, double* c) noexcept nogil:
    """a @ x_i, and a @ x_i**2 in c."""
    cdef double b
    if _one_value(x0):
        b = _gather_sum(a, j, nnz)
        c[0] = x0 * x0 * b
        return x0 * b
    return tw_ops.dot2(a, x, j, nnz, c)          # rowops.h: baseline or AVX2/FMA


cdef inline double _pair_sums(const double* pm, const double* x, const int* j, int nnz,
                              double x0, double* c) noexcept nogil:
    """With pm = [p_0, m_0, p_1, m_1, ...]: (p - m) @ x_i, and (p + m) @ x_i**2 in c."""
    cdef double b, s
    if _one_value(x0):
        b = tw_pair_sum(pm, j, nnz, &s)
        c[0] = x0 * x0 * s
        return x0 * b
    return tw_ops.pair_dot(pm, x, j, nnz, c)


cdef class Square(Regularizer):
    """g = ||w||^2 / 2 = h, w = v, curvature ||x_i||^2 (precomputed: the row statistic)."""

    def __init__(self, Py_ssize_t d):
        self.d = d
        self.v = np.zeros(d)
        self.growth2 = 1.0
        self.v_limit = INFINITY

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        return _dot(&self.v[0], x, j, nnz, x0)

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        curv[0] = row_stat                   # ||x_i||^2, in the example's record
        return _dot(&self.v[0], x, j, nnz, x0)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double xmax,
                  double dv) noexcept nogil:
        cdef double* v = &self.v[0]
        cdef double dvx = dv * x0
        cdef int k
        if _one_value(x0):
            for k in range(nnz):
                v[j[k]] += dvx
            return
        for k in range(nnz):                 # v += dv * x_i
            v[j[k]] += dv * x[k]

    cdef double value(self) noexcept nogil:
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            out += self.v[k] * self.v[k]
        return 0.5 * out

    cdef double conj_value(self) noexcept nogil:
        return self.value()

    cdef void weights(self, double[::1] w) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            w[k] = self.v[k]


cdef class Entropy(Regularizer):
    """Unnormalized positive entropy: h = sum mu (e^v - 1), w = mu e^v (stored)."""
    cdef const double[::1] mu
    cdef double[::1] w

    def __init__(self, Py_ssize_t d, const double[::1] mu):
        self.d = d
        self.v = np.zeros(d)
        self.mu = mu
        self.w = np.array(mu, dtype=np.float64)
        self.growth2 = 2.718281828459045     # e^kappa
        self.entropy = True
        self.lazy_v = True
        self.v_limit = V_WARM_LIMIT
        self.v_limit_above_only = True

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        return _dot(&self.w[0], x, j, nnz, x0)

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        # b = w @ x_i, c = w @ x_i**2
        return _dot2(&self.w[0], x, j, nnz, x0, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double xmax,
                  double dv) noexcept nogil:
        # w_j *= e^(dv x_j): one exp for a one-value (binary) row, else the row's factors
        cdef double* w = &self.w[0]
        cdef int k
        cdef double f0, ep, em
        if _one_value(x0):
            _expm1_pm(self, dv * x0, &ep, &em)
            f0 = 1.0 + ep
            for k in range(nnz):
                w[j[k]] *= f0
            return
        _scale_exp(self, w, x, j, nnz, xmax, dv, False)

    cdef void refresh(self) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            self.w[k] = self.mu[k] * exp(self.v[k])

    cdef double value(self) noexcept nogil:
        # sum w ln(w/mu) - w + mu = sum mu (v e^v - e^v + 1)
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            out += self.w[k] * self.v[k] - self.mu[k] * expm1(self.v[k])
        return out

    cdef double conj_value(self) noexcept nogil:
        # sum mu (e^v - 1) = sum (w - mu)
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            out += self.w[k] - self.mu[k]
        return out

    cdef void weights(self, double[::1] w) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            w[k] = self.w[k]


cdef class BalancedEntropy(Regularizer):
    """Balanced unnormalized entropy: h = sum mu (e^v + e^-v - 2), w = mu (e^v - e^-v).

    Stores w+ = mu e^v and w- = mu e^-v (the duplication trick x~ = [x, -x]),
    interleaved in ``pm = [w+_0, w-_0, w+_1, ...]`` so that a feature's pair
    shares one cache line.
    """
    cdef const double[::1] mu
    cdef double[::1] pm

    def __init__(self, Py_ssize_t d, const double[::1] mu):
        self.d = d
        self.v = np.zeros(d)
        self.mu = mu
        self.pm = np.repeat(np.asarray(mu, dtype=np.float64), 2)
        self.growth2 = 2.718281828459045
        self.entropy = True
        self.lazy_v = True
        self.v_limit = V_WARM_LIMIT

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        cdef double c
        return _pair_sums(&self.pm[0], x, j, nnz, x0, &c)

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        return _pair_sums(&self.pm[0], x, j, nnz, x0, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double xmax,
                  double dv) noexcept nogil:
        cdef double ep, em
        if _one_value(x0):
            _expm1_pm(self, dv * x0, &ep, &em)
            tw_pair_scale1(&self.pm[0], j, nnz, 1.0 + ep, 1.0 + em, NULL)
            return
        _pair_scale_exp(self, &self.pm[0], x, j, nnz, xmax, dv, False)

    cdef void refresh(self) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            self.pm[2 * k] = self.mu[k] * exp(self.v[k])
            self.pm[2 * k + 1] = self.mu[k] * exp(-self.v[k])

    cdef double value(self) noexcept nogil:
        # sum w asinh(w/(2mu)) - sqrt(w^2 + 4mu^2) + 2mu = sum w v - 4 mu sinh(v/2)^2
        cdef double out = 0.0, sh
        cdef Py_ssize_t k
        for k in range(self.d):
            sh = sinh(0.5 * self.v[k])
            out += (self.pm[2 * k] - self.pm[2 * k + 1]) * self.v[k] - 4.0 * self.mu[k] * sh * sh
        return out

    cdef double conj_value(self) noexcept nogil:
        # mu (e^v + e^-v - 2) = (w+ - w-)^2 / (w+ + w- + 2 mu): w+ - w- is exact
        # where w+ ~ w- (small v), so no cancellation against 2 mu
        cdef double out = 0.0, p, m
        cdef Py_ssize_t k
        for k in range(self.d):
            p = self.pm[2 * k]
            m = self.pm[2 * k + 1]
            if p + m > 0:
                out += (p - m) * (p - m) / (p + m + 2.0 * self.mu[k])
        return out

    cdef void weights(self, double[::1] w) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            w[k] = self.pm[2 * k] - self.pm[2 * k + 1]


cdef double _max_exponent(double[::1] v, double[::1] log_mu, bint balanced) noexcept nogil:
    """max_j (|v_j| if balanced else v_j) + ln mu_j over the mu_j > 0: the scale c."""
    cdef double m = -INFINITY, e
    cdef Py_ssize_t k
    for k in range(v.shape[0]):
        e = (fabs(v[k]) if balanced else v[k]) + log_mu[k]     # -inf where mu_j = 0
        if e > m:
            m = e
    return m


cdef double _sum(const double* a, Py_ssize_t m) noexcept nogil:
    """sum_k a[k] in four partial sums (see _gather_sum)."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k = 0
    while k + 4 <= m:
        s0 += a[k]
        s1 += a[k + 1]
        s2 += a[k + 2]
        s3 += a[k + 3]
        k += 4
    while k < m:
        s0 += a[k]
        k += 1
    return (s0 + s1) + (s2 + s3)


cdef void _scale(double* a, Py_ssize_t m, double r) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(m):
        a[k] *= r


cdef inline double _normalized_margin(double A, double Zs, double b, double c,
                                      double* curv) noexcept nogil:
    """b = A (E.x) / Zs and c = A (E.x^2) / Zs - b^2 / A (A times a variance, >= 0).

    One division (the step waits on it): c = (A / Zs) (E.x^2 - (E.x)^2 / Zs).
    """
    cdef double q = 1.0 / Zs
    c = A * q * (c - b * b * q)
    curv[0] = c if c > 0 else 0.0
    return A * q * b


cdef class NormalizedEntropy(Regularizer):
    """Normalized positive entropy: h = A ln sum mu e^v, w = A mu e^v / Z.

    ``w`` is never stored (every w_j depends on Z): we keep
    ``E_j = mu_j e^(v_j - c)`` and ``Zs = sum_j E_j = Z e^(-c)`` with one common
    scale ``c`` that keeps them finite (docs/mathematics.md §5).  ``mu`` is normalized to
    sum 1, which makes ``g >= 0`` and changes no ``w``.  ``h = A (c + ln Zs)``
    costs nothing; ``Zs`` is kept along the steps and re-summed once per epoch.
    """
    cdef double[::1] mu
    cdef double[::1] log_mu         # ln mu_j (-inf where mu_j = 0), computed once
    cdef double[::1] E
    cdef double Zs, c, A

    def __init__(self, Py_ssize_t d, const double[::1] mu, double mass):
        self.d = d
        self.v = np.zeros(d)
        self.mu = np.asarray(mu) / np.sum(mu)
        with np.errstate(divide="ignore"):
            self.log_mu = np.log(self.mu)
        self.E = np.array(self.mu, dtype=np.float64)
        self.A = mass
        self.growth2 = 2.718281828459045 ** 2    # e^(2 kappa)
        self.entropy = True
        self.lazy_v = True
        self.v_limit = INFINITY              # rescaled exponentials: any v is finite
        self.refresh()

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        # b = A sum_j mu_j e^v_j x_j / Z
        return self.A * _dot(&self.E[0], x, j, nnz, x0) / self.Zs

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        cdef double c
        cdef double b = _dot2(&self.E[0], x, j, nnz, x0, &c)
        return _normalized_margin(self.A, self.Zs, b, c, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double xmax,
                  double dv) noexcept nogil:
        cdef double* E = &self.E[0]
        cdef int k = 0
        cdef double f0, ep, em, s0 = 0.0, s1 = 0.0
        if _one_value(x0):
            _expm1_pm(self, dv * x0, &ep, &em)
            f0 = 1.0 + ep
            while k + 2 <= nnz:              # two partial sums (see _gather_sum)
                s0 += E[j[k]]
                E[j[k]] *= f0
                s1 += E[j[k + 1]]
                E[j[k + 1]] *= f0
                k += 2
            if k < nnz:
                s0 += E[j[k]]
                E[j[k]] *= f0
            self.Zs += ep * (s0 + s1)            # Z changes on the row only
        else:
            self.Zs += _scale_exp(self, E, x, j, nnz, xmax, dv, True)
        if not (SMALL < self.Zs < BIG):
            if 0 < self.Zs < INFINITY:
                self.rescale()
            else:
                self.need_sync = True

    cdef void refresh(self) noexcept nogil:
        # c = max_j (v_j + ln mu_j): every E_j <= 1 and Zs >= 1
        cdef Py_ssize_t k
        cdef double m = _max_exponent(self.v, self.log_mu, False), z = 0.0
        self.c = m
        for k in range(self.d):
            self.E[k] = exp(self.v[k] + self.log_mu[k] - m)
            z += self.E[k]
        self.Zs = z

    cdef void rescale(self) noexcept nogil:
        # E_j <- E_j / Zs and c <- c + ln Zs: the same w, Zs back to 1, no v needed
        # (an E_j pushed below the smallest double is a weight under 1e-208 of
        # the total; the next _sync recomputes it from v)
        self.c += log(self.Zs)
        _scale(&self.E[0], self.d, 1.0 / self.Zs)
        self.tidy()

    cdef void tidy(self) noexcept nogil:
        self.Zs = _sum(&self.E[0], self.d)

    cdef double value(self) noexcept nogil:
        # g = sum w ln(w/(A mu)) = A sum_j p_j (v_j - c) - A ln Zs,  p = E / Zs
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            if self.E[k] > 0:
                out += self.E[k] * (self.v[k] - self.c)
        out = self.A * (out / self.Zs - log(self.Zs))
        return out if out > 0 else 0.0

    cdef double conj_value(self) noexcept nogil:
        # A ln sum mu e^v = A (c + ln Zs)
        return self.A * (self.c + log(self.Zs))

    cdef void weights(self, double[::1] w) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            w[k] = self.A * self.E[k] / self.Zs


cdef class BalancedNormalizedEntropy(Regularizer):
    """Balanced normalized entropy: h = A ln sum mu (e^v + e^-v), w = A mu (e^v - e^-v)/Z.

    Keeps ``Ep_j = mu_j e^(v_j - c)``, ``Em_j = mu_j e^(-v_j - c)`` and their total
    ``Zs``; a rescale changes ``c`` only, never ``v`` (shifting ``v`` would move
    ``e^v`` and ``e^-v`` in opposite directions).  ``mu`` is normalized to
    ``sum 2 mu = 1``.  ``Zs`` as in :class:`NormalizedEntropy`.
    """
    cdef double[::1] mu
    cdef double[::1] log_mu
    cdef double[::1] E2             # [Ep_0, Em_0, Ep_1, Em_1, ...]: one cache line per feature
    cdef double Zs, c, A

    def __init__(self, Py_ssize_t d, const double[::1] mu, double mass):
        self.d = d
        self.v = np.zeros(d)
        self.mu = np.asarray(mu) / (2.0 * np.sum(mu))
        with np.errstate(divide="ignore"):
            self.log_mu = np.log(self.mu)
        self.E2 = np.repeat(np.asarray(self.mu, dtype=np.float64), 2)
        self.A = mass
        self.growth2 = 2.718281828459045 ** 2
        self.entropy = True
        self.lazy_v = True
        self.v_limit = INFINITY
        self.refresh()

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        cdef double c
        return self.A * _pair_sums(&self.E2[0], x, j, nnz, x0, &c) / self.Zs

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        cdef double c
        cdef double b = _pair_sums(&self.E2[0], x, j, nnz, x0, &c)
        return _normalized_margin(self.A, self.Zs, b, c, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double xmax,
                  double dv) noexcept nogil:
        cdef double ep, em
        cdef double olds[2]
        if _one_value(x0):
            # Z changes by (e^t - 1) sum p + (e^-t - 1) sum m over the row (the
            # sums before the update), both exact for small steps
            _expm1_pm(self, dv * x0, &ep, &em)
            tw_pair_scale1(&self.E2[0], j, nnz, 1.0 + ep, 1.0 + em, olds)
            self.Zs += ep * olds[0] + em * olds[1]
        else:
            self.Zs += _pair_scale_exp(self, &self.E2[0], x, j, nnz, xmax, dv, True)
        if not (SMALL < self.Zs < BIG):
            if 0 < self.Zs < INFINITY:
                self.rescale()
            else:
                self.need_sync = True

    cdef void refresh(self) noexcept nogil:
        # c = max_j (|v_j| + ln mu_j): every Ep_j, Em_j <= 1 and Zs >= 1
        cdef Py_ssize_t k
        cdef double m = _max_exponent(self.v, self.log_mu, True), z = 0.0
        self.c = m
        for k in range(self.d):
            self.E2[2 * k] = exp(self.v[k] + self.log_mu[k] - m)
            self.E2[2 * k + 1] = exp(-self.v[k] + self.log_mu[k] - m)
            z += self.E2[2 * k] + self.E2[2 * k + 1]
        self.Zs = z

    cdef void rescale(self) noexcept nogil:
        # as NormalizedEntropy.rescale
        self.c += log(self.Zs)
        _scale(&self.E2[0], 2 * self.d, 1.0 / self.Zs)
        self.tidy()

    cdef void tidy(self) noexcept nogil:
        self.Zs = _sum(&self.E2[0], 2 * self.d)

    cdef double value(self) noexcept nogil:
        # g = A sum_j [p+_j (v_j - c) + p-_j (-v_j - c)] - A ln Zs
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            if self.E2[2 * k] > 0:
                out += self.E2[2 * k] * (self.v[k] - self.c)
            if self.E2[2 * k + 1] > 0:
                out += self.E2[2 * k + 1] * (-self.v[k] - self.c)
        out = self.A * (out / self.Zs - log(self.Zs))
        return out if out > 0 else 0.0

    cdef double conj_value(self) noexcept nogil:
        # A ln sum mu (e^v + e^-v) = A (c + ln Zs)
        return self.A * (self.c + log(self.Zs))

    cdef void weights(self, double[::1] w) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            w[k] = self.A * (self.E2[2 * k] - self.E2[2 * k + 1]) / self.Zs


# ---------------------------------------------------------------------------
# The solver
# ---------------------------------------------------------------------------

cdef struct Example:
    # Everything a visit reads of example i, in one 64-byte cache line: the
    # examples are visited in random order, and eight arrays of n values (600 KB
    # at n = 9,603, beyond L2) cost eight cache misses per visit where this
    # costs one (docs/performance.md, "The per-example record").
    double alpha                # dual variable, in/out (copied back at the end)
    double y                    # label +1/-1 (folded on the fly: z_i = y_i x_i)
    double t                    # target margin t_i
    double s                    # loss weight s_i
    double gap_seen             # gap term at the last visit
    double xone                 # the value all entries of row i share, NaN if they differ
    double row_stat             # _scan_rows' statistic: ||x_i||^2 for the square
                                # regularizer (its curvature), max_j |x_ij| for the
                                # entropy ones (the exponent cap)
    int start                   # the row's entries: data[start:start + nnz]
    int nnz


cdef struct Problem:
    const double* data          # CSR values and column indices
    const int* indices
    Example* ex                 # the examples, 64-byte aligned
    Py_ssize_t n
    double lam
    double S                    # lam * n
    bint bias                   # Algorithm 2: the augmented constant feature
    double sigma
    double rho
    double vb                   # v_{d+1}
    int step                    # STEP_AUTO, STEP_NEWTON or STEP_GRADIENT
    double eta                  # step fraction
    double eta_g                # fixed gradient step
    double kappa                # exponent cap
    double floor                # curvature floor
    double growth               # curvature growth across a capped step (majorizer)
    bint shrinking              # liblinear's shrinking heuristic
    Py_ssize_t active           # order[:active] are the active examples
    double pg_max_old
    double pg_min_old
    double gap_sum              # their sum, kept up to date (the cheap estimate)
    long long n_visits          # work counters: examples visited (margin formed),
    long long n_steps           # steps that moved alpha,
    long long nnz_visits        # and the nonzeros of those rows
    long long nnz_steps
    long long n_syncs           # rebuilds of v from alpha (_sync)
    double ksum                 # sum_i K_i(alpha_i), kept up to date, re-summed at checks


cdef inline uint64_t _splitmix64(uint64_t* state) noexcept nogil:
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef void _shuffle(int* order, Py_ssize_t n, uint64_t* state) noexcept nogil:
    """In-place Fisher-Yates with our own PRNG (no global state, no rand())."""
    cdef Py_ssize_t k, r
    cdef int tmp
    for k in range(n - 1, 0, -1):
        r = <Py_ssize_t>(((_splitmix64(state) >> 32) * <uint64_t>(k + 1)) >> 32)
        tmp = order[k]
        order[k] = order[r]
        order[r] = tmp


cdef void _block_shuffle(int* order, Py_ssize_t active, Py_ssize_t n, int B, int* blocks,
                         char* mark, uint64_t* state) noexcept nogil:
    """Permute order[:active] as blocks of B consecutive rows in a random order,
    each block's (active) rows in a random order.

    A full permutation starts every row with a cache (and TLB) miss once the
    matrix outgrows the caches; inside a block the rows lie together in the
    CSR arrays, so the hardware prefetcher streams them.  order[active:] (the
    rows shrinking set aside) is left as it is.
    """
    cdef Py_ssize_t k, b, bi, i, pos = 0, first, nb = (n + B - 1) // B
    for k in range(active):
        mark[order[k]] = 1
    for b in range(nb):
        blocks[b] = <int>b
    _shuffle(blocks, nb, state)
    for bi in range(nb):
        b = blocks[bi]
        first = pos
        for i in range(b * B, min(n, (b + 1) * B)):
            if mark[i]:
                mark[i] = 0
                order[pos] = <int>i
                pos += 1
        _shuffle(order + first, pos - first, state)


cdef double _ksum(Problem* P, Loss loss) noexcept nogil:
    """sum_i K_i(alpha_i)."""
    cdef double out = 0.0
    cdef Py_ssize_t i
    cdef Example* e
    for i in range(P.n):
        e = &P.ex[i]
        if e.s > 0:
            out += loss.conj(e.alpha, e.t, e.s)
    return out


cdef double _dual_at(Problem* P, Regularizer reg, double ksum) noexcept nogil:
    """D(alpha) = (1/n) sum_i K_i(alpha_i) + lam h(v) (+ the bias coordinate)."""
    cdef double out = ksum / P.n + P.lam * reg.conj_value()
    if P.bias:
        out += P.lam * (P.sigma * P.vb + P.vb * P.vb / (2.0 * P.rho))
    return out


cdef double _dual(Problem* P, Loss loss, Regularizer reg) noexcept nogil:
    """D(alpha), summed afresh."""
    return _dual_at(P, reg, _ksum(P, loss))


cdef void _epoch(Problem* P, Loss loss, Regularizer reg, int* order,
                 double* trace, Py_ssize_t* n_trace) noexcept nogil:
    """One pass of Algorithm 1 (docs/mathematics.md §3) over the active examples order[:P.active].

    Records for each visited example its gap term and loss at the margin seen
    before its step (gap_seen: the cheap gap estimate).  With
    shrinking, an example at a bound of its domain whose gradient pushes it
    further out than anything seen last epoch leaves the active set
    (liblinear's rule); the caller restores the full set when the exact gap
    says the solve is not done.
    """
    cdef Py_ssize_t k = 0, i
    cdef int nnz, tmp
    cdef Example* e
    cdef const double* x
    cdef const int* j
    cdef double s_i, t_i, y_i, a_i, b, c, cq, g, H, cap, delta, dv, pg, lo, hi, term
    cdef double pg_max = -INFINITY, pg_min = INFINITY
    while k < P.active:
        i = order[k]
        e = &P.ex[i]
        s_i = e.s
        if s_i == 0:                       # alpha_i is pinned at 0
            k += 1
            continue
        y_i = e.y
        t_i = e.t
        a_i = e.alpha
        nnz = e.nnz
        x = P.data + e.start
        j = P.indices + e.start
        if k + 1 < P.active:
            # a random permutation visits rows anywhere in the CSR arrays: start
            # loading the next row now (1.1-1.6x per epoch, docs/performance.md)
            TW_PREFETCH(P.data + P.ex[order[k + 1]].start)
            TW_PREFETCH(P.indices + P.ex[order[k + 1]].start)
        if k + 2 < P.active:
            # and the record of the example two ahead, whose row start the
            # line above reads next time (docs/performance.md)
            TW_PREFETCH(&P.ex[order[k + 2]])

        # b = w.z_i, c = z_i' hess h(v) z_i (+ the bias coordinate: z = y_i, h'' = 1/rho)
        b = y_i * reg.margin_curv(e.row_stat, x, j, nnz, e.xone, &c)
        P.n_visits += 1
        P.nnz_visits += nnz
        cq = 0.0
        if P.bias:
            b += y_i * (P.sigma + P.vb / P.rho)
            cq = 1.0 / P.rho
        term = loss.gap_term(b, a_i, t_i, s_i)
        P.gap_sum += term - e.gap_seen
        e.gap_seen = term

        # Phi'(0) and its projection on the domain of alpha_i
        g = loss.dconj(a_i, t_i, s_i) + b
        lo = loss.lo_scale * s_i
        hi = loss.hi_scale * s_i
        pg = g
        if a_i <= lo:
            pg = g if g < 0 else 0.0
            if P.shrinking and g > P.pg_max_old:
                P.active -= 1              # shrink: swap i past the active end
                tmp = order[k]
                order[k] = order[P.active]
                order[P.active] = tmp
                continue
        elif a_i >= hi:
            pg = g if g > 0 else 0.0
            if P.shrinking and g < P.pg_min_old:
                P.active -= 1
                tmp = order[k]
                order[k] = order[P.active]
                order[P.active] = tmp
                continue
        k += 1
        if pg > pg_max:
            pg_max = pg
        if pg < pg_min:
            pg_min = pg
        if fabs(pg) <= SKIP_PG:
            continue

        # the exponent cap |delta| max_j |x_ij| / (lam n) <= kappa (entropy rows)
        cap = INFINITY
        if reg.entropy and e.row_stat > 0:        # max_j |x_ij| for these rows
            cap = P.kappa * P.S / e.row_stat

        if P.step == STEP_GRADIENT:
            delta = loss.project(a_i, _clip(-P.eta_g * g, -cap, cap), s_i)
        elif P.step == STEP_AUTO and loss.smooth_solve:
            # exact on the quadratic model of h (a majorizer within the cap)
            delta = loss.solve(a_i, b, (P.growth * c + cq) / P.S, t_i, s_i, cap)
        else:
            # Newton (exact for the quadratic losses with the square regularizer)
            H = loss.d2conj(a_i, t_i, s_i) + (c + cq) / P.S
            if H < P.floor:
                H = P.floor
            delta = loss.project(a_i, _clip(-g / H, -cap, cap), s_i)
        delta *= P.eta
        if delta == 0:
            continue

        e.alpha = a_i + delta
        P.n_steps += 1
        P.nnz_steps += nnz
        P.ksum += loss.conj(a_i + delta, t_i, s_i) - loss.conj(a_i, t_i, s_i)
        dv = delta * y_i / P.S               # v += delta z_i / (lam n)
        reg.add(x, j, nnz, e.xone, e.row_stat, dv)
        if P.bias:
            P.vb += dv
        # an uncapped step (exp_cap > 1, a diagnostic) may overflow the cache
        if reg.lazy_v and (reg.need_sync or fabs(dv) * e.row_stat > 1.0):
            _sync(P, reg)
        if trace != NULL:
            trace[n_trace[0]] = _dual(P, loss, reg)
            n_trace[0] += 1
    # liblinear: thresholds for the next epoch's shrinking
    P.pg_max_old = pg_max if pg_max > 0 else INFINITY
    P.pg_min_old = pg_min if pg_min < 0 else -INFINITY


cdef void _unshrink(Problem* P) noexcept nogil:
    P.active = P.n
    P.pg_max_old = INFINITY
    P.pg_min_old = -INFINITY


cdef void _exact_gap(Problem* P, Loss loss, Regularizer reg, double* out_terms,
                     double* gap, double* primal) noexcept nogil:
    """gap = (1/n) sum_i [s_i f(u_i) + K_i(alpha_i) + alpha_i u_i]; P(w) (docs/mathematics.md §2)."""
    cdef Py_ssize_t i
    cdef Example* e
    cdef double u, term, gap_sum = 0.0, loss_sum = 0.0, wb = 0.0
    _sync(P, reg)
    if P.bias:
        wb = P.sigma + P.vb / P.rho
    for i in range(P.n):
        e = &P.ex[i]
        if e.s == 0:
            if out_terms != NULL:
                out_terms[i] = 0.0
            continue
        u = e.y * (reg.margin(P.data + e.start, P.indices + e.start, e.nnz, e.xone) + wb)
        term = loss.gap_term(u, e.alpha, e.t, e.s)
        if out_terms != NULL:
            out_terms[i] = term
        gap_sum += term
        loss_sum += e.s * loss.value(u, e.t)
    gap[0] = gap_sum / P.n
    primal[0] = loss_sum / P.n + P.lam * reg.value()
    if P.bias:
        primal[0] += P.lam * P.rho * (wb - P.sigma) * (wb - P.sigma) / 2.0


cdef void _rebuild(Problem* P, Regularizer reg) noexcept nogil:
    """v = (1/(lam n)) sum_i alpha_i z_i, then the caches (warm start).

    A warm start whose v exceeds the regularizer's ``v_limit`` (alpha from a
    much larger lam, say) is scaled towards 0 first: ``c alpha`` with ``0 < c < 1``
    stays in the domain of every loss, and the solve goes on from there.
    """
    cdef Py_ssize_t i, k
    cdef double vmax = 0.0, vk
    _accumulate_v(P, reg)
    for k in range(reg.d):
        vk = reg.v[k] if reg.v_limit_above_only else fabs(reg.v[k])
        if vk > vmax:
            vmax = vk
    if vmax > reg.v_limit:
        for i in range(P.n):
            P.ex[i].alpha *= reg.v_limit / vmax
        _accumulate_v(P, reg)
    reg.refresh()


cdef void _sync(Problem* P, Regularizer reg) noexcept nogil:
    """Bring v up to date (the entropy rows rebuild it from alpha) and the caches
    from v: an exact gap pass starts here, and it removes the rounding drift of
    the multiplicative updates."""
    if reg.lazy_v:
        _accumulate_v(P, reg)
        P.n_syncs += 1
    reg.refresh()
    reg.need_sync = False


cdef void _accumulate_v(Problem* P, Regularizer reg) noexcept nogil:
    """v = (1/(lam n)) sum_i alpha_i z_i and the bias coordinate v_b."""
    cdef Py_ssize_t i, k
    cdef Example* e
    cdef double dv
    for k in range(reg.d):
        reg.v[k] = 0.0
    P.vb = 0.0
    for i in range(P.n):
        e = &P.ex[i]
        if e.alpha == 0:
            continue
        dv = e.alpha * e.y / P.S
        for k in range(e.start, e.start + e.nnz):
            reg.v[P.indices[k]] += dv * P.data[k]
        P.vb += dv


# ---------------------------------------------------------------------------
# Python boundary
# ---------------------------------------------------------------------------

_LOSSES = {
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "least_squares": LeastSquares,
    "logistic": Logistic,
}
_REGULARIZERS = (
    "square",
    "entropy",
    "normalized_entropy",
    "balanced_entropy",
    "balanced_normalized_entropy",
)
_STEPS = {"auto": STEP_AUTO, "newton": STEP_NEWTON, "gradient": STEP_GRADIENT}


def _make_loss(name):
    try:
        return _LOSSES[name]()
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown loss {name!r}; valid losses are {sorted(_LOSSES)}"
        ) from None


def _vector(name, a, n, writable=False):
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
    if not np.all(np.isfinite(a)):
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
    cdef readonly Py_ssize_t n_features
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
    return out


def dual_gauss_seidel(
    X_data, X_indices, X_indptr, y, target, weight, alpha, n_features,
    loss="hinge", regularizer="square", lam=1e-3, mu=None, mass=1.0,
    bias_sigma=0.0, bias_rho=0.0, tol=1e-3, max_epochs=1000, shuffle=True,
    seed=0, step="auto", step_fraction=1.0, gradient_step=None,
    exp_cap=0.34657359027997264, curvature_floor=1e-12, gap_every=1,
    exact_gap_every=100, shrinking=True, return_gap_terms=False, trace_dual=False,
    shuffle_block=1, X_checked=None,
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
        on one matrix.
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
    cdef Problem P
    cdef Loss loss_obj
    cdef Regularizer reg
    cdef Py_ssize_t n, d, k, n_trace = 0
    cdef int epoch = 0, ep
    cdef double gap_abs = 0.0, primal = 0.0, est_gap = 0.0, est_p, est, lag = 1.2, dual_c
    cdef long long last_at
    cdef uint64_t state
    cdef bint do_shuffle, converged = False, checked, fresh = False, want_terms

    # ---- validation -----------------------------------------------------
    loss_obj = _make_loss(loss)
    if regularizer not in _REGULARIZERS:
        raise ValueError(
            f"unknown regularizer {regularizer!r}; valid regularizers are {list(_REGULARIZERS)}"
        )
    if step not in _STEPS:
        raise ValueError(f"unknown step {step!r}; valid steps are {list(_STEPS)}")
    d = int(n_features)
    if d < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}")
    X_indptr_arr = np.asarray(X_indptr)
    n = X_indptr_arr.shape[0] - 1 if X_indptr_arr.ndim == 1 else -1
    if n < 1:
        raise ValueError("X must have at least one row (X_indptr of length n + 1 >= 2)")
    # square: ||x_i||^2 (its curvature); entropy: max_j |x_ij| (the cap)
    if X_checked is None:
        X_data, X_indices, X_indptr, row_stat, row_value = _csr(
            X_data, X_indices, X_indptr_arr, d, regularizer != "square")
    else:
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
        X_data, X_indices, X_indptr = X_checked.data, X_checked.indices, X_checked.indptr
        row_stat, row_value = X_checked.row_stat, X_checked.row_value
    y = _vector("y", y, n)
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must contain only +1 and -1")
    target = _vector("target", target, n)
    weight = _vector("weight", weight, n)
    if np.any(weight < 0):
        raise ValueError("weight must be >= 0 (s_i = 0 removes example i)")
    alpha_arr = _vector("alpha", alpha, n, writable=True)
    lam = float(lam)
    if not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a finite number > 0, got {lam}")
    mass = float(mass)
    if not (np.isfinite(mass) and mass > 0):
        raise ValueError(f"mass must be a finite number > 0, got {mass}")
    bias_rho = float(bias_rho)
    bias_sigma = float(bias_sigma)
    if not (np.isfinite(bias_rho) and bias_rho >= 0 and np.isfinite(bias_sigma)):
        raise ValueError("bias_rho must be finite and >= 0 (0 = no bias), bias_sigma finite")
    tol = float(tol)
    if not tol >= 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    if int(max_epochs) != max_epochs or max_epochs < 0:
        raise ValueError(f"max_epochs must be an integer >= 0, got {max_epochs}")
    if not 0 < step_fraction <= 1:
        raise ValueError(f"step_fraction must lie in (0, 1], got {step_fraction}")
    if gradient_step is None:
        gradient_step = 0.01 * lam * n
    if not (np.isfinite(gradient_step) and gradient_step > 0):
        raise ValueError(f"gradient_step must be a finite number > 0, got {gradient_step}")
    if not exp_cap > 0:
        raise ValueError(f"exp_cap must be > 0 (np.inf for no cap), got {exp_cap}")
    if not (np.isfinite(curvature_floor) and curvature_floor > 0):
        raise ValueError(f"curvature_floor must be a finite number > 0, got {curvature_floor}")
    if int(gap_every) < 1 or int(exact_gap_every) < 1:
        raise ValueError("gap_every and exact_gap_every must be integers >= 1")

    if regularizer == "square":
        reg = Square(d)
    else:
        if mu is None:
            raise ValueError(f"the {regularizer} regularizer needs a prior mu of length {d}")
        mu = _vector("mu", mu, d)
        if np.any(mu < 0) or not np.sum(mu) > 0:
            raise ValueError("mu must be >= 0 with a positive sum")
        reg = {
            "entropy": lambda: Entropy(d, mu),
            "normalized_entropy": lambda: NormalizedEntropy(d, mu, mass),
            "balanced_entropy": lambda: BalancedEntropy(d, mu),
            "balanced_normalized_entropy": lambda: BalancedNormalizedEntropy(d, mu, mass),
        }[regularizer]()
        # the steps' exponents |dv x_ij| stay within exp_cap: polynomials when <= 0.35
        reg.set_scratch(int(np.max(np.diff(X_indptr))), exp_cap <= EXP_POLY_T)

    cdef bint warm = int(max_epochs) > 0 and bool(np.any(alpha_arr != 0))
    # project alpha into the domain of the loss (open for the logistic loss)
    lo1, hi1 = loss_obj.lower(1.0), loss_obj.upper(1.0)
    lower = lo1 * weight if np.isfinite(lo1) else np.full(n, lo1)
    upper = hi1 * weight if np.isfinite(hi1) else np.full(n, hi1)
    if loss_obj.smooth_solve:
        # start inside (0, s) and small (docs/mathematics.md §4): a0 = s * min(1e-3, lam / max|x|)
        # keeps |v_j| = |sum_i a0_i z_ij| / (lam n) <= max s, so e^v stays finite
        x_top = max(float(np.max(np.abs(X_data))), 1e-300)
        frac = min(1e-3, lam / x_top)
        too_high = alpha_arr >= upper
        too_low = alpha_arr <= lower
        alpha_arr[too_low] = frac * weight[too_low]
        alpha_arr[too_high] = (1 - frac) * weight[too_high]
    else:
        np.clip(alpha_arr, lower, upper, out=alpha_arr)
    alpha_arr[weight == 0] = 0.0

    cdef const double[::1] Xd = X_data
    cdef const int[::1] Xi = X_indices
    cdef const int[::1] Xp = X_indptr
    cdef const double[::1] yv = y, tv = target, sv = weight, xm = row_stat, x1 = row_value
    cdef double[::1] av = alpha_arr
    cdef int[::1] order = np.arange(n, dtype=np.int32)
    max_ep = int(max_epochs)
    gaps_arr = np.zeros(max_ep + 2)
    at_arr = np.zeros(max_ep + 2, dtype=np.int64)
    cdef double[::1] gaps = gaps_arr
    cdef long long[::1] at = at_arr
    cdef Py_ssize_t n_gaps = 0
    ests_arr = np.full(max_ep + 1, np.nan)
    cdef double[::1] ests = ests_arr
    terms_arr = np.zeros(n)
    cdef double[::1] terms = terms_arr
    trace_arr = np.zeros(n * max_ep + 1 if trace_dual else 1)  # D at entry, then per step
    cdef double[::1] trace = trace_arr
    cdef double* trace_ptr = &trace[0] if trace_dual else NULL
    cdef int every = int(gap_every), exact_every = int(exact_gap_every), n_ep = max_ep
    cdef double lam_c = lam, tol_c = tol

    # the per-example record, one cache line each (a 64-byte aligned view)
    ex_buf = np.zeros(n * sizeof(Example) + 64, dtype=np.uint8)
    cdef unsigned char[::1] ex_bytes = ex_buf
    cdef Example* ex = <Example*>((<size_t>&ex_bytes[0] + 63) & ~(<size_t>63))
    cdef Py_ssize_t i
    for i in range(n):
        ex[i].alpha = av[i]
        ex[i].y = yv[i]
        ex[i].t = tv[i]
        ex[i].s = sv[i]
        ex[i].gap_seen = 0.0
        ex[i].xone = x1[i]
        ex[i].row_stat = xm[i]
        ex[i].start = Xp[i]
        ex[i].nnz = Xp[i + 1] - Xp[i]

    P.data = &Xd[0]
    P.indices = &Xi[0]
    P.ex = ex
    P.n = n
    P.lam = lam
    P.S = lam * n
    P.bias = bias_rho > 0
    P.sigma = bias_sigma
    P.rho = bias_rho if bias_rho > 0 else 1.0
    P.vb = 0.0
    P.step = _STEPS[step]
    P.eta = step_fraction
    P.eta_g = gradient_step
    P.kappa = exp_cap
    P.floor = curvature_floor
    # within the cap the curvature of h grows at most by e^kappa (e^(2 kappa) normalized)
    P.growth = reg.growth2 ** exp_cap if (reg.entropy and np.isfinite(exp_cap)) else 1.0
    P.shrinking = bool(shrinking)
    _unshrink(&P)
    P.n_visits = 0
    P.n_steps = 0
    P.nnz_visits = 0
    P.nnz_steps = 0
    P.n_syncs = 0
    state = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    do_shuffle = bool(shuffle)
    if int(shuffle_block) != shuffle_block or shuffle_block < 1:
        raise ValueError(f"shuffle_block must be an integer >= 1, got {shuffle_block}")
    cdef int block = int(min(shuffle_block, n))
    cdef int[::1] blocks = np.zeros((n + block - 1) // block if block > 1 else 1, dtype=np.int32)
    cdef char[::1] mark = np.zeros(n if block > 1 else 1, dtype=np.int8)
    want_terms = bool(return_gap_terms)

    cdef unsigned int csr
    cdef bint flush = reg.entropy
    with nogil:
        # The multiplicative updates of the entropy rows walk vanishing weights
        # (mu e^v with v -> -inf) down through the subnormal doubles, where each
        # multiply costs ~100 cycles on x86 (1.7x per epoch, docs/performance.md);
        # a weight under 2.2e-308 is 0 to every use, so this thread flushes
        # them to 0 while the kernel runs (restored on exit).
        csr = TW_CSR_GET()
        if flush:
            TW_FTZ_ON()
        _rebuild(&P, reg)
        P.ksum = _ksum(&P, loss_obj)
        P.gap_sum = 0.0
        if trace_ptr != NULL:
            trace_ptr[0] = _dual(&P, loss_obj, reg)
            n_trace = 1
        if warm:
            # a warm start may already be converged (the outer loop of Algorithm 2)
            _exact_gap(&P, loss_obj, reg, NULL, &gap_abs, &primal)
            gaps[n_gaps] = gap_abs / (primal if primal > TINY else TINY)
            at[n_gaps] = 0
            n_gaps += 1
            fresh = True
            if gaps[0] <= tol_c:
                n_ep = 0
        for ep in range(n_ep):
            if do_shuffle and block > 1:
                _block_shuffle(&order[0], P.active, n, block, &blocks[0], &mark[0], &state)
            elif do_shuffle:
                _shuffle(&order[0], P.active, &state)
            _epoch(&P, loss_obj, reg, &order[0], trace_ptr, &n_trace)
            reg.tidy()
            epoch = ep + 1
            fresh = False
            checked = False
            est = INFINITY
            if epoch % every == 0:
                # cheap: the terms at the margins seen at each example's last
                # visit.  They lag behind: each is taken before its own step,
                # so with the square regularizer the estimate runs above the
                # exact gap; with the normalized ones every step moves every
                # weight (through Z), and the terms seen, each small after its
                # own step, run 20-50 times below it.  Either way the estimate
                # is corrected by the ratio est / exact learnt at the last
                # exact check (clamped to [0.001, 5], 1.2 before any): without
                # the correction below 1 the normalized rows made an exact
                # check, two more passes, after nearly every epoch.  A check
                # made while shrinking has set examples aside learns no ratio
                # below 1: their terms are stale for another reason, and only
                # a check that this estimate triggers brings them back.  A
                # ratio below 1 may drift upward, and the corrected estimate
                # then stays above tol while the exact gap is below it: in that
                # regime an exact check also comes every quarter of the epochs
                # run so far (at least 5 apart), which bounds the overshoot
                # (P is estimated as gap - D, with the exact D of now)
                est_gap = P.gap_sum / n
                est_p = est_gap - _dual_at(&P, reg, P.ksum)
                est = est_gap / (est_p if est_p > TINY else TINY)
                ests[epoch - 1] = est
                checked = est <= tol_c * lag
                last_at = at[n_gaps - 1] if n_gaps > 0 else 0
                if lag < 1.0 and epoch >= last_at + max(5, last_at // 4):
                    checked = True
            if checked or epoch % exact_every == 0 or epoch == n_ep:
                _exact_gap(&P, loss_obj, reg, NULL, &gap_abs, &primal)
                P.ksum = _ksum(&P, loss_obj)        # against the drift of the running sum
                gaps[n_gaps] = gap_abs / (primal if primal > TINY else TINY)
                at[n_gaps] = epoch
                if est < INFINITY and gaps[n_gaps] > 0:
                    lag = _clip(est / gaps[n_gaps], LAG_MIN if P.active == n else 1.0,
                                LAG_MAX)
                n_gaps += 1
                fresh = True
                if gaps[n_gaps - 1] <= tol_c:
                    converged = True
                    break
                if checked or P.active < n:
                    # not converged on all: every example set aside is back,
                    # and shrinking starts afresh (liblinear's full-set
                    # recheck).  Also after a periodic check that finds
                    # examples aside: the estimate of a shrunk set may never
                    # trigger one, and they would stay aside for good
                    _unshrink(&P)
        # the exit gap is exact (a last pass unless one was just made)
        if want_terms or not fresh:
            _exact_gap(&P, loss_obj, reg, &terms[0], &gap_abs, &primal)
        dual_c = _dual(&P, loss_obj, reg)     # O(n + d): still without the GIL
        for i in range(n):                    # alpha is in/out
            av[i] = ex[i].alpha
        TW_CSR_SET(csr)

    w = np.zeros(d)
    reg.weights(w)
    dual = dual_c
    rel = gap_abs / max(primal, TINY)
    res = {
        "w": w,
        "v": np.array(reg.v),
        "bias": (P.sigma + P.vb / P.rho) if P.bias else 0.0,
        "v_bias": P.vb if P.bias else 0.0,
        "n_epochs": epoch,
        "gaps": gaps_arr[:n_gaps].copy(),
        "epochs_at_gaps": at_arr[:n_gaps].copy(),
        "gap_estimates": ests_arr[:epoch].copy(),
        "gap": rel,
        "abs_gap": gap_abs,
        "primal": primal,
        "dual": dual,
        "converged": bool(rel <= tol),
        "work": {"visits": P.n_visits, "steps": P.n_steps,
                 "nnz_visits": P.nnz_visits, "nnz_steps": P.nnz_steps, "syncs": P.n_syncs},
    }
    if return_gap_terms:
        res["gap_terms"] = terms_arr
    if trace_dual:
        res["dual_trace"] = trace_arr[:n_trace].copy()
    return res


# ---------------------------------------------------------------------------
# Shims for tests
# ---------------------------------------------------------------------------

def py_conj(loss, double alpha, double t=1.0, double s=1.0):
    """K(alpha) = s k(-alpha/s) of the named loss (for tests)."""
    cdef Loss L = _make_loss(loss)
    return L.conj(alpha, t, s)


def py_dconj(loss, double alpha, double t=1.0, double s=1.0):
    cdef Loss L = _make_loss(loss)
    return L.dconj(alpha, t, s)


def py_d2conj(loss, double alpha, double t=1.0, double s=1.0):
    cdef Loss L = _make_loss(loss)
    return L.d2conj(alpha, t, s)


def py_loss(loss, double u, double t=1.0):
    """f(u) of the named loss (for tests)."""
    cdef Loss L = _make_loss(loss)
    return L.value(u, t)


def py_gap_term(loss, double u, double alpha, double t=1.0, double s=1.0):
    """s f(u) + K(alpha) + alpha u (for tests)."""
    cdef Loss L = _make_loss(loss)
    return L.gap_term(u, alpha, t, s)


def py_domain(loss, double s=1.0):
    """(lower, upper) bounds of alpha for the named loss."""
    cdef Loss L = _make_loss(loss)
    return L.lower(s), L.upper(s)


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


def py_expm1_pm(double t):
    """(e^t - 1, e^-t - 1) as a one-value row's update computes them within the
    cap (for tests)."""
    cdef double ep, em
    tw_expm1_pm(t, &ep, &em)
    return ep, em


def py_exp_pm_row(x, double dv, bint poly=True):
    """(e^(dv x), e^(-dv x)) as the entropy updates compute them per entry (for
    tests): within the cap, the balanced rows' update on the current SIMD path
    applied to pairs (1, 1); with ``poly=False``, libm."""
    cdef const double[::1] xv = np.ascontiguousarray(x, dtype=np.float64)
    cdef int n = <int>xv.shape[0]
    cdef double[::1] fv, fiv
    if not poly:
        f, fi = np.empty(n), np.empty(n)
        fv, fiv = f, fi
        if n:
            _exp_pm_row_libm(&xv[0], n, dv, &fv[0], &fiv[0])
        return f, fi
    pairs = np.ones(2 * n)
    py_scale_exp(pairs, np.arange(n), xv, dv, pairs=True)
    return pairs[0::2].copy(), pairs[1::2].copy()


# The per-entry loops' instruction set, picked once at import (see tw_simd_select):
# the best the CPU has, or the environment's TEXTWIN_SIMD (baseline, avx2+fma, best),
# e.g. TEXTWIN_SIMD=baseline to compare runs across machines (the paths differ
# by rounding only).
_SIMD_PATHS = ("baseline", "avx2+fma")


def _simd_from_env():
    want = os.environ.get("TEXTWIN_SIMD", "best").strip().lower() or "best"
    if want not in _SIMD_PATHS + ("best",):
        warnings.warn(f"TEXTWIN_SIMD={want!r} is not one of {', '.join(_SIMD_PATHS)}, best; "
                      "using the best the CPU has", RuntimeWarning, stacklevel=2)
        want = "best"
    return tw_simd_select(-1 if want == "best" else _SIMD_PATHS.index(want))


_simd_level = _simd_from_env()


def simd_path():
    """The instruction set of the kernel's per-entry loops: ``"avx2+fma"`` (x86-64
    with AVX2 and FMA, built by GCC or Clang) or ``"baseline"`` (elsewhere, or
    when the environment sets ``TEXTWIN_SIMD=baseline`` before the import)."""
    return _SIMD_PATHS[_simd_level]


def _select_simd(name):
    """Use ``name`` ("baseline", "avx2+fma" or "best") for later solves; returns the
    path in use (the best one the CPU has when it lacks ``name``).  Tests and
    benchmarks only: not for a solve running in another thread."""
    global _simd_level
    if name not in _SIMD_PATHS + ("best",):
        raise ValueError(f"unknown SIMD path {name!r}; one of {', '.join(_SIMD_PATHS)}, best")
    _simd_level = tw_simd_select(-1 if name == "best" else _SIMD_PATHS.index(name))
    return simd_path()


def py_scale_exp(w, col, x, double dv, bint pairs=False):
    """Apply one entropy row update in place as the kernel does (for tests):
    ``w[col_k] *= e^(dv x_k)``, or with ``pairs`` (w holds (p, m) pairs)
    ``w[2 col_k], w[2 col_k + 1] *= e^(dv x_k), e^(-dv x_k)``; returns the sum of
    the changes."""
    cdef double[::1] wv = w
    cdef const int[::1] cv = np.ascontiguousarray(col, dtype=np.int32)
    cdef const double[::1] xv = np.ascontiguousarray(x, dtype=np.float64)
    cdef int n = <int>xv.shape[0], k
    if cv.shape[0] != n:
        raise ValueError("col and x must have the same length")
    if n == 0:
        return 0.0
    scratch = np.empty(2 * n)
    cdef double[::1] sv = scratch
    cdef double T = 0.0
    for k in range(n):
        T = max(T, fabs(dv * xv[k]))
    if pairs:
        return tw_ops.pair_scale_exp(&wv[0], &cv[0], &xv[0], n, dv, T, True, &sv[0], &sv[n])
    return tw_ops.scale_exp(&wv[0], &cv[0], &xv[0], n, dv, T, True, &sv[0], &sv[n])


# The names the estimators offer and validate against (public: the kernel owns them).
LOSSES = tuple(_LOSSES)
REGULARIZERS = tuple(_REGULARIZERS)

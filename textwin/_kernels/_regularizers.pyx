# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Regularizers of the dual Gauss-Seidel kernel (docs/mathematics.md §5).

A regularizer ``g(w)`` enters the dual through its conjugate ``h(v)``, with
``w = grad h(v)`` and ``v = (1/(lam n)) sum_i alpha_i z_i``.  Each class owns ``v``
and whatever cache gives ``w`` cheaply (``w = v``; ``mu e^v``; the exponentials
``E`` and their sum ``Z`` of the normalized rows), and gives the margin
``b_i = w.x_i`` and curvature ``c_i = x_i' hess h(v) x_i`` of a row, the cap on a
step (docs/mathematics.md §6), the update along a row, ``g(w)`` and ``h(v)``.  The
solver (``_solver.pyx``) calls them through the ``Regularizer`` interface of
``_regularizers.pxd`` and never asks which one it drives.

Rows arrive as raw pointers (values x, columns j, nnz) plus ``x0``, the value
every entry of the row shares (binary features), or NaN when they differ.  A
row with one value needs no per-entry multiply and one factor per step
(tw_expm1_pm): its margin is x0 times a plain sum.  Margins and curvatures
are of x_i, the caller folds the label in.  Each method copies the
memoryviews' data pointers to locals first, so the loops index plain C
arrays; the per-entry loops are the C of rowops.h.
"""
from libc.math cimport exp, log, fabs, sinh, expm1, pow, isfinite, INFINITY

from ._rowops cimport (tw_ops, tw_simd_select, tw_scale_f, tw_pair_scale, tw_pair_sum,
                      tw_pair_scale1, tw_expm1_pm)

import os
import warnings

import numpy as np

cdef double BIG = 1e100            # rescale the normalized rows' exponentials beyond this
cdef double SMALL = 1e-100         # or below this
cdef double V_WARM_LIMIT = 300.0   # e^300 ~ 1e130: weights stay finite, sums too
cdef double EXP_POLY_T = 0.35      # |t| within which the factors' polynomials are exact to rounding


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


cdef inline double _scale_exp(ExpRegularizer reg, double* w, const double* x, const int* j,
                              int nnz, double xmax, double dv, bint want_dz) noexcept nogil:
    """w[j_k] *= e^(dv x_k) along a row; returns the sum of the changes (if
    want_dz: only the normalized rows need it)."""
    if reg.poly:
        return tw_ops.scale_exp(w, j, x, nnz, dv, fabs(dv) * xmax, want_dz, reg.fp, reg.fm)
    _exp_pm_row_libm(x, nnz, dv, reg.fp, reg.fm)        # beyond the polynomials
    return tw_scale_f(w, j, nnz, reg.fp, want_dz)


cdef inline double _pair_scale_exp(ExpRegularizer reg, double* pm, const double* x, const int* j,
                                   int nnz, double xmax, double dv, bint want_dz) noexcept nogil:
    """(p_j, m_j) *= (e^(dv x_k), e^(-dv x_k)) along a row; returns the sum of the
    changes (if want_dz)."""
    if reg.poly:
        return tw_ops.pair_scale_exp(pm, j, x, nnz, dv, fabs(dv) * xmax, want_dz, reg.fp, reg.fm)
    _exp_pm_row_libm(x, nnz, dv, reg.fp, reg.fm)
    return tw_pair_scale(pm, j, nnz, reg.fp, reg.fm, want_dz)


cdef inline void _expm1_pm(ExpRegularizer reg, double t, double* ep, double* em) noexcept nogil:
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


cdef class Regularizer:
    """The interface: ``h(v)`` and ``w = grad h(v)`` over ``d`` features.

    All the solver knows of a regularizer: the margin and curvature of a row,
    the cap on a step, the update along a row, the caches' refresh from ``v``,
    ``g(w)``, ``h(v)`` and ``w`` (the fields are in ``_regularizers.pxd``).
    """

    def prepare(self, int max_nnz, double kappa, double S):
        """Before a solve: the longest row's nnz, the exponent cap ``kappa``
        and ``S = lam n``."""
        pass

    def curvature_growth(self, double kappa):
        """Bound on the growth of the curvature across a capped step (the
        logistic step's majorizer, docs/mathematics.md §6)."""
        return 1.0

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        """b = w.x_i."""
        return 0.0

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        """Return b = w.x_i and store c = x_i' hess h(v) x_i in curv."""
        curv[0] = 0.0
        return 0.0

    cdef double cap(self, double row_stat) noexcept nogil:
        """The largest |delta| a step on this row may take (docs/mathematics.md §6)."""
        return INFINITY

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
                  double dv) noexcept nogil:
        """v <- v + dv * x_i and the caches along (with lazy_v the caches only);
        sets need_sync when the caches must be recomputed from v."""
        pass

    cdef double warm_scale(self) noexcept nogil:
        """The factor (<= 1) by which a warm start's alpha must shrink for the
        caches to stay finite, judged on v rebuilt from that alpha."""
        return 1.0

    cdef void accumulated(self) noexcept nogil:
        """v was just summed from alpha as (1/(lam n)) sum_i alpha_i z_i: bring it
        to what the regularizer keeps (the same v but for DiagonalSquare)."""
        pass

    cdef void refresh(self) noexcept nogil:
        """Recompute every cache from v (v must be up to date)."""
        pass

    cdef void tidy(self) noexcept nogil:
        """Once per epoch, O(d) and no transcendental function: re-sum running totals."""
        pass

    cdef double value(self) noexcept nogil:
        """g(w) >= 0 from v and the caches (v up to date)."""
        return 0.0

    cdef double conj_value(self) noexcept nogil:
        """h(v), from the caches (valid at any time, v may be stale)."""
        return 0.0

    cdef void weights(self, double[::1] w) noexcept nogil:
        pass


cdef class Square(Regularizer):
    """g = ||w||^2 / 2 = h, w = v, curvature ||x_i||^2 (precomputed: the row statistic)."""

    def __init__(self, Py_ssize_t d):
        self.d = d
        self.v = np.zeros(d)

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        return _dot(&self.v[0], x, j, nnz, x0)

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        curv[0] = row_stat                   # ||x_i||^2, in the example's record
        return _dot(&self.v[0], x, j, nnz, x0)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
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


cdef class DiagonalSquare(Square):
    """The square regularizer of the problem on X D, D = diag(r), kept in X's own
    columns (docs/mathematics.md §5, "A per-feature scale"): with the weights w~ of the
    scaled columns it keeps u = D w~, so that the margin u.x_i is Square's, a step adds
    dv s_j x_ij with s_j = r_j^2, and g = sum_j u_j^2 / (2 s_j) (u_j = 0 where s_j = 0).
    The row statistic is ||D x_i||^2 (the caller's, per problem); ``weights`` gives u,
    the weights on X's unscaled rows.
    """

    def __init__(self, Py_ssize_t d, const double[::1] s):
        super().__init__(d)
        self.s = s

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
                  double dv) noexcept nogil:
        cdef double* v = &self.v[0]
        cdef const double* s = &self.s[0]
        cdef double dvx = dv * x0
        cdef int k
        if _one_value(x0):
            for k in range(nnz):
                v[j[k]] += dvx * s[j[k]]
            return
        for k in range(nnz):                 # u += dv * D^2 x_i
            v[j[k]] += dv * s[j[k]] * x[k]

    cdef void accumulated(self) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):              # u = D^2 (1/(lam n)) sum_i alpha_i z_i
            self.v[k] *= self.s[k]

    cdef double value(self) noexcept nogil:
        # ||w~||^2 / 2 with w~_j = u_j / r_j; u_j stays 0 where r_j = 0
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            if self.s[k] > 0:
                out += self.v[k] * self.v[k] / self.s[k]
        return 0.5 * out


cdef class ExpRegularizer(Regularizer):
    """The entropy family (docs/mathematics.md §5): a step multiplies weights by
    e^(dv x_ij), capped at |dv| max_j |x_ij| <= kappa (docs/mathematics.md §6).

    They keep only their cache up to date along a row, not v (``lazy_v``), and
    flag an over- or underflow of the cache, or a step beyond the cap (exp_cap
    > 1, a diagnostic), for the solver to rebuild v and the caches.
    Warm starts: the unnormalized rows store mu e^(+-v) unscaled, so a warm
    start from a much larger lam would overflow them: ``v_limit`` is the
    largest |v_j| allowed (with ``v_limit_above_only`` only v_j > v_limit
    counts: mu e^v alone, where a very negative v_j is a weight that
    underflows to 0, as converged solutions have).
    """

    def __cinit__(self):
        self.lazy_v = True
        self.flush_subnormals = True
        self.v_limit = INFINITY              # rescaled exponentials: any v is finite

    def prepare(self, int max_nnz, double kappa, double S):
        self.scratch = np.empty(2 * max_nnz + 2)
        self.fp = &self.scratch[0]
        self.fm = self.fp + max_nnz + 1
        # the steps' exponents |dv x_ij| stay within kappa: polynomials when <= 0.35
        self.poly = kappa <= EXP_POLY_T
        self.cap_scale = kappa * S

    def curvature_growth(self, double kappa):
        # within the cap the curvature of h grows at most by e^kappa (e^(2 kappa) normalized)
        return pow(self.growth2, kappa) if isfinite(kappa) else 1.0

    cdef double cap(self, double row_stat) noexcept nogil:
        # |delta| max_j |x_ij| / (lam n) <= kappa
        if row_stat > 0:
            return self.cap_scale / row_stat
        return INFINITY

    cdef double warm_scale(self) noexcept nogil:
        cdef double vmax = 0.0, vk
        cdef Py_ssize_t k
        for k in range(self.d):
            vk = self.v[k] if self.v_limit_above_only else fabs(self.v[k])
            if vk > vmax:
                vmax = vk
        if vmax > self.v_limit:
            return self.v_limit / vmax
        return 1.0


cdef inline void _flag_uncapped(ExpRegularizer reg, double dv, double row_stat) noexcept nogil:
    """A step beyond the cap may overflow the cache: have it rebuilt."""
    if fabs(dv) * row_stat > 1.0:
        reg.need_sync = True


cdef class Entropy(ExpRegularizer):
    """Unnormalized positive entropy: h = sum mu (e^v - 1), w = mu e^v (stored)."""

    def __init__(self, Py_ssize_t d, const double[::1] mu):
        self.d = d
        self.v = np.zeros(d)
        self.mu = mu
        self.w = np.array(mu, dtype=np.float64)
        self.growth2 = 2.718281828459045     # e^kappa
        self.v_limit = V_WARM_LIMIT
        self.v_limit_above_only = True

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        return _dot(&self.w[0], x, j, nnz, x0)

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        # b = w @ x_i, c = w @ x_i**2
        return _dot2(&self.w[0], x, j, nnz, x0, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
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
        else:
            _scale_exp(self, w, x, j, nnz, row_stat, dv, False)
        _flag_uncapped(self, dv, row_stat)

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


cdef class BalancedEntropy(ExpRegularizer):
    """Balanced unnormalized entropy: h = sum mu (e^v + e^-v - 2), w = mu (e^v - e^-v).

    Stores w+ = mu e^v and w- = mu e^-v (the duplication trick x~ = [x, -x]),
    interleaved in ``pm = [w+_0, w-_0, w+_1, ...]`` so that a feature's pair
    shares one cache line.
    """

    def __init__(self, Py_ssize_t d, const double[::1] mu):
        self.d = d
        self.v = np.zeros(d)
        self.mu = mu
        self.pm = np.repeat(np.asarray(mu, dtype=np.float64), 2)
        self.growth2 = 2.718281828459045
        self.v_limit = V_WARM_LIMIT

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        cdef double c
        return _pair_sums(&self.pm[0], x, j, nnz, x0, &c)

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        return _pair_sums(&self.pm[0], x, j, nnz, x0, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
                  double dv) noexcept nogil:
        cdef double ep, em
        if _one_value(x0):
            _expm1_pm(self, dv * x0, &ep, &em)
            tw_pair_scale1(&self.pm[0], j, nnz, 1.0 + ep, 1.0 + em, NULL)
        else:
            _pair_scale_exp(self, &self.pm[0], x, j, nnz, row_stat, dv, False)
        _flag_uncapped(self, dv, row_stat)

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


cdef class NormalizedBase(ExpRegularizer):
    """What the two normalized entropies share: h = A ln Z, w = A grad ln Z.

    ``w`` is never stored (every w_j depends on Z): we keep the exponentials
    ``E`` (``width`` per feature: ``mu_j e^(v_j - c)``, and ``mu_j e^(-v_j - c)``
    for the balanced one) and their total ``Zs = Z e^(-c)`` with one common
    scale ``c`` that keeps them finite (docs/mathematics.md §5).  ``mu`` is
    normalized to ``width * sum mu = 1``, which makes ``g >= 0`` and changes no
    ``w``.  ``h = A (c + ln Zs)`` costs nothing; ``Zs`` is kept along the steps
    and re-summed once per epoch; a rescale changes ``c`` and ``E``, never ``v``.
    """

    def __init__(self, Py_ssize_t d, const double[::1] mu, double mass, int width):
        self.d = d
        self.v = np.zeros(d)
        self.width = width
        self.mu = np.asarray(mu) / (width * np.sum(mu))
        with np.errstate(divide="ignore"):
            self.log_mu = np.log(self.mu)
        self.E = np.repeat(np.asarray(self.mu, dtype=np.float64), width)
        self.A = mass
        self.growth2 = 2.718281828459045 ** 2    # e^(2 kappa)
        self.refresh()

    cdef void check_scale(self) noexcept nogil:
        """After a step: rescale E when Zs leaves (SMALL, BIG), rebuild on overflow."""
        if not (SMALL < self.Zs < BIG):
            if 0 < self.Zs < INFINITY:
                self.rescale()
            else:
                self.need_sync = True

    cdef void rescale(self) noexcept nogil:
        # E_j <- E_j / Zs and c <- c + ln Zs: the same w, Zs back to 1, no v needed
        # (an E_j pushed below the smallest double is a weight under 1e-208 of
        # the total; the next sync recomputes it from v)
        self.c += log(self.Zs)
        _scale(&self.E[0], self.width * self.d, 1.0 / self.Zs)
        self.tidy()

    cdef void tidy(self) noexcept nogil:
        self.Zs = _sum(&self.E[0], self.width * self.d)

    cdef double conj_value(self) noexcept nogil:
        # A ln sum mu e^v (balanced: mu (e^v + e^-v)) = A (c + ln Zs)
        return self.A * (self.c + log(self.Zs))


cdef class NormalizedEntropy(NormalizedBase):
    """Normalized positive entropy: h = A ln sum mu e^v, w = A mu e^v / Z.

    ``E_j = mu_j e^(v_j - c)``, ``mu`` normalized to sum 1 (see NormalizedBase).
    """

    def __init__(self, Py_ssize_t d, const double[::1] mu, double mass):
        super().__init__(d, mu, mass, 1)

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        # b = A sum_j mu_j e^v_j x_j / Z
        return self.A * _dot(&self.E[0], x, j, nnz, x0) / self.Zs

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        cdef double c
        cdef double b = _dot2(&self.E[0], x, j, nnz, x0, &c)
        return _normalized_margin(self.A, self.Zs, b, c, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
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
            self.Zs += _scale_exp(self, E, x, j, nnz, row_stat, dv, True)
        self.check_scale()
        _flag_uncapped(self, dv, row_stat)

    cdef void refresh(self) noexcept nogil:
        # c = max_j (v_j + ln mu_j): every E_j <= 1 and Zs >= 1
        cdef Py_ssize_t k
        cdef double m = _max_exponent(self.v, self.log_mu, False), z = 0.0
        self.c = m
        for k in range(self.d):
            self.E[k] = exp(self.v[k] + self.log_mu[k] - m)
            z += self.E[k]
        self.Zs = z

    cdef double value(self) noexcept nogil:
        # g = sum w ln(w/(A mu)) = A sum_j p_j (v_j - c) - A ln Zs,  p = E / Zs
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            if self.E[k] > 0:
                out += self.E[k] * (self.v[k] - self.c)
        out = self.A * (out / self.Zs - log(self.Zs))
        return out if out > 0 else 0.0

    cdef void weights(self, double[::1] w) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            w[k] = self.A * self.E[k] / self.Zs


cdef class BalancedNormalizedEntropy(NormalizedBase):
    """Balanced normalized entropy: h = A ln sum mu (e^v + e^-v), w = A mu (e^v - e^-v)/Z.

    ``E = [Ep_0, Em_0, Ep_1, Em_1, ...]`` (one cache line per feature) with
    ``Ep_j = mu_j e^(v_j - c)``, ``Em_j = mu_j e^(-v_j - c)``; ``mu`` normalized to
    ``sum 2 mu = 1`` (see NormalizedBase; shifting ``v`` would move ``e^v`` and
    ``e^-v`` in opposite directions, hence the scale ``c``).
    """

    def __init__(self, Py_ssize_t d, const double[::1] mu, double mass):
        super().__init__(d, mu, mass, 2)

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil:
        cdef double c
        return self.A * _pair_sums(&self.E[0], x, j, nnz, x0, &c) / self.Zs

    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil:
        cdef double c
        cdef double b = _pair_sums(&self.E[0], x, j, nnz, x0, &c)
        return _normalized_margin(self.A, self.Zs, b, c, curv)

    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
                  double dv) noexcept nogil:
        cdef double ep, em
        cdef double olds[2]
        if _one_value(x0):
            # Z changes by (e^t - 1) sum p + (e^-t - 1) sum m over the row (the
            # sums before the update), both exact for small steps
            _expm1_pm(self, dv * x0, &ep, &em)
            tw_pair_scale1(&self.E[0], j, nnz, 1.0 + ep, 1.0 + em, olds)
            self.Zs += ep * olds[0] + em * olds[1]
        else:
            self.Zs += _pair_scale_exp(self, &self.E[0], x, j, nnz, row_stat, dv, True)
        self.check_scale()
        _flag_uncapped(self, dv, row_stat)

    cdef void refresh(self) noexcept nogil:
        # c = max_j (|v_j| + ln mu_j): every Ep_j, Em_j <= 1 and Zs >= 1
        cdef Py_ssize_t k
        cdef double m = _max_exponent(self.v, self.log_mu, True), z = 0.0
        self.c = m
        for k in range(self.d):
            self.E[2 * k] = exp(self.v[k] + self.log_mu[k] - m)
            self.E[2 * k + 1] = exp(-self.v[k] + self.log_mu[k] - m)
            z += self.E[2 * k] + self.E[2 * k + 1]
        self.Zs = z

    cdef double value(self) noexcept nogil:
        # g = A sum_j [p+_j (v_j - c) + p-_j (-v_j - c)] - A ln Zs
        cdef double out = 0.0
        cdef Py_ssize_t k
        for k in range(self.d):
            if self.E[2 * k] > 0:
                out += self.E[2 * k] * (self.v[k] - self.c)
            if self.E[2 * k + 1] > 0:
                out += self.E[2 * k + 1] * (-self.v[k] - self.c)
        out = self.A * (out / self.Zs - log(self.Zs))
        return out if out > 0 else 0.0

    cdef void weights(self, double[::1] w) noexcept nogil:
        cdef Py_ssize_t k
        for k in range(self.d):
            w[k] = self.A * (self.E[2 * k] - self.E[2 * k + 1]) / self.Zs


REGULARIZERS = (
    "square",
    "entropy",
    "normalized_entropy",
    "balanced_entropy",
    "balanced_normalized_entropy",
)


def make_regularizer(name, Py_ssize_t d, mu, double mass):
    """The regularizer called ``name`` (one of ``REGULARIZERS``) over ``d``
    features; ``mu`` (the entropies' prior, checked by the caller) and
    ``mass`` (the normalized rows' A) where it takes them."""
    if name == "square":
        return Square(d)
    return {
        "entropy": lambda: Entropy(d, mu),
        "normalized_entropy": lambda: NormalizedEntropy(d, mu, mass),
        "balanced_entropy": lambda: BalancedEntropy(d, mu),
        "balanced_normalized_entropy": lambda: BalancedNormalizedEntropy(d, mu, mass),
    }[name]()


# ---------------------------------------------------------------------------
# The SIMD path, and shims for tests
# ---------------------------------------------------------------------------

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


def select_simd(name):
    """Use ``name`` ("baseline", "avx2+fma" or "best") for later solves; returns the
    path in use (the best one the CPU has when it lacks ``name``).  Tests and
    benchmarks only: not for a solve running in another thread."""
    global _simd_level
    if name not in _SIMD_PATHS + ("best",):
        raise ValueError(f"unknown SIMD path {name!r}; one of {', '.join(_SIMD_PATHS)}, best")
    _simd_level = tw_simd_select(-1 if name == "best" else _SIMD_PATHS.index(name))
    return simd_path()


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

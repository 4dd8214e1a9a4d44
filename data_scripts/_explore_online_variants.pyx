# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Variants of the online baselines for data_scripts/explore_pipeline_variants.py only.

Not part of textwin: readings of the paper's Perceptron and Winnow that the
package does not offer (which norm the Perceptron is rescaled to, when the
Winnow is renormalized, its prediction rule), compiled on the fly by pyximport.
"""
from libc.math cimport exp, sqrt, fabs


cdef double _dot(const double[::1] data, const int[::1] ind, int a, int b,
                 double* w) noexcept nogil:
    cdef double s = 0.0
    cdef int p
    for p in range(a, b):
        s += data[p] * w[ind[p]]
    return s


cdef void _rescale_l1(double* w, int d, double mass) noexcept nogil:
    """Rescale the positive weights to sum(w) = mass."""
    cdef double total = 0.0, f
    cdef int j
    for j in range(d):
        total += w[j]
    f = mass / total
    for j in range(d):
        w[j] *= f


def perceptron(const double[::1] X_data, const int[::1] X_indices,
               const int[::1] X_indptr, const double[::1] y, double[::1] w,
               double eta, int n_epochs, int norm, double radius, bint strict):
    """Perceptron; after each epoch rescale w to norm ``radius``.

    norm: 0 none, 1 L1, 2 L2, 3 Linf. strict: in class iff w.x > 0 (else >= 0).
    """
    cdef int n = y.shape[0], d = w.shape[0], epoch, i, j, p
    cdef double s, nrm, step
    cdef bint pred
    cdef double* wp = &w[0]
    with nogil:
        for epoch in range(n_epochs):
            for i in range(n):
                s = _dot(X_data, X_indices, X_indptr[i], X_indptr[i + 1], wp)
                pred = (s > 0.0) if strict else (s >= 0.0)
                if pred != (y[i] > 0.0):
                    step = eta * y[i]
                    for p in range(X_indptr[i], X_indptr[i + 1]):
                        wp[X_indices[p]] += step * X_data[p]
            if norm == 0:
                continue
            nrm = 0.0
            for j in range(d):
                if norm == 1:
                    nrm += fabs(wp[j])
                elif norm == 2:
                    nrm += wp[j] * wp[j]
                elif fabs(wp[j]) > nrm:
                    nrm = fabs(wp[j])
            if norm == 2:
                nrm = sqrt(nrm)
            if nrm > 0.0:
                nrm = radius / nrm
                for j in range(d):
                    wp[j] *= nrm


def winnow(const double[::1] X_data, const int[::1] X_indices,
           const int[::1] X_indptr, const double[::1] y, double[::1] w,
           double eta, double theta, int n_epochs, double mass, int renorm, bint strict):
    """Positive Winnow; w updated in place.

    renorm: 0 never, 1 after each mistake (as textwin), 2 at the end of each epoch.
    strict: in class iff w.x > theta (else >= theta).
    """
    cdef int n = y.shape[0], d = w.shape[0], epoch, i, p
    cdef double s, f
    cdef bint pred
    cdef double* wp = &w[0]
    with nogil:
        for epoch in range(n_epochs):
            for i in range(n):
                s = _dot(X_data, X_indices, X_indptr[i], X_indptr[i + 1], wp)
                pred = (s > theta) if strict else (s >= theta)
                if pred == (y[i] > 0.0):
                    continue
                for p in range(X_indptr[i], X_indptr[i + 1]):
                    f = exp(eta * y[i] * X_data[p])
                    wp[X_indices[p]] *= f
                if renorm == 1:
                    _rescale_l1(wp, d, mass)
            if renorm == 2:
                _rescale_l1(wp, d, mass)

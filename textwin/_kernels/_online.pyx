# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Mistake-driven online learners over a shared CSR matrix (docs/mathematics.md §9).

One call trains one binary problem, in data order, for ``n_epochs`` passes,
entirely without the GIL, so the estimators in :mod:`textwin.online` can run one
problem per thread over the same CSR arrays. Weights are updated in place
(warm start and ``partial_fit`` pass the current weights back in).

Labels ``y`` are +-1 floats. Row ``i`` is ``X_data[X_indptr[i]:X_indptr[i+1]]``
at columns ``X_indices[...]``.
"""
from libc.math cimport exp, sqrt, NAN


cdef inline double _sparse_dot(const double[::1] X_data, const int[::1] X_indices,
                               int start, int end, const double* w) noexcept nogil:
    """w @ x_i over the nonzeros of row i, summed in order: the Perceptron's
    prediction ``w @ x > 0`` can hinge on the rounding of an exact 0, so a
    different order of summation changes its mistakes (and the paper's table)."""
    cdef double s = 0.0
    cdef const double* x = &X_data[0]
    cdef const int* j = &X_indices[0]
    cdef int p
    for p in range(start, end):
        s += x[p] * w[j[p]]
    return s


def perceptron(const double[::1] X_data, const int[::1] X_indices,
               const int[::1] X_indptr, const double[::1] y, double[::1] w,
               double eta, int n_epochs, bint renormalize, int[::1] mistakes,
               const double[::1] weight=None):
    """Train the Perceptron (paper Table 2) in place.

    Predict "in class" iff ``w @ x > 0``; on a mistake ``w += eta * s_i * y_i * x_i``
    (``s_i`` the example's weight, 1 without ``weight``; a zero weight skips it).
    With ``renormalize`` the weight is rescaled to ``||w||_2 = 1`` after every
    epoch (docs/mathematics.md §9; the paper's constant was lost, so this is a
    switch).

    Parameters
    ----------
    X_data, X_indices, X_indptr : CSR arrays of the (n, d) matrix.
    y : (n,) labels in {-1, +1}.
    w : (d,) weight, updated in place.
    eta : learning rate.
    n_epochs : number of passes in data order.
    renormalize : rescale ``w`` to unit Euclidean norm after each epoch.
    mistakes : (n_epochs,) int32 output, the number of mistakes of each epoch.
    weight : (n,) example weights >= 0, optional.
    """
    cdef int n = y.shape[0]
    cdef int d = w.shape[0]
    cdef int epoch, i, j, p
    cdef double score, norm, step, si
    cdef const double* s = _weights(weight, n)
    cdef bint predicted_in
    cdef double* wp = &w[0] if d > 0 else NULL
    if mistakes.shape[0] < n_epochs:
        raise ValueError("mistakes must have room for n_epochs entries")
    with nogil:
        for epoch in range(n_epochs):
            mistakes[epoch] = 0
            for i in range(n):
                si = 1.0 if s == NULL else s[i]  # eta * 1.0 is eta exactly
                if si == 0.0:
                    continue
                score = _sparse_dot(X_data, X_indices, X_indptr[i], X_indptr[i + 1], wp)
                predicted_in = score > 0.0
                if predicted_in != (y[i] > 0.0):
                    mistakes[epoch] += 1
                    step = eta * si * y[i]
                    # w += eta * y_i * x_i
                    for p in range(X_indptr[i], X_indptr[i + 1]):
                        wp[X_indices[p]] += step * X_data[p]
            if renormalize:
                norm = 0.0
                for j in range(d):
                    norm += wp[j] * wp[j]
                if norm > 0.0:
                    norm = 1.0 / sqrt(norm)
                    for j in range(d):
                        wp[j] *= norm


def winnow(const double[::1] X_data, const int[::1] X_indices,
           const int[::1] X_indptr, const double[::1] y,
           double[::1] w_pos, double[::1] w_neg, bint balanced, bint normalized,
           double mass, double eta, double theta, int n_epochs, int[::1] mistakes,
           const double[::1] weight=None):
    """Train a Winnow (docs/mathematics.md §9) in place.

    The score is ``s = (w_pos - w_neg) @ x`` (``w_pos @ x`` when not
    ``balanced``); predict "in class" iff ``s >= theta``. On a mistake, for
    every nonzero ``x_ij`` of the row: ``w_pos_j *= exp(eta s_i y_i x_ij)`` and,
    when ``balanced``, ``w_neg_j *= exp(-eta s_i y_i x_ij)``. When ``normalized``,
    the weights are then rescaled so that ``sum(w_pos) + sum(w_neg) = mass``.

    The rescaling is kept as one scalar ``scale`` (true weight = ``scale`` times
    the stored array) so that a mistake costs O(nnz(x_i)), not O(d): the stored
    sum ``S`` is updated by the change on the row's nonzeros, recomputed from
    scratch after every epoch against drift, and ``scale`` is folded into the
    arrays whenever it leaves [1e-100, 1e100] and at the end.

    Parameters
    ----------
    X_data, X_indices, X_indptr : CSR arrays of the (n, d) matrix.
    y : (n,) labels in {-1, +1}.
    w_pos : (d,) positive weights, updated in place (must be > 0).
    w_neg : (d,) negative weights, updated in place (ignored unless balanced).
    balanced : use ``w = w_pos - w_neg``.
    normalized : keep ``sum(w_pos) (+ sum(w_neg)) = mass``.
    mass : the total weight kept by a normalized Winnow.
    eta : learning rate.
    theta : prediction threshold.
    n_epochs : number of passes in data order.
    mistakes : (n_epochs,) int32 output, the number of mistakes of each epoch.
    weight : (n,) example weights ``s_i >= 0``, optional (1 without; 0 skips the
        example).
    """
    cdef int n = y.shape[0]
    cdef int d = w_pos.shape[0]
    cdef const double* s = _weights(weight, n)
    cdef double rate, si
    cdef int epoch, i, j, p
    cdef double score, total, scale, f = 1.0, g = 1.0, xp
    cdef bint predicted_in
    cdef double* up = &w_pos[0] if d > 0 else NULL
    cdef double* um = NULL
    if balanced:
        if w_neg.shape[0] != d:
            raise ValueError("w_neg must have the shape of w_pos")
        um = &w_neg[0] if d > 0 else NULL
    if mistakes.shape[0] < n_epochs:
        raise ValueError("mistakes must have room for n_epochs entries")
    with nogil:
        total = _total(up, um, d)
        scale = 1.0
        if normalized and total > 0.0:
            scale = mass / total
        for epoch in range(n_epochs):
            mistakes[epoch] = 0
            for i in range(n):
                si = 1.0 if s == NULL else s[i]
                if si == 0.0:
                    continue
                score = _sparse_dot(X_data, X_indices, X_indptr[i], X_indptr[i + 1], up)
                if balanced:
                    score -= _sparse_dot(X_data, X_indices, X_indptr[i], X_indptr[i + 1], um)
                score *= scale
                predicted_in = score >= theta
                if predicted_in == (y[i] > 0.0):
                    continue
                mistakes[epoch] += 1
                rate = eta * si * y[i]
                xp = NAN
                for p in range(X_indptr[i], X_indptr[i + 1]):
                    j = X_indices[p]
                    if X_data[p] != xp:          # one exp per run of equal values
                        xp = X_data[p]
                        f = exp(rate * xp)
                        g = 1.0 / f
                    total += up[j] * (f - 1.0)
                    up[j] *= f
                    if balanced:
                        total += um[j] * (g - 1.0)
                        um[j] *= g
                if normalized:
                    scale = mass / total
                    if scale > 1e100 or scale < 1e-100:
                        _fold(up, um, d, scale)
                        total = mass
                        scale = 1.0
            # Recompute the sum against floating-point drift.
            total = _total(up, um, d)
            if normalized and total > 0.0:
                scale = mass / total
        if scale != 1.0:
            _fold(up, um, d, scale)


cdef const double* _weights(const double[::1] weight, int n) except? NULL:
    """The weights' data, or NULL for none (every weight 1)."""
    if weight is None:
        return NULL
    if weight.shape[0] != n:
        raise ValueError("weight must have one entry per example")
    return &weight[0] if n > 0 else NULL


cdef inline double _total(const double* up, const double* um, int d) noexcept nogil:
    """sum(w_pos) + sum(w_neg)."""
    cdef double s = 0.0
    cdef int j
    for j in range(d):
        s += up[j]
    if um != NULL:
        for j in range(d):
            s += um[j]
    return s


cdef inline void _fold(double* up, double* um, int d, double scale) noexcept nogil:
    """w_pos *= scale; w_neg *= scale."""
    cdef int j
    for j in range(d):
        up[j] *= scale
    if um != NULL:
        for j in range(d):
            um[j] *= scale

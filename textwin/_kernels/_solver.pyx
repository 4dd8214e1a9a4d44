# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The dual Gauss-Seidel solver: Algorithm 1 of Zhang's dual formulation
(docs/mathematics.md §3), without the GIL.

We minimize the dual

    D(alpha) = (1/n) sum_i K_i(alpha_i) + lam h(v),   v = (1/(lam n)) sum_i alpha_i z_i,

with ``z_i = y_i x_i`` (labels folded on the fly, the CSR matrix never copied),
``K_i`` the weighted conjugate loss (``_losses.pyx``, docs/mathematics.md §4) and
``h`` the conjugate regularizer (``_regularizers.pyx``, docs/mathematics.md §5).
One epoch visits the active examples in a fresh random order and takes, for
each, the step of docs/mathematics.md §6 on the one-dimensional problem in
``alpha_i``, with liblinear's shrinking as a switch; the stopping rule
(``_stop.pyx``) decides after each epoch whether to compute the exact duality
gap ``P + D`` (docs/mathematics.md §2).  ``solve`` runs the whole loop; the
Python boundary (``_dual_gs.pyx``) checks the input, fills the records and
reads the result.
"""
from libc.math cimport fabs, INFINITY
from libc.stdint cimport uint64_t

from ._losses cimport Loss, clip
from ._regularizers cimport Regularizer
from ._rowops cimport TW_PREFETCH, TW_FTZ_ON, TW_CSR_GET, TW_CSR_SET
from ._stop cimport StopRule, StopAction, CHECK_EXACT, STOP, UNSHRINK

cdef double TINY = 1e-300          # floor of P in the relative gap
cdef double SKIP_PG = 1e-12        # liblinear: skip a step when |projected gradient| <= this


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
            # loading the next row now, while this one is processed
            TW_PREFETCH(P.data + P.ex[order[k + 1]].start)
            TW_PREFETCH(P.indices + P.ex[order[k + 1]].start)
        if k + 2 < P.active:
            # and the record of the example two ahead, whose row start the
            # line above reads next time (docs/performance.md, "The per-example record")
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

        cap = reg.cap(e.row_stat)          # the exponent cap (entropy rows), else inf

        if P.step == STEP_GRADIENT:
            delta = loss.project(a_i, clip(-P.eta_g * g, -cap, cap), s_i)
        elif P.step == STEP_AUTO and loss.smooth_solve:
            # exact on the quadratic model of h (a majorizer within the cap)
            delta = loss.solve(a_i, b, (P.growth * c + cq) / P.S, t_i, s_i, cap)
        else:
            # Newton (exact for the quadratic losses with the square regularizer)
            H = loss.d2conj(a_i, t_i, s_i) + (c + cq) / P.S
            if H < P.floor:
                H = P.floor
            delta = loss.project(a_i, clip(-g / H, -cap, cap), s_i)
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
        if reg.need_sync:                    # the caches over- or underflowed
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

    A warm start whose v the regularizer cannot hold (alpha from a much
    larger lam, say) is scaled towards 0 first: ``c alpha`` with ``0 < c < 1``
    stays in the domain of every loss, and the solve goes on from there.
    """
    cdef Py_ssize_t i
    cdef double r
    _accumulate_v(P, reg)
    r = reg.warm_scale()
    if r != 1.0:
        for i in range(P.n):
            P.ex[i].alpha *= r
        _accumulate_v(P, reg)
    reg.refresh()


cdef void _sync(Problem* P, Regularizer reg) noexcept nogil:
    """Bring v up to date (a lazy_v regularizer's is rebuilt from alpha) and the
    caches from v: an exact gap pass starts here, and it removes the rounding
    drift of the multiplicative updates."""
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
    reg.accumulated()


cdef void _reorder(Problem* P, Order* o) noexcept nogil:
    """The order of the next epoch's visits (the active examples only)."""
    if o.shuffle and o.block > 1:
        _block_shuffle(o.order, P.active, P.n, o.block, o.blocks, o.mark, &o.state)
    elif o.shuffle:
        _shuffle(o.order, P.active, &o.state)


cdef double _estimate(Problem* P, Regularizer reg) noexcept nogil:
    """The cheap relative gap: the terms seen at each example's last visit,
    over P estimated as gap - D with the exact D of now (see StopRule)."""
    cdef double est_gap = P.gap_sum / P.n
    cdef double est_p = est_gap - _dual_at(P, reg, P.ksum)
    return est_gap / (est_p if est_p > TINY else TINY)


cdef double _record_exact(Problem* P, Loss loss, Regularizer reg, Record* rec,
                          int epoch) noexcept nogil:
    """The exact gap after ``epoch``, appended to the record; returns it, relative."""
    _exact_gap(P, loss, reg, NULL, &rec.gap_abs, &rec.primal)
    rec.gaps[rec.n_gaps] = rec.gap_abs / (rec.primal if rec.primal > TINY else TINY)
    rec.at[rec.n_gaps] = epoch
    rec.n_gaps += 1
    return rec.gaps[rec.n_gaps - 1]


cdef void solve(Problem* P, Loss loss, Regularizer reg, StopRule stop, Order* order,
                Record* rec, bint warm) noexcept nogil:
    """Minimize D(alpha) from the examples' alpha (docs/mathematics.md §3), in place.

    Rebuilds v from alpha, then runs epochs until the stopping rule's exact
    check finds the relative gap within tol or stop.max_epochs have run; the
    gap at exit is exact.  ``warm``: alpha is a warm start, which may already
    be converged (the outer loop of Algorithm 2, docs/mathematics.md §8).
    """
    cdef int ep, n_ep = stop.max_epochs
    cdef double est, gap
    cdef bint fresh = False             # an exact check was just made
    cdef StopAction action
    # The multiplicative updates of the entropy rows walk vanishing weights
    # (mu e^v with v -> -inf) down through the subnormal doubles, where each
    # multiply costs about a hundred cycles on x86 (docs/mathematics.md §5);
    # a weight under 2.2e-308 is 0 to every use, so this thread flushes
    # them to 0 while the solver runs (restored on exit).
    cdef unsigned int csr = TW_CSR_GET()
    if reg.flush_subnormals:
        TW_FTZ_ON()
    _rebuild(P, reg)
    P.ksum = _ksum(P, loss)
    P.gap_sum = 0.0
    if rec.trace != NULL:
        rec.trace[0] = _dual(P, loss, reg)
        rec.n_trace = 1
    if warm:
        fresh = True
        if stop.learn(0, INFINITY, _record_exact(P, loss, reg, rec, 0), False) == STOP:
            n_ep = 0
    for ep in range(n_ep):
        _reorder(P, order)
        _epoch(P, loss, reg, order.order, rec.trace, &rec.n_trace)
        reg.tidy()
        rec.n_epochs = ep + 1
        fresh = False
        est = INFINITY
        if stop.wants_estimate(ep + 1):
            est = _estimate(P, reg)
            rec.estimates[ep] = est
        if stop.after_epoch(ep + 1, est) == CHECK_EXACT:
            gap = _record_exact(P, loss, reg, rec, ep + 1)
            P.ksum = _ksum(P, loss)            # against the drift of the running sum
            fresh = True
            action = stop.learn(ep + 1, est, gap, P.active < P.n)
            if action == STOP:
                break
            if action == UNSHRINK:
                _unshrink(P)
    # the exit gap is exact (a last pass unless one was just made)
    if rec.terms != NULL or not fresh:
        _exact_gap(P, loss, reg, rec.terms, &rec.gap_abs, &rec.primal)
    rec.dual = _dual(P, loss, reg)
    TW_CSR_SET(csr)

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Losses of the dual Gauss-Seidel kernel (docs/mathematics.md §4).

A loss ``f(u)`` of the margin ``u = w.z_i`` with target ``t`` enters the dual
through its conjugate, weighted by the example weight ``s > 0``:
``K(alpha) = s k(-alpha/s)``, on the domain ``[lo_scale s, hi_scale s]``.  Each
class gives ``f``, ``K`` and its first two derivatives, the per-example duality
gap term ``s f(u) + K(alpha) + alpha u >= 0`` (Fenchel-Young, docs/mathematics.md
§2) and, where the coordinate problem has no closed form (logistic), its
solution.  The solver (``_solver.pyx``) calls them through the ``Loss`` base
declared in ``_losses.pxd``.
"""
from libc.math cimport exp, log, log1p, fabs, INFINITY


cdef inline double _softplus(double x) noexcept nogil:
    """np.logaddexp(0, x)"""
    if x > 0:
        return x + log1p(exp(-x))
    return log1p(exp(x))


cdef inline double _xlogx(double x) noexcept nogil:
    if x <= 0:
        return 0.0
    return x * log(x)


cdef class Loss:
    """Base class: a convex loss ``f`` of the margin and its weighted conjugate.

    All methods take the target margin ``t`` and the example weight ``s > 0``.
    ``conj(alpha)`` is ``K(alpha) = s k(-alpha/s)``, the term of the dual.
    """
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
        return clip(a + delta, self.lower(s), self.upper(s)) - a

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


cdef class SquaredHinge(LeastSquares):
    """Modified least squares: f(u) = (t-u)_+^2;  K = -t alpha + alpha^2/(4s), alpha >= 0.

    Least squares' conjugate on the half line: only f and the gap term differ.
    """

    def __cinit__(self):
        self.lo_scale = 0.0

    cdef double value(self, double u, double t) noexcept nogil:
        return (t - u) * (t - u) if u < t else 0.0

    cdef double gap_term(self, double u, double a, double t, double s) noexcept nogil:
        cdef double r
        if u <= t:
            r = (t - u) - a / (2.0 * s)
            return s * r * r
        return a * (u - t) + a * a / (4.0 * s)


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


LOSSES = {
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "least_squares": LeastSquares,
    "logistic": Logistic,
}


def make_loss(name):
    """The loss called ``name`` (a key of ``LOSSES``)."""
    try:
        return LOSSES[name]()
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown loss {name!r}; valid losses are {sorted(LOSSES)}"
        ) from None


# ---------------------------------------------------------------------------
# Shims for tests
# ---------------------------------------------------------------------------

def py_conj(loss, double alpha, double t=1.0, double s=1.0):
    """K(alpha) = s k(-alpha/s) of the named loss (for tests)."""
    cdef Loss L = make_loss(loss)
    return L.conj(alpha, t, s)


def py_dconj(loss, double alpha, double t=1.0, double s=1.0):
    cdef Loss L = make_loss(loss)
    return L.dconj(alpha, t, s)


def py_d2conj(loss, double alpha, double t=1.0, double s=1.0):
    cdef Loss L = make_loss(loss)
    return L.d2conj(alpha, t, s)


def py_loss(loss, double u, double t=1.0):
    """f(u) of the named loss (for tests)."""
    cdef Loss L = make_loss(loss)
    return L.value(u, t)


def py_gap_term(loss, double u, double alpha, double t=1.0, double s=1.0):
    """s f(u) + K(alpha) + alpha u (for tests)."""
    cdef Loss L = make_loss(loss)
    return L.gap_term(u, alpha, t, s)


def py_domain(loss, double s=1.0):
    """(lower, upper) bounds of alpha for the named loss."""
    cdef Loss L = make_loss(loss)
    return L.lower(s), L.upper(s)

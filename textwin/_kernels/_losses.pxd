# Losses (docs/mathematics.md §4): the interface the solver calls, for any kernel to cimport.


cdef inline double clip(double x, double lo, double hi) noexcept nogil:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


cdef class Loss:
    cdef bint smooth_solve     # solve the 1-D problem to accuracy (logistic)
    cdef double lo_scale       # the domain of alpha is [lo_scale s, hi_scale s]
    cdef double hi_scale

    cdef double value(self, double u, double t) noexcept nogil
    cdef double conj(self, double a, double t, double s) noexcept nogil
    cdef double dconj(self, double a, double t, double s) noexcept nogil
    cdef double d2conj(self, double a, double t, double s) noexcept nogil
    cdef double lower(self, double s) noexcept nogil
    cdef double upper(self, double s) noexcept nogil
    cdef double gap_term(self, double u, double a, double t, double s) noexcept nogil
    cdef double project(self, double a, double delta, double s) noexcept nogil
    cdef double solve(self, double a, double b, double q, double t, double s,
                      double cap) noexcept nogil


cdef class Hinge(Loss):
    pass


cdef class LeastSquares(Loss):
    pass


cdef class SquaredHinge(LeastSquares):
    pass


cdef class Logistic(Loss):
    pass

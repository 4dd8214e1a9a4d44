# Regularizers (docs/mathematics.md §5): the interface the solver calls, for any kernel
# to cimport.  A regularizer owns v and whatever cache gives w = grad h(v) cheaply.
# Rows arrive as raw pointers (values x, columns j, nnz) plus ``x0``, the value
# every entry of the row shares (binary features), or NaN when they differ, and
# ``row_stat``, the row's statistic from check_csr (||x_i||^2 for the square
# regularizer, max_k |x_ik| for the entropy ones).


cdef class Regularizer:
    cdef Py_ssize_t d
    cdef double[::1] v
    # v is not kept along the steps (one array less read and written per
    # nonzero): the solver rebuilds it from alpha before anything reads it
    cdef bint lazy_v
    # set by add(): the caches must be recomputed from v (over- or underflow)
    cdef bint need_sync
    # the updates multiply weights, walking vanishing ones down through the
    # subnormal doubles: the solver flushes those to 0 while it runs
    cdef bint flush_subnormals

    cdef double margin(self, const double* x, const int* j, int nnz,
                       double x0) noexcept nogil
    cdef double margin_curv(self, double row_stat, const double* x, const int* j, int nnz,
                            double x0, double* curv) noexcept nogil
    cdef double cap(self, double row_stat) noexcept nogil
    cdef void add(self, const double* x, const int* j, int nnz, double x0, double row_stat,
                  double dv) noexcept nogil
    cdef double warm_scale(self) noexcept nogil
    cdef void accumulated(self) noexcept nogil
    cdef void refresh(self) noexcept nogil
    cdef void tidy(self) noexcept nogil
    cdef double value(self) noexcept nogil
    cdef double conj_value(self) noexcept nogil
    cdef void weights(self, double[::1] w) noexcept nogil


cdef class Square(Regularizer):
    pass


cdef class DiagonalSquare(Square):
    # the square regularizer on the columns scaled by r: s_j = r_j^2 (docs/mathematics.md §5)
    cdef const double[::1] s


cdef class ExpRegularizer(Regularizer):
    # the entropy family: w_j moves by e^(dv x_j) along a step, capped at
    # |dv| row_stat <= kappa (docs/mathematics.md §6)
    cdef double growth2          # the curvature grows at most by growth2 ** kappa in a step
    cdef double cap_scale        # kappa lam n: |delta| <= cap_scale / max_k |x_ik|
    cdef double v_limit          # largest |v_j| a warm start may bring (see warm_scale)
    cdef bint v_limit_above_only
    # scratch for a row's factors e^(dv x_k), e^(-dv x_k), per entry
    cdef double[::1] scratch
    cdef double* fp
    cdef double* fm
    cdef bint poly               # the factors from polynomials (within EXP_POLY_T)


cdef class Entropy(ExpRegularizer):
    cdef const double[::1] mu
    cdef double[::1] w


cdef class BalancedEntropy(ExpRegularizer):
    cdef const double[::1] mu
    cdef double[::1] pm


cdef class NormalizedBase(ExpRegularizer):
    cdef double[::1] mu
    cdef double[::1] log_mu      # ln mu_j (-inf where mu_j = 0), computed once
    cdef double[::1] E           # the rescaled exponentials, `width` per feature
    cdef int width
    cdef double Zs, c, A
    cdef void rescale(self) noexcept nogil
    cdef void check_scale(self) noexcept nogil


cdef class NormalizedEntropy(NormalizedBase):
    pass


cdef class BalancedNormalizedEntropy(NormalizedBase):
    pass

# The row operations in C (rowops.h, rowops_*.c; docs/mathematics.md §5-§6), declared to
# the kernels that cimport them.  The dispatched loops are read from ``tw_ops``,
# which tw_simd_select fills once; the small pieces are inline in rowops_inline.h.

cdef extern from "rowops.h" nogil:
    ctypedef struct tw_rowops:
        double (*dot)(const double* a, const double* x, const int* col, int n) noexcept nogil
        double (*dot2)(const double* a, const double* x, const int* col, int n,
                       double* c) noexcept nogil
        double (*pair_dot)(const double* pm, const double* x, const int* col, int n,
                           double* c) noexcept nogil
        double (*scale_exp)(double* w, const int* col, const double* x, int n, double dv,
                            double T, int want_dz, double* f, double* fi) noexcept nogil
        double (*pair_scale_exp)(double* pm, const int* col, const double* x, int n,
                                 double dv, double T, int want_dz, double* f,
                                 double* fi) noexcept nogil
    tw_rowops tw_ops
    int tw_simd_select(int want) noexcept

    double tw_scale_f(double* w, const int* col, int n, const double* f,
                      int want_dz) noexcept
    double tw_pair_scale(double* pm, const int* col, int nnz, const double* f,
                         const double* fi, int want_dz) noexcept
    double tw_pair_sum(const double* pm, const int* col, int nnz, double* s) noexcept
    void tw_pair_scale1(double* pm, const int* col, int nnz, double f0, double fi0,
                        double* olds) noexcept
    void tw_expm1_pm(double t, double* ep, double* em) noexcept

    # the CPU: prefetch, and flush-to-zero of subnormals (MXCSR) for this thread
    void TW_PREFETCH(const void* p) noexcept
    void TW_FTZ_ON() noexcept
    unsigned int TW_CSR_GET() noexcept
    void TW_CSR_SET(unsigned int c) noexcept

/* Row operations of the dual Gauss-Seidel kernel (docs/mathematics.md §5-§6).

   The regularizers' per-row work on a CSR row (values x, columns col, n
   entries): the margin b = w.x and curvature c = w.x^2 (dot, dot2; the
   balanced rows' pairs: pair_dot, pair_sum) and the entropy rows'
   multiplicative update w_j *= e^(dv x_k) (scale_exp, pair_scale_exp), with
   e^t from Taylor polynomials exact to rounding within the exponent cap.
   The hot loops come in two builds, the baseline ISA (rowops_base.c) and
   AVX2/FMA (rowops_avx2.c); tw_simd_select() (rowops_dispatch.c) fills the
   one table tw_ops with the best the CPU has, once at import.  The small
   pieces a regularizer calls directly are inline (rowops_inline.h). */
#ifndef TEXTWIN_ROWOPS_H
#define TEXTWIN_ROWOPS_H

#if defined(__GNUC__) || defined(__clang__)
#define TW_PREFETCH(p) __builtin_prefetch(p)
#else
#define TW_PREFETCH(p) ((void)0)
#endif
/* flush-to-zero and denormals-are-zero (MXCSR bits 15 and 6), this thread only */
#if defined(__SSE2__) || defined(_M_X64)
#include <xmmintrin.h>
#define TW_FTZ_ON() _mm_setcsr(_mm_getcsr() | 0x8040)
#define TW_CSR_GET() _mm_getcsr()
#define TW_CSR_SET(c) _mm_setcsr(c)
#else
#define TW_FTZ_ON() ((void)0)
#define TW_CSR_GET() 0u
#define TW_CSR_SET(c) ((void)(c))
#endif

/* x86-64 with GCC or Clang: the AVX2/FMA build exists (rowops_avx2.c), chosen at
   run time (rowops_dispatch.c); x86-64 always has SSE2, which the baseline uses */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define TW_X86_AVX2 1
#include <immintrin.h>
#define TW_AVX2 __attribute__((target("avx2,fma")))
#endif
#if defined(__GNUC__) || defined(__clang__)
#define TW_BODY static inline __attribute__((always_inline))
#else
#define TW_BODY static inline
#endif

/* The balanced rows store a feature's pair (p_j, m_j) side by side,
   pm[2j], pm[2j + 1], so one SSE2 load, multiply or add handles both (x86-64 always has SSE2; other
   targets get the same sums in scalar code). */
#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#define TW_PAIR_SSE2 1
#endif

/* The dispatched loops (docs/performance.md measures each variant):
   dot      returns sum_k a[col[k]] x[k] (the square rows' margin)
   dot2     returns the same sum, and sum_k a[col[k]] x[k]^2 in *c
   pair_dot returns sum_k (p_j - m_j) x_k, and sum_k (p_j + m_j) x_k^2 in *c,
            over pm = [p_0, m_0, p_1, m_1, ...]
   scale_exp      the entropy rows' update along a row: w_j *= e^(dv x_k) at
                  j = col[k]; returns the sum of the changes if want_dz (the
                  normalized rows' Z moves by it)
   pair_scale_exp the same on pairs: (p_j, m_j) *= (e^(dv x_k), e^(-dv x_k))
   T >= max_k |dv x_k| picks the polynomials' tier.  Baseline: the factors
   into the scratch f, fi, then the scatter; AVX2/FMA: 4 entries' factors in
   registers, applied as they are computed (f, fi unused).  Entries are
   updated one after the other, so a column repeated in a row gets every
   factor. */
typedef struct {
    double (*dot)(const double* a, const double* x, const int* col, int n);
    double (*dot2)(const double* a, const double* x, const int* col, int n, double* c);
    double (*pair_dot)(const double* pm, const double* x, const int* col, int n, double* c);
    double (*scale_exp)(double* w, const int* col, const double* x, int n, double dv,
                        double T, int want_dz, double* f, double* fi);
    double (*pair_scale_exp)(double* pm, const int* col, const double* x, int n, double dv,
                             double T, int want_dz, double* f, double* fi);
} tw_rowops;

/* the loops in use; filled by tw_simd_select (the baseline until then) */
extern tw_rowops tw_ops;
/* want: -1 the best the CPU has, 0 baseline, 1 AVX2/FMA; returns the path now in use */
int tw_simd_select(int want);

/* each build of the dispatched loops (rowops_base.c, rowops_avx2.c) */
double tw_dot_base(const double* a, const double* x, const int* col, int n);
double tw_dot2_base(const double* a, const double* x, const int* col, int n, double* c);
double tw_pair_dot_base(const double* pm, const double* x, const int* col, int n, double* c);
double tw_scale_exp_base(double* w, const int* col, const double* x, int n, double dv,
                         double T, int want_dz, double* f, double* fi);
double tw_pair_scale_exp_base(double* pm, const int* col, const double* x, int n, double dv,
                              double T, int want_dz, double* f, double* fi);
#ifdef TW_X86_AVX2
double tw_dot_avx2(const double* a, const double* x, const int* col, int n);
double tw_dot2_avx2(const double* a, const double* x, const int* col, int n, double* c);
double tw_pair_dot_avx2(const double* pm, const double* x, const int* col, int n, double* c);
double tw_scale_exp_avx2(double* w, const int* col, const double* x, int n, double dv,
                         double T, int want_dz, double* f, double* fi);
double tw_pair_scale_exp_avx2(double* pm, const int* col, const double* x, int n, double dv,
                              double T, int want_dz, double* f, double* fi);
#endif

/* the updates from factors already computed (libm, beyond the polynomials):
   w[col[k]] *= f[k], and (p_j, m_j) *= (f[k], fi[k]); the sum of the changes
   (of p_j + m_j) if want_dz, two partial sums */
double tw_scale_f(double* w, const int* col, int n, const double* f, int want_dz);
double tw_pair_scale(double* pm, const int* col, int nnz, const double* f, const double* fi,
                     int want_dz);

#include "rowops_inline.h"

#endif

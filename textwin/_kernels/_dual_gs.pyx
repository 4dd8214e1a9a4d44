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

cdef extern from *:
    # GCC/Clang builtin; other compilers get a no-op through the macro below
    """
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

    /* SIMD paths, chosen at run time: on x86 with GCC or Clang the hot
       per-entry loops are built twice, for the baseline ISA and with
       AVX2/FMA (4 lanes, fused multiply-adds), and tw_simd_select() points
       them at the best the CPU has (__builtin_cpu_supports asks for the
       features; target_clones("arch=haswell") would ask for an Intel model
       and leave AMD Zen on the baseline).  Elsewhere: the baseline only.
       x86-64 always has SSE2, which the baseline uses as it is. */
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

    /* e^t = E + O and e^-t = E - O with E, O the Taylor polynomials of the even
       and odd parts of e^t, to degree 13 for |t| <= 0.35 (the exponent cap,
       see _exp_pm_row_libm) and lower where |t| is known to be smaller: a degree N
       is exact to rounding while |t|^(N+1)/(N+1)! < 2^-55, which the tiers'
       bounds keep (a solve near its optimum takes tiny steps: most rows then
       need degree 3).  Coefficients of E(t^2) and O(t^2)/t, highest first
       (Horner's scheme on the baseline path, Estrin's on the AVX2 one);
       tw_exp_first(T), for |t| <= T, is the first one used: degree 13
       from 0, 7 from 3, 5 from 4, 3 from 5.  TW_BY_TIER(T, CALL) expands
       CALL(first) once per tier, so that each tier's loop is compiled with
       its polynomial unrolled. */
    static const double TW_EVEN_C[7] = {1.0 / 479001600.0, 1.0 / 3628800.0, 1.0 / 40320.0,
                                        1.0 / 720.0, 1.0 / 24.0, 1.0 / 2.0, 1.0};
    static const double TW_ODD_C[7] = {1.0 / 6227020800.0, 1.0 / 39916800.0, 1.0 / 362880.0,
                                       1.0 / 5040.0, 1.0 / 120.0, 1.0 / 6.0, 1.0};
    #define TW_T3 1.8e-4
    #define TW_T5 5.5e-3
    #define TW_T7 0.034
    static inline int tw_exp_first(double T) {
        return T <= TW_T3 ? 5 : T <= TW_T5 ? 4 : T <= TW_T7 ? 3 : 0;
    }
    #define TW_BY_TIER(T, CALL) switch (tw_exp_first(T)) { \
        case 5: CALL(5); case 4: CALL(4); case 3: CALL(3); default: CALL(0); }
    TW_BODY void tw_exp_pm1(double t, int first, double* f, double* fi) {
        double t2 = t * t, e = TW_EVEN_C[first], o = TW_ODD_C[first];
        int c;
        for (c = first + 1; c < 7; c++) {
            e = e * t2 + TW_EVEN_C[c];
            o = o * t2 + TW_ODD_C[c];
        }
        o *= t;
        *f = e + o;
        *fi = e - o;
    }
    /* e^t - 1 in *ep and e^-t - 1 in *em, for |t| <= 0.35 (the one-value rows'
       single factor per step): the polynomials above without their constant
       term, E - 1 = u P(u) and O = t (1 + u Q(u)) with u = t^2, so that a
       small step loses nothing to cancellation (as expm1), without libm.
       Exact to rounding relative to e^t - 1 ~ t, not to 1: degree N while
       |t|^N/(N+1)! < 2^-54, bounds below the rows' TW_T3, TW_T5, TW_T7 */
    static inline int tw_expm1_first(double T) {
        return T <= 1.1e-5 ? 5 : T <= 2.0e-3 ? 4 : T <= 0.021 ? 3 : 0;
    }
    static inline void tw_expm1_pm(double t, double* ep, double* em) {
        double u = t * t, p, q, r;
        int c = tw_expm1_first(t < 0 ? -t : t);
        p = TW_EVEN_C[c];
        q = TW_ODD_C[c];
        for (c = c + 1; c < 6; c++) {
            p = p * u + TW_EVEN_C[c];
            q = q * u + TW_ODD_C[c];
        }
        r = t * q;
        *ep = t + u * (p + r);
        *em = u * (p - r) - t;
    }
    /* one branch-free loop per tier, which the compiler vectorizes */
    TW_BODY void tw_exp_pm_loop(const double* x, int n, double dv, int first,
                                double* f, double* fi) {
        int k;
        for (k = 0; k < n; k++)
            tw_exp_pm1(dv * x[k], first, f + k, fi + k);
    }
    #define TW_EXP_LOOP(first) do { tw_exp_pm_loop(x, n, dv, first, f, fi); return; } while (0)
    /* the baseline path's factors (the AVX2 path computes them in registers, tw_exp_pm4) */
    static void tw_exp_pm_poly(const double* x, int n, double dv, double T, double* f,
                               double* fi) {
        TW_BY_TIER(T, TW_EXP_LOOP)
    }

    /* returns sum_k a[col[k]] x[k], and sum_k a[col[k]] x[k]^2 in c (two partial sums each) */
    static double tw_dot2_base(const double* a, const double* x, const int* col, int n,
                               double* c) {
        double b0 = 0.0, b1 = 0.0, q0 = 0.0, q1 = 0.0, ax;
        int k = 0;
        for (; k + 2 <= n; k += 2) {
            ax = a[col[k]] * x[k];
            b0 += ax;
            q0 += ax * x[k];
            ax = a[col[k + 1]] * x[k + 1];
            b1 += ax;
            q1 += ax * x[k + 1];
        }
        if (k < n) {
            ax = a[col[k]] * x[k];
            b0 += ax;
            q0 += ax * x[k];
        }
        *c = q0 + q1;
        return b0 + b1;
    }
    #ifdef TW_X86_AVX2
    TW_AVX2 static inline double tw_hsum4(__m256d v) {
        __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
        return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
    }
    /* b += a x and q += a x^2, lane by lane (the margin and the curvature) */
    TW_AVX2 static inline void tw_acc2(__m256d a, __m256d x, __m256d* b, __m256d* q) {
        a = _mm256_mul_pd(a, x);
        *b = _mm256_add_pd(*b, a);
        *q = _mm256_fmadd_pd(a, x, *q);
    }
    /* the same sums, 4 entries per gather, two vector partial sums each */
    TW_AVX2 static double tw_dot2_avx2(const double* a, const double* x, const int* col, int n,
                                       double* c) {
        __m256d b0 = _mm256_setzero_pd(), b1 = _mm256_setzero_pd();
        __m256d q0 = _mm256_setzero_pd(), q1 = _mm256_setzero_pd(), a0, a1;
        double b, q, ax;
        int k = 0;
        for (; k + 8 <= n; k += 8) {
            a0 = _mm256_i32gather_pd(a, _mm_loadu_si128((const __m128i*)(col + k)), 8);
            a1 = _mm256_i32gather_pd(a, _mm_loadu_si128((const __m128i*)(col + k + 4)), 8);
            tw_acc2(a0, _mm256_loadu_pd(x + k), &b0, &q0);
            tw_acc2(a1, _mm256_loadu_pd(x + k + 4), &b1, &q1);
        }
        if (k + 4 <= n) {
            a0 = _mm256_i32gather_pd(a, _mm_loadu_si128((const __m128i*)(col + k)), 8);
            tw_acc2(a0, _mm256_loadu_pd(x + k), &b0, &q0);
            k += 4;
        }
        b = tw_hsum4(_mm256_add_pd(b0, b1));
        q = tw_hsum4(_mm256_add_pd(q0, q1));
        for (; k < n; k++) {
            ax = a[col[k]] * x[k];
            b += ax;
            q += ax * x[k];
        }
        *c = q;
        return b;
    }
    #endif
    static double (*tw_dot2)(const double*, const double*, const int*, int, double*) =
        tw_dot2_base;

    /* sum_k a[col[k]] x[k] (the square rows' margin), four partial sums */
    static double tw_dot_base(const double* a, const double* x, const int* col, int n) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        int k = 0;
        for (; k + 4 <= n; k += 4) {
            s0 += a[col[k]] * x[k];
            s1 += a[col[k + 1]] * x[k + 1];
            s2 += a[col[k + 2]] * x[k + 2];
            s3 += a[col[k + 3]] * x[k + 3];
        }
        for (; k < n; k++)
            s0 += a[col[k]] * x[k];
        return (s0 + s1) + (s2 + s3);
    }
    #ifdef TW_X86_AVX2
    TW_AVX2 static double tw_dot_avx2(const double* a, const double* x, const int* col, int n) {
        __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
        double s;
        int k = 0;
        for (; k + 8 <= n; k += 8) {
            s0 = _mm256_fmadd_pd(_mm256_i32gather_pd(a, _mm_loadu_si128((const __m128i*)(col + k)), 8),
                                 _mm256_loadu_pd(x + k), s0);
            s1 = _mm256_fmadd_pd(_mm256_i32gather_pd(a, _mm_loadu_si128((const __m128i*)(col + k + 4)), 8),
                                 _mm256_loadu_pd(x + k + 4), s1);
        }
        if (k + 4 <= n) {
            s0 = _mm256_fmadd_pd(_mm256_i32gather_pd(a, _mm_loadu_si128((const __m128i*)(col + k)), 8),
                                 _mm256_loadu_pd(x + k), s0);
            k += 4;
        }
        s = tw_hsum4(_mm256_add_pd(s0, s1));
        for (; k < n; k++)
            s += a[col[k]] * x[k];
        return s;
    }
    #endif
    static double (*tw_dot)(const double*, const double*, const int*, int) = tw_dot_base;


    /* The balanced rows store a feature's pair (p_j, m_j) side by side,
       pm[2j], pm[2j + 1], so one
       SSE2 load, multiply or add handles both (x86-64 always has SSE2; other
       targets get the same sums in scalar code). */
    #include <stddef.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #define TW_PAIR_SSE2 1
    #endif

    #ifdef TW_PAIR_SSE2
    /* a + b and a - b of the two lanes (a, b) of v, in registers */
    static inline double tw_lane_sum(__m128d v) {
        return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v)));
    }
    static inline double tw_lane_diff(__m128d v) {
        return _mm_cvtsd_f64(_mm_sub_sd(v, _mm_unpackhi_pd(v, v)));
    }
    #endif

    /* returns sum_k (p_j - m_j) over the row's columns j = col[k], and the sum
       of p_j + m_j in *s (the sums are returned in registers: a store of
       both lanes read back as two scalars stalls on store forwarding) */
    static double tw_pair_sum(const double* pm, const int* col, int nnz, double* s) {
        int k = 0;
    #ifdef TW_PAIR_SSE2
        __m128d a0 = _mm_setzero_pd(), a1 = _mm_setzero_pd();
        for (; k + 2 <= nnz; k += 2) {
            a0 = _mm_add_pd(a0, _mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k]));
            a1 = _mm_add_pd(a1, _mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k + 1]));
        }
        if (k < nnz)
            a0 = _mm_add_pd(a0, _mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k]));
        a0 = _mm_add_pd(a0, a1);
        *s = tw_lane_sum(a0);
        return tw_lane_diff(a0);
    #else
        double sp = 0.0, sm = 0.0;
        for (; k < nnz; k++) {
            sp += pm[2 * (ptrdiff_t)col[k]];
            sm += pm[2 * (ptrdiff_t)col[k] + 1];
        }
        *s = sp + sm;
        return sp - sm;
    #endif
    }

    /* returns sum_k (p_j - m_j) x_k, and sum_k (p_j + m_j) x_k^2 in *c */
    static double tw_pair_dot_base(const double* pm, const double* x, const int* col, int nnz,
                                   double* c) {
        int k = 0;
    #ifdef TW_PAIR_SSE2
        __m128d b = _mm_setzero_pd(), q = _mm_setzero_pd(), xk, px;
        for (; k < nnz; k++) {
            xk = _mm_set1_pd(x[k]);
            px = _mm_mul_pd(_mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k]), xk);
            b = _mm_add_pd(b, px);
            q = _mm_add_pd(q, _mm_mul_pd(px, xk));
        }
        *c = tw_lane_sum(q);
        return tw_lane_diff(b);
    #else
        double bp = 0.0, bm = 0.0, qp = 0.0, qm = 0.0, xk;
        for (; k < nnz; k++) {
            xk = x[k];
            bp += pm[2 * (ptrdiff_t)col[k]] * xk;
            bm += pm[2 * (ptrdiff_t)col[k] + 1] * xk;
            qp += pm[2 * (ptrdiff_t)col[k]] * xk * xk;
            qm += pm[2 * (ptrdiff_t)col[k] + 1] * xk * xk;
        }
        *c = qp + qm;
        return bp - bm;
    #endif
    }
    #ifdef TW_X86_AVX2
    /* the same sums, two entries' pairs per 4-lane vector, two such vectors per step */
    TW_AVX2 static double tw_pair_dot_avx2(const double* pm, const double* x, const int* col,
                                           int nnz, double* c) {
        __m256d b0 = _mm256_setzero_pd(), b1 = _mm256_setzero_pd();
        __m256d q0 = _mm256_setzero_pd(), q1 = _mm256_setzero_pd(), p0, p1, x0, x1;
        __m128d b, q, xk, px;
        int k = 0;
        for (; k + 4 <= nnz; k += 4) {
            /* (p, m) of entries k, k+2 and of k+1, k+3, and x as (x_k, x_k,
               x_k+2, x_k+2), (x_k+1, x_k+1, x_k+3, x_k+3): in-lane unpacks */
            p0 = _mm256_insertf128_pd(_mm256_castpd128_pd256(
                     _mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k])),
                     _mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k + 2]), 1);
            p1 = _mm256_insertf128_pd(_mm256_castpd128_pd256(
                     _mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k + 1])),
                     _mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k + 3]), 1);
            x1 = _mm256_loadu_pd(x + k);
            x0 = _mm256_unpacklo_pd(x1, x1);
            x1 = _mm256_unpackhi_pd(x1, x1);
            tw_acc2(p0, x0, &b0, &q0);
            tw_acc2(p1, x1, &b1, &q1);
        }
        b0 = _mm256_add_pd(b0, b1);
        q0 = _mm256_add_pd(q0, q1);
        b = _mm_add_pd(_mm256_castpd256_pd128(b0), _mm256_extractf128_pd(b0, 1));
        q = _mm_add_pd(_mm256_castpd256_pd128(q0), _mm256_extractf128_pd(q0, 1));
        for (; k < nnz; k++) {
            xk = _mm_set1_pd(x[k]);
            px = _mm_mul_pd(_mm_loadu_pd(pm + 2 * (ptrdiff_t)col[k]), xk);
            b = _mm_add_pd(b, px);
            q = _mm_fmadd_pd(px, xk, q);
        }
        *c = tw_lane_sum(q);
        return tw_lane_diff(b);
    }
    #endif
    static double (*tw_pair_dot)(const double*, const double*, const int*, int, double*) =
        tw_pair_dot_base;

    #ifdef TW_PAIR_SSE2
    /* q[0..1] *= g; returns the change (new - old) */
    static inline __m128d tw_pair_mul(double* q, __m128d g) {
        __m128d old = _mm_loadu_pd(q), upd = _mm_mul_pd(old, g);
        _mm_storeu_pd(q, upd);
        return _mm_sub_pd(upd, old);
    }
    #endif

    /* (p_j, m_j) *= (f[k], fi[k]) along the row; returns the sum of the changes
       of p_j + m_j if want_dz (two partial sums) */
    static double tw_pair_scale(double* pm, const int* col, int nnz, const double* f,
                                const double* fi, int want_dz) {
        int k = 0;
    #ifdef TW_PAIR_SSE2
        __m128d dz0 = _mm_setzero_pd(), dz1 = _mm_setzero_pd(), d0, d1;
        for (; k + 2 <= nnz; k += 2) {
            d0 = tw_pair_mul(pm + 2 * (ptrdiff_t)col[k], _mm_set_pd(fi[k], f[k]));
            d1 = tw_pair_mul(pm + 2 * (ptrdiff_t)col[k + 1], _mm_set_pd(fi[k + 1], f[k + 1]));
            if (want_dz) {
                dz0 = _mm_add_pd(dz0, d0);
                dz1 = _mm_add_pd(dz1, d1);
            }
        }
        if (k < nnz) {
            d0 = tw_pair_mul(pm + 2 * (ptrdiff_t)col[k], _mm_set_pd(fi[k], f[k]));
            if (want_dz)
                dz0 = _mm_add_pd(dz0, d0);
        }
        return tw_lane_sum(_mm_add_pd(dz0, dz1));
    #else
        double dz = 0.0, op, om;
        for (; k < nnz; k++) {
            double* q = pm + 2 * (ptrdiff_t)col[k];
            op = q[0];
            om = q[1];
            q[0] = op * f[k];
            q[1] = om * fi[k];
            if (want_dz)
                dz += (q[0] - op) + (q[1] - om);
        }
        return dz;
    #endif
    }

    /* (p_j, m_j) *= (f0, fi0) along a one-value row; with olds != NULL, olds[0],
       olds[1] = the sums of p_j and of m_j before the update (the caller
       forms the change of Z from them: one addition per entry, not two) */
    static void tw_pair_scale1(double* pm, const int* col, int nnz, double f0, double fi0,
                               double* olds) {
        int k = 0;
    #ifdef TW_PAIR_SSE2
        __m128d g = _mm_set_pd(fi0, f0), a0 = _mm_setzero_pd(), a1 = _mm_setzero_pd(), o;
        double* q;
        for (; k + 2 <= nnz; k += 2) {
            q = pm + 2 * (ptrdiff_t)col[k];
            o = _mm_loadu_pd(q);
            _mm_storeu_pd(q, _mm_mul_pd(o, g));
            a0 = _mm_add_pd(a0, o);
            q = pm + 2 * (ptrdiff_t)col[k + 1];
            o = _mm_loadu_pd(q);
            _mm_storeu_pd(q, _mm_mul_pd(o, g));
            a1 = _mm_add_pd(a1, o);
        }
        if (k < nnz) {
            q = pm + 2 * (ptrdiff_t)col[k];
            o = _mm_loadu_pd(q);
            _mm_storeu_pd(q, _mm_mul_pd(o, g));
            a0 = _mm_add_pd(a0, o);
        }
        if (olds != NULL)
            _mm_storeu_pd(olds, _mm_add_pd(a0, a1));
    #else
        double sp = 0.0, sm = 0.0;
        for (; k < nnz; k++) {
            double* q = pm + 2 * (ptrdiff_t)col[k];
            sp += q[0];
            sm += q[1];
            q[0] *= f0;
            q[1] *= fi0;
        }
        if (olds != NULL) {
            olds[0] = sp;
            olds[1] = sm;
        }
    #endif
    }

    /* The entropy rows' update along a row: w_j *= e^(dv x_k) at j = col[k]
       (the pairs: (p_j, m_j) *= (e^(dv x_k), e^(-dv x_k))), returning the sum
       of the changes (the normalized rows' Z moves by it).  T >= max_k |dv x_k|
       picks the polynomials' tier.  Baseline: the factors into the scratch
       f, fi, then the scatter; AVX2/FMA: 4 entries' factors in registers,
       applied as they are computed (f, fi unused).  Entries are updated one
       after the other, so a column repeated in a row gets every factor. */
    /* *q *= f; returns the change (new - old) */
    static inline double tw_mul1(double* q, double f) {
        double old = *q, upd = old * f;
        *q = upd;
        return upd - old;
    }
    static double tw_scale_f(double* w, const int* col, int n, const double* f, int want_dz) {
        double s0 = 0.0, s1 = 0.0, d0, d1;
        int k = 0;
        for (; k + 2 <= n; k += 2) {              /* two partial sums (see _gather_sum) */
            d0 = tw_mul1(w + col[k], f[k]);
            d1 = tw_mul1(w + col[k + 1], f[k + 1]);
            if (want_dz) {
                s0 += d0;
                s1 += d1;
            }
        }
        if (k < n) {
            d0 = tw_mul1(w + col[k], f[k]);
            if (want_dz)
                s0 += d0;
        }
        return s0 + s1;
    }
    static double tw_scale_exp_base(double* w, const int* col, const double* x, int n,
                                    double dv, double T, int want_dz, double* f, double* fi) {
        tw_exp_pm_poly(x, n, dv, T, f, fi);
        return tw_scale_f(w, col, n, f, want_dz);
    }
    static double tw_pair_scale_exp_base(double* pm, const int* col, const double* x, int n,
                                         double dv, double T, int want_dz, double* f,
                                         double* fi) {
        tw_exp_pm_poly(x, n, dv, T, f, fi);
        return tw_pair_scale(pm, col, n, f, fi, want_dz);
    }
    #ifdef TW_X86_AVX2
    #define TW_V(c) _mm256_set1_pd(c)
    #define TW_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
    /* Estrin's scheme in u = t^2 for P(u) = sum_c C[c] u^(5-c), c = first..5 (the
       polynomial less its constant 1): as many fused multiply-adds as Horner's
       scheme, half its chain of dependent ones (the capped steps' degree 13).
       The constant comes last, E = 1 + u P and O = t + (t u) Q, so that the
       rounding of P (scaled by u <= 0.123) moves E and O by a tenth of an ulp */
    TW_AVX2 static inline __m256d tw_estrin4(const double* C, int first, __m256d u,
                                             __m256d u2, __m256d u4) {
        __m256d a, b;
        if (first == 5)
            return TW_V(C[5]);
        a = TW_FMA(TW_V(C[4]), u, TW_V(C[5]));
        if (first == 4)
            return a;
        if (first == 3)
            return TW_FMA(TW_V(C[3]), u2, a);
        b = TW_FMA(TW_V(C[2]), u, TW_V(C[3]));
        a = TW_FMA(b, u2, a);
        b = TW_FMA(TW_V(C[0]), u, TW_V(C[1]));
        return TW_FMA(b, u4, a);
    }
    /* e^t in *f and e^-t in *fi on 4 lanes: tw_exp_pm1's polynomials */
    TW_AVX2 static inline void tw_exp_pm4(__m256d t, int first, __m256d* f, __m256d* fi) {
        __m256d u = _mm256_mul_pd(t, t), u2 = _mm256_mul_pd(u, u), u4 = _mm256_mul_pd(u2, u2);
        __m256d e = TW_FMA(u, tw_estrin4(TW_EVEN_C, first, u, u2, u4), TW_V(1.0));
        __m256d o = TW_FMA(_mm256_mul_pd(t, u), tw_estrin4(TW_ODD_C, first, u, u2, u4), t);
        *f = _mm256_add_pd(e, o);
        *fi = _mm256_sub_pd(e, o);
    }
    /* x[0 .. r-1] (1 <= r <= 3) and zeros: the masked lanes are not read */
    TW_AVX2 static inline __m256d tw_load_tail(const double* x, int r) {
        __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(r), _mm256_set_epi64x(3, 2, 1, 0));
        return _mm256_maskload_pd(x, mask);
    }
    TW_AVX2 TW_BODY double tw_scale_exp_row(double* w, const int* col, const double* x, int n,
                                            double dv, int want_dz, int first) {
        __m256d dvv = _mm256_set1_pd(dv), fv, fiv;
        double fa[4], s = 0.0, d0, d1, d2, d3;
        int k = 0;
        /* each block's changes summed as a tree, then one running sum: one
           accumulator (the polynomial holds most registers) and one
           dependent addition per 4 entries */
        for (; k + 4 <= n; k += 4) {
            tw_exp_pm4(_mm256_mul_pd(dvv, _mm256_loadu_pd(x + k)), first, &fv, &fiv);
            _mm256_storeu_pd(fa, fv);
            d0 = tw_mul1(w + col[k], fa[0]);
            d1 = tw_mul1(w + col[k + 1], fa[1]);
            d2 = tw_mul1(w + col[k + 2], fa[2]);
            d3 = tw_mul1(w + col[k + 3], fa[3]);
            if (want_dz)
                s += (d0 + d1) + (d2 + d3);
        }
        if (k < n) {                              /* the last 1 to 3 entries */
            tw_exp_pm4(_mm256_mul_pd(dvv, tw_load_tail(x + k, n - k)), first, &fv, &fiv);
            _mm256_storeu_pd(fa, fv);
            d1 = d2 = 0.0;
            d0 = tw_mul1(w + col[k], fa[0]);
            if (k + 1 < n)
                d1 = tw_mul1(w + col[k + 1], fa[1]);
            if (k + 2 < n)
                d2 = tw_mul1(w + col[k + 2], fa[2]);
            if (want_dz)
                s += (d0 + d1) + d2;
        }
        return s;
    }
    /* each tier's loop compiled twice, with and without the change of Z */
    #define TW_SCALE_ROW(first) return want_dz ? tw_scale_exp_row(w, col, x, n, dv, 1, first) \
                                               : tw_scale_exp_row(w, col, x, n, dv, 0, first)
    TW_AVX2 static double tw_scale_exp_avx2(double* w, const int* col, const double* x, int n,
                                            double dv, double T, int want_dz, double* f,
                                            double* fi) {
        (void)f;
        (void)fi;
        TW_BY_TIER(T, TW_SCALE_ROW)
    }
    /* one block of 4 entries (m of them real, 1 <= m <= 4): the pairs times
       their factors; the block's change of Z (as in tw_scale_exp_row: a tree
       per block, one running sum) */
    TW_AVX2 TW_BODY __m128d tw_pair_block(double* pm, const int* col, __m256d fv,
                                          __m256d fiv, int m, int want_dz) {
        __m256d lo = _mm256_unpacklo_pd(fv, fiv);      /* (f_k, fi_k, f_k+2, fi_k+2) */
        __m256d hi = _mm256_unpackhi_pd(fv, fiv);      /* (f_k+1, fi_k+1, f_k+3, fi_k+3) */
        __m128d d0, d1 = _mm_setzero_pd(), d2 = _mm_setzero_pd(), d3 = _mm_setzero_pd();
        d0 = tw_pair_mul(pm + 2 * (ptrdiff_t)col[0], _mm256_castpd256_pd128(lo));
        if (m > 1)
            d1 = tw_pair_mul(pm + 2 * (ptrdiff_t)col[1], _mm256_castpd256_pd128(hi));
        if (m > 2)
            d2 = tw_pair_mul(pm + 2 * (ptrdiff_t)col[2], _mm256_extractf128_pd(lo, 1));
        if (m > 3)
            d3 = tw_pair_mul(pm + 2 * (ptrdiff_t)col[3], _mm256_extractf128_pd(hi, 1));
        if (!want_dz)
            return _mm_setzero_pd();
        return _mm_add_pd(_mm_add_pd(d0, d1), _mm_add_pd(d2, d3));
    }
    TW_AVX2 TW_BODY double tw_pair_scale_exp_row(double* pm, const int* col, const double* x,
                                                 int n, double dv, int want_dz, int first) {
        __m256d dvv = _mm256_set1_pd(dv), fv, fiv;
        __m128d dz = _mm_setzero_pd();
        int k = 0;
        for (; k + 4 <= n; k += 4) {               /* full blocks: no tests inside */
            tw_exp_pm4(_mm256_mul_pd(dvv, _mm256_loadu_pd(x + k)), first, &fv, &fiv);
            dz = _mm_add_pd(dz, tw_pair_block(pm, col + k, fv, fiv, 4, want_dz));
        }
        if (k < n) {                               /* the last 1 to 3 entries */
            tw_exp_pm4(_mm256_mul_pd(dvv, tw_load_tail(x + k, n - k)), first, &fv, &fiv);
            dz = _mm_add_pd(dz, tw_pair_block(pm, col + k, fv, fiv, n - k, want_dz));
        }
        return tw_lane_sum(dz);
    }
    /* each tier's loop compiled twice, with and without the change of Z */
    #define TW_PAIR_ROW(first) return want_dz ? tw_pair_scale_exp_row(pm, col, x, n, dv, 1, first) \
                                              : tw_pair_scale_exp_row(pm, col, x, n, dv, 0, first)
    TW_AVX2 static double tw_pair_scale_exp_avx2(double* pm, const int* col, const double* x,
                                                 int n, double dv, double T, int want_dz,
                                                 double* f, double* fi) {
        (void)f;
        (void)fi;
        TW_BY_TIER(T, TW_PAIR_ROW)
    }
    #endif
    static double (*tw_scale_exp)(double*, const int*, const double*, int, double, double,
                                  int, double*, double*) = tw_scale_exp_base;
    static double (*tw_pair_scale_exp)(double*, const int*, const double*, int, double,
                                       double, int, double*, double*) = tw_pair_scale_exp_base;

    /* point every dispatched loop at one path's build (base or avx2) */
    #define TW_USE(path) do { \
        tw_dot = tw_dot_##path; \
        tw_dot2 = tw_dot2_##path; tw_pair_dot = tw_pair_dot_##path; \
        tw_scale_exp = tw_scale_exp_##path; tw_pair_scale_exp = tw_pair_scale_exp_##path; \
    } while (0)
    /* want: -1 the best the CPU has, 0 baseline, 1 AVX2/FMA; returns the path now in use */
    static int tw_simd_select(int want) {
    #ifdef TW_X86_AVX2
        __builtin_cpu_init();
        if (want != 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
            TW_USE(avx2);
            return 1;
        }
    #endif
        TW_USE(base);
        return 0;
    }
    """
    void TW_PREFETCH(const void* p) noexcept nogil
    void TW_FTZ_ON() noexcept nogil
    unsigned int TW_CSR_GET() noexcept nogil
    void TW_CSR_SET(unsigned int c) noexcept nogil
    int tw_simd_select(int want) noexcept nogil
    double tw_scale_f(double* w, const int* col, int n, const double* f,
                      int want_dz) noexcept nogil
    double tw_scale_exp(double* w, const int* col, const double* x, int n, double dv, double T,
                        int want_dz, double* f, double* fi) noexcept nogil
    double tw_pair_scale_exp(double* pm, const int* col, const double* x, int n, double dv,
                             double T, int want_dz, double* f, double* fi) noexcept nogil
    double tw_dot2(const double* a, const double* x, const int* col, int n, double* c) noexcept nogil
    double tw_dot(const double* a, const double* x, const int* col, int n) noexcept nogil
    double tw_pair_sum(const double* pm, const int* col, int nnz, double* s) noexcept nogil
    double tw_pair_dot(const double* pm, const double* x, const int* col, int nnz,
                       double* c) noexcept nogil
    double tw_pair_scale(double* pm, const int* col, int nnz, const double* f,
                         const double* fi, int want_dz) noexcept nogil
    void tw_pair_scale1(double* pm, const int* col, int nnz, double f0, double fi0,
                        double* olds) noexcept nogil
    void tw_expm1_pm(double t, double* ep, double* em) noexcept nogil

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
    instead (tw_exp_pm_poly, tw_exp_pm4 in C above): e^t = E + O,
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
        return tw_scale_exp(w, j, x, nnz, dv, fabs(dv) * xmax, want_dz, reg.fp, reg.fm)
    _exp_pm_row_libm(x, nnz, dv, reg.fp, reg.fm)        # beyond the polynomials
    return tw_scale_f(w, j, nnz, reg.fp, want_dz)


cdef inline double _pair_scale_exp(Regularizer reg, double* pm, const double* x, const int* j,
                                   int nnz, double xmax, double dv, bint want_dz) noexcept nogil:
    """(p_j, m_j) *= (e^(dv x_k), e^(-dv x_k)) along a row; returns the sum of the
    changes (if want_dz)."""
    if reg.poly:
        return tw_pair_scale_exp(pm, j, x, nnz, dv, fabs(dv) * xmax, want_dz, reg.fp, reg.fm)
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
    return tw_dot(a, x, j, nnz)              # C above: baseline or AVX2/FMA


cdef inline double _dot2(const double* a, const double* x, const int* j, int nnz,
                         double x0, double* c) noexcept nogil:
    """a @ x_i, and a @ x_i**2 in c."""
    cdef double b
    if _one_value(x0):
        b = _gather_sum(a, j, nnz)
        c[0] = x0 * x0 * b
        return x0 * b
    return tw_dot2(a, x, j, nnz, c)          # C above: baseline or AVX2/FMA


cdef inline double _pair_sums(const double* pm, const double* x, const int* j, int nnz,
                              double x0, double* c) noexcept nogil:
    """With pm = [p_0, m_0, p_1, m_1, ...]: (p - m) @ x_i, and (p + m) @ x_i**2 in c."""
    cdef double b, s
    if _one_value(x0):
        b = tw_pair_sum(pm, j, nnz, &s)
        c[0] = x0 * x0 * s
        return x0 * b
    return tw_pair_dot(pm, x, j, nnz, c)


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
        return tw_pair_scale_exp(&wv[0], &cv[0], &xv[0], n, dv, T, True, &sv[0], &sv[n])
    return tw_scale_exp(&wv[0], &cv[0], &xv[0], n, dv, T, True, &sv[0], &sv[n])


# The names the estimators offer and validate against (public: the kernel owns them).
LOSSES = tuple(_LOSSES)
REGULARIZERS = tuple(_REGULARIZERS)

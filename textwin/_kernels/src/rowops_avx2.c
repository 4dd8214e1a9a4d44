/* The row operations with AVX2/FMA (rowops.h; docs/mathematics.md §5-§6): 4 lanes
   per gather, fused multiply-adds, the entropy factors by Estrin's scheme in
   registers.  Each function carries target("avx2,fma"), so the file compiles
   with the package's flags and runs only where tw_simd_select found the
   features. */
#include "rowops.h"

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
TW_AVX2 double tw_dot2_avx2(const double* a, const double* x, const int* col, int n,
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

TW_AVX2 double tw_dot_avx2(const double* a, const double* x, const int* col, int n) {
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

/* the same sums, two entries' pairs per 4-lane vector, two such vectors per step */
TW_AVX2 double tw_pair_dot_avx2(const double* pm, const double* x, const int* col,
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
TW_AVX2 double tw_scale_exp_avx2(double* w, const int* col, const double* x, int n,
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
TW_AVX2 double tw_pair_scale_exp_avx2(double* pm, const int* col, const double* x,
                                      int n, double dv, double T, int want_dz,
                                      double* f, double* fi) {
    (void)f;
    (void)fi;
    TW_BY_TIER(T, TW_PAIR_ROW)
}
#else
typedef int tw_no_avx2;        /* not x86-64 with GCC or Clang: the baseline only */
#endif

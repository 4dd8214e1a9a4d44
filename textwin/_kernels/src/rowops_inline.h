/* The small row pieces the regularizers call directly, inline (included by
   rowops.h): the exponential polynomials of the entropy steps (docs/mathematics.md
   §6), the lanes of an SSE2 pair, and the one-value (binary) rows' pair sums
   and update. */
#ifndef TEXTWIN_ROWOPS_INLINE_H
#define TEXTWIN_ROWOPS_INLINE_H

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

#ifdef TW_PAIR_SSE2
/* a + b and a - b of the two lanes (a, b) of v, in registers */
static inline double tw_lane_sum(__m128d v) {
    return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v)));
}
static inline double tw_lane_diff(__m128d v) {
    return _mm_cvtsd_f64(_mm_sub_sd(v, _mm_unpackhi_pd(v, v)));
}
#endif

#ifdef TW_PAIR_SSE2
/* q[0..1] *= g; returns the change (new - old) */
static inline __m128d tw_pair_mul(double* q, __m128d g) {
    __m128d old = _mm_loadu_pd(q), upd = _mm_mul_pd(old, g);
    _mm_storeu_pd(q, upd);
    return _mm_sub_pd(upd, old);
}
#endif

/* *q *= f; returns the change (new - old) */
static inline double tw_mul1(double* q, double f) {
    double old = *q, upd = old * f;
    *q = upd;
    return upd - old;
}

/* returns sum_k (p_j - m_j) over the row's columns j = col[k], and the sum
   of p_j + m_j in *s (the sums are returned in registers: a store of
   both lanes read back as two scalars stalls on store forwarding) */
static inline double tw_pair_sum(const double* pm, const int* col, int nnz, double* s) {
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

/* (p_j, m_j) *= (f0, fi0) along a one-value row; with olds != NULL, olds[0],
   olds[1] = the sums of p_j and of m_j before the update (the caller
   forms the change of Z from them: one addition per entry, not two) */
static inline void tw_pair_scale1(double* pm, const int* col, int nnz, double f0,
                                  double fi0, double* olds) {
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

#endif

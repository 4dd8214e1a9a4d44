/* The row operations for the baseline ISA (rowops.h): scalar loops with
   partial sums, SSE2 on the balanced rows' pairs (x86-64 always has it), and
   the entropy factors from Horner's scheme, one loop per polynomial tier
   (docs/mathematics.md §6: the exponent cap bounds |dv x_k|). */
#include "rowops.h"

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
double tw_dot2_base(const double* a, const double* x, const int* col, int n,
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

/* sum_k a[col[k]] x[k] (the square rows' margin), four partial sums */
double tw_dot_base(const double* a, const double* x, const int* col, int n) {
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

/* returns sum_k (p_j - m_j) x_k, and sum_k (p_j + m_j) x_k^2 in *c */
double tw_pair_dot_base(const double* pm, const double* x, const int* col, int nnz,
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

/* (p_j, m_j) *= (f[k], fi[k]) along the row; returns the sum of the changes
   of p_j + m_j if want_dz (two partial sums) */
double tw_pair_scale(double* pm, const int* col, int nnz, const double* f,
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

double tw_scale_f(double* w, const int* col, int n, const double* f, int want_dz) {
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
double tw_scale_exp_base(double* w, const int* col, const double* x, int n,
                         double dv, double T, int want_dz, double* f, double* fi) {
    tw_exp_pm_poly(x, n, dv, T, f, fi);
    return tw_scale_f(w, col, n, f, want_dz);
}
double tw_pair_scale_exp_base(double* pm, const int* col, const double* x, int n,
                              double dv, double T, int want_dz, double* f,
                              double* fi) {
    tw_exp_pm_poly(x, n, dv, T, f, fi);
    return tw_pair_scale(pm, col, n, f, fi, want_dz);
}

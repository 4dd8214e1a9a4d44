"""The regularizers (textwin/_kernels/_regularizers.pyx) against docs/mathematics.md §5:
the entropies' optima against scipy, the balanced rows as a positive Winnow on duplicated
data, the entropy rows' caches (v from alpha, w from v), the one-value rows' shortcut,
rescaling against overflow, the flush-to-zero they switch on, and the square regularizer
with a per-feature scale as the same problem as a scaled copy of the matrix."""
import numpy as np
import pytest
import scipy.sparse as sp

import _reference as R
from _kernel_common import ENTROPIES, make_csr, reuters_like, solve
from textwin._losses_and_regularizers import LOSSES, REGULARIZERS


@pytest.mark.parametrize("regularizer", ENTROPIES)
@pytest.mark.parametrize("loss", LOSSES)
def test_entropy_matches_scipy(loss, regularizer):
    X, y = make_csr(n=60, d=15, seed=7)
    n, d = X.shape
    rng = np.random.default_rng(0)
    t = np.where(rng.random(n) < 0.5, 0.5, 1.0) if loss != "logistic" else rng.normal(size=n) * 0.3
    s = rng.uniform(0.5, 2.0, size=n)
    mu = rng.uniform(0.5, 1.5, size=d) / d
    lam, A = 0.05, 2.0
    res = solve(X, y, loss, regularizer, t=t, s=s, lam=lam, mu=mu, mass=A, tol=1e-10,
                max_epochs=100000)
    assert res["gap"] <= 1e-10
    if loss == "hinge":     # not smooth: compare with scipy's minimum of the dual
        ref = -R.scipy_dual_min(X.toarray(), y, t, s, loss, regularizer, lam, mu, A)
    else:
        ref = R.scipy_primal_min(X.toarray(), y, t, s, loss, regularizer, lam, mu, A)
    assert abs(res["primal"] - ref) <= 1e-6 * ref
    # the primal at the returned w, recomputed independently (rows with a closed-form g)
    if regularizer in ("entropy", "balanced_entropy"):
        p = R.primal(X.toarray(), y, t, s, res["w"], loss, regularizer, lam, mu)
        assert abs(p - res["primal"]) <= 1e-10 * p


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("balanced,positive", [("balanced_entropy", "entropy"),
                                               ("balanced_normalized_entropy", "normalized_entropy")])
def test_balanced_equals_positive_on_duplicated_data(loss, balanced, positive):
    X, y = make_csr(n=70, d=12, seed=9)
    d = X.shape[1]
    mu = np.random.default_rng(0).uniform(0.5, 1.5, d) / d
    X2 = sp.hstack([X, -X], format="csr")
    X2.indices = X2.indices.astype(np.int32)
    X2.indptr = X2.indptr.astype(np.int32)
    kw = dict(lam=0.02, mass=1.5, tol=1e-11, max_epochs=100000)
    rb = solve(X, y, loss, balanced, mu=mu, **kw)
    rp = solve(X2, y, loss, positive, mu=np.concatenate([mu, mu]), **kw)
    assert rb["primal"] == pytest.approx(rp["primal"], rel=1e-8)
    np.testing.assert_allclose(rb["w"], rp["w"][:d] - rp["w"][d:], atol=1e-6 * np.abs(rb["w"]).max())


@pytest.mark.parametrize("lam", [1e-8, 1e-3, 1.0, 1e2])
@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_no_overflow_or_nan(loss, regularizer, lam):
    X, y = make_csr(n=40, d=10, density=0.4, seed=17, empty_rows=(0, 5))
    X.data = X.data * 1e3                     # feature values up to a few 1e3
    res = solve(X, y, loss, regularizer, lam=lam, tol=1e-8, max_epochs=30,
                bias_rho=0.0 if REGULARIZERS[regularizer].entropy else 1.0)
    for key in ("w", "v", "alpha"):
        assert np.all(np.isfinite(res[key])), key
    for key in ("gap", "primal", "dual", "bias"):
        assert np.isfinite(res[key]), key
    assert res["abs_gap"] >= 0 and res["primal"] >= 0


def test_huge_exponents_are_rescaled_not_overflowed():
    """|v| in the thousands (e^v overflows): the normalized rows rescale E by a common factor."""
    X, y = reuters_like()
    d = X.shape[1]
    X2 = sp.hstack([X, -X], format="csr")
    X2.indices = X2.indices.astype(np.int32)
    X2.indptr = X2.indptr.astype(np.int32)
    kw = dict(lam=1e-4, tol=1e-8, max_epochs=20000)
    rb = solve(X, y, "squared_hinge", "balanced_normalized_entropy", **kw)
    rp = solve(X2, y, "squared_hinge", "normalized_entropy", mu=np.full(2 * d, 1.0 / d), **kw)
    assert np.abs(rb["v"]).max() > 1000 and np.abs(rp["v"]).max() > 1000
    assert rb["gap"] <= 1e-8 and rp["gap"] <= 1e-8
    assert np.all(np.isfinite(rb["w"])) and np.abs(rb["w"]).sum() <= 1.0 + 1e-9   # |w+|1 + |w-|1 = A
    assert rb["primal"] == pytest.approx(rp["primal"], rel=1e-6)


def _with_stored_zeros(X):
    """The same matrix with an explicit 0.0 stored in every nonempty row.

    A stored zero changes no product, but a row with it no longer has one
    common value, so the kernel takes its general per-entry path instead of
    the one-value path of binary rows.
    """
    rows, data, cols = [], [], []
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        if a == b:
            continue
        free = np.setdiff1d(np.arange(X.shape[1]), X.indices[a:b])[:1]
        rows += [i] * (b - a + len(free))
        cols += list(X.indices[a:b]) + list(free)
        data += list(X.data[a:b]) + [0.0] * len(free)
    Z = sp.csr_matrix((data, (rows, cols)), shape=X.shape)   # keeps the explicit zeros
    Z.sort_indices()
    Z.indices = Z.indices.astype(np.int32)
    Z.indptr = Z.indptr.astype(np.int32)
    return Z


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "least_squares"])
def test_one_value_rows_match_the_general_path(loss, regularizer):
    # rows whose entries share one value (1.0 or 2.5, binary-like) take a
    # shortcut: x0 times a plain sum, one exp per step, the normalizer updated
    # from that sum; it must reproduce the per-entry path step for step
    X, y = make_csr(n=80, d=20, density=0.3, seed=3, binary=True)
    X.data[X.indptr[40]:] = 2.5                    # a second common value
    Z = _with_stored_zeros(X)
    assert Z.nnz > X.nnz and np.all(Z.data[Z.data != 0] == X.data[X.data != 0])
    kw = dict(loss=loss, regularizer=regularizer, lam=1e-2, tol=0.0, max_epochs=15,
              shrinking=False)
    a = solve(X, y, **kw)
    b = solve(Z, y, **kw)
    assert a["work"]["steps"] == b["work"]["steps"] > 0
    np.testing.assert_allclose(a["alpha"], b["alpha"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a["w"], b["w"], rtol=1e-9, atol=1e-12)
    assert a["gap"] == pytest.approx(b["gap"], rel=1e-6, abs=1e-12)


def test_warm_start_keeps_a_converged_positive_entropy_solution():
    # a converged positive-entropy solution at small lam has weights that
    # underflow to 0 (v_j far below -300); only a large *positive* v_j can
    # overflow mu e^v, so the warm start must not scale alpha for them
    X = sp.random(300, 60, density=0.1, random_state=0, format="csr")
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    y = np.where(np.random.default_rng(0).random(300) < 0.5, 1.0, -1.0)
    kw = dict(loss="squared_hinge", regularizer="entropy", lam=1e-4, tol=1e-8,
              max_epochs=100000)
    first = solve(X, y, **kw)
    assert first["converged"] and first["v"].min() < -300
    again = solve(X, y, alpha=first["alpha"].copy(), **kw)
    assert again["n_epochs"] == 0
    assert again["gaps"][0] <= 1e-8
    np.testing.assert_allclose(again["w"], first["w"], rtol=1e-9, atol=1e-15)


def _grad_h(regularizer, v, mu, mass):
    """w = grad h(v), docs/mathematics.md §5, from v alone."""
    if regularizer == "entropy":
        return mu * np.exp(v)
    if regularizer == "balanced_entropy":
        return mu * (np.exp(v) - np.exp(-v))
    if regularizer == "normalized_entropy":
        e = mu * np.exp(v - v.max())
        return mass * e / e.sum()
    m = np.abs(v).max()
    ep, em = mu * np.exp(v - m), mu * np.exp(-v - m)
    return mass * (ep - em) / (ep + em).sum()


@pytest.mark.parametrize("regularizer", ENTROPIES)
@pytest.mark.parametrize("tfidf", [False, True])
def test_entropy_rows_return_v_from_alpha_and_w_from_v(regularizer, tfidf):
    # the entropy rows update only their cache along a row; v is rebuilt from
    # alpha before the exact gap: the v returned must be (1/(lam n)) X'(alpha y)
    # and w must be grad h of that v, whatever drift the cache had
    X, y = reuters_like(n=200, d=300, seed=5)
    if tfidf:
        X = X.multiply(np.random.default_rng(0).uniform(0.2, 2.0, X.shape[1])).tocsr()
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    n, d = X.shape
    mu = np.random.default_rng(1).uniform(0.5, 1.5, d)
    lam, mass = 1e-3, 2.0
    res = solve(X, y, loss="squared_hinge", regularizer=regularizer, lam=lam, mu=mu, mass=mass,
                tol=0.0, max_epochs=7, seed=2)
    v = X.T @ (res["alpha"] * y) / (lam * n)
    np.testing.assert_allclose(res["v"], v, rtol=1e-12, atol=1e-12 * np.abs(v).max())
    mu_n = mu / mu.sum() / (2.0 if regularizer == "balanced_normalized_entropy" else 1.0)
    ref = _grad_h(regularizer, v, mu_n if "normalized" in regularizer else mu, mass)
    np.testing.assert_allclose(res["w"], ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())
    assert res["work"]["syncs"] >= 1


@pytest.mark.parametrize("regularizer", ENTROPIES)
def test_uncapped_entropy_steps_stay_finite(regularizer):
    # without the cap one step can overflow the stored exponentials; the
    # kernel then rebuilds them from v instead of carrying inf or NaN
    X, y = reuters_like(n=150, d=200, seed=6)
    res = solve(X, y, loss="squared_hinge", regularizer=regularizer, lam=1e-4, tol=0.0,
                max_epochs=3, exp_cap=np.inf)
    assert np.all(np.isfinite(res["w"])) and np.isfinite(res["dual"])


def test_flush_to_zero_is_restored_after_an_entropy_solve():
    # the kernel flushes subnormals to 0 in its own thread while it runs (the
    # multiplicative updates are slow through them); numpy in the same thread
    # must get gradual underflow back afterwards
    tiny = np.float64(2.5e-308)
    assert tiny / 4 > 0
    X, y = reuters_like(n=100, d=100, seed=7)
    solve(X, y, loss="least_squares", regularizer="entropy", lam=1e-6, tol=0.0, max_epochs=3)
    assert tiny / 4 > 0 and np.float64(1e-310) * 1.0 > 0



def _scaled_copy(X, r):
    return sp.csr_matrix((X.data * r[X.indices], X.indices, X.indptr), shape=X.shape)


def _column_scale(d, seed=1):
    """Log-count-ratio-like scales: both signs, and some features scaled to 0."""
    r = 2.0 * np.random.default_rng(seed).normal(size=d)
    r[[2, 7, 11]] = 0.0
    return r


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("loss", LOSSES)
def test_column_scale_is_the_problem_on_the_scaled_copy(loss, binary, bias):
    """docs/mathematics.md §5, "A per-feature scale": the solve on X with column_scale r
    takes the steps of the solve on X diag(r) (same seed, same epochs), so P, D, the gap
    and alpha agree to rounding, and its weights are diag(r) times the copy's; continued
    from a warm start (v rebuilt from alpha) as well."""
    X, y = make_csr(n=80, d=30, density=0.3, seed=3, binary=binary)
    r = _column_scale(30)
    kw = dict(loss=loss, lam=0.05, tol=0.0, seed=5)
    if bias:  # the bias coordinate is not scaled
        kw.update(bias_sigma=0.0, bias_rho=1.0)
    copy, diag = np.zeros(80), np.zeros(80)
    for epochs in (3, 4):  # the second solve warm-starts from the first's alpha
        a = solve(_scaled_copy(X, r), y, alpha=copy, max_epochs=epochs, **kw)
        b = solve(X, y, alpha=diag, max_epochs=epochs, column_scale=r, **kw)
        for key in ("primal", "dual", "abs_gap"):
            assert b[key] == pytest.approx(a[key], rel=1e-9, abs=1e-14), key
        np.testing.assert_allclose(diag, copy, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(b["w"], r * a["w"], rtol=1e-9, atol=1e-12)
        assert b["bias"] == pytest.approx(a["bias"], rel=1e-9, abs=1e-12)
        assert a["gap"] > 1e-4  # not converged: equal steps, not merely one optimum


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_column_scale_converges_to_the_scaled_optimum(loss, bias):
    """Run to tol, the weights on X's columns are the scaled copy's optimum times r
    within the tolerance, and the primal is the scaled problem's, computed here from
    them (w~ = w / r where r != 0, where the scale is 0 the weight is 0)."""
    X, y = make_csr(n=120, d=40, density=0.2, seed=4)
    r = _column_scale(40, seed=2)
    kw = dict(loss=loss, lam=0.02, tol=1e-10, max_epochs=5000, seed=1)
    if bias:
        kw.update(bias_sigma=0.0, bias_rho=1.0)
    a = solve(_scaled_copy(X, r), y, **kw)
    b = solve(X, y, column_scale=r, **kw)
    assert a["converged"] and b["converged"]
    np.testing.assert_allclose(b["w"], r * a["w"], atol=1e-4 * np.max(np.abs(b["w"])))
    assert np.all(b["w"][r == 0] == 0)
    w_scaled = np.divide(b["w"], r, out=np.zeros(40), where=r != 0)
    t = 0.0 if loss == "logistic" else 1.0
    primal = (np.mean(R.loss_value(loss, y * (X @ b["w"] + b["bias"]), t))
              + 0.02 / 2 * (w_scaled @ w_scaled + (b["bias"] ** 2 if bias else 0.0)))
    assert b["primal"] == pytest.approx(primal, rel=1e-9)
    assert b["primal"] == pytest.approx(a["primal"], rel=1e-8)

"""The kernel's Python boundary (textwin/_kernels/_dual_gs.pyx): one clear ValueError per
bad input, warm starts and seeds, threads sharing one matrix, and a matrix checked once
for many calls."""
import numpy as np
import pytest

from _kernel_common import make_csr, reuters_like, solve
from textwin._kernels import _dual_gs as K
from textwin._kernels._dual_gs import dual_gauss_seidel
from textwin._losses_and_regularizers import REGULARIZERS


def test_warm_start_and_determinism():
    X, y = make_csr(n=150, d=30, density=0.2, seed=1)
    r1 = solve(X, y, "hinge", lam=1e-2, tol=1e-8, max_epochs=10000, seed=5)
    r2 = solve(X, y, "hinge", lam=1e-2, tol=1e-8, max_epochs=10000, seed=5)
    np.testing.assert_array_equal(r1["alpha"], r2["alpha"])
    r3 = solve(X, y, "hinge", lam=1e-2, tol=1e-8, max_epochs=10000, seed=6)
    assert not np.array_equal(r1["alpha"], r3["alpha"])
    # warm start: v is rebuilt from alpha, already converged
    r4 = solve(X, y, "hinge", alpha=r1["alpha"].copy(), lam=1e-2, tol=1e-8, max_epochs=10000)
    assert r4["n_epochs"] == 0 and r4["epochs_at_gaps"][0] == 0
    np.testing.assert_allclose(r4["w"], r1["w"], atol=1e-8)
    # an alpha outside the domain is projected first
    r5 = solve(X, y, "hinge", alpha=np.full(150, 7.0), lam=1e-2, max_epochs=0)
    assert np.all(r5["alpha"] == 1.0)
    r6 = solve(X, y, "logistic", alpha=np.zeros(150), lam=1e-2, max_epochs=0)
    assert np.allclose(r6["alpha"], 1e-3)


@pytest.mark.parametrize("change,match", [
    (dict(loss="svm"), r"unknown loss 'svm'.*hinge"),
    (dict(regularizer="l1"), r"unknown regularizer 'l1'.*normalized_entropy"),
    (dict(lam=0.0), "lam must be"),
    (dict(lam=np.nan), "lam must be"),
    (dict(regularizer="entropy", mu=None), "needs a prior mu"),
    (dict(weight=-np.ones(10)), "weight must be >= 0"),
    (dict(y=np.zeros(10)), r"\+1 and -1"),
    (dict(target=np.full(10, np.nan)), "target contains NaN"),
    (dict(alpha=np.zeros(9)), "length 10"),
    (dict(alpha=np.zeros(10, dtype=np.float32)), "writable, C-contiguous float64"),
    (dict(X_indices=None), "int32"),
    (dict(X_data=None), "NaN"),
    (dict(step="line_search"), "unknown step"),
    (dict(step_fraction=0.0), "step_fraction"),
    (dict(n_features=3), r"X_indices must lie in \[0, n_features=3\)"),
    (dict(column_scale=np.ones(5)), "column_scale must be a 1-D array of length 6"),
    (dict(column_scale=np.full(6, np.inf)), "column_scale contains NaN"),
    (dict(column_scale=np.ones(6), regularizer="entropy", mu=np.ones(6)),
     "column_scale is for the square regularizer"),
])
def test_bad_input_is_a_clear_value_error(change, match):
    X, y = make_csr(n=10, d=6, density=0.5, seed=0)
    args = dict(X_data=X.data, X_indices=X.indices, X_indptr=X.indptr, y=y,
                target=np.ones(10), weight=np.ones(10), alpha=np.zeros(10), n_features=6)
    if "X_indices" in change:
        change = dict(X_indices=X.indices.astype(np.int64))
    if "X_data" in change:
        bad = X.data.copy()
        bad[0] = np.nan
        change = dict(X_data=bad)
    args.update(change)
    with pytest.raises(ValueError, match=match):
        dual_gauss_seidel(**args)


@pytest.mark.parametrize("regularizer", ["square", "normalized_entropy"])
def test_parallel_threads_share_one_matrix(regularizer):
    from concurrent.futures import ThreadPoolExecutor

    X, y = reuters_like(n=400, d=500)
    Y = [y, -y, np.where(np.arange(400) % 3 == 0, 1.0, -1.0), y[::-1].copy()]
    run = lambda yk: solve(X, yk, "squared_hinge", regularizer, lam=1e-3, tol=1e-8, seed=3)["w"]
    sequential = [run(yk) for yk in Y]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(run, Y))
    for a, b in zip(sequential, parallel):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("regularizer", ["square", "normalized_entropy"])
def test_checked_csr_gives_the_same_solve(regularizer):
    X, y = reuters_like(n=120, d=200, seed=8)
    n, d = X.shape
    Xc = K.check_csr(X.data, X.indices, X.indptr, d, REGULARIZERS[regularizer].entropy)
    kw = dict(loss="squared_hinge", regularizer=regularizer, lam=1e-3, tol=0.0, max_epochs=5)
    if REGULARIZERS[regularizer].entropy:
        kw["mu"] = np.full(d, 1.0 / d)
    plain = dual_gauss_seidel(X.data, X.indices, X.indptr, y, np.ones(n), np.ones(n),
                              np.zeros(n), d, **kw)
    once = dual_gauss_seidel(Xc.data, Xc.indices, Xc.indptr, y, np.ones(n), np.ones(n),
                             np.zeros(n), d, X_checked=Xc, **kw)
    assert np.array_equal(plain["w"], once["w"]) and plain["gap"] == once["gap"]


def test_checked_csr_refuses_other_arrays_or_settings():
    X, y = reuters_like(n=60, d=50, seed=9)
    n, d = X.shape
    Xc = K.check_csr(X.data, X.indices, X.indptr, d, False)
    args = (y, np.ones(n), np.ones(n), np.zeros(n), d)
    with pytest.raises(ValueError, match="made for other arrays"):
        dual_gauss_seidel(X.data.copy(), Xc.indices, Xc.indptr, *args, X_checked=Xc)
    with pytest.raises(ValueError, match="call check_csr again"):
        dual_gauss_seidel(Xc.data, Xc.indices, Xc.indptr, *args, regularizer="entropy",
                          mu=np.ones(d), X_checked=Xc)
    with pytest.raises(TypeError, match="check_csr"):
        dual_gauss_seidel(Xc.data, Xc.indices, Xc.indptr, *args, X_checked=(1, 2))
    bad = X.data.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        K.check_csr(bad, X.indices, X.indptr, d, False)


"""The epoch loop (textwin/_kernels/_solver.pyx) against docs/mathematics.md §3-§8: optima
against scikit-learn, exit gaps, a dual that never rises, a step-for-step match with the
NumPy reference (tests/_reference.py), the bias coordinate, the step modes, shrinking,
the visiting order and the work counters."""
import numpy as np
import pytest
from scipy.optimize import minimize

import _reference as R
from _kernel_common import ENTROPIES, make_csr, primal_square, reuters_like, solve
from textwin._kernels import _dual_gs as K
from textwin._losses_and_regularizers import LOSSES, REGULARIZERS, loss_named


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_square_matches_liblinear_svc(loss):
    from sklearn.svm import LinearSVC

    X, y = make_csr(n=200, d=40, density=0.2, seed=3)
    lam = 1e-2
    res = solve(X, y, loss, lam=lam, tol=1e-12, max_epochs=100000)
    # liblinear: C sum f + |w|^2/2 = P / lam with C = 1/(lam n) (same f, both losses)
    # (liblinear stalls at tol=1e-12 and returns a worse point: 1e-10 is its limit)
    svc = LinearSVC(loss=loss, C=1 / (lam * X.shape[0]), fit_intercept=False,
                    tol=1e-10, max_iter=10 ** 6, random_state=0).fit(X, y)
    p_ours = primal_square(X, y, res["w"], loss, lam)
    p_sk = primal_square(X, y, svc.coef_.ravel(), loss, lam)
    assert res["gap"] <= 1e-12
    assert abs(p_ours - p_sk) <= 1e-6 * p_sk
    assert p_ours <= p_sk * (1 + 1e-12)          # ours is certified optimal to 1e-12
    np.testing.assert_allclose(res["w"], svc.coef_.ravel(), atol=1e-3 * np.abs(res["w"]).max())


def test_square_logistic_matches_sklearn():
    from sklearn.linear_model import LogisticRegression

    X, y = make_csr(n=200, d=40, density=0.2, seed=4)
    lam = 1e-2
    res = solve(X, y, "logistic", lam=lam, tol=1e-12, max_epochs=100000)
    lr = LogisticRegression(C=1 / (lam * X.shape[0]), fit_intercept=False, tol=1e-12,
                            max_iter=100000).fit(X, y)
    p_ours = primal_square(X, y, res["w"], "logistic", lam, t=0.0)
    p_sk = primal_square(X, y, lr.coef_.ravel(), "logistic", lam, t=0.0)
    assert abs(p_ours - p_sk) <= 1e-6 * p_sk
    np.testing.assert_allclose(res["w"], lr.coef_.ravel(), rtol=1e-4, atol=1e-6)


def test_square_least_squares_matches_ridge():
    from sklearn.linear_model import Ridge

    X, y = make_csr(n=150, d=30, density=0.3, seed=5)
    lam = 1e-2
    res = solve(X, y, "least_squares", lam=lam, tol=1e-12, max_epochs=100000)
    # (1/n) |y - Xw|^2 + lam/2 |w|^2  <=>  |y - Xw|^2 + (lam n / 2) |w|^2   (y_i^2 = 1)
    ridge = Ridge(alpha=lam * X.shape[0] / 2, fit_intercept=False, solver="cholesky").fit(X.toarray(), y)
    p_ours = primal_square(X, y, res["w"], "least_squares", lam)
    p_sk = primal_square(X, y, ridge.coef_, "least_squares", lam)
    assert abs(p_ours - p_sk) <= 1e-9 * p_sk
    # |w - w*|^2 <= 2 gap / lam: a 1e-12 relative gap pins w to about 1e-5
    np.testing.assert_allclose(res["w"], ridge.coef_, rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_exit_gap_below_tol_with_weights_and_targets(loss, regularizer):
    X, y = make_csr(n=120, d=30, density=0.2, seed=11, empty_rows=(3, 17))
    n = X.shape[0]
    rng = np.random.default_rng(1)
    s = rng.uniform(0, 3, size=n)
    s[::7] = 0.0                          # removed examples
    t = rng.uniform(-0.5, 1.5, size=n)
    res = solve(X, y, loss, regularizer, t=t, s=s, lam=1e-2, tol=1e-6, max_epochs=20000)
    assert res["converged"] and res["gap"] <= 1e-6
    assert res["gaps"][-1] == pytest.approx(res["gap"], rel=1e-6, abs=1e-15)
    assert np.all(res["alpha"][s == 0] == 0)
    # the reported gap is exact: P + D and the sum of per-example terms agree
    assert res["primal"] + res["dual"] == pytest.approx(res["abs_gap"], abs=1e-12)
    terms = K.gap_terms(X.data, X.indices, X.indptr, y, t, s, res["alpha"], X.shape[1],
                        loss=loss, regularizer=regularizer, lam=1e-2,
                        mu=np.full(X.shape[1], 1 / X.shape[1]) if REGULARIZERS[regularizer].entropy else None)
    assert terms.sum() / n == pytest.approx(res["abs_gap"], rel=1e-8, abs=1e-15)


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_dual_never_rises(loss, regularizer):
    X, y = make_csr(n=80, d=20, density=0.3, seed=5)
    n = X.shape[0]
    t = np.full(n, loss_named(loss).default_gamma)
    trace = K.dual_trace(X.data, X.indices, X.indptr, y, t, np.ones(n), np.zeros(n), 20,
                         loss=loss, regularizer=regularizer, lam=1e-3,
                         mu=np.full(20, 0.05) if REGULARIZERS[regularizer].entropy else None, max_epochs=3)
    assert trace.size == 3 * n + 1 or trace.size > n
    assert np.all(np.diff(trace) <= 1e-12 * np.maximum(1.0, np.abs(trace[1:])))
    assert trace[-1] < trace[0]


@pytest.mark.parametrize("lam", [1e-3, 1e-4])
@pytest.mark.parametrize("regularizer", ENTROPIES)
@pytest.mark.parametrize("loss", LOSSES)
def test_dual_never_rises_on_reuters_like_data(loss, regularizer, lam):
    X, y = reuters_like()
    n, d = X.shape
    t = np.full(n, loss_named(loss).default_gamma)
    trace = K.dual_trace(X.data, X.indices, X.indptr, y, t, np.ones(n), np.zeros(n), d,
                         loss=loss, regularizer=regularizer, lam=lam, mu=np.full(d, 1.0 / d),
                         max_epochs=2)
    assert np.all(np.isfinite(trace))
    assert np.all(np.diff(trace) <= 1e-12 * np.maximum(1.0, np.abs(trace[1:])))


def test_uncapped_newton_raises_the_dual():
    """docs/mathematics.md §6: without the exponent cap a Newton step on an entropy row can raise D."""
    X, y = reuters_like()
    n, d = X.shape
    kw = dict(loss="squared_hinge", regularizer="normalized_entropy", lam=1e-4,
              mu=np.full(d, 1.0 / d), max_epochs=1)
    args = (X.data, X.indices, X.indptr, y, np.ones(n), np.ones(n))
    capped = K.dual_trace(*args, np.zeros(n), d, **kw)
    uncapped = K.dual_trace(*args, np.zeros(n), d, exp_cap=np.inf, **kw)
    rises = np.diff(uncapped)
    assert rises.max() > 1e-2 * abs(uncapped[0]) + 1e-3      # by a lot
    assert np.all(np.diff(capped) <= 1e-12 * np.maximum(1.0, np.abs(capped[1:])))


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_matches_numpy_reference_step_for_step(loss, regularizer):
    X, y = make_csr(n=25, d=8, density=0.4, seed=13, empty_rows=(4,))
    n, d = X.shape
    rng = np.random.default_rng(2)
    t = rng.uniform(0, 1.2, size=n)
    s = rng.uniform(0.5, 1.5, size=n)
    mu = rng.uniform(0.5, 1.5, size=d) / d
    lam = 0.01
    a0 = 1e-3 * s if loss == "logistic" else np.zeros(n)
    ref = R.reference_gauss_seidel(X.toarray(), y, t, s, a0, loss, regularizer, lam, mu, 1.3,
                                   epochs=3)
    for epochs in (1, 3):
        res = solve(X, y, loss, regularizer, t=t, s=s, alpha=a0.copy(), lam=lam, mu=mu,
                    mass=1.3, tol=0.0, max_epochs=epochs, shuffle=False, shrinking=False)
        np.testing.assert_allclose(res["alpha"], ref[epochs - 1], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("loss", ["squared_hinge", "least_squares", "logistic"])
def test_bias_coordinate_solves_augmented_problem(loss):
    """Fixed sigma, rho: the kernel minimizes P(w) + lam rho/2 (b - sigma)^2 (docs/mathematics.md §8)."""
    X, y = make_csr(n=100, d=10, density=0.4, seed=21)
    y = np.where(np.asarray(X.sum(axis=1)).ravel() + 0.8 > 0, 1.0, -1.0)   # needs a bias
    n, d = X.shape
    lam, sigma, rho = 0.01, 0.3, 2.0
    t = np.full(n, loss_named(loss).default_gamma)
    res = solve(X, y, loss, lam=lam, bias_sigma=sigma, bias_rho=rho, tol=1e-11, max_epochs=100000)
    assert res["gap"] <= 1e-11
    Xd = X.toarray()

    def P(wb):
        w, b = wb[:d], wb[d]
        return (np.mean(R.loss_value(loss, y * (Xd @ w + b), t)) + lam / 2 * w @ w
                + lam * rho / 2 * (b - sigma) ** 2)

    opt = minimize(P, np.zeros(d + 1), method="BFGS", options={"gtol": 1e-10})
    assert res["primal"] == pytest.approx(opt.fun, rel=1e-7)
    assert res["bias"] == pytest.approx(opt.x[d], abs=1e-4)
    assert res["bias"] == pytest.approx(sigma + res["v_bias"] / rho)
    assert res["v_bias"] == pytest.approx(np.sum(res["alpha"] * y) / (lam * n))
    assert abs(res["bias"]) > 0.1


@pytest.mark.parametrize("regularizer", REGULARIZERS)
def test_bias_coordinate_converges_with_every_regularizer(regularizer):
    X, y = make_csr(n=100, d=10, density=0.4, seed=21)
    res = solve(X, y, "hinge", regularizer, lam=0.01, bias_rho=1.0, bias_sigma=-0.2, tol=1e-8,
                max_epochs=100000)
    assert res["gap"] <= 1e-8


@pytest.mark.parametrize("regularizer", ["square", "entropy", "normalized_entropy"])
@pytest.mark.parametrize("loss", LOSSES)
def test_step_modes_reach_the_same_optimum(loss, regularizer):
    X, y = make_csr(n=60, d=15, seed=7)
    ref = solve(X, y, loss, regularizer, lam=0.05, tol=1e-10, max_epochs=100000)
    for kw in (dict(step="newton"), dict(step_fraction=0.5),
               dict(step="gradient", gradient_step=0.2 if loss != "logistic" else 0.05)):
        res = solve(X, y, loss, regularizer, lam=0.05, tol=1e-8, max_epochs=200000, **kw)
        assert res["gap"] <= 1e-8, kw
        assert res["primal"] == pytest.approx(ref["primal"], rel=1e-7), kw
    # a fraction of the step is a different, slower path to the same point
    half = solve(X, y, loss, regularizer, lam=0.05, tol=0.0, max_epochs=2, step_fraction=0.5,
                 shuffle=False)
    full = solve(X, y, loss, regularizer, lam=0.05, tol=0.0, max_epochs=2, shuffle=False)
    assert not np.allclose(half["alpha"], full["alpha"])


def test_shrinking_changes_speed_not_answer():
    X, y = reuters_like(n=600, d=800)
    a = solve(X, y, "hinge", lam=1e-3, tol=1e-9, max_epochs=100000, shrinking=True)
    b = solve(X, y, "hinge", lam=1e-3, tol=1e-9, max_epochs=100000, shrinking=False)
    assert a["gap"] <= 1e-9 and b["gap"] <= 1e-9
    assert a["primal"] == pytest.approx(b["primal"], rel=2e-9)


@pytest.fixture(scope="module")
def reuters_earn(reuters_data_home):
    from textwin.experiments import load_protocol_data

    data = load_protocol_data(["earn"], data_home=reuters_data_home)
    X = data.X_train.tocsr().astype(np.float64)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X, np.where(data.Y_train[:, 0] > 0, 1.0, -1.0)


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("lam", [1e-3, 1e-4, 1e-5])
@pytest.mark.parametrize("regularizer", ENTROPIES)
def test_reuters_dual_never_rises(reuters_earn, regularizer, lam):
    """docs/mathematics.md §6 on the real data: binary rows, 1,000 IG features, plain and Winnow targets."""
    X, y = reuters_earn
    n, d = X.shape
    kw = dict(loss="squared_hinge", regularizer=regularizer, lam=lam, mu=np.full(d, 1.0 / d),
              max_epochs=1)
    winnow = np.where(y > 0, 0.2, 0.0)       # theta = gamma = 0.1 (docs/mathematics.md §7)
    for t in (winnow, np.ones(n)):
        args = (X.data, X.indices, X.indptr, y, t, np.ones(n))
        capped = K.dual_trace(*args, np.zeros(n), d, **kw)
        assert np.all(np.diff(capped) <= 1e-12 * np.maximum(1.0, np.abs(capped[1:])))


@pytest.mark.corpus
@pytest.mark.slow
def test_reuters_uncapped_newton_raises_the_dual(reuters_earn):
    X, y = reuters_earn
    n, d = X.shape
    trace = K.dual_trace(X.data, X.indices, X.indptr, y, np.ones(n), np.ones(n), np.zeros(n), d,
                         loss="squared_hinge", regularizer="entropy", lam=1e-5,
                         mu=np.full(d, 1.0 / d), max_epochs=1, exp_cap=np.inf)
    assert np.diff(trace).max() > abs(trace[0] - trace.min())   # one step undoes all progress


def test_work_counters():
    X, y = make_csr(n=50, d=12, density=0.4, seed=1)
    res = solve(X, y, loss="least_squares", lam=1e-3, tol=0.0, max_epochs=3, shrinking=False)
    w = res["work"]
    # no shrinking: every example is visited in every epoch; the least-squares
    # dual has no bound, so every visit far from the optimum moves alpha
    assert w["visits"] == 3 * X.shape[0] and w["nnz_visits"] == 3 * X.nnz
    assert 0 < w["steps"] <= w["visits"] and w["nnz_steps"] <= w["nnz_visits"]
    assert w["steps"] >= X.shape[0]
    hinge = solve(X, y, loss="hinge", lam=1e-3, tol=0.0, max_epochs=0)
    assert hinge["work"] == {"visits": 0, "steps": 0, "nnz_visits": 0, "nnz_steps": 0,
                             "syncs": 0}


@pytest.mark.parametrize("block", [2, 7, 1000])
@pytest.mark.parametrize("shrinking", [False, True])
def test_block_shuffle_visits_every_row_once_and_converges(block, shrinking):
    X, y = reuters_like(n=200, d=300, seed=4)
    full = solve(X, y, lam=1e-2, tol=1e-9, max_epochs=5000, seed=1)
    res = solve(X, y, lam=1e-2, tol=1e-9, max_epochs=5000, seed=1, shuffle_block=block,
                shrinking=shrinking)
    assert res["converged"] and res["gap"] <= 1e-9
    np.testing.assert_allclose(res["w"], full["w"], rtol=1e-4, atol=1e-6)
    # without shrinking every epoch visits each row exactly once
    few = solve(X, y, lam=1e-2, tol=0.0, max_epochs=3, shrinking=False, shuffle_block=block)
    assert few["work"]["visits"] == 3 * X.shape[0]


def test_block_shuffle_is_a_permutation_per_epoch():
    # one epoch of least squares with trace_dual: every row moves exactly once
    X, y = make_csr(n=37, d=9, density=0.5, seed=2)
    res = solve(X, y, loss="least_squares", lam=1e-3, tol=0.0, max_epochs=1,
                shrinking=False, shuffle_block=5, trace_dual=True)
    assert res["work"]["steps"] == X.shape[0]
    assert np.all(res["alpha"] != 0)


@pytest.mark.parametrize("bad", [0, -3, 2.5])
def test_block_shuffle_rejects_bad_sizes(bad):
    X, y = make_csr(n=10, d=4)
    with pytest.raises(ValueError, match="shuffle_block"):
        solve(X, y, shuffle_block=bad)


"""Perceptron and Winnows (docs/mathematics.md §9): NumPy references and mistake bounds."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from textwin.datasets._synthetic import make_winnow_data
from textwin.online import BalancedWinnow, Perceptron, Winnow

# ---------------------------------------------------------------------------
# Ten-line NumPy versions of docs/mathematics.md §9, the reference for the kernels
# ---------------------------------------------------------------------------


def ref_perceptron(X, y, eta, n_epochs, renormalize):
    w = np.zeros(X.shape[1])
    mistakes = []
    for _ in range(n_epochs):
        m = 0
        for x, yi in zip(X, y):
            if (x @ w > 0) != (yi > 0):
                w += eta * yi * x
                m += 1
        if renormalize and np.linalg.norm(w) > 0:
            w /= np.linalg.norm(w)
        mistakes.append(m)
    return w, np.array(mistakes)


def ref_winnow(X, y, eta, theta, n_epochs, balanced, normalized, mu):
    wp, wm = mu.copy(), (mu.copy() if balanced else np.zeros_like(mu))
    mass = wp.sum() + wm.sum()
    mistakes = []
    for _ in range(n_epochs):
        m = 0
        for x, yi in zip(X, y):
            if (x @ (wp - wm) >= theta) != (yi > 0):
                m += 1
                wp *= np.exp(eta * yi * x)
                if balanced:
                    wm *= np.exp(-eta * yi * x)
                if normalized:
                    scale = mass / (wp.sum() + wm.sum())
                    wp *= scale
                    wm *= scale
        mistakes.append(m)
    return wp - wm, np.array(mistakes)


def _sparse_problem(n=120, d=15, seed=0, density=0.4):
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=density, random_state=rng, format="csr",
                  data_rvs=lambda k: rng.uniform(-1, 1, k))
    y = np.where(X @ rng.randn(d) + 0.2 * rng.randn(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("renormalize", [False, True])
def test_perceptron_matches_numpy_reference(renormalize):
    X, y = _sparse_problem()
    est = Perceptron(shuffle=False, eta=0.05, n_epochs=7, renormalize=renormalize).fit(X, y)
    w, mistakes = ref_perceptron(X.toarray(), y, 0.05, 7, renormalize)
    assert_allclose(est.coef_.ravel(), w, rtol=1e-10, atol=1e-13)
    assert_array_equal(est.mistakes_[0], mistakes)
    if renormalize:
        assert np.linalg.norm(est.coef_) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "balanced, normalized, theta",
    [(False, True, 0.05), (False, False, 0.05), (True, False, 0.0), (True, True, 0.02)],
)
def test_winnow_matches_numpy_reference(balanced, normalized, theta):
    X, y = _sparse_problem(seed=1)
    d = X.shape[1]
    mu = np.full(d, 1.0 / (2 * d if balanced else d))
    est = Winnow(shuffle=False, theta=theta, eta=0.3, n_epochs=6, balanced=balanced,
                 normalized=normalized).fit(X, y)
    w, mistakes = ref_winnow(X.toarray(), y, 0.3, theta, 6, balanced, normalized, mu)
    assert_allclose(est.coef_.ravel(), w, rtol=1e-9, atol=1e-15)
    assert_array_equal(est.mistakes_[0], mistakes)
    assert_allclose(est.intercept_, -theta)
    if normalized:
        total = est._w_pos.sum() + est._w_neg.sum()
        assert total == pytest.approx(1.0)


def test_winnow_many_mistakes_stay_finite_and_normalized():
    # Thousands of multiplicative updates push the stored weights through the
    # scale folding; the result must still match the reference direction.
    X, y = _sparse_problem(n=300, seed=2)
    y[::3] *= -1  # noisy: mistakes never stop
    est = Winnow(shuffle=False, theta=0.0, eta=2.0, n_epochs=30, balanced=True,
                 normalized=True).fit(X, y)
    w, _ = ref_winnow(X.toarray(), y, 2.0, 0.0, 30, True, True, np.full(15, 1 / 30))
    assert np.all(np.isfinite(est.coef_))
    assert_allclose(est.coef_.ravel(), w, rtol=1e-6, atol=1e-12)


def test_prediction_rules():
    X, y = _sparse_problem(seed=3)
    # Winnow: in class iff score >= theta, i.e. decision_function >= 0
    est = Winnow(shuffle=False, theta=0.05, eta=0.3, n_epochs=3).fit(X, y)
    scores = X @ est.coef_.ravel()
    assert_allclose(est.decision_function(X), scores - 0.05)
    assert_array_equal(est.predict(X), np.where(scores >= 0.05, 1.0, -1.0))
    # Perceptron: in class iff w x > 0
    per = Perceptron(shuffle=False, eta=0.1, n_epochs=3).fit(X, y)
    assert_array_equal(per.predict(X), np.where(X @ per.coef_.ravel() > 0, 1.0, -1.0))


# ---------------------------------------------------------------------------
# Mistake bounds on separable data
# ---------------------------------------------------------------------------


def _separable(n, d, margin, seed, positive=False):
    """x uniform in [-1, 1]^d, labels by a hidden u, points with |u x| < margin removed."""
    rng = np.random.RandomState(seed)
    if positive:
        u = np.zeros(d)
        u[:3] = [0.5, 0.3, 0.2]  # in the simplex
    else:
        u = rng.randn(d)
        u /= np.linalg.norm(u)
    X = rng.uniform(-1, 1, size=(4 * n, d))
    score = X @ u
    keep = np.abs(score) >= margin
    X, score = X[keep][:n], score[keep][:n]
    assert X.shape[0] == n
    return sp.csr_matrix(X), np.sign(score), u


def test_perceptron_novikoff_bound():
    # Block & Novikoff (seeds/004): at most (R / gamma)^2 mistakes when
    # ||x|| <= R and y u x >= gamma for a unit u, from w = 0, whatever eta.
    X, y, u = _separable(n=400, d=10, margin=0.15, seed=0)
    R = np.sqrt(X.multiply(X).sum(axis=1)).max()
    gamma = np.min(y * (X @ u))
    bound = (R / gamma) ** 2
    est = Perceptron(shuffle=False, eta=0.5, n_epochs=300, renormalize=False).fit(X, y)
    total = est.mistakes_[0].sum()
    assert 0 < total <= bound
    assert est.mistakes_[0][-1] == 0  # converged: an epoch without mistakes
    assert est.score(X, y) == 1.0


def _winnow_bound(X, y, w_star, mu, eta):
    """Littlestone's bound as stated in seeds/003 (Theorem 1.45, threshold delta = 0).

    With ||A||_inf = R, margin s = min_i y_i w* x_i and beta = 1/2:
    updates <= KL(w* || w0) / (eta s - log cosh(eta R)).
    """
    R = np.abs(X.data).max()
    s = np.min(y * (X @ w_star))
    nz = w_star > 0
    kl = np.sum(w_star[nz] * np.log(w_star[nz] / mu[nz]))
    denom = eta * s - np.log(np.cosh(eta * R))
    assert denom > 0
    return kl / denom, R, s


def test_normalized_winnow_littlestone_bound():
    X, y, u = _separable(n=400, d=40, margin=0.12, seed=1, positive=True)
    d = X.shape[1]
    R = np.abs(X.data).max()
    s = np.min(y * (X @ u))
    eta = np.log((R + s) / (R - s)) / (2 * R)  # the step that gives the bound of seeds/003
    bound, _, _ = _winnow_bound(X, y, u, np.full(d, 1.0 / d), eta)
    est = Winnow(shuffle=False, theta=0.0, eta=eta, n_epochs=200, normalized=True,
                 mass=1.0).fit(X, y)
    total = est.mistakes_[0].sum()
    assert 0 < total <= bound
    assert est.mistakes_[0][-1] == 0
    assert est.score(X, y) == 1.0


def test_balanced_normalized_winnow_bound_by_duplication():
    # NWin on x is positive Winnow on [x, -x] (seeds/003, Remark 1.47), so the
    # same bound holds with w* = [u+, u-] / ||u||_1 and the uniform prior over 2d.
    X, y, u = _separable(n=400, d=30, margin=0.1, seed=2)
    d = X.shape[1]
    u1 = u / np.abs(u).sum()
    w_star = np.concatenate([np.maximum(u1, 0), np.maximum(-u1, 0)])
    X2 = sp.hstack([X, -X], format="csr")
    R = np.abs(X.data).max()
    s = np.min(y * (X @ u1))
    eta = np.log((R + s) / (R - s)) / (2 * R)
    bound, _, _ = _winnow_bound(X2, y, w_star, np.full(2 * d, 1.0 / (2 * d)), eta)
    est = BalancedWinnow(shuffle=False, normalized=True, eta=eta, n_epochs=300, prior=1.0 / (2 * d),
                         fit_intercept=False).fit(X, y)
    total = est.mistakes_[0].sum()
    assert 0 < total <= bound
    assert est.mistakes_[0][-1] == 0


# ---------------------------------------------------------------------------
# The synthetic experiment, multi-label, threads, partial_fit
# ---------------------------------------------------------------------------


def test_uwin_and_nwin_predict_alike_with_threshold_zero():
    # With threshold 0 the sign of (w+ - w-) x does not depend on the scale the
    # normalized Winnow divides by, so UWin and NWin make the same mistakes: the
    # paper's Table 1 reports identical accuracies for them (82.4 / 82.4, 69.7 / 69.7).
    X, y = make_winnow_data(300, 200, random_state=0, add_constant=False)
    u = BalancedWinnow(shuffle=False, normalized=False, n_epochs=20).fit(X, y)
    nw = BalancedWinnow(shuffle=False, normalized=True, n_epochs=20).fit(X, y)
    assert_array_equal(u.mistakes_[0], nw.mistakes_[0])
    assert_array_equal(u.predict(X), nw.predict(X))
    # ... but the weights differ by one common scale
    ratio = np.concatenate([u._w_pos / nw._w_pos, u._w_neg / nw._w_neg], axis=1)
    assert not np.allclose(ratio, 1.0)
    assert_allclose(ratio, ratio.flat[0], rtol=1e-8)


def _multilabel(n=150, d=12, k=4, seed=0):
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=0.5, random_state=rng, format="csr")
    Y = (X @ rng.randn(d, k) > 0.1).astype(int)
    return X, Y


@pytest.mark.parametrize(
    "est",
    [Perceptron(shuffle=False, eta=0.1, n_epochs=5),
     Winnow(shuffle=False, theta=0.02, eta=0.5, n_epochs=5),
     BalancedWinnow(shuffle=False, normalized=True, n_epochs=5)],
    ids=["perceptron", "winnow", "nwin"],
)
def test_multilabel_equals_per_column_and_n_jobs(est):
    X, Y = _multilabel()
    full = est.set_params(n_jobs=1).fit(X, Y)
    coef = full.coef_.copy()
    threaded = est.set_params(n_jobs=2).fit(X, Y)
    assert_array_equal(threaded.coef_, coef)
    assert set(np.unique(full.predict(X))) <= {0, 1}
    for k in range(Y.shape[1]):
        single = est.set_params(n_jobs=1).fit(X, Y[:, k])
        assert_allclose(single.coef_.ravel(), coef[k], rtol=1e-12)


def test_partial_fit_equals_fit():
    X, y = _sparse_problem(seed=4)
    labels = np.where(y > 0, "in", "out")
    for make in (lambda e: Perceptron(shuffle=False, eta=0.1, n_epochs=e, renormalize=True),
                 lambda e: Winnow(shuffle=False, theta=0.02, eta=0.5, n_epochs=e)):
        ref = make(4).fit(X, labels)
        inc = make(1)
        inc.partial_fit(X, labels, classes=["in", "out"])
        for _ in range(3):
            inc.partial_fit(X, labels)
        assert_allclose(inc.coef_, ref.coef_, rtol=1e-12)
        assert_array_equal(inc.mistakes_[0], ref.mistakes_[0])
    with pytest.raises(ValueError, match="classes must be passed"):
        Perceptron(shuffle=False).partial_fit(X, labels)
    with pytest.raises(ValueError, match="not in classes"):
        inc.partial_fit(X[:2], ["in", "elsewhere"])


def test_bad_parameters_are_named():
    X, y = _sparse_problem()
    with pytest.raises(ValueError, match="eta"):
        Perceptron(shuffle=False, eta=0).fit(X, y)
    with pytest.raises(ValueError, match="n_epochs"):
        Winnow(shuffle=False, n_epochs=0).fit(X, y)
    with pytest.raises(ValueError, match="prior"):
        Winnow(shuffle=False, prior=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        Perceptron(shuffle=False).fit(np.full((3, 2), np.nan), [0, 1, 0])


def test_partial_fit_multilabel_equals_fit():
    X, Y = _multilabel(seed=5)
    ref = BalancedWinnow(shuffle=False, normalized=True, n_epochs=3).fit(X, Y)
    inc = BalancedWinnow(shuffle=False, normalized=True, n_epochs=1)
    for _ in range(3):
        inc.partial_fit(X, sp.csr_matrix(Y))
    # (each call folds the normalization scale into the weights: rounding only)
    assert_allclose(inc.coef_, ref.coef_, rtol=1e-9, atol=1e-15)
    assert_allclose(inc.intercept_, ref.intercept_, rtol=1e-9, atol=1e-15)
    assert_array_equal(inc.mistakes_[2], ref.mistakes_[2])
    assert sp.issparse(inc.predict(X)) and not sp.issparse(ref.predict(X))


def test_partial_fit_rejects_a_change_of_label_kind():
    X, Y = _multilabel(seed=6)
    est = Perceptron(shuffle=False).partial_fit(X, Y)
    with pytest.raises(ValueError, match="multi-label"):
        est.partial_fit(X, Y[:, 0] + 5)
    with pytest.raises(ValueError, match="3-column"):
        est.partial_fit(X, Y[:, :3])


@pytest.mark.parametrize("cls", [Perceptron, Winnow, BalancedWinnow])
@pytest.mark.parametrize("start", [False, True])
def test_partial_fit_rejects_a_change_of_fit_intercept(cls, start):
    # the weights got one column per feature (+1 for the constant) on the first
    # call; a changed fit_intercept used to feed the kernel a matrix one column
    # wider or narrower than them (a write past the weights, unchecked)
    X = sp.random(100, 10, density=0.4, random_state=0, format="csr")
    y = np.random.RandomState(0).randint(0, 3, 100)
    est = cls(fit_intercept=start).partial_fit(X, y, classes=[0, 1, 2])
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="partial_fit started with fit_intercept"):
        est.set_params(fit_intercept=not start).partial_fit(X, y)
    assert_array_equal(est.coef_, coef)
    est.set_params(fit_intercept=start).partial_fit(X, y)  # set back: goes on
    assert est.coef_.shape == (3, 10)
    est.set_params(fit_intercept=not start).fit(X, y)  # fit starts over
    assert est.coef_.shape == (3, 10) and est.predict(X).shape == (100,)


# -- sample weights ----------------------------------------------------------

def _reference_perceptron(X, y, eta, epochs, s):
    """The Perceptron with example weights in plain numpy (renormalized per epoch)."""
    X = X.toarray()
    w = np.zeros(X.shape[1])
    for _ in range(epochs):
        for i in range(X.shape[0]):
            if s[i] == 0:
                continue
            if (X[i] @ w > 0) != (y[i] > 0):
                w += eta * s[i] * y[i] * X[i]
        nrm = np.linalg.norm(w)
        if nrm > 0:
            w /= nrm
    return w


def _weighted_problem(seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(80, 12, density=0.4, format="csr", random_state=seed)
    X.data = rng.normal(size=X.nnz)
    y = np.where(X @ rng.normal(size=12) + 0.3 * rng.normal(size=80) > 0, 1, -1)
    s = rng.choice([0.0, 0.5, 1.0, 3.0], size=80)
    return X, y, s


def test_perceptron_sample_weight_scales_each_mistake():
    X, y, s = _weighted_problem()
    clf = Perceptron(shuffle=False, eta=0.1, n_epochs=5).fit(X, y, sample_weight=s)
    ref = _reference_perceptron(X, y, 0.1, 5, s)
    np.testing.assert_allclose(clf.coef_.ravel(), ref, rtol=1e-12, atol=1e-14)
    # weight 0 is the same as leaving the example out, exactly
    keep = s > 0
    sub = Perceptron(shuffle=False, eta=0.1, n_epochs=5).fit(X[keep], y[keep],
                                                             sample_weight=s[keep])
    np.testing.assert_array_equal(sub.coef_, clf.coef_)
    # all ones is the unweighted fit, bit for bit
    ones = Perceptron(shuffle=False, eta=0.1, n_epochs=5).fit(X, y, sample_weight=np.ones(80))
    np.testing.assert_array_equal(
        ones.coef_, Perceptron(shuffle=False, eta=0.1, n_epochs=5).fit(X, y).coef_)


@pytest.mark.parametrize("cls", [Winnow, BalancedWinnow])
def test_winnow_sample_weight(cls):
    X, y, s = _weighted_problem(1)
    X.data = np.abs(X.data)
    base = cls(shuffle=False, n_epochs=4).fit(X, y)
    ones = cls(shuffle=False, n_epochs=4).fit(X, y, sample_weight=np.ones(X.shape[0]))
    np.testing.assert_array_equal(ones.coef_, base.coef_)
    keep = s > 0
    a = cls(shuffle=False, n_epochs=4).fit(X, y, sample_weight=s)
    b = cls(shuffle=False, n_epochs=4).fit(X[keep], y[keep], sample_weight=s[keep])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    # a weight changes the multiplicative step: doubling every weight is eta doubled
    eta = cls().eta
    c = cls(shuffle=False, n_epochs=4).fit(X, y, sample_weight=np.full(X.shape[0], 2.0))
    d = cls(shuffle=False, n_epochs=4, eta=2 * eta).fit(X, y)
    np.testing.assert_allclose(c.coef_, d.coef_, rtol=1e-12)


def test_online_sample_weight_errors_and_partial_fit():
    X, y, s = _weighted_problem(2)
    with pytest.raises(ValueError, match="Perceptron: sample_weight"):
        Perceptron(shuffle=False).fit(X, y, sample_weight=-s)
    with pytest.raises(ValueError, match="Perceptron: sample_weight has shape"):
        Perceptron(shuffle=False).fit(X, y, sample_weight=s[:5])
    full = Perceptron(shuffle=False, eta=0.1, n_epochs=1, renormalize=False).fit(
        X, y, sample_weight=s)
    part = Perceptron(shuffle=False, eta=0.1, renormalize=False).partial_fit(X, y, classes=[-1, 1],
                                                              sample_weight=s)
    np.testing.assert_array_equal(part.coef_, full.coef_)


@pytest.mark.parametrize("make", [lambda: Winnow(shuffle=False, eta=1000.0, n_epochs=3),
                                  lambda: Perceptron(shuffle=False, eta=1e308, renormalize=False)])
def test_overflowing_weights_are_an_error_that_names_eta(make):
    # Winnow's factors e^(eta x) overflow to inf (then NaN after the rescaling),
    # and the fit used to end "fine" with NaN scores the metrics then refused
    X = sp.random(200, 30, density=0.3, random_state=0, format="csr")
    X.data[:] = 1.0
    y = (np.asarray(X[:, :3].sum(axis=1)).ravel() > 0).astype(int)
    with pytest.raises(ValueError, match="overflowed to inf or NaN with eta=.*lower eta"):
        make().fit(X, y)


# -- shuffle ---------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda **kw: Perceptron(eta=0.1, n_epochs=4, **kw),
    lambda **kw: Winnow(eta=0.5, n_epochs=4, theta=0.2, **kw),
    lambda **kw: Winnow(eta=0.5, n_epochs=4, balanced=True, normalized=False, **kw),
])
def test_shuffle_visits_a_fresh_random_order_each_epoch(make):
    # shuffle=True is, epoch after epoch, a data-order pass over the rows permuted by
    # the orders drawn from random_state (one seed drawn, as the dual estimators')
    from textwin._ovr import problem_seeds

    rng0 = np.random.default_rng(5)
    X = sp.random(60, 15, density=0.3, format="csr", random_state=rng0)
    y = rng0.integers(0, 3, 60)
    shuffled = make(shuffle=True, random_state=7).fit(X, y)
    rng = np.random.default_rng(problem_seeds(7, 1)[0])
    by_hand = make(shuffle=False).set_params(n_epochs=1)
    for epoch in range(4):
        order = rng.permutation(60)
        if epoch == 0:
            by_hand.fit(X[order], y[order])
        else:
            by_hand.partial_fit(X[order], y[order])
    np.testing.assert_allclose(shuffled.coef_, by_hand.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(shuffled.intercept_, by_hand.intercept_, rtol=1e-12,
                               atol=1e-15)
    assert [m.size for m in shuffled.mistakes_] == [4, 4, 4]
    in_order = make(shuffle=False).fit(X, y)
    assert not np.allclose(shuffled.coef_, in_order.coef_)
    again = make(shuffle=True, random_state=7).fit(X, y)
    np.testing.assert_array_equal(again.coef_, shuffled.coef_)
    other = make(shuffle=True, random_state=8).fit(X, y)
    assert not np.allclose(other.coef_, shuffled.coef_)


def test_shuffle_does_not_stall_on_class_sorted_data():
    # two separable classes sorted by class: in data order a Perceptron that sees
    # all positives first, then all negatives, ends on the last class's side
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(np.abs(rng.normal(size=(200, 20))))
    w_true = rng.normal(size=20)
    y = (X @ w_true > np.median(X @ w_true)).astype(int)
    order = np.argsort(y, kind="stable")
    Xs, ys = X[order], y[order]
    acc = {}
    for shuffle in (False, True):
        est = Perceptron(eta=0.1, n_epochs=1, renormalize=False, fit_intercept=True,
                         shuffle=shuffle, random_state=0).fit(Xs, ys)
        acc[shuffle] = (est.predict(Xs) == ys).mean()
    assert acc[True] > acc[False] + 0.1, acc

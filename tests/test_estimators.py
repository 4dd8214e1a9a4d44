"""DualGaussSeidelClassifier and its presets: agreement with scikit-learn, labels,
threads, warnings, validation."""
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

import textwin
from textwin.datasets._synthetic import make_winnow_data
from textwin.linear import (
    DualGaussSeidelClassifier,
    DualSVM,
    LargeMarginNWinnow,
    LargeMarginPerceptron,
    LargeMarginUWinnow,
    ModifiedLeastSquares,
    RegularizedWinnow,
)
from textwin._losses_and_regularizers import LOSSES, REGULARIZERS, regularizer_named
from textwin._ovr import as_canonical_csr



def _binary(n=200, d=30, seed=0, density=0.25):
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=density, random_state=rng, format="csr")
    y = np.where(X @ rng.randn(d) + 0.3 * rng.randn(n) > 0, 1, -1)
    return X, y


def _multilabel(n=150, d=20, k=4, seed=1):
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=0.4, random_state=rng, format="csr")
    Y = (X @ rng.randn(d, k) > 0.2).astype(int)
    return X, Y


# ---------------------------------------------------------------------------
# Agreement with scikit-learn (C = 1 / (lam n))
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_matches_linearsvc(loss):
    X, y = _binary()
    lam, n = 1e-2, X.shape[0]
    sk = LinearSVC(loss=loss, C=1 / (lam * n), fit_intercept=False, tol=1e-10,
                   max_iter=10**6).fit(X, y)
    est = DualGaussSeidelClassifier(loss=loss, lam=lam, tol=1e-12, random_state=0).fit(X, y)
    assert_allclose(est.coef_, sk.coef_, atol=1e-6)
    assert est.duality_gap_[0] <= 1e-12
    assert_array_equal(est.predict(X), sk.predict(X))


def test_matches_logistic_regression():
    X, y = _binary(seed=1)
    lam, n = 1e-2, X.shape[0]
    sk = LogisticRegression(C=1 / (lam * n), fit_intercept=False, tol=1e-12,
                            max_iter=10000).fit(X, y)
    est = DualGaussSeidelClassifier(loss="logistic", lam=lam, tol=1e-12,
                                    random_state=0).fit(X, y)
    assert_allclose(est.coef_, sk.coef_, atol=1e-6)
    assert_allclose(est.predict_proba(X), sk.predict_proba(X), atol=1e-6)
    assert not hasattr(DualSVM(), "predict_proba")


def test_sample_and_class_weights_match_linearsvc():
    X, y = _binary(seed=2)
    lam, n = 1e-2, X.shape[0]
    sw = np.random.RandomState(0).uniform(0.2, 3.0, n)

    def svc(class_weight):
        # the loss is averaged over the total sample weight: C = 1 / (lam sum(sw))
        return LinearSVC(loss="hinge", C=1 / (lam * sw.sum()), fit_intercept=False, tol=1e-10,
                         max_iter=10**6, class_weight=class_weight).fit(X, y, sample_weight=sw)

    # 'balanced' counts the sample weights (scikit-learn PR #30057, in 1.9 too)
    est = DualSVM(lam=lam, tol=1e-12, class_weight="balanced", random_state=0)
    est.fit(X, y, sample_weight=sw)
    assert_allclose(est.coef_, svc("balanced").coef_, atol=1e-8)
    # a dict multiplies each class's weights
    cw = {-1: 0.5, 1: 2.0}
    est2 = DualSVM(lam=lam, tol=1e-12, class_weight=cw, random_state=0).fit(X, y, sample_weight=sw)
    assert_allclose(est2.coef_, svc(cw).coef_, atol=1e-8)
    assert not np.allclose(est.coef_, est2.coef_, atol=1e-3)
    # integer weights are repeated rows
    reps = np.random.RandomState(1).randint(1, 4, n)
    rep = DualSVM(lam=lam, tol=1e-12, random_state=0).fit(X, y, sample_weight=reps)
    Xr, yr = sp.csr_matrix(np.repeat(X.toarray(), reps, axis=0)), np.repeat(y, reps)
    full = DualSVM(lam=lam, tol=1e-12, random_state=0).fit(Xr, yr)
    assert_allclose(rep.coef_, full.coef_, atol=1e-6)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("regularizer", REGULARIZERS)
def test_every_pair_reaches_its_tolerance(loss, regularizer):
    X, y = _binary(n=120, d=15, seed=3)
    est = DualGaussSeidelClassifier(loss=loss, regularizer=regularizer, lam=1e-2, tol=1e-6,
                                    max_epochs=5000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(X, y)
    assert est.duality_gap_[0] <= 1e-6
    assert est.gap_history_[0][-1] <= 1e-6
    w = est.coef_.ravel()
    if regularizer_named(regularizer).positive:
        assert np.all(w > 0)
    if regularizer == "normalized_entropy":
        assert w.sum() == pytest.approx(est.mass_[0])  # ||w||_1 = A
    if regularizer == "balanced_normalized_entropy":
        assert np.abs(w).sum() <= est.mass_[0] * (1 + 1e-12)


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_no_overflow_or_nan_over_the_whole_lam_range(loss, regularizer):
    # Binary rows with a large value: v = (1/(lam n)) sum alpha_i z_i is huge at
    # lam = 1e-8, so a careless start (e.g. alpha = 1e-3 for the logistic loss)
    # overflows e^v and turns the balanced weights into inf - inf = nan.
    X, y = _binary(n=120, d=15, seed=4)
    X.data[:] = 1.0
    X.data[::7] = 1e3
    for lam in (1e-8, 1e-4, 1e2):
        est = DualGaussSeidelClassifier(loss=loss, regularizer=regularizer, lam=lam,
                                        max_epochs=20, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y)
        assert np.all(np.isfinite(est.coef_)), (loss, regularizer, lam)
        assert np.all(np.isfinite(est.intercept_))
        assert np.isfinite(est.duality_gap_[0]) and est.duality_gap_[0] >= 0
        assert np.all(np.isfinite(est.decision_function(X)))


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_warm_start_down_a_lam_path_stays_finite(loss, regularizer):
    # alpha from lam = 0.1 reused at lam = 1e-7 gives v a million times larger:
    # the unnormalized entropies would store mu e^v = inf (and w = inf - inf = nan)
    # unless the kernel scales the warm start back into range.
    X, y = _binary(n=150, d=20, seed=5)
    X.data[:] = 1.0
    est = DualGaussSeidelClassifier(loss=loss, regularizer=regularizer, lam=0.1,
                                    warm_start=True, max_epochs=30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
        est.set_params(lam=1e-7, max_epochs=5)
        est.fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and np.all(np.isfinite(est.dual_coef_))
    assert np.isfinite(est.duality_gap_[0]) and est.duality_gap_[0] >= 0


def test_threshold_targets_satisfy_the_optimality_condition():
    # docs/mathematics.md §7: squared hinge with t_i = gamma + y_i theta. At the optimum
    # alpha_i = -f'(u_i) = 2 (t_i - u_i)_+ with u_i = y_i w x_i.
    X, y = _binary(seed=4)
    X = (X > 0).astype(np.float64)  # binary features as in the Reuters experiment
    theta, gamma = 0.3, 0.1
    est = RegularizedWinnow(theta=theta, gamma=gamma, lam=1e-2, tol=1e-12, max_epochs=20000,
                            random_state=0).fit(X, y)
    w = est.coef_.ravel()
    assert w.sum() == pytest.approx(est.mass_[0]) and np.all(w > 0)
    u = y * (X @ w)
    t = gamma + y * theta
    assert_allclose(est.dual_coef_[0], 2 * np.maximum(t - u, 0), atol=1e-5)
    assert_allclose(est.decision_function(X), X @ w - theta)
    assert_allclose(est.intercept_, -theta)


# ---------------------------------------------------------------------------
# Labels: binary, multi-class, multi-label
# ---------------------------------------------------------------------------


def test_binary_string_labels_positive_means_second_class():
    X, y = _binary(seed=5)
    labels = np.where(y > 0, "spam", "ham")  # classes_ sorted: ham, spam
    est = DualSVM(lam=1e-2, tol=1e-8, random_state=0).fit(X, labels)
    assert_array_equal(est.classes_, ["ham", "spam"])
    num = DualSVM(lam=1e-2, tol=1e-8, random_state=0).fit(X, y)
    assert_allclose(est.coef_, num.coef_)
    scores = est.decision_function(X)
    assert scores.shape == (X.shape[0],)
    assert_array_equal(est.predict(X), np.where(scores > 0, "spam", "ham"))
    assert est.dual_coef_.shape == (1, X.shape[0])


def test_multilabel_equals_per_column_binary_fits():
    # In data order (shuffle=False) nothing is random: the multi-label fit must be
    # exactly the per-column binary fits, problem by problem.
    X, Y = _multilabel()
    est = DualSVM(lam=1e-2, tol=1e-6, shuffle=False).fit(X, Y)
    assert est.coef_.shape == (Y.shape[1], X.shape[1])
    for k in range(Y.shape[1]):
        single = DualSVM(lam=1e-2, tol=1e-6, shuffle=False).fit(X, Y[:, k])
        assert_array_equal(est.coef_[k], single.coef_[0])
        assert_array_equal(est.dual_coef_[k], single.dual_coef_[0])
        assert est.gap_history_[k][-1] <= 1e-6
    P = est.predict(X)
    assert P.shape == Y.shape and set(np.unique(P)) <= {0, 1}
    # sparse indicator in, sparse indicator out
    Ps = DualSVM(lam=1e-2, tol=1e-6, shuffle=False).fit(X, sp.csr_matrix(Y)).predict(X)
    assert sp.issparse(Ps)
    assert_array_equal(Ps.toarray(), P)


def test_multilabel_empty_prediction_and_constant_column():
    X, Y = _multilabel(seed=2)
    Y[:, 1] = 0  # a label with no positive example
    with pytest.warns(UserWarning, match=r"\[1\]"):
        est = DualSVM(lam=1e-2, random_state=0).fit(X, Y)
    assert not est.coef_[1].any() and est.intercept_[1] < 0
    P = est.predict(X)
    assert not P[:, 1].any()
    # documents no score calls positive get the empty label set
    empty = np.all(est.decision_function(X) <= 0, axis=1)
    assert_array_equal(P[empty].sum(axis=1), 0)


@pytest.mark.parametrize("est", [DualSVM(fit_intercept=True), ModifiedLeastSquares(),
                                 LargeMarginNWinnow(), RegularizedWinnow()])
def test_single_class_column_gets_the_constant_model_for_every_intercept_solver(est):
    # with the constant feature too (its weight is the bias): all-positive -> +1
    X, Y = _multilabel(seed=2)
    Y[:, 0], Y[:, 1] = 1, 0
    with pytest.warns(UserWarning, match=r"\[0, 1\]"):
        est.fit(X, Y)
    assert not est.coef_[:2].any() and not est.dual_coef_[:2].any()
    assert_array_equal(est.intercept_[:2] + est.get_params().get("theta", 0.0), [1.0, -1.0])
    P = est.predict(X)
    assert P[:, 0].all() and not P[:, 1].any()


def test_sparse_and_dense_labels_and_class_weights_give_the_same_fit():
    # each problem's labels and loss weights are built from its own column
    X, Y = _multilabel(k=5, seed=4)
    sw = np.random.RandomState(0).uniform(0.5, 2.0, X.shape[0])
    for cw in (None, "balanced", {1: 3.0, 4: 0.5}):
        dense = DualSVM(lam=1e-2, shuffle=False, class_weight=cw).fit(X, Y, sample_weight=sw)
        sparse = DualSVM(lam=1e-2, shuffle=False, class_weight=cw).fit(
            X, sp.csc_matrix(Y), sample_weight=sw)
        assert_array_equal(dense.coef_, sparse.coef_)
        assert_array_equal(dense.dual_coef_, sparse.dual_coef_)
        for k in range(Y.shape[1]):  # problem k alone
            weight, single_cw = sw.copy(), None
            if cw == "balanced":
                pos = Y[:, k] > 0
                weight[pos] *= sw.sum() / (2 * sw[pos].sum())
                weight[~pos] *= sw.sum() / (2 * sw[~pos].sum())
            elif cw is not None:  # a binary fit's dict weights the positives, class 1
                single_cw = {1: cw.get(k, 1.0)}
            single = DualSVM(lam=1e-2, shuffle=False, class_weight=single_cw).fit(
                X, Y[:, k], sample_weight=weight)
            assert_allclose(dense.coef_[k], single.coef_[0], rtol=1e-9, atol=1e-12)


def test_multiclass_one_vs_rest():
    rng = np.random.RandomState(6)
    X = sp.random(240, 20, density=0.4, random_state=rng, format="csr")
    y = np.array(["a", "b", "c"])[np.argmax(X @ rng.randn(20, 3), axis=1)]
    est = ModifiedLeastSquares(lam=1e-2, tol=1e-6, max_epochs=5000, shuffle=False).fit(X, y)
    assert_array_equal(est.classes_, ["a", "b", "c"])
    scores = est.decision_function(X)
    assert_array_equal(est.predict(X), est.classes_[np.argmax(scores, axis=1)])
    for k, c in enumerate(est.classes_):
        single = ModifiedLeastSquares(lam=1e-2, tol=1e-6, max_epochs=5000, shuffle=False).fit(X, y == c)
        assert_array_equal(est.coef_[k], single.coef_[0])
        assert_array_equal(est.intercept_[k], single.intercept_[0])
    assert est.score(X, y) > 0.8


# ---------------------------------------------------------------------------
# Threads and seeds
# ---------------------------------------------------------------------------


def test_results_do_not_depend_on_n_jobs():
    X, Y = _multilabel(k=5, seed=7)
    fits = [
        DualGaussSeidelClassifier(loss="squared_hinge", regularizer="balanced_entropy",
                                  lam=1e-2, tol=1e-4, random_state=11, n_jobs=j).fit(X, Y)
        for j in (1, 2, -1)
    ]
    for other in fits[1:]:
        assert_array_equal(other.coef_, fits[0].coef_)  # bitwise
        assert_array_equal(other.dual_coef_, fits[0].dual_coef_)
        assert_array_equal(other.n_iter_, fits[0].n_iter_)
    # and the seed matters (shuffled coordinate order): another seed, other iterates
    other_seed = DualGaussSeidelClassifier(loss="squared_hinge", regularizer="balanced_entropy",
                                           lam=1e-2, tol=1e-4, random_state=12).fit(X, Y)
    assert not np.array_equal(other_seed.dual_coef_, fits[0].dual_coef_)


def test_thread_pool_returns_in_problem_order_and_the_caller_works_too():
    import threading
    import time

    from textwin._ovr import map_problems

    caller, seen = threading.get_ident(), []
    caller_worked = threading.Event()

    def fn(k):
        if threading.get_ident() == caller:
            caller_worked.set()
        else:  # the helpers hold their problems until the caller has one, however
            # loaded the machine (a pool whose caller only waits fails below)
            caller_worked.wait(timeout=5)
        time.sleep(0.002 * (k % 3))  # uneven problems finish out of order
        seen.append((k, threading.get_ident()))
        return k * k

    assert map_problems(fn, 9, 3) == [k * k for k in range(9)]
    threads = {t for _, t in seen}
    assert sorted(k for k, _ in seen) == list(range(9)) and caller in threads
    assert len(threads) <= 3
    assert map_problems(fn, 2, 8) == [0, 1]  # no more threads than problems
    assert map_problems(fn, 0, 2) == []


def test_thread_pool_raises_the_first_failed_problem_and_starts_no_new_one():
    import threading
    import time

    from textwin._ovr import map_problems

    started, gate = [], threading.Event()

    def one_failure(k):
        started.append(k)
        if k == 0:
            gate.wait(5)  # holds its thread until problem 1 has failed
            time.sleep(0.05)  # and the pool has seen the failure
        if k == 1:
            gate.set()
            raise ValueError("problem 1")
        return k

    with pytest.raises(ValueError, match="problem 1"):
        map_problems(one_failure, 50, 2)
    assert sorted(started) == [0, 1]  # nothing began after the failure

    started.clear()
    gate.clear()

    def two_failures(k):
        started.append(k)
        if k == 0:
            gate.wait(5)
            time.sleep(0.05)
            raise KeyError("problem 0")
        gate.set()
        raise ValueError("problem 1")

    with pytest.raises(KeyError, match="problem 0"):  # the first in problem order
        map_problems(two_failures, 50, 2)
    assert sorted(started) == [0, 1]


@pytest.mark.parametrize("Y", [
    np.array([[0, 1], [1, 0], [0, 0]]),
    np.array([[0, 1], [1, 0], [0, 0]], dtype=bool),
    np.array([[0, 1], [1, 0], [0, 0]], dtype=np.uint8),
    np.array([[3, 7], [7, 3], [7, 7]]),  # two values: scikit-learn's indicator, > 0 is in
    np.array([[0, 1], [2, 0], [0, 0]]),  # three: multiclass-multioutput, refused
    np.array([[0, 1], [1, 0], [0, 0]], dtype=float),
    np.array([[1], [0], [1]]),  # one column: a column vector
])
def test_labels_shortcut_agrees_with_type_of_target(Y):
    from sklearn.utils.multiclass import type_of_target

    from textwin._ovr import is_dense_indicator

    expected = type_of_target(Y) == "multilabel-indicator"
    assert not is_dense_indicator(Y) or expected  # never says yes where sklearn says no
    if Y.dtype.kind in "biu" and Y.ndim == 2 and Y.shape[1] > 1:
        assert is_dense_indicator(Y) == expected
    X = sp.random(3, 4, density=0.9, random_state=0, format="csr")
    if expected or type_of_target(Y) in ("binary", "multiclass"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted = DualSVM(max_epochs=2, random_state=0).fit(X, Y)
        assert fitted.task_ == ("multilabel" if expected else "binary")
    else:
        with pytest.raises(ValueError, match="Unknown label type 'multiclass-multioutput'"):
            DualSVM().fit(X, Y)


@pytest.mark.parametrize("est", [DualSVM(max_epochs=2, random_state=0),
                                 DualSVM(max_epochs=2, random_state=0, n_jobs=2),
                                 ModifiedLeastSquares(max_epochs=2, random_state=0)])
def test_fit_memory_is_the_fitted_arrays_plus_o_n_plus_d_per_thread(est):
    # Training K categories holds the CSR matrix, coef_ (K x d) and
    # dual_coef_ (K x n), and O(n + d) per problem in flight; no n x K label or
    # weight tables, no list of K solutions stacked into copies at the end
    # (that was 2.7 x K 8(n + d) here).
    import tracemalloc

    n, d, K = 3000, 6000, 60
    X = sp.random(n, d, density=0.005, random_state=0, format="csr")
    Y = (np.random.RandomState(0).rand(n, K) < 0.1).astype(np.int8)
    csr = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tracemalloc.start()
        try:
            est.fit(X, Y)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    fitted = est.coef_.nbytes + est.dual_coef_.nbytes
    assert fitted == K * 8 * (n + d)
    # the constant feature of ModifiedLeastSquares is one copy of the matrix
    assert peak < 1.4 * fitted + csr


@pytest.mark.parametrize("n_jobs, fragment", [
    (0, "n_jobs == 0 has no meaning; use None or 1 for one thread, -1 for all cores"),
    (1.5, "n_jobs must be None or an integer, got 1.5"),
])
def test_n_jobs_zero_or_not_an_integer_is_refused(n_jobs, fragment):
    X, y = _binary()
    with pytest.raises(ValueError, match=f"^DualSVM: {re.escape(fragment)}"):
        DualSVM(n_jobs=n_jobs).fit(X, y)
    with pytest.raises(ValueError, match=re.escape(fragment)):
        textwin.Perceptron(n_jobs=n_jobs).fit(X, y)


def test_negative_n_jobs_counts_back_from_the_cores(monkeypatch):
    # joblib's convention: -1 all cores, -2 all but one, never fewer than one
    from textwin import _ovr

    monkeypatch.setattr(_ovr, "usable_cores", lambda: 4)
    assert [_ovr.effective_n_jobs(j) for j in (None, 1, 3, -1, -2, -4, -9)] == \
        [1, 1, 3, 4, 3, 1, 1]
    X, Y = _multilabel(k=3)
    assert_array_equal(DualSVM(n_jobs=-9, random_state=0).fit(X, Y).coef_,
                       DualSVM(n_jobs=1, random_state=0).fit(X, Y).coef_)


def test_warm_start_reuses_the_dual_variables():
    X, y = _binary(seed=8)
    cold = DualSVM(lam=1e-2, tol=1e-8, random_state=0).fit(X, y)
    est = DualSVM(lam=1e-2, tol=1e-8, random_state=0, warm_start=True).fit(X, y)
    est.fit(X, y)  # starts at the optimum
    assert est.n_iter_[0] <= 2 < cold.n_iter_[0]
    assert_allclose(est.coef_, cold.coef_, atol=1e-6)


# ---------------------------------------------------------------------------
# Warnings and errors
# ---------------------------------------------------------------------------


def test_one_convergence_warning_per_fit():
    X, Y = _multilabel(k=4)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        DualSVM(lam=1e-3, max_epochs=1, tol=1e-10, random_state=0).fit(X, Y)
    conv = [w for w in record if issubclass(w.category, ConvergenceWarning)]
    assert len(conv) == 1
    message = str(conv[0].message)
    assert "4 binary problem(s)" in message and "tol=1e-10" in message
    assert "max_epochs" in message
    # the worst gap is quoted
    est = DualSVM(lam=1e-3, max_epochs=1, tol=1e-10, random_state=0)
    with pytest.warns(ConvergenceWarning):
        est.fit(X, Y)
    assert f"{est.duality_gap_.max():.3g}" in message
    worst = int(np.argmax(est.duality_gap_))
    assert f"(problem {worst}: label column {worst})" in message


def test_the_convergence_warning_names_the_worst_class():
    X, Y = _multilabel(k=3)
    names = np.array(["ant", "bee", "cat"])
    y = names[np.argmax(np.asarray(X @ np.random.RandomState(2).randn(20, 3)), axis=1)]
    for labels in (y, np.where(y == "bee", "bee", "other")):
        est = DualSVM(lam=1e-3, max_epochs=1, tol=1e-10, random_state=0)
        with pytest.warns(ConvergenceWarning) as record:
            est.fit(X, labels)
        worst = int(np.argmax(est.duality_gap_))
        # binary: the one problem is the positive class, classes_[1]
        label = est.classes_[worst] if est.classes_.size > 2 else est.classes_[1]
        assert f"(problem {worst}: class '{label}')" in str(record[0].message)


def test_a_refit_drops_the_earlier_fits_algorithm2_attributes():
    X, y = _binary()
    est = DualSVM(fit_intercept=True, random_state=0).fit(X, y)
    assert est.intercept_solver_ == "converged" and hasattr(est, "n_rounds_")
    est.set_params(fit_intercept=False).fit(X, y)
    assert est.intercept_solver_ == "none"
    assert not hasattr(est, "intercept_residual_") and not hasattr(est, "n_rounds_")


@pytest.mark.parametrize("fmt", ["dense", "csr", "csc", "coo"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_names_the_first_entry_and_what_to_do(bad, fmt):
    X, y = _binary()
    X = X.toarray()
    X[7, 2] = np.nan
    X[3, 25] = bad  # the first in row-major order, whatever the input format
    X = X if fmt == "dense" else sp.csr_matrix(X).asformat(fmt)
    expected = rf"X contains NaN or infinite values \(the first: X\[3, 25\] = {bad}\); " \
               r"textwin's solvers need finite features: drop those rows or impute"
    for est in (DualSVM(), LargeMarginNWinnow(), textwin.Perceptron()):
        with pytest.raises(ValueError, match=expected) as info:
            est.fit(X, y)
        assert "HistGradientBoosting" not in str(info.value)
        fitted = clone(est).fit(*_binary())
        for method in (fitted.decision_function, fitted.predict):
            with pytest.raises(ValueError, match=expected):
                method(X)


def test_finite_values_whose_sum_overflows_are_accepted():
    # the quick test sums the values; 1e308 + 1e308 = inf must not be taken for inf
    X, y = _binary()
    X.data[:] = 1e308
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        DualSVM(max_epochs=2).fit(X, y).decision_function(X)


@pytest.mark.parametrize("lam", [0.0, -1.0, np.nan])
def test_lam_must_be_positive(lam):
    X, y = _binary()
    with pytest.raises(ValueError, match="lam"):
        DualSVM(lam=lam).fit(X, y)


def test_bad_loss_or_regularizer_lists_the_valid_pairs():
    X, y = _binary()
    with pytest.raises(ValueError, match=r"loss='svm'.*Valid.*\('hinge', 'square'\)"):
        DualGaussSeidelClassifier(loss="svm").fit(X, y)
    with pytest.raises(ValueError, match=r"regularizer='l1'.*'balanced_normalized_entropy'"):
        DualGaussSeidelClassifier(regularizer="l1").fit(X, y)
    with pytest.raises(ValueError, match="prior"):
        DualGaussSeidelClassifier(prior=0.1).fit(X, y)


def test_single_class_is_an_error_in_binary_mode():
    X, _ = _binary()
    with pytest.raises(ValueError, match="one class"):
        DualSVM().fit(X, np.ones(X.shape[0]))


def test_csr_conversion_downcasts_and_rejects_huge_indices():
    X, y = _binary(seed=9)
    X64 = sp.csr_matrix((X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)),
                        shape=X.shape)
    a = DualSVM(lam=1e-2, tol=1e-8, random_state=0).fit(X, y)
    b = DualSVM(lam=1e-2, tol=1e-8, random_state=0).fit(X64, y)
    assert_array_equal(a.coef_, b.coef_)
    # unsorted indices with duplicates are summed, on a copy
    Xd = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]), np.array([0, 3])),
                       shape=(1, 3))
    Xd.has_canonical_format = False
    C = as_canonical_csr(Xd)
    assert_array_equal(C.toarray(), [[2.0, 0.0, 4.0]])
    assert C.indices.dtype == np.int32 and Xd.nnz == 3
    big = sp.csr_matrix((np.array([1.0]), np.array([2**31 + 1], dtype=np.int64),
                         np.array([0, 1], dtype=np.int64)), shape=(1, 2**31 + 2))
    with pytest.raises(ValueError, match="32-bit"):
        as_canonical_csr(big)


# ---------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------


def test_presets_fix_their_loss_and_regularizer():
    X, y = _binary(seed=10)
    lam = 1e-2
    pairs = [
        (DualSVM(lam=lam, tol=1e-10, random_state=0),
         dict(loss="hinge", regularizer="square")),
        (ModifiedLeastSquares(lam=lam, tol=1e-10, max_epochs=3000, random_state=0),
         dict(loss="squared_hinge", regularizer="square", fit_intercept=True,
              intercept_solver="constant_feature")),
        (LargeMarginPerceptron(lam=lam, tol=1e-10, max_epochs=3000),
         dict(loss="hinge", regularizer="square", fit_intercept=True,
              intercept_solver="constant_feature", shuffle=False)),
        (LargeMarginUWinnow(lam=lam, tol=1e-10, max_epochs=3000),
         dict(loss="hinge", regularizer="balanced_entropy", fit_intercept=True,
              prior=0.01, shuffle=False)),
        (LargeMarginNWinnow(lam=lam, tol=1e-10, max_epochs=3000),
         dict(loss="hinge", regularizer="balanced_normalized_entropy", fit_intercept=True,
              prior=0.01, mass="prior", shuffle=False)),
    ]
    for preset, params in pairs:
        general = DualGaussSeidelClassifier(lam=lam, tol=1e-10, max_epochs=3000,
                                            random_state=0, **params)
        assert_allclose(preset.fit(X, y).coef_, general.fit(X, y).coef_, atol=1e-12)
        assert_allclose(preset.intercept_, general.intercept_, atol=1e-12)
    # LM-NWin keeps ||w+||_1 + ||w-||_1 = W = ||mu||_1 over both halves: 2 * 0.01 * (d + 1)
    nwin = pairs[-1][0]
    w_all = np.append(nwin.coef_.ravel(), nwin.intercept_)
    assert np.abs(w_all).sum() <= 2 * 0.01 * (X.shape[1] + 1) + 1e-12


def test_paper_synthetic_experiment_orders_the_methods():
    # Regularized Winnow methods, section 4 / Table 1 at d = 500: the large-margin
    # Winnows beat LM-Perc (paper: 94.0 / 94.3 vs 87.1).
    Xtr, ytr = make_winnow_data(1000, 500, random_state=0, add_constant=False)
    Xte, yte = make_winnow_data(1000, 500, random_state=1, add_constant=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the paper's 200 passes
        perc = LargeMarginPerceptron(lam=1e-2).fit(Xtr, ytr).score(Xte, yte)
        uwin = LargeMarginUWinnow(lam=1e-2).fit(Xtr, ytr).score(Xte, yte)
        nwin = LargeMarginNWinnow(lam=1e-3).fit(Xtr, ytr).score(Xte, yte)
    assert uwin > perc + 0.04 and nwin > perc + 0.04
    assert uwin > 0.92 and nwin > 0.92


def test_top_level_exports():
    for name in ("DualGaussSeidelClassifier", "DualSVM", "ModifiedLeastSquares",
                 "RegularizedWinnow", "LargeMarginPerceptron", "LargeMarginUWinnow",
                 "LargeMarginNWinnow", "Perceptron", "Winnow", "BalancedWinnow"):
        assert getattr(textwin, name).__name__ == name


def test_gradient_step_is_in_the_regularized_winnow_papers_scaling():
    # docs/mathematics.md §10: the paper's step eta on alpha / (lam n) is eta * lam * n
    # on docs/mathematics.md's alpha. Three epochs in data order against the kernel itself.
    from textwin._kernels._dual_gs import dual_gauss_seidel

    X, y = _binary(n=200, d=12, seed=11)
    lam, eta = 1e-2, 0.05
    with pytest.warns(ConvergenceWarning):
        est = DualGaussSeidelClassifier(
            loss="hinge", regularizer="balanced_entropy", lam=lam, prior=0.01, tol=1e-12,
            max_epochs=3, shuffle=False, step="gradient", gradient_step=eta).fit(X, y)
    alpha = np.zeros(X.shape[0])
    ys = np.where(y > 0, 1.0, -1.0)
    res = dual_gauss_seidel(X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32), ys,
                            np.ones_like(ys), np.ones_like(ys), alpha, X.shape[1],
                            loss="hinge", regularizer="balanced_entropy", lam=lam,
                            mu=np.full(X.shape[1], 0.01), tol=1e-12, max_epochs=3,
                            shuffle=False, step="gradient", gradient_step=eta * lam * 200)
    assert_array_equal(est.coef_[0], res["w"])
    assert_array_equal(est.dual_coef_[0], alpha)
    # and the fixed step reaches the optimum the Newton step finds
    newton = DualGaussSeidelClassifier(loss="hinge", regularizer="balanced_entropy", lam=lam,
                                       prior=0.01, tol=1e-10, max_epochs=20000,
                                       random_state=0).fit(X, y)
    fixed = DualGaussSeidelClassifier(loss="hinge", regularizer="balanced_entropy", lam=lam,
                                      prior=0.01, tol=1e-10, max_epochs=20000, step="gradient",
                                      gradient_step=eta, random_state=0).fit(X, y)
    assert_allclose(fixed.coef_, newton.coef_, atol=1e-6)
    assert newton.n_iter_[0] < fixed.n_iter_[0]


@pytest.mark.parametrize(
    "est",
    [DualGaussSeidelClassifier(loss="hinge", lam=0.1),
     DualSVM(fit_intercept=True, lam=0.1),
     LargeMarginNWinnow(lam=0.1)],
    ids=["hinge", "algorithm2", "lm-nwin"],
)
def test_sample_weight_equivalence_at_a_tight_tolerance(est):
    # scikit-learn's own check: weight k == k copies, weight 0 == row removed.
    # (The smooth losses get there too, but only to ~1e-6 in the scores at the
    # tightest tol rounding allows, above the check's rtol=1e-7: their gap is
    # quadratic in the weight error. The hinge loss's dual optimum is reached.)
    from sklearn.utils.estimator_checks import check_sample_weight_equivalence_on_sparse_data

    est.set_params(tol=1e-11, max_epochs=100000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        check_sample_weight_equivalence_on_sparse_data(type(est).__name__, est)


def test_each_problem_is_logged_at_debug_level(caplog):
    import logging

    rng = np.random.default_rng(0)
    X = sp.random(60, 8, density=0.5, format="csr", random_state=0)
    Y = (rng.random((60, 3)) < 0.4).astype(int)
    with caplog.at_level(logging.DEBUG, logger="textwin.linear"):
        DualSVM(random_state=0).fit(X, Y)
    lines = [r.getMessage() for r in caplog.records if r.name == "textwin.linear"]
    assert len(lines) == 3
    for k, line in enumerate(sorted(lines)):
        assert line.startswith(f"[DualSVM] problem {k} ({k}): ")
        assert "epochs, relative gap" in line and line.endswith(" s")
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="textwin.linear"):
        DualSVM(random_state=0).fit(X, np.where(Y[:, 0] > 0, "yes", "no"))
    assert [r.getMessage() for r in caplog.records][0].startswith("[DualSVM] problem 0 (yes): ")


def test_block_order_only_for_large_matrices_beyond_the_cache(monkeypatch):
    # docs/performance.md, "Block order: when it pays": blocks of 4 rows from
    # 120,000 rows when the CSR matrix exceeds the last-level cache, else none
    from textwin import _ovr

    big = sp.random(120_000, 50, density=0.02, format="csr", random_state=0)
    small = big[:119_999]
    monkeypatch.setattr(_ovr, "last_level_cache_bytes", lambda: 1024)
    assert _ovr.shuffle_block(big) == 4
    assert _ovr.shuffle_block(small) == 1
    monkeypatch.setattr(_ovr, "last_level_cache_bytes", lambda: 2 ** 40)
    assert _ovr.shuffle_block(big) == 1


def test_last_level_cache_is_read_or_defaults():
    from textwin._ovr import last_level_cache_bytes

    size = last_level_cache_bytes()
    assert isinstance(size, int) and 2 ** 16 <= size <= 2 ** 34


def test_append_constant_is_hstack_with_a_constant_column_in_canonical_form():
    import scipy.sparse as sp

    from textwin._ovr import append_constant

    rng = np.random.default_rng(0)
    X = sp.random(40, 9, density=0.3, format="csr", random_state=rng)
    X[[3, 17]] = 0  # empty rows
    X.eliminate_zeros()
    out = append_constant(X, 2.5)
    expected = sp.hstack([X, np.full((40, 1), 2.5)], format="csr")
    expected.sort_indices()
    assert out.shape == (40, 10) and out.indices.dtype == out.indptr.dtype == np.int32
    np.testing.assert_array_equal(out.indptr, expected.indptr)
    np.testing.assert_array_equal(out.indices, expected.indices)
    np.testing.assert_array_equal(out.data, expected.data)
    assert out.has_canonical_format  # as it says, read off a fresh matrix of its arrays
    assert sp.csr_matrix((out.data, out.indices, out.indptr), shape=out.shape).has_canonical_format


@pytest.mark.parametrize("probability", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_column_scale_is_the_fit_on_the_scaled_columns(fit_intercept, probability):
    """fit(X, y, column_scale=r) fits X with column j scaled by r_j (r of both signs, some
    0) without scaling a copy: coef_ is r times the copy's, the same intercept and
    duality gap, the model scores X as the copy's scores X diag(r), the calibration's
    folds too; X is left as it was."""
    rng = np.random.default_rng(3)
    X = sp.random(150, 30, density=0.2, format="csr", random_state=rng)
    y = np.argmax(X @ rng.normal(size=(30, 3)) + 0.3 * rng.normal(size=(150, 3)), axis=1)
    r = 2 * rng.normal(size=30)
    r[[0, 5]] = 0.0
    X_scaled = X.multiply(r).tocsr()
    before = X.copy()
    kw = dict(lam=0.03, tol=1e-7, max_epochs=5000, random_state=0, fit_intercept=fit_intercept,
              probability=probability)
    est = DualGaussSeidelClassifier(**kw).fit(X, y, column_scale=r)
    ref = DualGaussSeidelClassifier(**kw).fit(X_scaled, y)
    assert (X != before).nnz == 0
    np.testing.assert_allclose(est.coef_, ref.coef_ * r, atol=1e-6)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, atol=1e-6)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X_scaled),
                               atol=1e-6)
    if probability:
        np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X_scaled),
                                   atol=1e-5)


def test_column_scale_must_fit_the_features_and_the_square_regularizer():
    X, y = sp.random(20, 5, density=0.5, format="csr", random_state=0), np.arange(20) % 2
    with pytest.raises(ValueError, match="one finite number per feature"):
        DualGaussSeidelClassifier().fit(X, y, column_scale=np.ones(4))
    with pytest.raises(ValueError, match="one finite number per feature"):
        DualGaussSeidelClassifier().fit(X, y, column_scale=np.full(5, np.nan))
    with pytest.raises(ValueError, match="column_scale is for regularizer='square'"):
        DualGaussSeidelClassifier(regularizer="entropy").fit(X, y, column_scale=np.ones(5))

"""Regularization paths and DualGaussSeidelClassifierCV (docs/mathematics.md §13)."""
import io
import re
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold, StratifiedKFold

from _reference import conj, grad_h, h
from textwin import DualGaussSeidelClassifier, DualGaussSeidelClassifierCV, regularization_path
from textwin._losses_and_regularizers import LOSSES, REGULARIZERS, loss_named, regularizer_named
from textwin.metrics import micro_breakeven_point
from textwin.model_selection import lam_grid, lam_max



def _text_like(n=90, d=40, seed=0, n_labels=1):
    """Non-negative sparse rows of unit length; labels from a sparse linear score."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.15, random_state=seed, format="csr",
                  data_rvs=lambda k: rng.random(k) + 0.1)
    X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1) + 1e-12)))
    W = rng.normal(size=(d, n_labels)) * (rng.random((d, n_labels)) < 0.3)
    S = X @ W + 0.1 * rng.normal(size=(n, n_labels))
    Y = (S > np.median(S, axis=0)).astype(int)
    return X, (Y[:, 0] if n_labels == 1 else Y)


def _uniform_mu(reg, d):
    facts = regularizer_named(reg)
    return np.full(d, 1.0 / (2 * d if facts.balanced else d)) if facts.entropy else None


def _dual(X, y, alpha, loss, reg, lam):
    """D(alpha) of docs/mathematics.md §2 from the independent reference (t = 1 or 0, s = 1)."""
    n, d = X.shape
    t = np.full(n, loss_named(loss).default_gamma)
    Z = X.toarray() * y[:, None]
    v = Z.T @ alpha / (lam * n)
    return np.mean(conj(loss, alpha, t, 1.0)) + lam * h(reg, v, _uniform_mu(reg, d)), v


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_every_path_point_equals_a_cold_fit_to_the_gaps_precision(loss, regularizer):
    X, y01 = _text_like()
    y = 2.0 * y01 - 1
    fixed = dict(prior=None, mass=1.0)  # the uniform prior of the reference dual below
    top = lam_max(X, y01, loss=loss, regularizer=regularizer, **fixed)
    lams = top * np.logspace(0, -2, 4)
    tol = 1e-5
    path = regularization_path(X, y01, lams, loss=loss, regularizer=regularizer, tol=tol,
                               max_epochs=20000, random_state=0, **fixed)
    assert np.all(path.duality_gap <= tol)
    for l, lam in enumerate(path.lams):
        cold = DualGaussSeidelClassifier(loss=loss, regularizer=regularizer, lam=lam, tol=tol,
                                         max_epochs=20000, random_state=0, **fixed).fit(X, y01)
        D_path, v = _dual(X, y, path.dual_coef[l, 0], loss, regularizer, lam)
        D_cold, _ = _dual(X, y, cold.dual_coef_[0], loss, regularizer, lam)
        # both within their relative gap of the optimum D* = -P*
        assert abs(D_path - D_cold) <= 2.5 * tol * abs(D_cold) + 1e-12, (l, D_path, D_cold)
        # the stored weights are those of the stored dual variables: w = grad h(v)
        w = grad_h(regularizer, v, _uniform_mu(regularizer, X.shape[1]))
        np.testing.assert_allclose(path.coef[l, 0], w, rtol=1e-6, atol=1e-9)


def test_the_warm_started_path_costs_fewer_epochs_than_cold_fits():
    X, y = _text_like(n=300, d=120, seed=3)
    lams = lam_max(X, y) * np.logspace(0, -3, 7)
    path = regularization_path(X, y, lams, tol=1e-4, random_state=0)
    cold = [DualGaussSeidelClassifier(lam=lam, tol=1e-4, random_state=0).fit(X, y).n_iter_[0]
            for lam in lams]
    assert path.n_iter.sum() < 0.9 * sum(cold), (path.n_iter.ravel(), cold)


def test_lam_max_is_exact_for_the_hinge_with_the_square_regularizer():
    X, y = _text_like(seed=1)
    top = lam_max(X, y)
    above = DualGaussSeidelClassifier(lam=top * 1.001, tol=1e-10, random_state=0).fit(X, y)
    below = DualGaussSeidelClassifier(lam=top * 0.9, tol=1e-10, random_state=0).fit(X, y)
    # above: every example is a bound support vector and w is the scaled centroid
    np.testing.assert_allclose(above.dual_coef_, 1.0, atol=1e-9)
    ys = 2.0 * y - 1
    centroid = X.T @ ys / (top * 1.001 * X.shape[0])
    np.testing.assert_allclose(above.coef_[0], centroid, rtol=1e-8)
    assert below.dual_coef_.min() < 0.99


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_well_above_lam_max_the_solution_is_near_the_trivial_one(loss, regularizer):
    X, y01 = _text_like(seed=2)
    y = 2.0 * y01 - 1
    fixed = dict(prior=None, mass=1.0)  # the uniform prior of the reference below
    top = lam_max(X, y01, loss=loss, regularizer=regularizer, **fixed)
    fit = DualGaussSeidelClassifier(loss=loss, regularizer=regularizer, lam=10 * top,
                                    tol=1e-8, random_state=0, **fixed).fit(X, y01)
    n, d = X.shape
    v = X.T @ (fit.dual_coef_[0] * y) / (10 * top * n)
    mu = _uniform_mu(regularizer, d)
    w0 = grad_h(regularizer, np.zeros(d), mu) if mu is not None else np.zeros(d)
    moved = np.max(np.abs(y * (X @ (fit.coef_[0] - w0))))
    # first order: margins and exponents move by about a tenth of their scale
    assert moved <= 0.2
    if regularizer_named(regularizer).entropy:
        assert np.max(np.abs(v)) <= 0.2


def test_the_path_keeps_algorithm2s_bias_and_the_constant_feature():
    X, y = _text_like(seed=4)
    for solver in ("converged", "constant_feature"):
        lams = lam_max(X, y, fit_intercept=True, intercept_solver=solver) * np.logspace(0, -2, 3)
        path = regularization_path(X, y, lams, tol=1e-6, fit_intercept=True,
                                   intercept_solver=solver, random_state=0)
        for l, lam in enumerate(lams):
            cold = DualGaussSeidelClassifier(lam=lam, tol=1e-6, fit_intercept=True,
                                             intercept_solver=solver, random_state=0).fit(X, y)
            np.testing.assert_allclose(path.coef[l, 0], cold.coef_[0], atol=3e-2 * np.abs(
                cold.coef_).max())
            assert abs(path.intercept[l, 0] - cold.intercept_[0]) <= 3e-2 * max(
                1.0, abs(cold.intercept_[0]))


def test_path_of_multilabel_targets_solves_every_column():
    X, Y = _text_like(n_labels=3, seed=5)
    path = regularization_path(X, Y, lams=3, tol=1e-4, random_state=0)
    assert path.coef.shape == (3, 3, X.shape[1])
    assert path.lams[0] == pytest.approx(lam_max(X, Y))
    assert np.all(np.diff(path.lams) < 0)


@pytest.mark.parametrize("lams", [[1e-2, 0.0], [1e-2, -1], [np.nan], [np.inf], [], "many", 0])
def test_bad_lams_get_a_one_line_error(lams):
    X, y = _text_like()
    with pytest.raises(ValueError, match="lams") as info:
        DualGaussSeidelClassifierCV(lams=lams).fit(X, y)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="lams"):
        regularization_path(X, y, lams)


def test_lams_are_sorted_descending_and_deduplicated():
    X, y = _text_like()
    clf = DualGaussSeidelClassifierCV(lams=[1e-3, 1e-1, 1e-2, 1e-1], cv=3, random_state=0)
    clf.fit(X, y)
    np.testing.assert_array_equal(clf.lams_, [1e-1, 1e-2, 1e-3])
    assert clf.cv_scores_.shape == (3, 3)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_shows_the_searchs_estimate_not_tqdms(monkeypatch):
    X, y = _text_like()
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    DualGaussSeidelClassifierCV(lams=4, cv=3, early_stopping=False, verbose=1,
                                random_state=0).fit(X, y)
    shown = terminal.getvalue()
    assert re.search(r"about \d+ s left\]", shown)
    # tqdm's own estimate ([elapsed<left, rate]) at the rate of the fits so far is gone
    assert not re.search(r"\[\d\d:\d\d<", shown)


def test_cv_chooses_the_best_mean_fold_score_and_refits_there():
    X, y = _text_like(n=150, seed=6)
    clf = DualGaussSeidelClassifierCV(lams=lam_grid(lam_max(X, y), 5, 1e-2), cv=3,
                                      early_stopping=False, random_state=0).fit(X, y)
    # the same folds, scored independently by cold fits at each lam
    folds = list(StratifiedKFold(3).split(X, y))
    scores = np.array([[DualGaussSeidelClassifier(lam=lam, random_state=0)
                        .fit(X[tr], y[tr]).score(X[te], y[te]) for lam in clf.lams_]
                       for tr, te in folds])
    np.testing.assert_allclose(clf.cv_scores_, scores, atol=0.03)  # tol=1e-3 solutions
    assert clf.lam_[0] == clf.lams_[np.argmax(clf.cv_scores_.mean(axis=0))]
    assert clf.best_score_ == pytest.approx(clf.cv_scores_.mean(axis=0).max())
    final = DualGaussSeidelClassifier(lam=clf.lam_[0], random_state=0).fit(X, y)
    np.testing.assert_allclose(clf.coef_, final.coef_)
    assert clf.path_n_iter_.shape == (3, 1, 5)
    # cv_results_ as scikit-learn's searches give it: a row per lam, the folds' mean and
    # spread, rank 1 at the choice
    res = clf.cv_results_
    assert res["params"] == [{"problem": "all"}] * 5 and res["lam"] == list(clf.lams_)
    np.testing.assert_allclose(res["mean_test_score"], clf.cv_scores_.mean(axis=0))
    np.testing.assert_allclose(res["std_test_score"], clf.cv_scores_.std(axis=0))
    assert res["lam"][res["rank_test_score"].index(1)] == clf.lam_[0]


def test_multilabel_cv_chooses_a_lam_per_column_maximizing_micro_bep():
    X, Y = _text_like(n=200, n_labels=3, seed=7)
    grid = lam_grid(lam_max(X, Y), 4, 1e-2)
    clf = DualGaussSeidelClassifierCV(lams=grid, cv=4, early_stopping=False,
                                      scoring="micro_breakeven_point", random_state=0).fit(X, Y)
    assert clf.scoring_ == "micro_breakeven_point"
    assert clf.cv_scores_.shape == (3, 4, 4)
    assert clf.lam_.shape == (3,)
    # the pooled held-out micro-BEP of the chosen lams is the best over every
    # combination of one grid point per column
    folds = list(KFold(4).split(X))
    held = np.zeros((Y.shape[0], 3, 4))
    for tr, te in folds:
        path = regularization_path(X[tr], Y[tr], clf.lams_, random_state=0)
        for l in range(4):
            held[te, :, l] = X[te] @ path.coef[l].T + path.intercept[l]
    tp = np.zeros((3, 4))
    for tr, te in folds:
        for k in range(3):
            for l in range(4):
                tp[k, l] += micro_breakeven_point(Y[te][:, [k]], held[te, k, l][:, None],
                                                  zero_division=0.0) * Y[te, k].sum()
    best = tp.max(axis=1).sum() / Y.sum()
    assert clf.best_score_ == pytest.approx(best, abs=0.02)
    assert set(clf.lam_) <= set(clf.lams_)
    res = clf.cv_results_  # a row per column and lam
    assert [p["problem"] for p in res["params"]] == [str(k) for k in range(3) for _ in grid]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(res["mean_test_score"],
                                   np.nanmean(clf.cv_scores_, axis=1).ravel())


def test_multiclass_cv_shares_one_lam():
    rng = np.random.default_rng(0)
    X, Y = _text_like(n=180, n_labels=3, seed=8)
    y = np.array(["a", "b", "c"])[np.argmax(Y + rng.random(Y.shape), axis=1)]
    clf = DualGaussSeidelClassifierCV(lams=4, cv=3, lam_min_ratio=1e-2,
                                      random_state=0).fit(X, y)
    assert clf.scoring_ == "accuracy"
    assert np.all(clf.lam_ == clf.lam_[0]) and clf.lam_.shape == (3,)
    assert clf.predict(X).dtype == y.dtype


def test_any_scikit_learn_scorer_name_and_per_column_scores():
    X, Y = _text_like(n=160, n_labels=2, seed=9)
    clf = DualGaussSeidelClassifierCV(lams=3, cv=3, scoring="roc_auc", lam_min_ratio=1e-2,
                                      random_state=0).fit(X, Y)
    assert clf.scoring_ == "roc_auc"
    assert np.all((clf.cv_scores_ > 0.4) & (clf.cv_scores_ <= 1))
    with pytest.raises(ValueError, match="scoring"):
        DualGaussSeidelClassifierCV(lams=3, cv=3, scoring="no_such_score").fit(X, Y)


def test_results_do_not_depend_on_n_jobs():
    X, Y = _text_like(n=150, n_labels=3, seed=10)
    fits = [DualGaussSeidelClassifierCV(lams=4, cv=3, n_jobs=j, lam_min_ratio=1e-2,
                                         random_state=0).fit(X, Y)
            for j in (1, 2, 3)]
    for other in fits[1:]:
        np.testing.assert_array_equal(fits[0].cv_scores_, other.cv_scores_)
        np.testing.assert_array_equal(fits[0].lam_, other.lam_)
        np.testing.assert_array_equal(fits[0].coef_, other.coef_)
        np.testing.assert_array_equal(fits[0].path_n_iter_, other.path_n_iter_)


def test_a_fold_without_positives_is_left_out_with_a_warning_and_no_nan_score():
    X, Y = _text_like(n=120, n_labels=2, seed=11)
    Y[:, 1] = 0
    Y[[3, 50], 1] = 1  # two positives: two of the four folds hold none out
    with pytest.warns(UserWarning, match="column 1 .*folds"):
        clf = DualGaussSeidelClassifierCV(lams=3, cv=4, scoring="micro_breakeven_point",
                                          random_state=0).fit(X, Y)
    assert np.isfinite(clf.best_score_)
    assert np.isnan(clf.cv_scores_[1]).sum() == 2 * 3  # two folds x three lams
    assert np.all(np.isfinite(clf.cv_scores_[0]))


def test_more_folds_than_the_smallest_class_warns_and_more_than_samples_fails():
    X, y = _text_like(n=60, seed=12)
    y = y.copy()
    y[:] = 0
    y[:3] = 1
    with pytest.warns(UserWarning, match="fewer than the 5 folds.*Lower cv"):
        clf = DualGaussSeidelClassifierCV(lams=3, cv=5, random_state=0).fit(X, y)
    assert np.isfinite(clf.best_score_) and np.all(np.isfinite(clf.cv_scores_))
    with pytest.raises(ValueError, match="cv=61 folds but only 60 samples"):
        DualGaussSeidelClassifierCV(lams=3, cv=61).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 folds"):
        DualGaussSeidelClassifierCV(lams=3, cv=1).fit(X, y)


def test_a_refit_refused_for_its_folds_keeps_the_fitted_model_usable():
    X, y = _text_like(n=60, seed=12)
    clf = DualGaussSeidelClassifierCV(lams=3, cv=3, random_state=0).fit(X, y)
    expected = clf.decision_function(X)
    clf.set_params(cv=11)
    with pytest.raises(ValueError, match="cv=11 folds but only 10 samples"):
        clf.fit(X[:10, :-5], y[:10])  # fewer features: found only after the data's checks
    assert clf.n_features_in_ == X.shape[1]  # not the refused data's
    np.testing.assert_array_equal(clf.decision_function(X), expected)

def test_path_points_that_miss_tol_give_one_warning():
    X, y = _text_like(seed=13)
    with pytest.warns(ConvergenceWarning, match="path points stopped") as record:
        regularization_path(X, y, lams=[1e-1, 1e-5], tol=1e-12, max_epochs=3)
    assert sum(issubclass(r.category, ConvergenceWarning) for r in record) == 1


def test_no_grid_for_data_whose_trivial_solution_does_not_move():
    X = sp.csr_matrix((10, 4))
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError, match="pass lams explicitly"):
        regularization_path(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = regularization_path(X, y, lams=[1.0])
    assert np.all(path.coef == 0)


def test_an_automatic_grid_continues_below_its_bottom_while_the_best_is_there():
    X, y = _text_like(n=150, seed=21)  # the smallest lam of three scores best
    first = lam_grid(lam_max(X, y), 3, 1e-2)
    clf = DualGaussSeidelClassifierCV(lams=3, cv=3, lam_min_ratio=1e-2, early_stopping=False,
                                      random_state=0).fit(X, y)
    assert clf.lams_.size > 3
    np.testing.assert_allclose(clf.lams_[:3], first)
    np.testing.assert_allclose(np.diff(np.log(clf.lams_)), np.log(first[1] / first[0]))
    assert clf.lam_[0] != clf.lams_[-1] or clf.lams_[-1] < first[0] * 1e-8 * 10
    # the continued paths are the paths of the whole grid
    whole = DualGaussSeidelClassifierCV(lams=clf.lams_, cv=3, early_stopping=False,
                                        random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole.fit(X, y)
    np.testing.assert_allclose(whole.cv_scores_, clf.cv_scores_)
    np.testing.assert_array_equal(whole.lam_, clf.lam_)


def test_a_given_grid_whose_bottom_scores_best_says_to_search_further():
    X, y = _text_like(n=150, seed=21)
    with pytest.warns(UserWarning, match="smallest of the grid .*smaller values in lams"):
        clf = DualGaussSeidelClassifierCV(lams=lam_grid(lam_max(X, y), 3, 1e-2), cv=3,
                                          random_state=0).fit(X, y)
    assert clf.lam_[0] == clf.lams_[-1]


def test_early_stopping_leaves_out_only_lams_past_the_optimum():
    X, Y = _text_like(n=240, n_labels=3, seed=15)
    Y[:, 2] = (np.random.default_rng(0).random(240) < 0.4)  # noise: its best lam is large
    grid = lam_grid(lam_max(X, Y), 8, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a lam per column (the break-even point's): each column's path stops on its own
        full = DualGaussSeidelClassifierCV(lams=grid, cv=3, early_stopping=False,
                                           scoring="micro_breakeven_point",
                                           random_state=0).fit(X, Y)
        early = DualGaussSeidelClassifierCV(lams=grid, cv=3, scoring="micro_breakeven_point",
                                            random_state=0).fit(X, Y)
    solved = ~np.isnan(early.cv_scores_).all(axis=1)             # (problems, lams)
    assert not solved.all() and solved[:, 0].all()
    assert early.path_n_iter_.sum() < full.path_n_iter_.sum()
    # where a path went, it is the full grid's path
    mask = solved[:, None, :].repeat(3, 1)
    np.testing.assert_array_equal(early.cv_scores_[mask], full.cv_scores_[mask])
    for k in range(3):
        mean = np.nanmean(early.cv_scores_[k], axis=0)
        reached = np.flatnonzero(solved[k])
        assert early.lam_[k] == grid[reached][np.argmax(mean[reached])]
        if reached[-1] < grid.size - 1:  # stopped: its last two points were well below the best
            best = np.argmax(mean[reached])
            se = np.std(early.cv_scores_[k][:, best]) / np.sqrt(3)
            assert np.all(mean[reached[-2:]] < mean[best] - se)


def test_the_accuracy_shortcut_scores_as_scikit_learns_scorer():
    from sklearn.metrics import accuracy_score, make_scorer

    X, Y = _text_like(n=180, n_labels=3, seed=16)
    y = np.array(["a", "b", "c"])[np.argmax(Y + np.random.default_rng(1).random(Y.shape), axis=1)]
    for target in (y, y == "a"):
        fits = [DualGaussSeidelClassifierCV(lams=4, cv=3, lam_min_ratio=1e-2, scoring=scoring,
                                            random_state=0).fit(X, target)
                for scoring in (None, make_scorer(accuracy_score))]
        np.testing.assert_allclose(fits[0].cv_scores_, fits[1].cv_scores_)


def test_a_path_task_reads_the_fold_matrices_it_is_given(monkeypatch):
    # on Ray, the client cuts each fold's training rows once and ships them; the
    # workers' tasks must read those, not cut the matrix again in every process
    import textwin.model_selection._validation as V
    from textwin._distributed import Shipment
    from textwin.model_selection._paths import Problems, resolve_lams

    rng = np.random.default_rng(0)
    X = sp.random(90, 30, density=0.2, format="csr", random_state=rng)
    Y = (rng.random((90, 2)) < 0.4).astype(int)
    est = DualGaussSeidelClassifierCV(cv=3, lams=3, scoring="micro_breakeven_point",
                                        random_state=0)
    problems = Problems(est, X, Y, None)
    scoring = V.Scoring(est.scoring, est)
    folds = [V.RowsFold(problems, train, test) for train, test in est._folds(problems, Y)]
    lams = resolve_lams("test", 3, 1e-2, problems)
    cut = V.held_out_path_task(Shipment(dict(folds=folds, scoring=scoring, shared=False), "t"),
                               0, 1, 0, None, lams)
    for fold in folds:
        fold.cut()  # as FoldPaths does on Ray
    monkeypatch.setattr(V, "as_canonical_csr", lambda X: pytest.fail("cut again"))
    shipped = V.held_out_path_task(Shipment(dict(folds=folds, scoring=scoring, shared=False),
                                            "t"), 0, 1, 0, None, lams)
    assert [p[4] for p in shipped[0]] == [p[4] for p in cut[0]]
    np.testing.assert_array_equal(shipped[1][0], cut[1][0])


def test_a_label_with_few_held_out_positives_takes_the_lam_of_the_others():
    # a break-even point over 4 positives moves in steps of a quarter: such a column's
    # own curve cannot choose; it takes the lam best on average over those that can
    rng = np.random.default_rng(3)
    n, d = 400, 60
    X = sp.random(n, d, density=0.15, format="csr", random_state=rng)
    S = np.asarray(X @ rng.normal(size=(d, 3))) + 0.5 * rng.normal(size=(n, 3))
    Y = np.zeros((n, 3), dtype=int)
    Y[:, 0] = S[:, 0] > np.quantile(S[:, 0], 0.6)
    Y[np.argsort(-S[:, 1])[:4], 1] = 1  # four positives in all
    Y[np.argsort(-S[:, 2])[:6], 2] = 1
    est = DualGaussSeidelClassifierCV(lams=8, cv=4, random_state=0, early_stopping=False,
                                      scoring="micro_breakeven_point")
    with pytest.warns(UserWarning, match=r"2 label column\(s\) \(1, 2\) have fewer than 10 "
                                         r"held-out positives"):
        est.fit(X, Y)
    assert est.lam_[1] == est.lam_[2] == est.lam_[0]
    assert est.lam_[0] != est.lams_[0]  # the column that chooses did not take the top


def test_held_out_path_scores_are_the_path_models_scores():
    from sklearn.datasets import make_classification

    from textwin.model_selection import held_out_path_scores

    X, y = make_classification(300, 20, n_informative=5, n_classes=3, random_state=0)
    X /= np.linalg.norm(X, axis=1)[:, None]
    lams = [1e-1, 1e-2]
    held = held_out_path_scores(X[:200], y[:200], X[200:], lams, tol=1e-6, random_state=0)
    path = regularization_path(X[:200], y[:200], lams, tol=1e-6, random_state=0)
    expected = np.einsum("nd,lkd->lnk", X[200:], path.coef) + path.intercept[:, None, :]
    assert held.scores.shape == (2, 100, 3)
    np.testing.assert_allclose(held.scores, expected, atol=1e-12)
    np.testing.assert_array_equal(held.n_iter, path.n_iter)
    with pytest.raises(ValueError, match="X_held_out has 3 features, X has 20"):
        held_out_path_scores(X[:200], y[:200], X[200:, :3], lams)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_a_path_solved_in_pieces_gives_the_whole_paths_points(fit_intercept):
    from sklearn.datasets import make_classification

    from textwin.model_selection import held_out_path_scores

    X, y = make_classification(300, 20, n_informative=5, n_classes=3, random_state=0)
    X /= np.linalg.norm(X, axis=1)[:, None]
    lams = np.logspace(-1, -3.5, 6)
    p = dict(tol=1e-6, random_state=0, fit_intercept=fit_intercept, max_epochs=20000)
    whole = held_out_path_scores(X[:200], y[:200], X[200:], lams, **p)
    pieces, state = [], None
    for part in (lams[:2], lams[2:3], lams[3:]):
        pieces.append(held_out_path_scores(X[:200], y[:200], X[200:], part, warm_start=state,
                                           **p))
        state = pieces[-1].state
    # each piece starts where the last stopped, rescaled as between two points of one path
    np.testing.assert_array_equal(np.concatenate([q.scores for q in pieces]), whole.scores)
    np.testing.assert_array_equal(np.concatenate([q.n_iter for q in pieces]), whole.n_iter)
    with pytest.raises(ValueError, match="ended at lam=0.000316228; continue it below, not at lam=0.1"):
        held_out_path_scores(X[:200], y[:200], X[200:], lams[:1], warm_start=state, **p)
    with pytest.raises(ValueError, match="not the state of a path of these 3 problems on 150"):
        held_out_path_scores(X[:150], y[:150], X[200:], lams[3:], warm_start=pieces[0].state,
                             **p)
    with pytest.raises(ValueError, match="warm_start was solved with other parameters"):
        held_out_path_scores(X[:200], y[:200], X[200:], lams[3:], warm_start=pieces[1].state,
                             **{**p, "loss": "logistic"})


def test_a_path_continued_on_the_same_matrix_prepares_it_once():
    from textwin.model_selection import held_out_path_scores

    rng = np.random.default_rng(0)
    X, y = rng.random((60, 5)), rng.integers(0, 2, 60)
    first = held_out_path_scores(X, y, X, [1e-1], random_state=0)
    same = held_out_path_scores(X, y.copy(), X, [1e-2], warm_start=first.state, random_state=0)
    other = held_out_path_scores(X.copy(), y, X, [1e-2], warm_start=first.state, random_state=0)
    prepared = first.state.prepared.problems
    assert same.state.prepared.problems is prepared  # validated and copied once
    assert other.state.prepared.problems is not prepared
    np.testing.assert_array_equal(same.scores, other.scores)
    with pytest.raises(ValueError, match="warm_start was solved on other labels"):
        held_out_path_scores(X, 1 - y, X, [1e-2], warm_start=first.state, random_state=0)
    first.state.prepared = None  # let the copy go: the next piece prepares its own
    again = held_out_path_scores(X, y, X, [1e-2], warm_start=first.state, random_state=0)
    assert again.state.prepared.problems is not prepared
    np.testing.assert_array_equal(again.scores, same.scores)


def test_a_path_continues_with_a_sparse_indicator_matrix_of_labels():
    import scipy.sparse as sp

    from textwin.model_selection import held_out_path_scores

    rng = np.random.default_rng(0)
    X, Y = rng.random((60, 5)), (rng.random((60, 3)) < 0.4).astype(int)
    lams = [1e-1, 1e-2]
    whole = held_out_path_scores(X, sp.csr_matrix(Y), X, lams, random_state=0)
    first = held_out_path_scores(X, sp.csr_matrix(Y), X, lams[:1], random_state=0)
    rest = held_out_path_scores(X, sp.csr_matrix(Y), X, lams[1:], warm_start=first.state,
                                random_state=0)
    # the same labels, as a new matrix
    assert rest.state.prepared.problems is first.state.prepared.problems
    np.testing.assert_array_equal(rest.scores, whole.scores[1:])
    with pytest.raises(ValueError, match="warm_start was solved on other labels"):
        held_out_path_scores(X, sp.csr_matrix(1 - Y), X, lams[1:], warm_start=first.state,
                             random_state=0)


def test_a_path_is_past_its_best_at_two_points_a_standard_error_below_it():
    from textwin.model_selection._choice import past_the_best

    mean = np.array([[0.5, 0.8, 0.7, 0.6],     # two below 0.8 - 0.02: past
                     [0.5, 0.8, 0.7, 0.79],    # the last within a standard error
                     [0.5, 0.6, 0.8, 0.5],     # one point after the best
                     [0.9, 0.8, 0.85, 0.6],    # the best first
                     [0.5, 0.6, 0.7, 0.8]])    # still rising
    assert past_the_best(mean, np.full(mean.shape, 0.02)).tolist() == [
        True, False, False, True, False]
    # the best's own standard error is the margin, in n_se of them
    assert not past_the_best(mean[:1], np.array([[0.0, 0.25, 0.0, 0.0]]))[0]
    assert past_the_best(mean[1:2], np.full((1, 4), 0.02), n_se=0)[0]


def test_both_searches_stop_by_one_rule_parameterised():
    from textwin.model_selection._choice import shared_choice, stopped, turned

    mean = np.array([[0.5, 0.8, 0.7, 0.6],     # the best two lams back, both far below
                     [0.5, 0.8, 0.8, 0.8],     # ties: the best is the first
                     [0.5, 0.8, 0.79, 0.6],    # the last but one within the margin
                     [0.5, 0.6, 0.7, 0.8]])    # still rising
    se = np.full(mean.shape, 0.02)
    assert stopped(mean, se, patience=1).tolist() == [True, True, True, False]
    assert stopped(mean, se, patience=2).tolist() == [True, True, True, False]
    assert stopped(mean, se, patience=2, margin=1.0).tolist() == [True, False, False, False]
    # one standard error: the largest lam within it of the best (0.79 >= 0.8 - 0.02)
    assert stopped(mean[2:3], se[2:3], patience=2, one_se=True).tolist() == [True]
    assert stopped(np.array([[0.5, 0.79, 0.8]]), np.full((1, 3), 0.02),
                   patience=1, one_se=True).tolist() == [True]
    assert stopped(np.array([[0.5, 0.79, 0.8]]), np.full((1, 3), 0.02),
                   patience=1).tolist() == [False]
    # TextClassifierCV's turn: the lam its choice takes (shared_choice) is not the last
    rng = np.random.default_rng(0)
    for _ in range(50):
        whole = np.round(rng.random((5, int(rng.integers(1, 7)))), 1)  # ties too
        for one_se in (False, True):
            assert turned(whole, one_se) == (shared_choice(whole, one_se)[0]
                                             < whole.shape[1] - 1)


# ---------------------------------------------------------------------------
# The choice for the model's own decision (select_lam)
# ---------------------------------------------------------------------------


def _random_path_scores(n=120, K=4, L=5, F=4, seed=0):
    """Out-of-fold path scores whose quality varies by lam, labels and folds."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, K)) < np.linspace(0.1, 0.5, K)).astype(int)
    quality = rng.random(L)
    S = (quality[None, None, :] * (2 * Y[:, :, None] - 1) + rng.normal(size=(n, K, L))
         - rng.random((1, K, 1)))
    return S, Y, np.arange(n) % F


@pytest.mark.parametrize("scoring, average", [("micro-f1", "micro"), ("macro-f1", "macro")])
def test_select_lam_scores_each_fold_at_score_zero_as_scikit_learn(scoring, average):
    from sklearn.metrics import f1_score
    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores()
    choice = select_lam(S, Y, fold_of, task="multilabel", scoring=scoring)
    expected = np.array([[f1_score(Y[fold_of == f], S[fold_of == f, :, l] > 0, average=average,
                                   zero_division=np.nan) for l in range(S.shape[2])]
                         for f in range(4)])
    np.testing.assert_allclose(choice.fold_scores, expected)
    assert choice.index == np.argmax(expected.mean(axis=0))
    np.testing.assert_array_equal(choice.thresholds, 0.0)


def test_tuned_thresholds_are_scored_on_folds_they_did_not_see():
    from textwin.metrics import f1_thresholds
    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores(seed=1)
    choice = select_lam(S, Y, fold_of, task="multilabel", rule="f1")
    expected = np.empty((4, S.shape[2]))
    for f in range(4):
        own, others = fold_of == f, fold_of != f
        for l in range(S.shape[2]):
            t = f1_thresholds(Y[others], S[others, :, l])
            P, T = S[own, :, l] > t, Y[own] > 0
            tp, fp, fn = (P & T).sum(), (P & ~T).sum(), (~P & T).sum()
            expected[f, l] = 2 * tp / (2 * tp + fp + fn)
    np.testing.assert_allclose(choice.fold_scores, expected)
    # the model's thresholds: tuned on every out-of-fold score at the chosen lam
    np.testing.assert_allclose(choice.thresholds, f1_thresholds(Y, S[:, :, choice.index]))


def test_a_label_with_fewer_positives_than_folds_keeps_threshold_zero():
    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores(seed=2)
    Y[:, 0] = 0
    Y[[5, 6, 7], 0] = 1  # three positives, four folds: some fold trained on one or none
    S[:, 0, :] -= 1.0    # its scores all below 0: a tuned threshold would fall below them
    choice = select_lam(S, Y, fold_of, task="multilabel", rule="f1")
    assert choice.thresholds[0] == 0.0 and np.all(choice.thresholds[1:] != 0.0)


def test_single_label_tasks_score_the_argmax_and_both_binary_classes():
    from sklearn.metrics import accuracy_score, f1_score
    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores(K=3, seed=3)
    y = np.argmax(S[:, :, 2] + np.random.default_rng(0).normal(size=(120, 3)), axis=1)
    Y1 = np.eye(3, dtype=int)[y]
    multi = select_lam(S, Y1, fold_of, task="multiclass", scoring="macro-f1")
    binary = select_lam(S[:, :1], y == 0, fold_of, task="binary", scoring="macro-f1")
    acc = select_lam(S, Y1, fold_of, task="multiclass")
    for f in range(4):
        rows = fold_of == f
        for l in range(S.shape[2]):
            pred = np.argmax(S[rows, :, l], axis=1)
            assert multi.fold_scores[f, l] == pytest.approx(
                f1_score(y[rows], pred, average="macro", labels=np.unique(
                    np.r_[y[rows], pred])))
            assert acc.fold_scores[f, l] == pytest.approx(accuracy_score(y[rows], pred))
            assert binary.fold_scores[f, l] == pytest.approx(
                f1_score(y[rows] == 0, S[rows, 0, l] > 0, average="macro"))
    with pytest.raises(ValueError, match="multi-class model gives the class"):
        select_lam(S, Y1, fold_of, task="multiclass", rule="f1")


def test_one_standard_error_takes_the_largest_lam_the_folds_cannot_tell_from_the_best():
    from textwin.model_selection._choice import shared_choice

    whole = np.array([[.80, .85, .86], [.70, .86, .84], [.82, .86, .88], [.78, .85, .86]])
    best, mean, se = shared_choice(whole, one_se=False)
    assert best == 2 and se[2] == pytest.approx(np.std(whole[:, 2]) / 2)
    # lam 1 scores .855, within one standard error (.0071) of lam 2's .86
    assert shared_choice(whole, one_se=True)[0] == 1


def test_the_cv_estimator_chooses_one_lam_by_micro_f1_at_its_own_decision():
    from sklearn.metrics import f1_score

    X, Y = _text_like(n=200, n_labels=3, seed=7)
    grid = lam_grid(lam_max(X, Y), 4, 1e-2)
    clf = DualGaussSeidelClassifierCV(lams=grid, cv=4, early_stopping=False,
                                      random_state=0).fit(X, Y)
    assert clf.scoring_ == "micro-f1" and clf.cv_scores_.shape == (4, 4)
    assert np.all(clf.lam_ == clf.lam_[0]) and not hasattr(clf, "thresholds_")
    scores = np.array([[f1_score(Y[te], DualGaussSeidelClassifier(lam=lam, random_state=0)
                                 .fit(X[tr], Y[tr]).predict(X[te]), average="micro")
                        for lam in grid] for tr, te in KFold(4).split(X)])
    np.testing.assert_allclose(clf.cv_scores_, scores, atol=0.03)  # tol=1e-3 solutions
    assert clf.lam_[0] == grid[np.argmax(clf.cv_scores_.mean(axis=0))]


def test_the_cv_estimator_with_tuned_thresholds_predicts_above_them():
    from textwin.metrics import f1_thresholds

    X, Y = _text_like(n=200, n_labels=3, seed=8)
    Y[:, 2] = Y[:, 2] * (np.arange(200) % 3 == 0)  # a rarer label
    clf = DualGaussSeidelClassifierCV(lams=4, lam_min_ratio=1e-2, cv=4, thresholds="f1",
                                      random_state=0).fit(X, Y)
    held = np.zeros(Y.shape)
    for tr, te in KFold(4).split(X):
        fold = DualGaussSeidelClassifier(lam=clf.lam_[0], random_state=0).fit(X[tr], Y[tr])
        held[te] = fold.decision_function(X[te])
    np.testing.assert_allclose(clf.thresholds_, f1_thresholds(Y, held), atol=0.05)
    assert np.any(clf.thresholds_ != 0)
    np.testing.assert_array_equal(clf.predict(X), clf.decision_function(X) > clf.thresholds_)
    with pytest.raises(ValueError, match="thresholds='f1' is scored by textwin's own"):
        DualGaussSeidelClassifierCV(lams=3, cv=3, thresholds="f1", scoring="roc_auc").fit(X, Y)


def test_a_grid_anchored_on_a_lam_passes_through_it_below_lam_max():
    X, Y = _text_like(n=150, n_labels=2, seed=9)
    top = lam_max(X, Y)
    anchor = top / 37.0
    clf = DualGaussSeidelClassifierCV(lams=6, lam_min_ratio=1e-3, lam_anchor=anchor, cv=3,
                                      early_stopping=False, random_state=0).fit(X, Y)
    plain = lam_grid(top, 6, 1e-3)
    assert np.isclose(clf.lams_, anchor).any()
    assert clf.lams_[0] <= top and clf.lams_[0] > plain[1]
    np.testing.assert_allclose(clf.lams_[:-1] / clf.lams_[1:], plain[0] / plain[1])

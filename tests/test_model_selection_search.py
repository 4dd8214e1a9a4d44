"""DualGaussSeidelClassifierCV (textwin/model_selection/_search.py): lam chosen by
cross-validation, per column or shared, refitted; its folds' warnings, its grids and its
early stop."""
import io
import re
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _model_selection_data import text_like
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold, StratifiedKFold

from textwin import DualGaussSeidelClassifier, DualGaussSeidelClassifierCV, regularization_path
from textwin.metrics import micro_breakeven_point
from textwin.model_selection import lam_grid, lam_max


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_shows_the_searchs_estimate_not_tqdms(monkeypatch):
    X, y = text_like()
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    DualGaussSeidelClassifierCV(lams=4, cv=3, early_stopping=False, verbose=1,
                                random_state=0).fit(X, y)
    shown = terminal.getvalue()
    assert re.search(r"about \d+ s left\]", shown)
    # tqdm's own estimate ([elapsed<left, rate]) at the rate of the fits so far is gone
    assert not re.search(r"\[\d\d:\d\d<", shown)


def test_cv_chooses_the_best_mean_fold_score_and_refits_there():
    X, y = text_like(n=150, seed=6)
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
    X, Y = text_like(n=200, n_labels=3, seed=7)
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
    X, Y = text_like(n=180, n_labels=3, seed=8)
    y = np.array(["a", "b", "c"])[np.argmax(Y + rng.random(Y.shape), axis=1)]
    clf = DualGaussSeidelClassifierCV(lams=4, cv=3, lam_min_ratio=1e-2,
                                      random_state=0).fit(X, y)
    assert clf.scoring_ == "accuracy"
    assert np.all(clf.lam_ == clf.lam_[0]) and clf.lam_.shape == (3,)
    assert clf.predict(X).dtype == y.dtype


def test_any_scikit_learn_scorer_name_and_per_column_scores():
    X, Y = text_like(n=160, n_labels=2, seed=9)
    clf = DualGaussSeidelClassifierCV(lams=3, cv=3, scoring="roc_auc", lam_min_ratio=1e-2,
                                      random_state=0).fit(X, Y)
    assert clf.scoring_ == "roc_auc"
    assert np.all((clf.cv_scores_ > 0.4) & (clf.cv_scores_ <= 1))
    with pytest.raises(ValueError, match="scoring"):
        DualGaussSeidelClassifierCV(lams=3, cv=3, scoring="no_such_score").fit(X, Y)


def test_results_do_not_depend_on_n_jobs():
    X, Y = text_like(n=150, n_labels=3, seed=10)
    fits = [DualGaussSeidelClassifierCV(lams=4, cv=3, n_jobs=j, lam_min_ratio=1e-2,
                                         random_state=0).fit(X, Y)
            for j in (1, 2, 3)]
    for other in fits[1:]:
        np.testing.assert_array_equal(fits[0].cv_scores_, other.cv_scores_)
        np.testing.assert_array_equal(fits[0].lam_, other.lam_)
        np.testing.assert_array_equal(fits[0].coef_, other.coef_)
        np.testing.assert_array_equal(fits[0].path_n_iter_, other.path_n_iter_)


def test_a_fold_without_positives_is_left_out_with_a_warning_and_no_nan_score():
    X, Y = text_like(n=120, n_labels=2, seed=11)
    Y[:, 1] = 0
    Y[[3, 50], 1] = 1  # two positives: two of the four folds hold none out
    with pytest.warns(UserWarning, match="column 1 .*folds"):
        clf = DualGaussSeidelClassifierCV(lams=3, cv=4, scoring="micro_breakeven_point",
                                          random_state=0).fit(X, Y)
    assert np.isfinite(clf.best_score_)
    assert np.isnan(clf.cv_scores_[1]).sum() == 2 * 3  # two folds x three lams
    assert np.all(np.isfinite(clf.cv_scores_[0]))


def test_more_folds_than_the_smallest_class_warns_and_more_than_samples_fails():
    X, y = text_like(n=60, seed=12)
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
    X, y = text_like(n=60, seed=12)
    clf = DualGaussSeidelClassifierCV(lams=3, cv=3, random_state=0).fit(X, y)
    expected = clf.decision_function(X)
    clf.set_params(cv=11)
    with pytest.raises(ValueError, match="cv=11 folds but only 10 samples"):
        clf.fit(X[:10, :-5], y[:10])  # fewer features: found only after the data's checks
    assert clf.n_features_in_ == X.shape[1]  # not the refused data's
    np.testing.assert_array_equal(clf.decision_function(X), expected)


def test_path_points_that_miss_tol_give_one_warning():
    X, y = text_like(seed=13)
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
    X, y = text_like(n=150, seed=21)  # the smallest lam of three scores best
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
    X, y = text_like(n=150, seed=21)
    with pytest.warns(UserWarning, match="smallest of the grid .*smaller values in lams"):
        clf = DualGaussSeidelClassifierCV(lams=lam_grid(lam_max(X, y), 3, 1e-2), cv=3,
                                          random_state=0).fit(X, y)
    assert clf.lam_[0] == clf.lams_[-1]


def test_early_stopping_leaves_out_only_lams_past_the_optimum():
    X, Y = text_like(n=240, n_labels=3, seed=15)
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

    X, Y = text_like(n=180, n_labels=3, seed=16)
    y = np.array(["a", "b", "c"])[np.argmax(Y + np.random.default_rng(1).random(Y.shape), axis=1)]
    for target in (y, y == "a"):
        fits = [DualGaussSeidelClassifierCV(lams=4, cv=3, lam_min_ratio=1e-2, scoring=scoring,
                                            random_state=0).fit(X, target)
                for scoring in (None, make_scorer(accuracy_score))]
        np.testing.assert_allclose(fits[0].cv_scores_, fits[1].cv_scores_)


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


def test_the_cv_estimator_chooses_one_lam_by_micro_f1_at_its_own_decision():
    from sklearn.metrics import f1_score

    X, Y = text_like(n=200, n_labels=3, seed=7)
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

    X, Y = text_like(n=200, n_labels=3, seed=8)
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
    X, Y = text_like(n=150, n_labels=2, seed=9)
    top = lam_max(X, Y)
    anchor = top / 37.0
    clf = DualGaussSeidelClassifierCV(lams=6, lam_min_ratio=1e-3, lam_anchor=anchor, cv=3,
                                      early_stopping=False, random_state=0).fit(X, Y)
    plain = lam_grid(top, 6, 1e-3)
    assert np.isclose(clf.lams_, anchor).any()
    assert clf.lams_[0] <= top and clf.lams_[0] > plain[1]
    np.testing.assert_allclose(clf.lams_[:-1] / clf.lams_[1:], plain[0] / plain[1])


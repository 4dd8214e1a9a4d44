"""The out-of-fold engine (textwin/model_selection/_validation.py): every (fold, problem)
path, continued in pieces, scores its held-out rows as held_out_path_scores does."""
import numpy as np
import pytest
import scipy.sparse as sp

from textwin import DualGaussSeidelClassifierCV
from textwin.model_selection import held_out_path_scores
from textwin.model_selection._paths import Problems
from textwin.model_selection._validation import FoldPaths, MatrixFold, RowsFold, matrix_folds
from textwin.linear import DualGaussSeidelClassifier


def _data(n=120, d=40, K=3, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", random_state=rng)
    S = X @ rng.normal(size=(d, K))
    return X, (S > np.quantile(S, 0.6, axis=0)).astype(int)


def test_rows_folds_score_as_held_out_path_scores_on_the_folds_rows():
    X, Y = _data()
    folds = [(np.arange(40, 120), np.arange(40)), (np.arange(80), np.arange(80, 120))]
    problems = Problems(DualGaussSeidelClassifier(random_state=1), X, Y, None)
    lams = np.array([1e-1, 1e-2, 1e-3])
    run = FoldPaths([RowsFold(problems, tr, te) for tr, te in folds], None, True, 120, 3, 2)
    run.extend(lams[:2])
    run.extend(lams[2:])  # continued where the first piece stopped
    oof = run.out_of_fold(slice(0, 3))
    for train, test in folds:
        path = held_out_path_scores(X[train], Y[train], X[test], lams, random_state=1)
        np.testing.assert_allclose(oof[test], np.transpose(path.scores, (1, 2, 0)),
                                   rtol=1e-9, atol=1e-12)


def test_matrix_folds_take_lam_per_training_text_and_constant_classes():
    X, Y = _data(K=3, seed=2)
    Y = np.eye(3, dtype=int)[np.argmax(Y + np.arange(3) * 1e-3, axis=1)]
    Y[:, 2] = 0
    Y[:5] = [0, 0, 1]  # class 2 only in the first five texts
    folds = [(np.arange(20, 120), np.arange(20)), (np.arange(60), np.arange(60, 120))]
    scores = np.full((120, 3, 2), np.nan)
    params = dict(loss="hinge", random_state=0)
    parts = matrix_folds([(X[tr], X[te]) for tr, te in folds], Y, "multiclass", folds, False,
                         scores, params)
    assert [list(p.columns) for p in parts] == [[0, 1], [0, 1, 2]]
    assert np.isneginf(scores[:20, 2]).all()  # the first fold trains without class 2
    run = FoldPaths(parts, None, True, 120, 3, None)
    lam_n = np.array([1.0, 0.1])
    run.extend(lam_n)
    run.out_of_fold(slice(0, 2), out=scores)
    train, test = folds[1]
    path = held_out_path_scores(X[train], np.argmax(Y[train], axis=1), X[test],
                                lam_n / train.size, **params)
    np.testing.assert_array_equal(scores[test], np.transpose(path.scores, (1, 2, 0)))
    held_out = np.r_[0:20, 60:120]  # every held-out row scored, the others left alone
    assert not np.isnan(scores[held_out]).any() and np.isnan(scores[20:60]).all()
    assert isinstance(parts[0], MatrixFold)


def test_scores_written_where_given_are_those_kept_by_the_engine():
    # the search's paths write their held-out scores into its own array as they come,
    # rather than keeping a second copy of every text's scores at every lam
    X, Y = _data(K=3, seed=4)
    folds = [(np.arange(30, 120), np.arange(30)), (np.arange(90), np.arange(90, 120)),
             (np.r_[0:30, 90:120], np.arange(30, 90))]
    lam_n = np.array([3.0, 1.0, 0.3, 0.1])
    params = dict(loss="hinge", fit_intercept=True, intercept_solver="constant_feature",
                  random_state=0)

    def run(out):
        scores = np.full((120, 3, 4), np.nan)
        parts = matrix_folds([(X[tr], X[te]) for tr, te in folds], Y, "multilabel", folds,
                             False, scores, params)
        paths = FoldPaths(parts, None, True, 120, 3, 2, out=scores if out else None)
        paths.extend(lam_n[:1])
        paths.extend(lam_n[1:])  # continued at the right lams
        if not out:
            paths.out_of_fold(slice(0, 4), out=scores)
        assert all(h.size == 0 for h in paths.held) == out
        return scores

    kept, direct = run(False), run(True)
    assert not np.isnan(kept).any()
    np.testing.assert_array_equal(direct, kept)


def test_path_points_skip_the_fits_degeneracy_pass_and_equal_a_diagnosed_solve(monkeypatch):
    """A path's points are read for their weights and scores only: they make no pass over
    the rows for the fit's degeneracy warnings (score_spread, ~8 % of a search), and their
    solutions are those of a solve that makes it."""
    import textwin._binary as binary
    from textwin.model_selection._paths import solve_path

    X, Y = _data(K=1, seed=3)
    for reg in ("square", "entropy"):
        problems = Problems(DualGaussSeidelClassifier(regularizer=reg, random_state=1), X,
                            Y[:, 0], None)
        views = problems.own_views()
        y, weight = problems.rows(0)
        lams = np.array([1e-1, 1e-2])
        diagnosed = []  # each point of the path, solved alone with the diagnostics
        alpha = np.zeros(problems.n)
        for lam in lams:
            alpha = alpha * 0.0
            out = binary.solve_binary_problem(views[0], y, weight, alpha,
                                              problems.at(lam, problems.n), 7,
                                              X_square=views[1])
            assert "spread" in out  # a fit's solve reads them
            diagnosed.append(out)

        def refused(*args, **kwargs):
            raise AssertionError("a path's point made the diagnostics' pass")

        with monkeypatch.context() as m:
            m.setattr(binary, "score_spread", refused)
            m.setattr(binary, "degeneracy", refused)
            points = []
            for lam in lams:  # each point cold, as the diagnosed solves above
                solve_path(problems, views, problems.X, y, weight, np.array([lam]), 7,
                           lambda l, out, a, b: points.append(out),
                           (np.zeros(problems.n), 0.0))
        for out, ref in zip(points, diagnosed):
            assert "spread" not in out and out["n_epochs"] == ref["n_epochs"]
            np.testing.assert_array_equal(out["w"], ref["w"])


def test_naive_bayes_folds_solve_on_the_folds_matrices_and_score_as_scaled_copies():
    """With the naive Bayes scaling a fold's problem is that of its scaled columns, solved on
    the fold's own matrices (the ratios as the solver's per-feature scale): the built
    problem holds A itself and scores B itself, no scaled copy of either, and its held-out
    scores are those of the path on the scaled copies (docs/mathematics.md §5)."""
    from textwin.feature_selection import nb_ratios, scale_columns

    X, Y = _data(K=3, seed=5)
    X.data = np.ceil(3 * X.data)  # counts, as a text's
    folds = [(np.arange(40, 120), np.arange(40)), (np.arange(80), np.arange(80, 120))]
    matrices = [(X[tr], X[te]) for tr, te in folds]
    scores = np.full((120, 3, 3), np.nan)
    params = dict(loss="hinge", fit_intercept=True, intercept_solver="constant_feature",
                  random_state=0)
    parts = matrix_folds(matrices, Y, "multilabel", folds, True, scores, params)
    assert len(parts) == 6  # one per (fold, class)
    problems, _, (views, X_train, X_test) = parts[0].build()
    A, B = matrices[0]
    assert X_train is A and X_test.data is B.data and problems.X_user is A
    assert views[0].data is A.data  # the kernel reads the fold's own values
    lam_n = np.array([3.0, 0.3, 0.03])
    run = FoldPaths(parts, None, True, 120, 3, 2)
    run.extend(lam_n[:1])
    run.extend(lam_n[1:])
    run.out_of_fold(slice(0, 3), out=scores)
    for (train, test), (A, B) in zip(folds, matrices):
        for k in range(3):
            r = nb_ratios(A, Y[train, k])
            path = held_out_path_scores(scale_columns(A, r), Y[train, k], scale_columns(B, r),
                                        lam_n / train.size, **params)
            np.testing.assert_allclose(scores[test, k], path.scores[:, :, 0].T,
                                       rtol=1e-8, atol=1e-10)


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


def test_paths_continued_from_their_kept_nonzeros_equal_paths_solved_in_one_go():
    # between pieces each path keeps where it stopped as its nonzero dual variables only
    # (most are 0 on rare classes); the next piece starts from the same vector, so the
    # scores are those of one piece over every lam, to the last bit
    X, Y = _data(n=300, K=4)
    Y[:, 3] = (np.arange(300) % 29 == 0)  # a rare class: its dual variables mostly 0
    folds = [(np.arange(100, 300), np.arange(100)), (np.arange(200), np.arange(200, 300))]
    problems = Problems(DualGaussSeidelClassifier(random_state=1), X, Y, None)
    lams = np.array([3e-2, 1e-2, 3e-3, 1e-3])
    runs = []
    for cut in (0, 1, 2):
        run = FoldPaths([RowsFold(problems, tr, te) for tr, te in folds], None, True, 300, 4, 1)
        for piece in ([lams] if cut == 0 else [lams[:cut], lams[cut:]]):
            run.extend(piece)
        runs.append(run)
    for run in runs[1:]:
        np.testing.assert_array_equal(run.out_of_fold(slice(0, 4)),
                                      runs[0].out_of_fold(slice(0, 4)))
    rare = [stop for stop, (p, k) in zip(runs[1].state, runs[1].tasks) if k == 3]
    assert all(stop.index is not None for stop in rare)
    assert all(stop.index.nbytes + stop.value.nbytes < stop.size * 8 / 3 for stop in rare)


def test_large_folds_are_solved_one_at_a_time_with_the_same_scores(monkeypatch):
    # two threads on a fold's problems: the next fold's start once they are all done, so
    # that two folds' matrices are never held at once; the scores are those of the
    # threads taking tasks of any fold
    import threading

    from textwin.model_selection import _validation

    X, Y = _data(K=3, seed=4)
    folds = [(np.arange(30, 120), np.arange(30)), (np.arange(90), np.arange(90, 120)),
             (np.r_[0:30, 90:120], np.arange(30, 90))]
    params = dict(loss="hinge", random_state=0)
    events, lock = [], threading.Lock()
    solve = _validation.held_out_path

    def recorded(fold, built, *args):
        with lock:
            events.append(("start", fold.p))
        try:
            return solve(fold, built, *args)
        finally:
            with lock:
                events.append(("end", fold.p))

    monkeypatch.setattr(_validation, "held_out_path", recorded)

    def run(one_fold):
        scores = np.full((120, 3, 2), np.nan)
        parts = matrix_folds([(X[tr], X[te]) for tr, te in folds], Y, "multilabel", folds,
                             False, scores, params)
        FoldPaths(parts, None, True, 120, 3, 2, out=scores,
                  one_fold_at_a_time=one_fold).extend(np.array([1.0, 0.1]))
        return scores

    together = run(False)
    events.clear()
    np.testing.assert_array_equal(run(True), together)
    ends = {p: 0 for p in range(3)}
    for what, p in events:
        if what == "start":  # every problem of the folds before it has ended
            assert all(ends[q] == 3 for q in range(p))
        else:
            ends[p] += 1
    assert ends == {0: 3, 1: 3, 2: 3}

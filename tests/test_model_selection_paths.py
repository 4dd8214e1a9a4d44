"""Regularization paths (textwin/model_selection/_paths.py): every point a cold fit's
solution, lam_max, the grids of lam, held-out path scores and paths solved in pieces
(docs/mathematics.md §13)."""
import numpy as np
import pytest
from _model_selection_data import text_like
from _reference import conj, grad_h, h

from textwin import DualGaussSeidelClassifier, DualGaussSeidelClassifierCV, regularization_path
from textwin._losses_and_regularizers import LOSSES, REGULARIZERS, loss_named, regularizer_named
from textwin.model_selection import lam_max


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
    X, y01 = text_like()
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
    X, y = text_like(n=300, d=120, seed=3)
    lams = lam_max(X, y) * np.logspace(0, -3, 7)
    path = regularization_path(X, y, lams, tol=1e-4, random_state=0)
    cold = [DualGaussSeidelClassifier(lam=lam, tol=1e-4, random_state=0).fit(X, y).n_iter_[0]
            for lam in lams]
    assert path.n_iter.sum() < 0.9 * sum(cold), (path.n_iter.ravel(), cold)


def test_lam_max_is_exact_for_the_hinge_with_the_square_regularizer():
    X, y = text_like(seed=1)
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
    X, y01 = text_like(seed=2)
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
    X, y = text_like(seed=4)
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
    X, Y = text_like(n_labels=3, seed=5)
    path = regularization_path(X, Y, lams=3, tol=1e-4, random_state=0)
    assert path.coef.shape == (3, 3, X.shape[1])
    assert path.lams[0] == pytest.approx(lam_max(X, Y))
    assert np.all(np.diff(path.lams) < 0)


@pytest.mark.parametrize("lams", [[1e-2, 0.0], [1e-2, -1], [np.nan], [np.inf], [], "many", 0])
def test_bad_lams_get_a_one_line_error(lams):
    X, y = text_like()
    with pytest.raises(ValueError, match="lams") as info:
        DualGaussSeidelClassifierCV(lams=lams).fit(X, y)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="lams"):
        regularization_path(X, y, lams)


def test_lams_are_sorted_descending_and_deduplicated():
    X, y = text_like()
    clf = DualGaussSeidelClassifierCV(lams=[1e-3, 1e-1, 1e-2, 1e-1], cv=3, random_state=0)
    clf.fit(X, y)
    np.testing.assert_array_equal(clf.lams_, [1e-1, 1e-2, 1e-3])
    assert clf.cv_scores_.shape == (3, 3)


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



@pytest.mark.parametrize("share", [0.0, 0.05, 0.6, 0.7, 1.0])
def test_a_path_stop_gives_back_its_dual_variables_value_for_value(share):
    from textwin.model_selection._paths import PathStop

    rng = np.random.default_rng(3)
    alpha = np.where(rng.random(500) < share, rng.random(500), 0.0)
    stop = PathStop(alpha, 0.25)
    again = stop.alpha()
    np.testing.assert_array_equal(again, alpha)
    assert again is not stop.value and stop.sigma == 0.25
    again[:] = 7.0  # a new vector each time: the solver updates it in place
    np.testing.assert_array_equal(stop.alpha(), alpha)
    # the nonzeros alone where they are fewer: 12 bytes each against 8 per variable
    kept = stop.value.nbytes + (0 if stop.index is None else stop.index.nbytes)
    assert kept <= alpha.nbytes and (stop.index is None) == (share >= 0.7)

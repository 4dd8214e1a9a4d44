"""Algorithm 2 (docs/mathematics.md §8): an unregularized bias by augmented Lagrangian."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from textwin.linear import DualGaussSeidelClassifier, DualSVM, ModifiedLeastSquares


def _problem(seed, n=300, d=40):
    """Sparse data whose labels have an offset, so that the bias matters."""
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=0.3, random_state=rng, format="csr")
    y = np.where(X @ rng.randn(d) + 0.5 * rng.randn(n) + 1.0 > 0, 1.0, -1.0)
    return X, y


def _primal(est, X, y, lam):
    """(1/n) sum hinge(y (w x + b)) + lam/2 ||w||^2: the SVM objective with a free bias."""
    w = est.coef_.toarray().ravel() if sp.issparse(est.coef_) else est.coef_.ravel()
    u = y * (X @ w + est.intercept_[0])
    return np.mean(np.maximum(0.0, 1.0 - u)) + 0.5 * lam * w @ w


@pytest.mark.parametrize("seed, lam", [(0, 1e-2), (1, 1e-3)])
def test_converged_algorithm2_matches_libsvm(seed, lam):
    X, y = _problem(seed)
    n = X.shape[0]
    svc = SVC(kernel="linear", C=1.0 / (lam * n), tol=1e-12).fit(X, y)
    est = DualSVM(lam=lam, fit_intercept=True, tol=1e-12, random_state=0).fit(X, y)
    assert est.intercept_solver_ == "converged"
    assert_allclose(est.coef_, svc.coef_.toarray(), atol=1e-5)
    assert_allclose(est.intercept_, svc.intercept_, atol=1e-5)
    # the constraint sum_i alpha_i y_i = 0 of the dual, in v's scaling
    residual = abs(est.dual_coef_[0] @ y) / (lam * n)
    assert residual < 1e-5
    assert est.intercept_residual_[0] == pytest.approx(residual, rel=1e-6, abs=1e-12)
    assert est.duality_gap_[0] <= 1e-12
    assert est.n_rounds_[0] >= 2  # the bias needed multiplier steps
    # libsvm's dual variables are alpha / (lam n) in docs/mathematics.md's scaling (§10)
    sv_alpha = np.zeros(n)
    sv_alpha[svc.support_] = np.abs(svc.dual_coef_.toarray().ravel()) * lam * n
    assert_allclose(est.dual_coef_[0], sv_alpha, atol=1e-4)


def test_paper_budget_can_stop_far_from_the_optimum():
    # docs/mathematics.md §8: 4 rounds x 50 epochs left relative objective errors up to
    # 6e-2 on test problems; here it stays about 1e-3 off while the converged mode
    # reaches the optimum. The fit says so with one ConvergenceWarning.
    X, y = _problem(1)
    lam = 1e-3
    converged = DualSVM(lam=lam, fit_intercept=True, tol=1e-12, random_state=0).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="Algorithm 2") as record:
        paper = DualSVM(lam=lam, fit_intercept=True, intercept_solver="paper", tol=1e-12,
                        random_state=0).fit(X, y)
    assert len([w for w in record if issubclass(w.category, ConvergenceWarning)]) == 1
    assert paper.intercept_solver_ == "paper"
    assert paper.n_rounds_[0] == 4 and paper.n_iter_[0] <= 4 * 50
    p_opt = _primal(converged, X, y, lam)
    rel_error = (_primal(paper, X, y, lam) - p_opt) / p_opt
    assert rel_error > 1e-4
    assert paper.intercept_residual_[0] > 1e-4
    assert abs(paper.intercept_[0] - converged.intercept_[0]) > 1e-3


def test_rho_and_sigma_follow_section_8():
    # Whatever the starting penalty, the multiplier steps (sigma) and the
    # stiffening (rho / 4) must end at the same optimum. (A tiny rho0 such as
    # 1e-3 makes every inner solve ill-conditioned: docs/mathematics.md warns it hurts.)
    X, y = _problem(2)
    lam = 1e-2
    ref = DualSVM(lam=lam, fit_intercept=True, tol=1e-12, random_state=0).fit(X, y)
    for rho0 in (0.1, 10.0):
        est = DualSVM(lam=lam, fit_intercept=True, tol=1e-12, rho0=rho0,
                      random_state=0).fit(X, y)
        assert_allclose(est.intercept_, ref.intercept_, atol=1e-5)
        assert_allclose(est.coef_, ref.coef_, atol=1e-5)


@pytest.mark.parametrize("regularizer", ["entropy", "balanced_normalized_entropy"])
def test_algorithm2_with_an_entropy_regularizer(regularizer):
    # With an unregularized bias b, the fit for a fixed b is Algorithm 1 with the
    # targets t_i = 1 - y_i b (theta = -b), and dP/db = -(1/n) sum_i alpha_i y_i:
    # the optimal b is where the fixed-b fit has sum_i alpha_i y_i = 0.
    X, y = _problem(0)
    lam, n = 1e-2, X.shape[0]
    # a fixed scale: the automatic one depends on the targets, which theta moves
    fixed_scale = dict(prior=None, mass=1.0)
    est = DualGaussSeidelClassifier(regularizer=regularizer, lam=lam, tol=1e-10, **fixed_scale,
                                    fit_intercept=True, intercept_solver="converged",
                                    random_state=0).fit(X, y)
    b = est.intercept_[0]
    assert est.intercept_residual_[0] < 1e-6
    fixed = DualGaussSeidelClassifier(regularizer=regularizer, lam=lam, tol=1e-12,
                                      theta=-b, random_state=0, **fixed_scale).fit(X, y)
    assert abs(fixed.dual_coef_[0] @ y) / (lam * n) < 1e-5
    assert_allclose(fixed.coef_, est.coef_, atol=1e-5)
    off = DualGaussSeidelClassifier(regularizer=regularizer, lam=lam, tol=1e-12,
                                    theta=-(b + 0.1), random_state=0, **fixed_scale).fit(X, y)
    assert abs(off.dual_coef_[0] @ y) / (lam * n) > 1e-3
    # "auto" keeps the paper's choice for a balanced entropy (a regularized
    # constant feature); a positive entropy gets Algorithm 2 (see below)
    auto = DualGaussSeidelClassifier(regularizer=regularizer, lam=lam, tol=1e-10,
                                     fit_intercept=True, random_state=0, **fixed_scale).fit(X, y)
    if regularizer.startswith("balanced"):
        assert auto.intercept_solver_ == "constant_feature"
        assert not hasattr(auto, "intercept_residual_")
    else:
        assert auto.intercept_solver_ == "converged"
        assert_allclose(auto.intercept_, est.intercept_, atol=1e-6)


@pytest.mark.parametrize("regularizer", ["entropy", "normalized_entropy"])
def test_positive_entropy_bias_can_be_negative(regularizer):
    # Under a positive entropy every weight is >= 0, a constant feature's too:
    # on non-negative features such a bias can only raise the scores, and a
    # minority class got predicted everywhere (accuracy 0.28 where the
    # majority class alone gives 0.73). "auto" must give a bias of either sign.
    X = sp.random(400, 50, density=0.1, random_state=0, format="csr")
    X.data[:] = 1
    y = (np.asarray(X[:, :3].sum(axis=1)).ravel() > 0).astype(int)
    est = DualGaussSeidelClassifier(regularizer=regularizer, fit_intercept=True,
                                    mass=5.0 if regularizer == "normalized_entropy" else 1.0,
                                    random_state=0).fit(X, y)
    assert est.intercept_solver_ == "converged"
    assert est.intercept_[0] < 0
    assert est.score(X, y) > 0.9
    with pytest.warns(UserWarning, match="can only raise the scores"):
        DualGaussSeidelClassifier(regularizer=regularizer, fit_intercept=True,
                                  intercept_solver="constant_feature").fit(X, y)


def test_constant_feature_is_a_regularized_bias():
    # A constant feature 1 regularized like the others is the same problem as
    # Algorithm 1 on [X, 1]: the bias is the last weight.
    X, y = _problem(3, n=120)
    lam = 1e-2
    est = ModifiedLeastSquares(lam=lam, tol=1e-12, max_epochs=5000, random_state=0).fit(X, y)
    X1 = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
    plain = DualGaussSeidelClassifier(loss="squared_hinge", lam=lam, tol=1e-12,
                                      random_state=0).fit(X1, y)
    assert_allclose(est.coef_, plain.coef_[:, :-1], atol=1e-8)
    assert_allclose(est.intercept_, plain.coef_[:, -1], atol=1e-8)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "logistic"])
def test_constant_feature_bias_is_solved_as_the_copy_with_the_column(loss):
    # Under the square regularizer the constant feature is the kernel's bias coordinate
    # (sigma = 0, rho = 1), with no copy of X: epoch by epoch the same iterates as the
    # fit on [X, 1] (the same visiting order), so the same dual variables, duality gaps,
    # weights and bias, to rounding; a bias regularized otherwise (rho != 1) or left out
    # of a step's curvature moves them all
    X, y = _problem(4, n=150)
    X = X.multiply((np.arange(X.shape[0]) != 7)[:, None]).tocsr()  # an empty row: the bias
    X.eliminate_zeros()
    X1 = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
    common = dict(loss=loss, lam=3e-3, tol=0.0, max_epochs=6, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # tol 0: six epochs each
        bias = DualGaussSeidelClassifier(fit_intercept=True, intercept_solver="constant_feature",
                                         **common).fit(X, y)
        column = DualGaussSeidelClassifier(**common).fit(X1, y)
    assert bias.intercept_solver_ == "constant_feature"
    assert_allclose(bias.dual_coef_, column.dual_coef_, rtol=1e-10, atol=1e-13)
    assert_allclose(bias.gap_history_[0], column.gap_history_[0], rtol=1e-9)
    assert_allclose(bias.coef_, column.coef_[:, :-1], rtol=1e-10, atol=1e-13)
    assert_allclose(bias.intercept_, column.coef_[:, -1], rtol=1e-10)
    # prepared without the column: the kernel reads X itself
    prepared = DualGaussSeidelClassifier(fit_intercept=True,
                                         intercept_solver="constant_feature").prepare_fit(X, y)
    assert prepared.X is prepared.X_user and prepared.X.shape == X.shape


def test_lam_max_counts_the_regularized_bias_as_a_constant_feature():
    # the default grid's top and each path's start read the trivial solution's margins,
    # which the bias coordinate moves as the constant feature does
    from textwin.model_selection import lam_max

    X, y = _problem(6, n=200)
    X1 = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")
    with_bias = lam_max(X, y, fit_intercept=True, intercept_solver="constant_feature")
    assert_allclose(with_bias, lam_max(X1, y), rtol=1e-12)
    assert not np.isclose(with_bias, lam_max(X, y), rtol=1e-3)


def test_algorithm2_multiclass_each_problem_has_its_residual():
    rng = np.random.RandomState(5)
    X = sp.random(200, 20, density=0.4, random_state=rng, format="csr")
    y = np.argmax(X @ rng.randn(20, 3) + rng.randn(3), axis=1)
    lam = 1e-2
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = DualSVM(lam=lam, fit_intercept=True, tol=1e-10, random_state=0).fit(X, y)
    assert est.intercept_residual_.shape == (3,)
    for k in range(3):
        yk = np.where(y == k, 1.0, -1.0)
        assert abs(est.dual_coef_[k] @ yk) / (lam * X.shape[0]) < 1e-6
        svc = SVC(kernel="linear", C=1.0 / (lam * X.shape[0]), tol=1e-12).fit(X, yk)
        assert_allclose(est.intercept_[k], svc.intercept_[0], atol=1e-5)


def test_warm_start_resumes_algorithm2():
    X, y = _problem(4)
    lam = 1e-2
    cold = DualSVM(lam=lam, fit_intercept=True, tol=1e-10, random_state=0).fit(X, y)
    est = DualSVM(lam=lam, fit_intercept=True, tol=1e-10, random_state=0, warm_start=True)
    est.fit(X, y)
    rounds, epochs = est.n_rounds_[0], est.n_iter_[0]
    est.fit(X, y)  # from the optimum: alpha and the multiplier sigma = b
    assert est.n_rounds_[0] == 1 and est.n_iter_[0] < epochs / 10
    assert rounds > 1
    assert_allclose(est.intercept_, cold.intercept_, atol=1e-6)
    assert_allclose(est.coef_, cold.coef_, atol=1e-6)


def test_a_tolerance_below_rounding_does_not_blow_up_the_bias():
    # tol=1e-15 cannot be reached, so every round runs out its epochs while the
    # residual sits at rounding level. Section 8's rule alone would then divide
    # rho by 4 every round until v_b / rho (noise over a vanishing rho) throws the
    # bias off by orders of magnitude; the guards keep the optimum.
    rng = np.random.RandomState(42)
    X = sp.csr_matrix(rng.rand(15, 30))
    y = np.where(rng.randint(0, 3, size=15) == 2, 1.0, -1.0)
    lam = 0.1
    svc = SVC(kernel="linear", C=1.0 / (lam * 15), tol=1e-12).fit(X, y)
    with pytest.warns(ConvergenceWarning):
        est = DualSVM(lam=lam, fit_intercept=True, tol=1e-15, max_epochs=2000,
                      shuffle=False).fit(X, y)
    assert est.n_rounds_[0] == 100
    assert_allclose(est.intercept_, svc.intercept_, atol=1e-6)
    assert_allclose(est.coef_, svc.coef_.toarray(), atol=1e-6)

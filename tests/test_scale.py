"""The entropies' automatic scale and the degenerate-solution warning (docs/mathematics.md §14)."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from textwin import DegenerateSolutionWarning, DualGaussSeidelClassifier, RegularizedWinnow
from textwin._losses_and_regularizers import REGULARIZERS
from textwin.experiments import METHODS

ENTROPIES = [name for name, reg in REGULARIZERS.items() if reg.entropy]


def _text_like(n=600, d=3000, n_classes=4, seed=0):
    """Unit-length rows of word weights: Zipf background words plus a few words per class."""
    rng = np.random.RandomState(seed)
    y = rng.randint(n_classes, size=n)
    background = 1.0 / np.arange(1, d + 1)
    background /= background.sum()
    cue = rng.choice(d, size=(n_classes, 15), replace=False)
    rows, cols = [], []
    for i in range(n):
        words = list(rng.choice(d, size=40, p=background)) + list(rng.choice(cue[y[i]], 6))
        rows += [i] * len(words)
        cols += words
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, d))
    X.data = 1.0 + np.log(X.data)
    X = sp.diags(1.0 / np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())) @ X
    return sp.csr_matrix(X), y


def _binary_problem():
    X, y = _text_like(n=200, d=400, n_classes=2, seed=1)
    return X, y


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("regularizer", ENTROPIES)
def test_auto_scale_is_the_square_solutions_norm_at_rescaled_lam(loss, regularizer):
    # The rule: A = ||w_sq||_1 of the same problem under the square regularizer at
    # the same lam, the prior's total A, and the kernel at lam * A / d. An
    # implementation with another A, or without the rescaled lam, fails below.
    X, y = _binary_problem()
    lam, d, tol = 1e-3, X.shape[1], 1e-10
    auto = DualGaussSeidelClassifier(loss=loss, regularizer=regularizer, lam=lam, tol=tol,
                                     max_epochs=100000, random_state=0).fit(X, y)
    square = DualGaussSeidelClassifier(loss=loss, lam=lam, tol=tol, random_state=0).fit(X, y)
    A = np.abs(square.coef_).sum()
    assert auto.mass_[0] == pytest.approx(A, rel=1e-6)
    if regularizer.endswith("normalized_entropy"):
        scale = dict(mass=A)
    else:
        scale = dict(prior=A / (2 * d) if regularizer.startswith("balanced") else A / d)
    explicit = DualGaussSeidelClassifier(loss=loss, regularizer=regularizer, lam=lam * A / d,
                                         tol=tol, max_epochs=100000, random_state=0,
                                         **scale).fit(X, y)
    assert_allclose(auto.coef_, explicit.coef_, rtol=1e-4, atol=1e-6 * np.abs(A))


def test_auto_scale_works_where_the_fixed_mass_is_degenerate():
    # On text-like data over thousands of words, A = 1 is too small a 1-norm for
    # any margin: every one-vs-rest problem puts all its mass on the same common
    # word, all classes score alike (chance, 0.25). The automatic scale does as
    # well as the SVM at the same lam, silently.
    X, y = _text_like(n=1000, d=3000)
    Xt, yt, X, y = X[:400], y[:400], X[400:], y[400:]
    svm = DualGaussSeidelClassifier(lam=1e-3, random_state=0).fit(X, y).score(Xt, yt)
    with pytest.warns(DegenerateSolutionWarning, match="mass='auto'.*or a larger mass") as rec:
        fixed = DualGaussSeidelClassifier(regularizer="balanced_normalized_entropy", mass=1.0,
                                          random_state=0).fit(X, y)
    assert rec[0].message.problems == [0, 1, 2, 3]
    assert fixed.score(Xt, yt) < 0.35
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateSolutionWarning)
        for est in (RegularizedWinnow(random_state=0),
                    DualGaussSeidelClassifier(regularizer="balanced_normalized_entropy",
                                              random_state=0),
                    DualGaussSeidelClassifier(regularizer="balanced_entropy",
                                              random_state=0)):
            assert est.fit(X, y).score(Xt, yt) >= svm - 0.01


def test_scores_all_equal_are_warned_about():
    # the paper's regularized Winnow (A = 1) at a lam fit for its 1,000 binary
    # features leaves every weight near its prior 1/d on 3,000 tf-idf words
    X, y = _text_like(n=400, d=3000)
    with pytest.warns(DegenerateSolutionWarning, match="training scores are all equal"):
        RegularizedWinnow(mass=1.0, lam=1e-1, random_state=0).fit(X, y)


def test_weights_left_at_the_prior_are_warned_about():
    # An automatic scale with a lam far too large: the weights never leave the prior
    X, y = _binary_problem()
    with pytest.warns(DegenerateSolutionWarning, match="Lower lam"):
        DualGaussSeidelClassifier(regularizer="balanced_normalized_entropy", lam=1e4,
                                  random_state=0).fit(X, y)
    # a large positive prior: the scores spread (10 * sum_j x_ij), the weights stay put
    with pytest.warns(DegenerateSolutionWarning, match="weights are still the prior's"):
        DualGaussSeidelClassifier(regularizer="entropy", prior=10.0, lam=1e3,
                                  random_state=0).fit(X, y)
    with pytest.warns(DegenerateSolutionWarning, match="Use prior='auto'"):  # an array prior
        DualGaussSeidelClassifier(regularizer="entropy", prior=np.full(X.shape[1], 10.0),
                                  lam=1e3, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateSolutionWarning)
        DualGaussSeidelClassifier(regularizer="balanced_normalized_entropy", lam=1e-2,
                                  random_state=0).fit(X, y)


def test_the_paper_presets_keep_their_scale():
    # the reproduction's regularized Winnows keep A = 1 (the paper's figures)
    for key in ("rwinnow", "rwinnow-0.3", "rwinnow-balanced"):
        assert METHODS[key].build(9603).get_params()["mass"] == 1.0
    assert RegularizedWinnow().get_params()["mass"] == "auto"


def test_fixed_scale_is_unchanged():
    # an explicit mass or prior is used as given: no square solve, no rescaled lam
    X, y = _binary_problem()
    est = DualGaussSeidelClassifier(regularizer="normalized_entropy", mass=2.5, lam=1e-2,
                                    random_state=0).fit(X, y)
    assert est.mass_[0] == 2.5
    assert est.coef_.sum() == pytest.approx(2.5)
    est = DualGaussSeidelClassifier(regularizer="entropy", prior=None, lam=1e-2,
                                    random_state=0).fit(X, y)
    assert est.mass_[0] == pytest.approx(1.0)  # the uniform 1/d prior's total


@pytest.mark.parametrize("params, message", [
    (dict(prior="uniform"), "prior must be 'auto', None"),
    (dict(mass="large"), "mass must be 'auto', 'prior' or a finite number"),
    (dict(regularizer="normalized_entropy", mass="prior"), "mass='prior' takes the total"),
])
def test_bad_scale_settings(params, message):
    X, y = _binary_problem()
    with pytest.raises(ValueError, match=message):
        DualGaussSeidelClassifier(**params).fit(X, y)


def test_square_ignores_the_automatic_scale():
    X, y = _binary_problem()
    est = DualGaussSeidelClassifier(random_state=0).fit(X, y)
    assert est.get_params()["prior"] == "auto" and not hasattr(est, "mass_")

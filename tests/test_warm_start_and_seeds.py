"""Resuming a stopped fit with warm_start, and random_state as a numpy Generator."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from textwin import DualSVM


@pytest.fixture
def problem():
    rng = np.random.RandomState(0)
    X = sp.random(300, 60, density=0.1, random_state=0, format="csr")
    Y = np.column_stack([X @ rng.randn(60) > 0, X @ rng.randn(60) > 0.1]).astype(int)
    return X, Y


def test_the_convergence_warning_says_how_to_continue(problem):
    X, Y = problem
    with pytest.warns(ConvergenceWarning, match="With warm_start=True, calling fit again "
                                                "continues from where this fit stopped"):
        DualSVM(max_epochs=2, tol=1e-9).fit(X, Y)


def test_a_fit_stopped_at_max_epochs_continues_where_it_stopped(problem):
    X, Y = problem
    kw = dict(tol=1e-6, random_state=0)
    cold = DualSVM(max_epochs=100_000, **kw).fit(X, Y)
    half = cold.n_iter_.min() // 2
    resumed = DualSVM(max_epochs=half, warm_start=True, **kw)
    with pytest.warns(ConvergenceWarning):
        resumed.fit(X, Y)
    stopped_gap = resumed.duality_gap_.copy()
    resumed.set_params(max_epochs=100_000).fit(X, Y)
    assert np.all(resumed.duality_gap_ <= 1e-6) and np.all(resumed.duality_gap_ < stopped_gap)
    # the second fit starts from the first one's dual variables: far fewer epochs than
    # from zero, and the two fits together cost about one cold fit
    assert np.all(resumed.n_iter_ < 0.8 * cold.n_iter_)
    assert np.all(half + resumed.n_iter_ < 1.2 * cold.n_iter_)
    assert_allclose(resumed.coef_, cold.coef_, atol=1e-3 * np.abs(cold.coef_).max())


def test_random_state_may_be_a_generator(problem):
    X, Y = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a, b = (DualSVM(random_state=np.random.default_rng(7), max_epochs=3, n_jobs=n_jobs)
                .fit(X, Y).coef_ for n_jobs in (1, 2))
        other = DualSVM(random_state=np.random.default_rng(8), max_epochs=3).fit(X, Y).coef_
    assert_array_equal(a, b)  # the same generator state gives the same fit, any n_jobs
    assert not np.array_equal(a, other)  # the generator is used, not ignored


def test_one_seed_drawn_for_every_problem():
    from textwin._ovr import problem_seeds

    assert_array_equal(problem_seeds(np.random.default_rng(3), 4),
                       np.full(4, np.random.default_rng(3).integers(0, np.iinfo(np.int32).max)))
    assert_array_equal(problem_seeds(5, 4), problem_seeds(np.random.RandomState(5), 4))


def test_a_problems_fit_does_not_depend_on_the_others():
    # as scikit-learn's one-vs-rest: label column k alone, or among others in
    # any order, is the same fit (it was seeded by its position)
    X = sp.random(300, 40, density=0.2, random_state=1, format="csr")
    Y = (X @ np.random.RandomState(2).randn(40, 3) > 0.1).astype(int)
    together = DualSVM(lam=1e-3, random_state=0).fit(X, Y)
    for k in range(3):
        alone = DualSVM(lam=1e-3, random_state=0).fit(X, Y[:, [k]])
        assert_array_equal(alone.coef_[0], together.coef_[k])
    swapped = DualSVM(lam=1e-3, random_state=0).fit(X, Y[:, ::-1])
    assert_array_equal(swapped.coef_[::-1], together.coef_)

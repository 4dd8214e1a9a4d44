"""make_winnow_data: the generator of *Regularized Winnow methods*, section 4."""
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from textwin.datasets._synthetic import make_winnow_data

TARGET = np.array([1, 1, 1, 1, 1, -1], dtype=float)


def test_shape_values_and_constant_feature():
    X, y = make_winnow_data(500, 50, random_state=0)
    assert sp.isspmatrix_csr(X) and X.shape == (500, 51)
    dense = X.toarray()
    assert set(np.unique(dense[:, :50])) <= {0.0, 1.0}
    assert_array_equal(dense[:, 50], 1.0)  # the constant feature, last
    assert set(np.unique(y)) == {-1.0, 1.0}
    X2, _ = make_winnow_data(500, 50, random_state=0, add_constant=False, sparse=False)
    assert isinstance(X2, np.ndarray) and X2.shape == (500, 50)
    assert_array_equal(X2, dense[:, :50])


def test_label_noise_rate_and_margin_filter():
    n = 40000
    X, y, truth = make_winnow_data(n, 30, random_state=1, return_truth=True, sparse=False,
                                   add_constant=False)
    score = X[:, :6] @ TARGET
    true_label = np.where(score >= 2, 1.0, -1.0)
    wrong = y != true_label
    # the mask agrees with the labels, and about 5% are wrong (4 sigma band)
    assert_array_equal(wrong, truth.flipped)
    sigma = np.sqrt(0.05 * 0.95 / n)
    assert abs(wrong.mean() - 0.05) < 4 * sigma
    # the clean points all have margin >= 1: none sits at w x = theta = 2
    assert np.all(np.abs(score[~wrong] - 2) >= 1)
    # the flipped points are not filtered: some lie at w x = 2 (about 31% of draws)
    assert np.mean(score[wrong] == 2) == pytest.approx(10 / 32, abs=0.05)
    # the irrelevant features are fair coins, untouched by the filter
    assert abs(X[:, 6:].mean() - 0.5) < 0.01
    assert_array_equal(truth.coef[:6], TARGET)
    assert not truth.coef[6:].any() and truth.threshold == 2.0


def test_noise_parameter_and_margin_zero():
    X, y, truth = make_winnow_data(3000, 20, noise=0.0, margin=0.0, random_state=2,
                                   return_truth=True, sparse=False)
    assert not truth.flipped.any()
    score = X[:, :20] @ truth.coef
    assert_array_equal(y, np.where(score >= 2, 1.0, -1.0))
    assert np.any(score == 2)  # margin 0 keeps the points on the threshold


def test_reproducible_and_seed_dependent():
    a = make_winnow_data(100, 40, random_state=3)
    b = make_winnow_data(100, 40, random_state=3)
    c = make_winnow_data(100, 40, random_state=4)
    assert (a[0] != b[0]).nnz == 0 and np.array_equal(a[1], b[1])
    assert (a[0] != c[0]).nnz > 0


@pytest.mark.parametrize(
    "kwargs, match",
    [({"n_features": 5}, "n_features"), ({"noise": 1.5}, "noise"),
     ({"margin": 3.5}, "margin"), ({"n_samples": 0}, "n_samples")],
)
def test_bad_arguments(kwargs, match):
    args = {"n_samples": 10, "n_features": 10, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_winnow_data(**args)

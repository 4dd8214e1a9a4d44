"""The artificial data set of Zhang's *Regularized Winnow methods*, section 4.

The paper describes it as follows (quoted from ``seeds/000_*.txt``, section 4):

    "We select an input data dimension d, with d = 500 or d = 5000. The first 5
    components of the target linear weight w are set to ones; the 6th component
    is -1; and the remaining components are zeros. The linear threshold theta is
    2. Data are generated as random vectors with each component randomly chosen
    to be either 0 or 1 with probability 0.5 each. Five percent of the data are
    given wrong labels. The remaining data are given correct labels, but we
    remove data with margins that are less than 1. One thousand training and one
    thousand test data are generated."

and, about the methods: "We also compensate the effect of theta by appending a
constant 1 to each data point".
"""
import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_random_state

__all__ = ["make_winnow_data"]


def make_winnow_data(
    n_samples=1000,
    n_features=500,
    *,
    noise=0.05,
    margin=1.0,
    threshold=2.0,
    add_constant=True,
    sparse=True,
    return_truth=False,
    random_state=None,
):
    """Generate the synthetic problem of the *Regularized Winnow* paper (section 4).

    The target weight is ``w = (1, 1, 1, 1, 1, -1, 0, ..., 0)`` (``n_features``
    entries), the threshold ``theta = 2``. Every feature of ``x`` is 0 or 1 with
    probability 1/2. The true label is ``+1`` when ``w @ x >= theta`` and ``-1``
    otherwise. A fraction ``noise`` of the samples gets the wrong label; the
    other samples keep the true label and are kept only if their margin
    ``|w @ x - theta|`` is at least ``margin``.

    Where the paper's text leaves room, this implementation reads it as follows
    (each choice is a parameter):

    * "Five percent of the data are given wrong labels": each returned sample is,
      independently with probability ``noise``, a *flipped* sample drawn from the
      unfiltered distribution with its label inverted; otherwise it is a *clean*
      sample drawn from the margin-filtered distribution. So about 5 % of the
      returned labels are wrong, as the sentence says, and the margin filter
      applies to "the remaining data" only, as the next sentence says.
    * On binary data ``w @ x`` is an integer, so with ``theta = 2`` and
      ``margin = 1`` the filter removes exactly the points with ``w @ x = 2``
      (about 31 % of the draws). A flipped sample with ``w @ x = theta`` lies on
      the target hyperplane; its true label is taken as ``+1`` (``>= theta``), so
      its returned label is ``-1``.
    * The constant feature the paper appends "to compensate the effect of theta"
      is the last column (value 1) when ``add_constant=True``. The paper uses
      1000 training and 1000 test samples: call this function twice with
      different seeds, or once with ``n_samples=2000`` and split.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples returned.
    n_features : int, default=500
        Dimension ``d`` of the random binary part (the paper uses 500 and
        5000); must be at least 6.
    noise : float in [0, 1], default=0.05
        Probability that a sample is a flipped (wrongly labelled) one.
    margin : float, default=1.0
        Clean samples with ``|w @ x - threshold| < margin`` are rejected.
    threshold : float, default=2.0
        The target threshold ``theta``.
    add_constant : bool, default=True
        Append a constant feature equal to 1 as the last column.
    sparse : bool, default=True
        Return ``X`` as a CSR matrix (float64); otherwise as a dense array.
    return_truth : bool, default=False
        Also return a :class:`~sklearn.utils.Bunch` with ``coef`` (the target
        weight, without the constant feature), ``threshold`` and ``flipped``
        (boolean mask of the wrongly labelled samples).
    random_state : int, RandomState instance or None, default=None
        Seed of the generator.

    Returns
    -------
    X : {sparse matrix, ndarray} of shape (n_samples, n_features + add_constant)
        Binary features (and the constant column).
    y : ndarray of shape (n_samples,)
        Labels in ``{-1, +1}``.
    truth : Bunch
        Only when ``return_truth=True``.

    Examples
    --------
    >>> from textwin.datasets import make_winnow_data
    >>> X, y = make_winnow_data(1000, 500, random_state=0)
    >>> X.shape
    (1000, 501)
    """
    n_samples = int(n_samples)
    n_features = int(n_features)
    if n_samples < 1:
        raise ValueError(f"n_samples must be at least 1, got {n_samples}.")
    if n_features < 6:
        raise ValueError(
            f"n_features must be at least 6 (the target weight has 6 nonzero "
            f"components), got {n_features}."
        )
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise must be a probability in [0, 1], got {noise}.")
    if margin < 0:
        raise ValueError(f"margin must be non-negative, got {margin}.")
    # w @ x ranges over the integers -1..5, so the largest possible margin is:
    widest = max(5.0 - threshold, threshold + 1.0)
    if margin > widest and noise < 1.0:
        raise ValueError(
            f"margin={margin} rejects every sample: |w @ x - threshold| is at "
            f"most {widest} with threshold={threshold}."
        )
    rng = check_random_state(random_state)

    coef = np.zeros(n_features)
    coef[:5] = 1.0
    coef[5] = -1.0

    flipped = rng.random_sample(n_samples) < noise
    X = np.empty((n_samples, n_features), dtype=np.float64)
    # Flipped samples: one unfiltered draw each.
    n_flip = int(flipped.sum())
    X[flipped] = rng.randint(0, 2, size=(n_flip, n_features))
    # Clean samples: rejection sampling against the margin filter. Only the six
    # relevant coordinates decide acceptance, so redraw those in blocks.
    clean = np.flatnonzero(~flipped)
    X[clean] = rng.randint(0, 2, size=(clean.size, n_features))
    todo = clean
    while todo.size:
        score = X[todo, :6] @ coef[:6]
        bad = np.abs(score - threshold) < margin
        todo = todo[bad]
        if todo.size:
            X[todo, :6] = rng.randint(0, 2, size=(todo.size, 6))

    y = np.where(X @ coef >= threshold, 1.0, -1.0)
    y[flipped] *= -1.0

    if add_constant:
        X = np.hstack([X, np.ones((n_samples, 1))])
    if sparse:
        X = sp.csr_matrix(X)
    if return_truth:
        return X, y, Bunch(coef=coef, threshold=float(threshold), flipped=flipped)
    return X, y

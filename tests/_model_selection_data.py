"""Data shared by the tests of textwin/model_selection/."""
import numpy as np
import scipy.sparse as sp


def text_like(n=90, d=40, seed=0, n_labels=1):
    """Non-negative sparse rows of unit length; labels from a sparse linear score."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.15, random_state=seed, format="csr",
                  data_rvs=lambda k: rng.random(k) + 0.1)
    X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1) + 1e-12)))
    W = rng.normal(size=(d, n_labels)) * (rng.random((d, n_labels)) < 0.3)
    S = X @ W + 0.1 * rng.normal(size=(n, n_labels))
    Y = (S > np.median(S, axis=0)).astype(int)
    return X, (Y[:, 0] if n_labels == 1 else Y)


class Clock:
    """A clock that moves one second each time it is read."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 1.0
        return self.now

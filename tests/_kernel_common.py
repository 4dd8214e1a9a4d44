"""Small problems and a one-call solve shared by the kernel's tests (tests/test_kernel_*.py)."""
import numpy as np
import scipy.sparse as sp

import _reference as R
from textwin._kernels._dual_gs import dual_gauss_seidel
from textwin._losses_and_regularizers import REGULARIZERS, loss_named


ENTROPIES = [name for name, reg in REGULARIZERS.items() if reg.entropy]


def make_csr(n=60, d=15, density=0.4, seed=0, binary=False, empty_rows=()):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    X.data = np.ones(X.nnz) if binary else rng.normal(size=X.nnz)
    X = X.tolil()
    for i in empty_rows:
        X[i, :] = 0
    X = X.tocsr()
    X.eliminate_zeros()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return X, y


def reuters_like(n=300, d=2000, seed=0):
    """Binary sparse rows with Zipf feature frequencies, labels from a few features."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, d + 1)
    p = np.minimum(0.5, 30 * p / p.sum())
    X = sp.csr_matrix((rng.random((n, d)) < p).astype(np.float64))
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    y = np.where(X[:, :40] @ rng.normal(size=40) > 0.3, 1.0, -1.0)
    return X, y


def solve(X, y, loss="hinge", regularizer="square", t=None, s=None, alpha=None, **kw):
    n, d = X.shape
    t = np.full(n, loss_named(loss).default_gamma) if t is None else t
    s = np.ones(n) if s is None else s
    alpha = np.zeros(n) if alpha is None else alpha
    if REGULARIZERS[regularizer].entropy:
        kw.setdefault("mu", np.full(d, 1.0 / d))
    res = dual_gauss_seidel(X.data, X.indices, X.indptr, y, t, s, alpha, d,
                            loss=loss, regularizer=regularizer, **kw)
    res["alpha"] = alpha
    return res


def primal_square(X, y, w, loss, lam, t=1.0):
    return np.mean(R.loss_value(loss, y * (X @ w), t)) + lam / 2 * w @ w


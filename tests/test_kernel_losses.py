"""The losses (textwin/_kernels/_losses.pyx) against docs/mathematics.md §4: the
conjugate and its derivatives by the Fenchel-Young identity, and per-example gap terms
that are never negative anywhere in the dual domain."""
import numpy as np
import pytest

import _reference as R
from _kernel_common import make_csr
from textwin._kernels import _dual_gs as K
from textwin._kernels import _losses as KL
from textwin._losses_and_regularizers import LOSSES, REGULARIZERS


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_gap_terms_nonnegative_anywhere_in_domain(loss, regularizer):
    X, y = make_csr(n=50, d=12, seed=2)
    n = X.shape[0]
    rng = np.random.default_rng(3)
    s = rng.uniform(0.1, 2, size=n)
    lo, hi = R.domain(loss, 1.0)
    a = rng.uniform(0.01, 0.99, size=n) * s if np.isfinite(hi) else rng.uniform(-1 if lo < 0 else 0, 3, size=n)
    a[:5] = 0.0 if lo == 0 and loss != "logistic" else a[:5]
    t = rng.uniform(-1, 1, size=n)
    terms = K.gap_terms(X.data, X.indices, X.indptr, y, t, s, a, X.shape[1], loss=loss,
                        regularizer=regularizer, lam=0.1,
                        mu=rng.uniform(0.5, 1, 12) if REGULARIZERS[regularizer].entropy else None)
    assert np.all(terms >= 0)
    assert terms.max() > 0


@pytest.mark.parametrize("loss", LOSSES)
def test_loss_shims_fenchel_young(loss):
    t, s = 0.7, 1.6
    lo, hi = KL.py_domain(loss, s)
    assert (lo, hi) == R.domain(loss, s)
    for u in np.linspace(-3, 3, 13):
        # at the optimum alpha = -s f'(u) (inside the domain) the gap term vanishes
        if loss == "logistic":
            a = s / (1 + np.exp(u - t))
        elif loss == "hinge":
            a = s if u < t else 0.0
        else:
            a = 2 * s * (t - u)
            if loss == "squared_hinge":
                a = max(a, 0.0)
        assert KL.py_gap_term(loss, u, a, t, s) == pytest.approx(0, abs=1e-12)
        for a2 in np.linspace(max(lo, -3) + 1e-3, min(hi, 3) - 1e-3, 7):
            direct = s * KL.py_loss(loss, u, t) + KL.py_conj(loss, a2, t, s) + a2 * u
            assert KL.py_gap_term(loss, u, a2, t, s) == pytest.approx(direct, abs=1e-10)
            assert KL.py_gap_term(loss, u, a2, t, s) >= 0
            eps = 1e-6
            fd = (KL.py_conj(loss, a2 + eps, t, s) - KL.py_conj(loss, a2 - eps, t, s)) / (2 * eps)
            assert KL.py_dconj(loss, a2, t, s) == pytest.approx(fd, rel=1e-5, abs=1e-7)
            fd2 = (KL.py_dconj(loss, a2 + eps, t, s) - KL.py_dconj(loss, a2 - eps, t, s)) / (2 * eps)
            assert KL.py_d2conj(loss, a2, t, s) == pytest.approx(fd2, rel=1e-4, abs=1e-6)


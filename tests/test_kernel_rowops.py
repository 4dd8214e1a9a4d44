"""The hand-written C of the entropy rows (textwin/_kernels/src/rowops*.c): the SIMD path
chosen at import, each path's per-entry exponentials exact to rounding on every tier of
their polynomials (docs/mathematics.md §5), libm beyond the cap, every factor applied
once, and the same steps on every path."""
import os
import subprocess
import sys

import numpy as np
import pytest

from _kernel_common import reuters_like, solve
from textwin._kernels import _dual_gs as K
from textwin._kernels import _regularizers as KR
from textwin._losses_and_regularizers import REGULARIZERS


SIMD_PATHS = ["baseline", "avx2+fma"]


@pytest.fixture(params=SIMD_PATHS)
def simd(request):
    """Run a test on each SIMD path of the per-entry loops this CPU has."""
    best = K.simd_path()
    if K._select_simd(request.param) != request.param:
        K._select_simd("best")
        pytest.skip(f"this CPU or build has no {request.param} path")
    yield request.param
    K._select_simd(best)


def test_simd_path_names():
    assert K.simd_path() in SIMD_PATHS
    with pytest.raises(ValueError, match="unknown SIMD path"):
        K._select_simd("sse9")


@pytest.mark.parametrize("value", ["baseline", "best", "AVX2+FMA ", "sse9"])
def test_textwin_simd_chooses_the_path_at_import(value, tmp_path):
    # TEXTWIN_SIMD=baseline makes runs comparable across machines; a value it
    # does not know warns and takes the best path, never an error at import.
    # The child imports the textwin this process imported (installed or built
    # in place), not whatever the working directory holds.
    best = K._select_simd("best")
    home = os.path.dirname(os.path.dirname(os.path.dirname(K.__file__)))
    env = dict(os.environ, TEXTWIN_SIMD=value,
               PYTHONPATH=os.pathsep.join([home, os.environ.get("PYTHONPATH", "")]))
    code = "import textwin._kernels._dual_gs as K; print(K.simd_path())"
    out = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True,
                         text=True, env=env, cwd=tmp_path, check=True)
    expect = {"baseline": "baseline", "AVX2+FMA ": "avx2+fma"}.get(value, best)
    if value == "AVX2+FMA " and best == "baseline":
        expect = "baseline"                          # the CPU has no AVX2: the best it has
    assert out.stdout.strip() == expect
    assert ("is not one of baseline, avx2+fma, best" in out.stderr) == (value == "sse9")


def _ulps(got, ref):
    return np.max(np.abs(got - ref) / np.spacing(ref))


# the tiers' bounds (tw_exp_tier): each polynomial must be exact to 2 ulp up to its bound
EXP_TIERS = [1.8e-4, 5.5e-3, 0.034, 0.35]


def test_exp_pm_row_is_exact_to_rounding_on_every_tier(simd):
    # the row's largest |dv x| picks the polynomial: rows reaching every bound
    # and 60 values between (a tier stretched past its bound fails here)
    for T in sorted(EXP_TIERS + list(np.geomspace(1e-7, 0.35, 60))):
        x = np.concatenate([np.linspace(-T, T, 2001), [0.0, 1e-300, -1e-20]])
        for dv in (1.0, -1.0):
            f, fi = KR.py_exp_pm_row(x, dv)
            assert _ulps(f, np.exp(dv * x)) <= 2 and _ulps(fi, np.exp(-dv * x)) <= 2, T


def test_one_value_rows_factors_are_expm1_to_rounding():
    # a one-value (binary) row takes one factor per step: e^t - 1 and e^-t - 1
    # without cancellation on every tier (the normalized rows add
    # (e^t - 1) sum E to Z, where 1 + t - 1 would lose the small steps' digits)
    for T in sorted([1.1e-5, 2.0e-3, 0.021, 0.35] + list(np.geomspace(1e-12, 0.35, 80))):
        for t in (T, -T, T / 3, -T / 7):
            ep, em = KR.py_expm1_pm(t)
            assert abs(ep - np.expm1(t)) <= 2 * np.spacing(abs(np.expm1(t))), t
            assert abs(em - np.expm1(-t)) <= 2 * np.spacing(abs(np.expm1(-t))), t
    assert KR.py_expm1_pm(0.0) == (0.0, 0.0)


def test_exp_pm_row_beyond_the_cap_uses_libm():
    f, fi = KR.py_exp_pm_row(np.zeros(3), 0.3)
    assert np.all(f == 1.0) and np.all(fi == 1.0)
    # far past the polynomials' reach: libm's e^t, and 1/e^t. Compared with numpy's
    # exp to 1 ulp, not bit for bit: each rounds e^t within an ulp by its own method,
    # and numpy's AVX-512 exp differs from glibc's by one ulp at 40.0; 1/f rounds once more
    x = np.array([0.36, -5.0, 40.0])
    f, fi = KR.py_exp_pm_row(x, 1.0, poly=False)
    assert _ulps(f, np.exp(x)) <= 1 and _ulps(fi, np.exp(-x)) <= 2


@pytest.mark.parametrize("pairs", [False, True])
@pytest.mark.parametrize("T", EXP_TIERS)
def test_row_update_applies_every_factor_once(simd, pairs, T):
    # the update along a row computes e^(dv x_k) as it applies it, four entries
    # at a time: every row length (the tails), every tier, a column repeated
    # in a row (it gets both factors), and the change of the total it returns
    rng = np.random.default_rng(int(T * 1e6))
    for n in list(range(10)) + [37]:
        d = 64
        col = rng.choice(d, n, replace=False)
        if n >= 3:
            col[2] = col[0]                              # a repeated column
        x = rng.uniform(-1.0, 1.0, n)
        dv = T / max(np.abs(x).max(), 1e-300) if n else 0.5
        w = rng.uniform(0.5, 2.0, 2 * d if pairs else d)
        ref = w.copy()
        for c, xk in zip(col, x):
            if pairs:
                ref[2 * c] *= np.exp(dv * xk)
                ref[2 * c + 1] *= np.exp(-dv * xk)
            else:
                ref[c] *= np.exp(dv * xk)
        before = w.copy()
        dz = KR.py_scale_exp(w, col, x, dv, pairs=pairs)
        once = np.ones(w.shape, bool)
        if n >= 3:
            once[[2 * col[0], 2 * col[0] + 1] if pairs else col[0]] = False
        assert _ulps(w[once], ref[once]) <= 2
        assert _ulps(w[~once], ref[~once]) <= 6 if n >= 3 else True   # two factors
        assert dz == pytest.approx((ref - before).sum(), rel=1e-12, abs=1e-15 * before.sum())


@pytest.mark.parametrize("regularizer", REGULARIZERS)
def test_simd_paths_take_the_same_steps(regularizer):
    # the AVX2/FMA loops differ from the baseline by rounding only: the same
    # steps, the same iterates to 1e-9, on rows with many values (tf-idf-like,
    # rows of 1 to 40 entries: every tail) and in the solve's late, tiny steps
    if K._select_simd("avx2+fma") != "avx2+fma":
        K._select_simd("best")
        pytest.skip("this CPU or build has no AVX2/FMA path")
    X, y = reuters_like(n=200, d=300, seed=11)
    X = X.multiply(np.random.default_rng(3).uniform(0.2, 2.0, X.shape[1])).tocsr()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    out = {}
    try:
        for path in SIMD_PATHS:
            K._select_simd(path)
            out[path] = solve(X, y, loss="squared_hinge", regularizer=regularizer, lam=1e-3,
                              tol=0.0, max_epochs=30, seed=4)
    finally:
        K._select_simd("best")
    a, b = out["baseline"], out["avx2+fma"]
    assert a["work"] == b["work"]
    np.testing.assert_allclose(a["w"], b["w"], rtol=1e-9, atol=1e-12 * np.abs(a["w"]).max())
    assert a["gap"] == pytest.approx(b["gap"], rel=1e-6, abs=1e-14)


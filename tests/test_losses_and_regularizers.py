"""The table of loss and regularizer facts (textwin._losses_and_regularizers) against the
kernel, docs/mathematics.md §4-§5 and the independent reference (tests/_reference.py)."""
import re
from pathlib import Path

import numpy as np
import pytest

import _reference as R
from textwin._kernels import _dual_gs as K
from textwin._losses_and_regularizers import (LOSSES, REGULARIZERS, loss_named,
                                              regularizer_named)

MATHEMATICS = Path(__file__).resolve().parents[1] / "docs" / "mathematics.md"


def _table_rows(section):
    """{name: cells} of the table in docs/mathematics.md §``section``, keyed by its first cell's name."""
    text = MATHEMATICS.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}. ", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in body.splitlines():
        name = re.match(r'\| `"(\w+)"`', line)
        if name:
            rows[name.group(1)] = [cell.strip() for cell in line.strip("|").split("|")]
    return rows


def test_the_tables_name_what_the_kernel_implements():
    assert tuple(LOSSES) == K.LOSSES and tuple(REGULARIZERS) == K.REGULARIZERS


@pytest.mark.parametrize("lookup, kind, kinds", [(loss_named, "loss", "losses"),
                                                 (regularizer_named, "regularizer", "regularizers")])
def test_an_unknown_name_raises_instead_of_falling_through(lookup, kind, kinds):
    with pytest.raises(ValueError, match=f"unknown {kind} 'quadratic'; valid {kinds} are"):
        lookup("quadratic")
    with pytest.raises(ValueError, match=f"unknown {kind} None"):
        lookup(None)


@pytest.mark.parametrize("name", LOSSES)
def test_each_loss_is_documented_with_its_conjugate(name):
    row = _table_rows(4).get(name)
    assert row is not None, f"docs/mathematics.md §4 has no row for {name!r}"
    assert row[2] == loss_named(name).conjugate


@pytest.mark.parametrize("name", REGULARIZERS)
def test_each_regularizer_is_documented(name):
    assert name in _table_rows(5), f"docs/mathematics.md §5 has no row for {name!r}"


@pytest.mark.parametrize("name", LOSSES)
def test_the_trivial_dual_is_minus_the_losss_slope(name):
    # alpha0 / s = -f'(u0) at the residual r = t - u0 (docs/mathematics.md §13),
    # against the reference loss's central difference, away from the hinge's kink
    loss, t = loss_named(name), loss_named(name).default_gamma
    r = np.array([-2.0, -0.5, -0.1, 0.1, 0.7, 3.0])
    u, e = t - r, 1e-6
    slope = (R.loss_value(name, u + e, t) - R.loss_value(name, u - e, t)) / (2 * e)
    np.testing.assert_allclose(loss.trivial_dual(r), -slope, rtol=1e-6, atol=1e-8)
    assert loss.default_gamma == (0.0 if loss.probabilistic else 1.0)   # §4: t = 0 for log-odds


@pytest.mark.parametrize("name", REGULARIZERS)
def test_the_trivial_weights_and_curvature_are_the_references_at_zero(name):
    # w0 = grad h(0) and g' hess h(0) g from the reference's h (mu of total 1 as the
    # estimators pass it, 1/2 per sign when balanced; the reference rescales to that)
    reg, d, A = regularizer_named(name), 7, 1.7
    rng = np.random.default_rng(0)
    mu = rng.uniform(0.5, 1.5, d)
    mu /= mu.sum() * (2 if reg.balanced else 1)
    w0 = reg.trivial_weights(mu, A)
    ref_w0 = R.grad_h(name, np.zeros(d), mu, A if reg.normalized else 1.0)
    np.testing.assert_allclose(np.zeros(d) if w0 is None else w0, ref_w0, atol=1e-15)
    for _ in range(3):
        g = rng.normal(size=d)
        ref = R.curvature(name, np.zeros(d), mu, g, A if reg.normalized else 1.0)
        assert g @ reg.curvature_at_zero(g, mu, A) == pytest.approx(ref, rel=1e-12)
    assert reg.positive == bool(reg.entropy and np.all(ref_w0 > 0))


def test_the_reference_has_no_fallback_formula():
    with pytest.raises(ValueError, match="no formula for the loss 'quadratic'"):
        R.loss_value("quadratic", np.zeros(2), 1.0)
    with pytest.raises(ValueError, match="no formula for the regularizer 'quadratic'"):
        R.h("quadratic", np.zeros(2), np.ones(2))

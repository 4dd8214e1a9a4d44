"""What the Python layers know of each loss and regularizer, one table each.

The kernel (textwin._kernels) computes with them; the estimators, the
regularization path and the tests take their facts from these tables instead
of comparing names, and a name missing here raises instead of falling through
to another loss's formula. A new loss or regularizer is a kernel class, an
entry here (a test checks that the two agree), its row in
docs/mathematics.md §4 or §5, and its formulas in tests/_reference.py.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["Loss", "Regularizer", "LOSSES", "REGULARIZERS", "loss_named", "regularizer_named"]


@dataclass(frozen=True)
class Loss:
    """A loss ``f(u)`` of the margin ``u`` with target ``t`` (docs/mathematics.md §4).

    ``conjugate``: ``K(alpha)`` for ``s = 1``, as §4's table writes it (a test
    holds the two equal).
    ``default_gamma``: the target margin when none is given. ``probabilistic``:
    the scores are log-odds (``predict_proba``). ``trivial_dual(r)``: ``alpha0 / s
    = -f'(u0)`` at the residual ``r = t - u0`` of the trivial solution
    (lam -> infinity), where the regularization path starts (§13).
    """
    name: str
    conjugate: str
    default_gamma: float
    probabilistic: bool
    trivial_dual: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Regularizer:
    """A regularizer ``h(v)``, ``w = grad h(v)`` (docs/mathematics.md §5).

    ``entropy``: exponential weights over a prior ``mu`` (the kernel's entropy
    rows). ``balanced``: ``w = w+ - w-``, weights of either sign, the uniform
    prior ``1/(2d)``. ``normalized``: ``||w||_1`` (of ``(w+, w-)``) is the mass
    ``A``. ``trivial_weights(mu, A)``: ``w0 = grad h(0)``, None where it is 0.
    ``curvature_at_zero(g, mu, A)``: ``hess h(0) @ g`` (§13).
    """
    name: str
    entropy: bool
    balanced: bool
    normalized: bool
    trivial_weights: Callable
    curvature_at_zero: Callable

    @property
    def positive(self):
        """Every weight is >= 0 (the unbalanced entropies)."""
        return self.entropy and not self.balanced


def _sigmoid(r):
    return 0.5 * (1.0 + np.tanh(0.5 * r))    # strictly inside (0, 1)


LOSSES = {loss.name: loss for loss in [
    Loss("hinge", "−tα", 1.0, False,
         lambda r: np.where(r > 0, 1.0, 0.0)),
    Loss("squared_hinge", "−tα + α²/4", 1.0, False,
         lambda r: 2.0 * np.maximum(r, 0.0)),
    Loss("least_squares", "−tα + α²/4", 1.0, False,
         lambda r: 2.0 * r),
    Loss("logistic", "α ln α + (1 − α) ln(1 − α) − tα", 0.0, True, _sigmoid),
]}

REGULARIZERS = {reg.name: reg for reg in [
    Regularizer("square", False, False, False,
                lambda mu, A: None,
                lambda g, mu, A: g),
    Regularizer("entropy", True, False, False,
                lambda mu, A: mu,
                lambda g, mu, A: mu * g),
    Regularizer("normalized_entropy", True, False, True,
                lambda mu, A: A * mu,
                lambda g, mu, A: A * (mu * g - mu * (mu @ g))),
    Regularizer("balanced_entropy", True, True, False,
                lambda mu, A: None,
                lambda g, mu, A: 2.0 * mu * g),
    Regularizer("balanced_normalized_entropy", True, True, True,
                lambda mu, A: None,
                lambda g, mu, A: 2.0 * A * mu * g),    # w0 = 0: no rank-one term
]}


def loss_named(name):
    """The :class:`Loss` called ``name``; ValueError for a name it does not know."""
    try:
        return LOSSES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown loss {name!r}; valid losses are {list(LOSSES)}") from None


def regularizer_named(name):
    """The :class:`Regularizer` called ``name``; ValueError for a name it does not know."""
    try:
        return REGULARIZERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown regularizer {name!r}; valid regularizers are "
                         f"{list(REGULARIZERS)}") from None
